// A login session's lifecycle in the example server (Examples/CallbackServer) over real sockets, with the demo
// provider, in memory and on PostgreSQL: refresh and logout exclude each other, no write removes a session's
// expiry, an idle session ends, a new login ends the session it replaces, logout refuses other sites and
// always expires the cookie, and a failing store answers 503 rather than "signed out".

import AsyncHTTPClient
import Foundation
import LinkParseServerTestSupport
import LinkParseTestSupport
import NIOCore
import NIOHTTP1
import PostgresNIO
import Testing

// Nested in ExampleServerTests, whose `.serialized` it shares: one example server at a time in this suite and
// that one (the module's other suites run beside them, and a heavier load starves their time limits).
extension ExampleServerTests {
@Suite(.timeLimit(.minutes(10))) struct SessionLifecycleTests {
  typealias Server = ExampleServerTests

  /// Where the example keeps its sessions.
  enum Store: String, CustomTestStringConvertible, Sendable {
    case memory, postgres
    var testDescription: String { rawValue }
  }

  static let database = "linkparse_lifecycle_test"
  static let stores: [Store] = TestDatabase.url == nil ? [.memory] : [.memory, .postgres]

  /// The test database's URL for `name`, through `port` when given (a proxy).
  static func databaseURL(_ name: String, port: Int? = nil) throws -> String {
    let url = try #require(TestDatabase.url)
    let path = try #require(url.range(of: "/", options: .backwards)).lowerBound
    let query = url.range(of: "?").map { String(url[$0.lowerBound...]) } ?? ""
    var head = String(url[..<path])
    if let port, let colon = head.range(of: ":", options: .backwards) { head = head[..<colon.lowerBound] + ":\(port)" }
    return head + "/" + name + query
  }

  /// Runs the demo provider (a refresh grant takes it `refreshDelay` seconds) and the example with `environment`
  /// and its sessions in `store`; `body` gets the example's and the provider's base URLs.
  static func withExample(
    _ store: Store, refreshDelay: Double = 0, environment: [String: String] = [:], databasePort: Int? = nil,
    database: String = Self.database, _ body: (_ base: String, _ issuer: String) async throws -> Void
  ) async throws {
    let port = freeLocalPorts(2)
    let base = "http://127.0.0.1:\(port)"
    let issuer = "http://127.0.0.1:\(port + 1)"
    var env = ProcessInfo.processInfo.environment.merging(environment) { _, b in b }
    env.merge(["HOST": "127.0.0.1", "PORT": "\(port)", "DEMO_PROVIDER": issuer, "LOGIN_START_LIMIT": "100000"]) { _, b in b }
    env["DATABASE_URL"] = nil
    if store == .postgres {
      try await TestDatabase.ensureDatabase(database)
      env["DATABASE_URL"] = try databaseURL(database, port: databasePort)
      env["LINKPARSE_STORE_SECRET"] = String(repeating: "ef", count: 32)
    }
    try await withChildProcess(
      "/usr/bin/env",
      ["python3", demoProviderScript, "--port", "\(port + 1)", "--redirect-prefix", base + "/", "--refresh-delay",
        "\(refreshDelay)"]
    ) {
      try await Server.waitFor(issuer + "/stats")
      try await withChildProcess(Server.binary, [], environment: env) {
        try await Server.waitFor(base + "/")
        // Not emptied: the suite's tests share the database and run at once, and a TRUNCATE would wait on (and
        // stall) another test's server mid-login. What the tests count (rows without an expiry) must be 0 for
        // every test's rows alike.
        try await body(base, issuer)
      }
    }
  }

  /// How many session rows have no expiry (PostgreSQL; 0 in memory, which has no rows to count).
  static func rowsWithoutExpiry(_ store: Store) async throws -> Int {
    guard store == .postgres else { return 0 }
    return try await TestDatabase.withClient(try TestDatabase.configuration(database: database)) { client in
      for try await count in try await client.query(
        "SELECT count(*) FROM linkparse_persist WHERE expires_at IS NULL"
      ).decode(Int64.self) { return Int(count) }
      return -1
    }
  }

  /// The `Set-Cookie` that removes the session cookie, if the answer has one.
  static func expiresSessionCookie(_ answer: Server.Answer) -> Bool {
    answer.setCookies.contains { $0.hasPrefix("lp-session=") && $0.contains("Max-Age=0") }
  }

  /// The load test of the session lifecycle: two example instances on one PostgreSQL database, 60 whole logins
  /// spread over both, then for every session at once three refreshes (on either instance) racing a logout on
  /// the other instance. Afterwards no session is alive on either instance, and no session row is left without
  /// an expiry.
  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
  func loginsRefreshesAndLogoutsOnTwoInstances() async throws {
    try await TestDatabase.ensureDatabase(Self.database)
    let port = freeLocalPorts(3)
    let (a, b, issuer) = ("http://127.0.0.1:\(port)", "http://127.0.0.1:\(port + 1)", "http://127.0.0.1:\(port + 2)")
    var env = ProcessInfo.processInfo.environment
    env.merge([
      "HOST": "127.0.0.1", "DEMO_PROVIDER": issuer, "LOGIN_START_LIMIT": "100000",
      "DATABASE_URL": try Self.databaseURL(Self.database), "LINKPARSE_STORE_SECRET": String(repeating: "ef", count: 32),
    ]) { _, b in b }
    env["PORT"] = "\(port)"
    let envA = env
    env["PORT"] = "\(port + 1)"
    let envB = env
    try await withChildProcess(
      "/usr/bin/env",
      ["python3", demoProviderScript, "--port", "\(port + 2)", "--redirect-prefix", "http://127.0.0.1:", "--refresh-delay",
        "0.05"]
    ) {
      try await Server.waitFor(issuer + "/stats")
      try await withChildProcess(Server.binary, [], environment: envA) {
        try await withChildProcess(Server.binary, [], environment: envB) {
          try await Server.waitFor(a + "/")
          try await Server.waitFor(b + "/")
          let sessions = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<60 { group.addTask { try await Server.login(i % 2 == 0 ? a : b).session } }
            var all: [String] = []
            for try await session in group { all.append(session) }
            return all
          }
          #expect(Set(sessions).count == 60)
          let logouts = try await withThrowingTaskGroup(of: Int?.self) { group in
            for (i, session) in sessions.enumerated() {
              let (mine, other) = i % 2 == 0 ? (a, b) : (b, a)
              for k in 0..<3 {
                group.addTask {
                  _ = try await Server.fetch((k == 1 ? other : mine) + "/refresh", method: .POST, cookie: session)
                  return nil
                }
              }
              group.addTask {
                try await Task.sleep(for: .milliseconds(i % 7 * 15))
                return try await Server.fetch(other + "/logout", method: .POST, cookie: session).status
              }
            }
            var statuses: [Int] = []
            for try await status in group { if let status { statuses.append(status) } }
            return statuses
          }
          #expect(logouts.count == 60 && logouts.allSatisfy { $0 == 303 }, "\(logouts)")
          // Refreshes did reach the provider (they raced the logouts; they did not all lose).
          let stats = try await Server.fetch(issuer + "/stats").body
          #expect(!stats.contains("\"refreshes\": 0,") && !stats.contains("\"refreshes\":0,"), "\(stats)")
          print("SessionLifecycleTests: 60 logins on 2 instances, 180 refreshes and 60 logouts at once; provider \(stats)")
          try await Task.sleep(for: .milliseconds(300))
          var alive = 0
          for session in sessions {
            for base in [a, b] where try await Server.fetch(base + "/me", cookie: session).status != 401 { alive += 1 }
          }
          #expect(alive == 0)
          #expect(try await Self.rowsWithoutExpiry(.postgres) == 0)
        }
      }
    }
  }

