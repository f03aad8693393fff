// The browser binding over real sockets, through the example server (in memory and on PostgreSQL): the callback
// finds the one login cookie named for its state however many others the browser sends, clears it on every
// answer that uses the login up, and a Cookie header too large is told so (431).

import Foundation
import LinkParseServerTestSupport
import LinkParseTestSupport
import Testing

// Nested in ExampleServerTests, whose `.serialized` it shares (see SessionLifecycleTests).
extension ExampleServerTests {
@Suite(.timeLimit(.minutes(10))) struct LoginCookieTests {
  typealias Server = ExampleServerTests
  typealias Store = ExampleServerTests.SessionLifecycleTests.Store
  /// A database of its own (the lifecycle tests empty theirs).
  static let database = "linkparse_login_cookie_test"

  /// Starts a login in a browser whose cookies are `jar` (oldest first, as browsers send them): the login
  /// cookie, added to the jar, and the callback URL the provider answers with.
  static func start(_ base: String, jar: inout [String]) async throws -> (cookie: String, callback: String) {
    let start = try await Server.fetch(base + "/login/demo", cookie: jar.isEmpty ? nil : jar.joined(separator: "; "))
    let cookie = try #require(start.cookie("lp-login-"))
    jar.append(cookie)
    let authorize = try #require(start.location)
    let callback = try #require(try await Server.fetch(authorize).location)
    return (cookie, callback)
  }

  @Test(arguments: ExampleServerTests.SessionLifecycleTests.stores)
  func seventeenAbandonedStartsThenALoginSucceeds(_ store: Store) async throws {
    try await ExampleServerTests.SessionLifecycleTests.withExample(store, database: Self.database) { base, _ in
      var jar: [String] = []
      for _ in 0..<17 { _ = try await Self.start(base, jar: &jar) }  // abandoned at the provider
      let (cookie, callback) = try await Self.start(base, jar: &jar)
      #expect(jar.last == cookie && jar.count == 18)
      let done = try await Server.fetch(callback, cookie: jar.joined(separator: "; "))
      #expect(done.status == 303 && done.location == "/me", "\(done.status) \(done.body)")
      #expect(done.setCookies.contains { $0.hasPrefix(cookie.split(separator: "=")[0] + "=;") && $0.contains("Max-Age=0") })
      // Another login completes with the same cookies sent newest first.
      let again = try await Self.start(base, jar: &jar)
      let done2 = try await Server.fetch(again.callback, cookie: jar.reversed().joined(separator: "; "))
      #expect(done2.status == 303, "\(done2.body)")
    }
  }

  /// Seventy abandoned starts in one browser that keeps what the site sets (a cookie is replaced by name, and
  /// goes at `Max-Age=0`): each start expires the oldest login cookies beyond a few, so the browser's Cookie
  /// header stays small (on the old main it grew to 37 KB and every request of the site got 431), and the last
  /// login completes.
  @Test(arguments: ExampleServerTests.SessionLifecycleTests.stores)
  func seventyAbandonedStartsInOneBrowserThenALoginSucceeds(_ store: Store) async throws {
    try await ExampleServerTests.SessionLifecycleTests.withExample(store, database: Self.database) { base, _ in
      var jar: [(name: String, value: String)] = []
      var callback = ""
      for _ in 0..<71 {
        let start = try await Server.fetch(
          base + "/login/demo", cookie: jar.isEmpty ? nil : jar.map { $0.name + "=" + $0.value }.joined(separator: "; "))
        #expect(start.status == 302, "\(start.status) \(start.body)")
        for header in start.setCookies {
          let pair = header.split(separator: ";")[0]
          let (name, value) = (String(pair.prefix { $0 != "=" }), String(pair.drop { $0 != "=" }.dropFirst()))
          jar.removeAll { $0.name == name }
          if !header.contains("Max-Age=0") { jar.append((name, value)) }
        }
        let authorize = try #require(start.location)
        callback = try #require(try await Server.fetch(authorize).location)
      }
      let header = jar.map { $0.name + "=" + $0.value }.joined(separator: "; ")
      #expect(jar.count <= 12 && header.utf8.count <= 8 * 1024, "\(jar.count) cookies, \(header.utf8.count) bytes")
      let done = try await Server.fetch(callback, cookie: header)
      #expect(done.status == 303 && done.location == "/me", "\(done.status) \(done.body)")
    }
  }

  @Test(arguments: ExampleServerTests.SessionLifecycleTests.stores)
  func anAnswerThatUsesTheLoginUpClearsItsCookie(_ store: Store) async throws {
    try await ExampleServerTests.SessionLifecycleTests.withExample(store, database: Self.database) { base, _ in
      var jar: [String] = []
      let (cookie, callback) = try await Self.start(base, jar: &jar)
      let name = String(cookie.split(separator: "=")[0])
      #expect(try await Server.fetch(callback, cookie: cookie).status == 303)
      // Replayed from the same browser (its cookie still there): 409 replayed, and the cookie is cleared.
      let replay = try await Server.fetch(callback, cookie: cookie)
      #expect(replay.status == 409 && replay.body.contains("\"code\":\"replayed\""), "\(replay.body)")
      #expect(replay.setCookies.contains { $0.hasPrefix(name + "=;") && $0.contains("Max-Age=0") }, "\(replay.setCookies)")
      // Another browser's replay learns nothing and has nothing cleared.
      let stranger = try await Server.fetch(callback)
      #expect(stranger.body.contains("\"code\":\"unknown-login\"") && stranger.setCookies.isEmpty)
    }
  }

  @Test(arguments: ExampleServerTests.SessionLifecycleTests.stores)
  func aCookieHeaderTooLargeIs431(_ store: Store) async throws {
    try await ExampleServerTests.SessionLifecycleTests.withExample(store, database: Self.database) { base, _ in
      var jar: [String] = []
      let (cookie, callback) = try await Self.start(base, jar: &jar)
      let padding = (0..<400).map { "junk\($0)=" + String(repeating: "x", count: 90) }.joined(separator: "; ")
      let answer = try await Server.fetch(callback, cookie: padding + "; " + cookie)
      #expect(answer.status == 431 && answer.body.contains("\"code\":\"cookie-header-too-large\""), "\(answer.status)")
      // The login is not spent: with the cookies cleared, it completes.
      #expect(try await Server.fetch(callback, cookie: cookie).status == 303)
    }
  }
}
}
