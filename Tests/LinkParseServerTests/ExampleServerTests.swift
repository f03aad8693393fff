// The example server (Examples/CallbackServer), run as a process the way `make serve-example` runs it: the
// demo provider's whole login over HTTP, with the in-memory store and, when the test database is there, with
// DATABASE_URL.

import AsyncHTTPClient
import NIOSSL
import NIOCore
import NIOHTTP1
import Foundation
import LinkParseServerTestSupport
import LinkParseTestSupport
import Testing

@Suite(.serialized, .timeLimit(.minutes(10))) struct ExampleServerTests {
  /// The binary built beside the test bundle (`swift build --build-tests` builds it), or
  /// LINKPARSE_EXAMPLE_SERVER_BINARY (to run these tests against another build, an older one say).
  static let binary: String = {
    if let other = ProcessInfo.processInfo.environment["LINKPARSE_EXAMPLE_SERVER_BINARY"], !other.isEmpty {
      return other
    }
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: executable).deletingLastPathComponent()
      .appendingPathComponent("linkparse-example-server").path
  }()


  /// What one request answered, every `Set-Cookie` included.
  struct Answer: Sendable {
    let status: Int
    let location: String?
    let setCookies: [String]
    let body: String

    /// The `name=value` of the cookie set under `prefix`.
    func cookie(_ prefix: String) -> String? {
      setCookies.first { $0.hasPrefix(prefix) }?.split(separator: ";").first.map(String.init)
    }
  }

  /// A browser for a thousand at once: a connection each, and time to wait for them.
  static let http: HTTPClient = {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow, timeout: .init(connect: .seconds(60), read: .seconds(60)))
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1_024
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()

  static func fetch(
    _ url: String, method: HTTPMethod = .GET, cookie: String? = nil, headers: [(String, String)] = [],
    form: [(String, String)]? = nil, client: HTTPClient = http
  ) async throws -> Answer {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let form {
      var components = URLComponents()
      components.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
      let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
      request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      request.body = .bytes(ByteBuffer(string: body))
    }
    if let cookie { request.headers.add(name: "Cookie", value: cookie) }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await client.execute(request, timeout: .seconds(120))
    let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
    return Answer(
      status: Int(response.status.code), location: response.headers.first(name: "location"),
      setCookies: response.headers["set-cookie"], body: body)
  }

  /// Waits until `url` answers.
  static func waitFor(_ url: String) async throws {
    for _ in 0..<150 {
      if (try? await fetch(url)) != nil { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("\(url) never answered")
  }

  /// One whole login in a fresh browser (a cookie jar of its own): start, the provider's approval, the callback
  /// with the login cookie, 303 to /me with a session; /me shows the verified subject.
  static func login(_ base: String) async throws -> (callback: String, loginCookie: String, me: String, session: String) {
    let start = try await fetch(base + "/login/demo")
    #expect(start.status == 302)
    let loginCookie = try #require(start.cookie("lp-login-"))
    let approved = try await fetch(try #require(start.location))
    #expect(approved.status == 302)
    let callback = try #require(approved.location)
    let done = try await fetch(callback, cookie: loginCookie)
    #expect(done.status == 303 && done.location == "/me", "\(done.body)")
    let session = try #require(done.cookie("lp-session="), "\(done.body)")
    let me = try await fetch(base + "/me", cookie: session)
    #expect(me.status == 200)
    return (callback, loginCookie, me.body, session)
  }

  /// The development setup for HTTPS (`make serve-example-https`): a certificate for localhost from
  /// Scripts/dev-certificate.py, the example serving TLS with it (TLS_CERTIFICATE, TLS_PRIVATE_KEY) at
  /// https://localhost, and the whole demo login over it, as a browser that trusts the certificate: the login
  /// cookie is `__Host-` and `Secure` (what a form_post login's `SameSite=None` cookie needs), so is the session
  /// cookie, /me shows the subject.
  @Test func theDemoLoginOverHTTPS() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("linkparse-tls-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let script = URL(fileURLWithPath: demoProviderScript).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Scripts/dev-certificate.py").path
    let generate = Process()
    generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    generate.arguments = ["python3", script, directory]
    try generate.run()
    while generate.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    #expect(generate.terminationStatus == 0)
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(directory + "/cert.pem")
    let browser = HTTPClient(
      eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow))
    let port = freeLocalPorts(2)
    let base = "https://localhost:\(port)"
    let issuer = "http://127.0.0.1:\(port + 1)"
    let outcome: Result<Void, any Error>
    do {
      try await withChildProcess(
        "/usr/bin/env", ["python3", demoProviderScript, "--port", "\(port + 1)", "--redirect-prefix", base + "/"]
      ) {
        try await Self.waitFor(issuer + "/stats")
        var env = ProcessInfo.processInfo.environment
        env.merge(["HOST": "127.0.0.1", "PORT": "\(port)", "DEMO_PROVIDER": issuer, "LOGIN_START_LIMIT": "100000",
          "TLS_CERTIFICATE": directory + "/cert.pem", "TLS_PRIVATE_KEY": directory + "/key.pem"]) { _, b in b }
        env["DATABASE_URL"] = nil
        env["PUBLIC_BASE_URL"] = nil
        try await withChildProcess(Self.binary, [], environment: env) {
          for _ in 0..<150 where (try? await Self.fetch(base + "/", client: browser)) == nil {
            try await Task.sleep(for: .milliseconds(100))
          }
          let start = try await Self.fetch(base + "/login/demo", client: browser)
          #expect(start.status == 302)
          let setCookie = try #require(start.setCookies.first { $0.hasPrefix("__Host-lp-login-") })
          #expect(setCookie.contains("; Secure") && setCookie.contains("; HttpOnly"))
          let loginCookie = try #require(start.cookie("__Host-lp-login-"))
          let authorize = try #require(start.location)
          let callback = try #require(try await Self.fetch(authorize).location)
          #expect(callback.hasPrefix(base + "/auth/demo/callback?"))
          let done = try await Self.fetch(callback, cookie: loginCookie, client: browser)
          #expect(done.status == 303 && done.location == "/me", "\(done.body)")
          #expect(done.setCookies.contains { $0.hasPrefix("__Host-lp-session=") && $0.contains("; Secure") })
          let session = try #require(done.cookie("__Host-lp-session="))
          let me = try await Self.fetch(base + "/me", cookie: session, client: browser)
          #expect(me.status == 200 && me.body.contains("\"subject\":\"demo-user-"), "\(me.body)")
        }
      }
      outcome = .success(())
    } catch {
      outcome = .failure(error)
    }
    try await browser.shutdown()
    try outcome.get()
  }

  /// Runs the demo provider and the example (with `environment`) on free ports, and walks the demo login as an
  /// attacker would too: the callback from another browser (no cookie, another login's) gets the uniform
  /// problem, the login's own browser then ends at /me with the verified subject, a replay is refused.
  func walkDemoLogin(_ environment: [String: String]) async throws {
    let port = freeLocalPorts(2)
    let providerPort = port + 1
    let base = "http://127.0.0.1:\(port)"
    let issuer = "http://127.0.0.1:\(providerPort)"
    try await withChildProcess(
      "/usr/bin/env",
      ["python3", demoProviderScript, "--port", "\(providerPort)", "--redirect-prefix", base + "/", "--refresh-delay",
        "0.5"]
    ) {
      try await Self.waitFor(issuer + "/stats")
      var env = ProcessInfo.processInfo.environment.merging(environment) { _, b in b }
      env.merge(["HOST": "127.0.0.1", "PORT": "\(port)", "DEMO_PROVIDER": issuer, "DEMO_JWKS_COOLDOWN": "1",
        "LOGIN_START_LIMIT": "100000"]) { _, b in b }
      try await withChildProcess(Self.binary, [], environment: env) {
        try await Self.waitFor(base + "/")
        // Another browser delivers a login's callback: refused alike, and nothing is spent.
        let start = try await Self.fetch(base + "/login/demo")
        let cookie = try #require(start.cookie("lp-login-"))
        let authorize = try #require(start.location)
        let callback = try #require(try await Self.fetch(authorize).location)
        #expect(try await Self.fetch(callback).body.contains("\"code\":\"unknown-login\""))
        let other = try #require(try await Self.fetch(base + "/login/demo").cookie("lp-login-"))
        #expect(try await Self.fetch(callback, cookie: other).body.contains("\"code\":\"unknown-login\""))
        let done = try await Self.fetch(callback, cookie: cookie)
        #expect(done.status == 303 && done.location == "/me", "\(done.body)")
        #expect(try await Self.fetch(callback, cookie: cookie).body.contains("\"code\":\"replayed\""))
        // Replayed from another browser: the uniform answer (a stranger does not learn the login was used).
        #expect(try await Self.fetch(callback).body.contains("\"code\":\"unknown-login\""))
        #expect(try await Self.fetch(callback, cookie: other).body.contains("\"code\":\"unknown-login\""))
        #expect(try await Self.fetch(base + "/me").status == 401)
        // Forged session cookies are no session: made up, empty, huge, escaped NUL, twice.
        for forged in ["lp-session=forged", "lp-session=", "lp-session=" + String(repeating: "A", count: 60_000),
          "lp-session=%00%FF", "lp-session=a; lp-session=b"]
        {
          let answer = try await Self.fetch(base + "/me", cookie: forged)
          #expect(answer.status == 401 || answer.status == 431 || answer.status == 400, "\(answer.status)")
          #expect(try await Self.fetch(base + "/refresh", method: .POST, cookie: forged).status != 200)
        }

        let (_, _, me, session) = try await Self.login(base)
        #expect(me.contains("\"subject\":\"demo-user-") && me.contains("\"issuer\":"), "\(me)")
        // RP-initiated logout: the session ends here, the provider is told (id_token_hint) and sends the
        // browser back; a GET does not log out.
        _ = try await Self.fetch(base + "/logout", cookie: session)
        #expect(try await Self.fetch(base + "/me", cookie: session).status == 200)
        let logout = try await Self.fetch(base + "/logout", method: .POST, cookie: session)
        #expect(logout.status == 303 && logout.location?.hasPrefix(issuer + "/logout?id_token_hint=") == true)
        let back = try await Self.fetch(try #require(logout.location))
        #expect(back.status == 302 && back.location == base + "/")
        #expect(try await Self.fetch(base + "/me", cookie: session).status == 401)
        #expect(try await Self.fetch(base + "/auth/elsewhere").body.contains("unknown-route"))
        try await Self.checkReturnPaths(base)

        // Twenty requests of one session ask for a refresh at once: one refresh grant at the provider (whose
        // refresh tokens are good once), the same refreshed session for all.
        let (_, _, _, refreshing) = try await Self.login(base)
        let refreshesBefore = try await Self.stat(issuer, "refreshes")
        let bodies = try await Self.concurrently(20) { _ in
          try await Self.fetch(base + "/refresh", method: .POST, cookie: refreshing)
        }
        #expect(bodies.allSatisfy { $0.status == 200 && $0.body.contains("\"refresh_count\":1") }, "\(bodies.map(\.body))")
        #expect(try await Self.stat(issuer, "refreshes") == refreshesBefore + 1)
        #expect(try await Self.stat(issuer, "refresh_reuse") == 0)

        // The provider rotates its keys: 1,000 callbacks at once after it cost exactly one JWKS fetch. (The
        // logins start and are approved in batches; their callbacks then all arrive together.)
        let before = try await Self.jwksFetches(issuer)
        #expect(try await Self.fetch(issuer + "/rotate", method: .POST).status == 200)
        try await Task.sleep(for: .milliseconds(1_100))  // past DEMO_JWKS_COOLDOWN
        var pending: [(callback: String, cookie: String)] = []
        for _ in 0..<(1_000 / 25) {
          pending += try await withThrowingTaskGroup(of: (String, String).self) { group in
            for _ in 0..<25 {
              group.addTask {
                let start = try await Self.fetch(base + "/login/demo")
                let authorize = try #require(start.location)
                let callback = try #require(try await Self.fetch(authorize).location)
                return (callback, try #require(start.cookie("lp-login-")))
              }
            }
            return try await group.reduce(into: []) { $0.append($1) }
          }
        }
        let callbacks = pending
        let succeeded = try await withThrowingTaskGroup(of: Bool.self) { group in
          for login in callbacks {
            group.addTask { try await Self.fetch(login.callback, cookie: login.cookie).status == 303 }
          }
          return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(succeeded == 1_000)
        #expect(try await Self.jwksFetches(issuer) == before + 1)
      }
    }
  }

  static func jwksFetches(_ issuer: String) async throws -> Int { try await stat(issuer, "jwks_fetches") }

  /// One counter of the demo provider's `/stats`.
  static func stat(_ issuer: String, _ name: String) async throws -> Int {
    let stats = try await fetch(issuer + "/stats").body
    let digits = stats.split(separator: "\"\(name)\": ").last?.prefix { $0.isNumber } ?? ""
    return Int(digits) ?? -1
  }

  /// `body(0..<count)` all at once; their results.
  static func concurrently<T: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (Int) async throws -> T
  ) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
      for index in 0..<count { group.addTask { try await body(index) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
  }

  /// `return_to`: a same-site path is where the login ends; anything that could leave the site is refused
  /// at the start (400 invalid-return-path, no login cookie, nothing stored).
  static func checkReturnPaths(_ base: String) async throws {
    let hostile = [
      "//evil.example/", "https://evil.example/", "%2F%2Fevil.example", "/%5Cevil.example", "/%5C%5Cevil.example",
      "javascript:alert(1)", "/ok%0D%0ASet-Cookie:%20x=y", "", "evil.example", "/a%23frag", "/%09/evil.example",
      "/ok&return_to=/other", "/..//evil.example", "/%2e%2e//evil.example",
    ]
    for value in hostile {
      let answer = try await fetch(base + "/login/demo?return_to=" + value)
      #expect(answer.status == 400 && answer.body.contains("invalid-return-path"), "return_to=\(value): \(answer.status)")
      #expect(answer.cookie("lp-login-") == nil)
    }
    let start = try await fetch(base + "/login/demo?return_to=%2Fme%3Ffrom%3Dtest")
    let loginCookie = try #require(start.cookie("lp-login-"))
    let authorize = try #require(start.location)
    let callback = try #require(try await fetch(authorize).location)
    let done = try await fetch(callback, cookie: loginCookie)
    #expect(done.status == 303 && done.location == "/me?from=test", "\(done.location ?? done.body)")
  }

  @Test func demoLoginInMemory() async throws {
    try await walkDemoLogin([:])
  }

  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
  func demoLoginOnPostgreSQL() async throws {
    // A database of its own: the store tests' and ServerTests' TRUNCATEs run meanwhile.
    try await TestDatabase.ensureDatabase("linkparse_example_test")
    let base = try #require(TestDatabase.url)
    let path = try #require(base.range(of: "/", options: .backwards)).lowerBound
    let query = base.range(of: "?").map { String(base[$0.lowerBound...]) } ?? ""  // ?sslmode=disable
    try await walkDemoLogin([
      "DATABASE_URL": base[..<path] + "/linkparse_example_test" + query,
      "LINKPARSE_STORE_SECRET": String(repeating: "ab", count: 32),
    ])
  }

  /// Two instances of the example on one database behind one public https address (each reached at its own
  /// loopback port, as a load balancer would): a login started on one completes on the other, its session
  /// (a `__Host-` cookie: Secure, HttpOnly, SameSite=Lax) works on both, is sealed at rest, refreshes once
  /// however many requests on both ask at once; a key rotation costs one JWKS fetch for both; and logging out on
  /// one ends it on the other.
  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
  func twoInstancesShareSessions() async throws {
    try await TestDatabase.ensureDatabase("linkparse_sessions_test")
    let url = try #require(TestDatabase.url)
    let path = try #require(url.range(of: "/", options: .backwards)).lowerBound
    let query = url.range(of: "?").map { String(url[$0.lowerBound...]) } ?? ""
    let databaseURL = url[..<path] + "/linkparse_sessions_test" + query
    let port = freeLocalPorts(3)
    let (a, b) = ("http://127.0.0.1:\(port)", "http://127.0.0.1:\(port + 1)")
    let publicBase = "https://app.example"
    let issuer = "http://127.0.0.1:\(port + 2)"
    // A refresh takes the provider a second: every request below has read the session before it ends.
    try await withChildProcess(
      "/usr/bin/env",
      ["python3", demoProviderScript, "--port", "\(port + 2)", "--redirect-prefix", publicBase + "/",
        "--refresh-delay", "1"]
    ) {
      try await Self.waitFor(issuer + "/stats")
      func environment(_ instancePort: Int) -> [String: String] {
        ProcessInfo.processInfo.environment.merging([
          "HOST": "127.0.0.1", "PORT": "\(instancePort)", "DEMO_PROVIDER": issuer,
          // One public address for both, as behind a load balancer: the redirect URI is the same.
          "PUBLIC_BASE_URL": publicBase, "DATABASE_URL": databaseURL,
          "LINKPARSE_STORE_SECRET": String(repeating: "cd", count: 32), "LOGIN_START_LIMIT": "100000",
          "DEMO_JWKS_COOLDOWN": "1",
        ]) { _, new in new }
      }
      try await withChildProcess(Self.binary, [], environment: environment(port)) {
        try await withChildProcess(Self.binary, [], environment: environment(port + 1)) {
          try await Self.waitFor(a + "/")
          try await Self.waitFor(b + "/")
          // Started on A, the callback on B (the redirect names A's public address: sent to B by hand).
          let start = try await Self.fetch(a + "/login/demo?return_to=%2Fme")
          let loginCookie = try #require(start.cookie("__Host-lp-login-"))
          let authorize = try #require(start.location)
          let callback = try #require(try await Self.fetch(authorize).location)
          #expect(callback.hasPrefix(publicBase + "/auth/demo/callback?"))
          let done = try await Self.fetch(b + callback.dropFirst(publicBase.count), cookie: loginCookie)
          #expect(done.status == 303 && done.location == "/me", "\(done.body)")
          let session = try #require(done.cookie("__Host-lp-session="))
          let setCookie = try #require(done.setCookies.first { $0.hasPrefix("__Host-lp-session=") })
          for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] {
            #expect(setCookie.contains("; \(attribute)"), "\(setCookie) lacks \(attribute)")
          }
          #expect(!setCookie.contains("Domain"))
          #expect(done.setCookies.contains { $0.hasPrefix("__Host-lp-login-") && $0.contains("Max-Age=0") })
          let onA = try await Self.fetch(a + "/me", cookie: session)
          let onB = try await Self.fetch(b + "/me", cookie: session)
          #expect(onA.status == 200 && onA.body == onB.body && onA.body.contains("\"subject\":\"demo-user-"))

          // At rest: the row's key is not the session id, and nothing of the session is readable.
          let sessionID = String(session.dropFirst("__Host-lp-session=".count))
          let subject = try #require(onA.body.split(separator: "\"subject\":\"").last?.prefix { $0 != "\"" })
          let rows = try await TestDatabase.withClient(try TestDatabase.configuration(database: "linkparse_sessions_test")) {
            client in
            var found: [[UInt8]] = []
            for try await (key, sealed) in try await client.query("SELECT key_hash, sealed FROM linkparse_persist")
              .decode((ByteBuffer, ByteBuffer).self)
            {
              found.append(Array(key.readableBytesView) + Array(sealed.readableBytesView))
            }
            return found
          }
          #expect(!rows.isEmpty)
          for row in rows {
            let text = String(decoding: row, as: UTF8.self)
            #expect(!text.contains(subject) && !text.contains(sessionID) && !text.contains("demo-user"))
          }

          // Forty requests of the session, half on each instance, ask for a refresh at once: one refresh
          // grant (the provider's refresh tokens are good once), one refreshed session everywhere.
          let before = try await Self.stat(issuer, "refreshes")
          let answers = try await Self.concurrently(40) { index in
            try await Self.fetch((index % 2 == 0 ? a : b) + "/refresh", method: .POST, cookie: session)
          }
          #expect(
            answers.allSatisfy { $0.status == 200 && $0.body.contains("\"refresh_count\":1") },
            "\(answers.map(\.body))")
          #expect(try await Self.stat(issuer, "refreshes") == before + 1)
          #expect(try await Self.stat(issuer, "refresh_reuse") == 0)

          // The provider rotates its keys: logins completing on both instances at once cost one JWKS fetch for
          // the two (they share their fetches in the database), not one each.
          let fetchesBefore = try await Self.jwksFetches(issuer)
          #expect(try await Self.fetch(issuer + "/rotate", method: .POST).status == 200)
          try await Task.sleep(for: .milliseconds(1_100))  // past DEMO_JWKS_COOLDOWN
          let logins = try await Self.concurrently(100) { index in
            let started = try await Self.fetch((index % 2 == 0 ? a : b) + "/login/demo")
            let authorize = try #require(started.location)
            let callback = try #require(try await Self.fetch(authorize).location)
            return (callback, try #require(started.cookie("__Host-lp-login-")))
          }
          let completed = try await Self.concurrently(logins.count) { index in
            let (callback, cookie) = logins[index]
            let instance = index % 2 == 0 ? b : a  // each completes on the other instance
            return try await Self.fetch(instance + callback.dropFirst(publicBase.count), cookie: cookie).status
          }
          #expect(completed.allSatisfy { $0 == 303 }, "\(completed)")
          #expect(try await Self.jwksFetches(issuer) == fetchesBefore + 1)

          // Logging out on B ends the session on A too.
          let logout = try await Self.fetch(b + "/logout", method: .POST, cookie: session)
          #expect(logout.status == 303)
          #expect(try await Self.fetch(a + "/me", cookie: session).status == 401)
        }
      }
    }
  }
}