  @Test(arguments: stores)
  func aRefreshRacingALogoutLeavesNoSession(_ store: Store) async throws {
    try await Self.withExample(store, refreshDelay: 1) { base, _ in
      let (_, _, _, session) = try await Server.login(base)
      // The refresh has read the session and waits on the provider when the logout arrives.
      async let refreshed = Server.fetch(base + "/refresh", method: .POST, cookie: session)
      try await Task.sleep(for: .milliseconds(300))
      let logout = try await Server.fetch(base + "/logout", method: .POST, cookie: session)
      #expect(logout.status == 303)
      _ = try await refreshed
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
      try await Task.sleep(for: .milliseconds(200))
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
      #expect(try await Self.rowsWithoutExpiry(store) == 0)
    }
  }

  @Test(arguments: stores)
  func aRefreshAtTheLimitDoesNotExtendTheSession(_ store: Store) async throws {
    // A session of 3 s; a refresh that starts at 1.5 s and takes the provider 2 s ends after the session has.
    try await Self.withExample(store, refreshDelay: 2, environment: ["SESSION_LIFETIME": "3"]) { base, _ in
      // Timed from the login's end (the session was written before it): a slow login on a loaded runner does
      // not move the session's end past the check.
      let (_, _, _, session) = try await Server.login(base)
      let loggedIn = ContinuousClock.now
      try await Task.sleep(until: loggedIn + .milliseconds(1_500))
      _ = try await Server.fetch(base + "/refresh", method: .POST, cookie: session)
      try await Task.sleep(until: loggedIn + .milliseconds(4_000))
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
      #expect(try await Self.rowsWithoutExpiry(store) == 0)
    }
  }

  /// A session in use lives past its idle lifetime (4 s); unused for longer, it ends. Load-tolerant: a read
  /// must find the session only when it ended within 3 s of the previous read's start (the server touched the
  /// session somewhere between a read's start and its end); a loaded runner that stalls one read longer than
  /// that may rightly find it gone, and the attempt starts again with a new login (at most three).
  @Test(arguments: stores)
  func anIdleSessionEnds(_ store: Store) async throws {
    try await Self.withExample(store, environment: ["SESSION_IDLE_TIMEOUT": "4"]) { base, _ in
      var inUse = false
      var session = ""
      for attempt in 1...3 where !inUse {
        session = try await Server.login(base).session
        var previous = ContinuousClock.now
        let began = previous
        var stalled = false
        // In use for 6 s, one read every 0.5 s: alive past its idle lifetime.
        while !stalled, ContinuousClock.now - began < .seconds(6) {
          try await Task.sleep(for: .milliseconds(500))
          let sent = ContinuousClock.now
          let status = try await Server.fetch(base + "/me", cookie: session).status
          if ContinuousClock.now - previous < .seconds(3) {
            #expect(status == 200, "attempt \(attempt): a read within 3 s of the previous one")
          } else {
            stalled = true  // the runner stalled: the session may rightly have idled out
          }
          previous = sent
        }
        inUse = !stalled
      }
      #expect(inUse, "three attempts stalled for more than 3 s between reads")
      // Unused for longer than its idle lifetime: ended.
      try await Task.sleep(for: .milliseconds(5_000))
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
    }
  }

  @Test(arguments: stores)
  func aNewLoginEndsTheSessionItReplaces(_ store: Store) async throws {
    try await Self.withExample(store) { base, _ in
      let (_, _, _, first) = try await Server.login(base)
      // The same browser logs in again: its old session cookie travels with the callback.
      let start = try await Server.fetch(base + "/login/demo", cookie: first)
      let loginCookie = try #require(start.cookie("lp-login-"))
      let authorize = try #require(start.location)
      let callback = try #require(try await Server.fetch(authorize).location)
      let done = try await Server.fetch(callback, cookie: loginCookie + "; " + first)
      #expect(done.status == 303)
      let second = try #require(done.cookie("lp-session="))
      #expect(second != first)
      #expect(try await Server.fetch(base + "/me", cookie: first).status == 401)
      #expect(try await Server.fetch(base + "/me", cookie: second).status == 200)
    }
  }

  @Test(arguments: stores)
  func logoutAndRefreshRefuseOtherSites(_ store: Store) async throws {
    try await Self.withExample(store) { base, issuer in
      let (_, _, _, session) = try await Server.login(base)
      let crossSite: [[(String, String)]] = [
        [("Origin", "https://evil.example")], [("Origin", "null")], [("Sec-Fetch-Site", "cross-site")],
        [("Sec-Fetch-Site", "same-site")], [("Origin", base), ("Sec-Fetch-Site", "cross-site")],
      ]
      for headers in crossSite {
        for path in ["/logout", "/refresh"] {
          let answer = try await Server.fetch(base + path, method: .POST, cookie: session, headers: headers)
          #expect(answer.status == 403 && answer.body.contains("\"code\":\"cross-site-request\""), "\(path) \(headers)")
        }
      }
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 200)
      // From the site's own page: logged out, the cookie expired, the provider told.
      let logout = try await Server.fetch(
        base + "/logout", method: .POST, cookie: session, headers: [("Origin", base), ("Sec-Fetch-Site", "same-origin")])
      #expect(logout.status == 303 && logout.location?.hasPrefix(issuer + "/logout?") == true)
      #expect(Self.expiresSessionCookie(logout), "\(logout.setCookies)")
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
    }
  }

  @Test(arguments: stores)
  func logoutWithoutASessionStaysOnTheSite(_ store: Store) async throws {
    try await Self.withExample(store) { base, _ in
      for cookie in [nil, "lp-session=ended"] {
        let logout = try await Server.fetch(base + "/logout", method: .POST, cookie: cookie)
        #expect(logout.status == 303 && logout.location == "/", "\(logout.location ?? "")")
        #expect(Self.expiresSessionCookie(logout), "\(logout.setCookies)")
      }
    }
  }

  /// The database goes away: `/me` is 503 (not "signed out"), logout is 503 with the cookie expired and the
  /// session not claimed to be gone; the database comes back: the session is there, and logout ends it.
  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
  func aStoreOutageIsNotSignedOut() async throws {
    let proxy = try await TCPProxy(targetPort: try TestDatabase.port())
    // A 2 s database timeout instead of the example's 10 s: the outage's answers come in seconds.
    try await Self.withExample(.postgres, environment: ["DATABASE_TIMEOUT": "2"], databasePort: proxy.port) { base, _ in
      let (_, _, _, session) = try await Server.login(base)
      await proxy.stop()
      let stopped = ContinuousClock.now
      let me = try await Server.fetch(base + "/me", cookie: session)
      #expect(me.status == 503 && me.body.contains("\"code\":\"session-store-unavailable\""), "\(me.status) \(me.body)")
      let logout = try await Server.fetch(base + "/logout", method: .POST, cookie: session)
      #expect(logout.status == 503 && logout.body.contains("\"code\":\"session-store-unavailable\""), "\(logout.status)")
      #expect(Self.expiresSessionCookie(logout), "\(logout.setCookies)")
      print("outage answers took", ContinuousClock.now - stopped)
      try await proxy.start()
      // The example's client reconnects (with its own backoff): asked again until it has.
      let restarted = ContinuousClock.now
      var back = try await Server.fetch(base + "/me", cookie: session)
      while back.status == 503 && ContinuousClock.now - restarted < .seconds(120) {
        try await Task.sleep(for: .milliseconds(500))
        back = try await Server.fetch(base + "/me", cookie: session)
      }
      #expect(back.status == 200, "\(back.status) after \(ContinuousClock.now - restarted)")
      #expect(try await Server.fetch(base + "/logout", method: .POST, cookie: session).status == 303)
      #expect(try await Server.fetch(base + "/me", cookie: session).status == 401)
    }
    await proxy.stop()
  }
}
}
