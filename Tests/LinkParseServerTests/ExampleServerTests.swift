// The example server (Examples/CallbackServer), run as a process the way `make serve-example` runs it: the
// demo provider's whole login over HTTP, with the in-memory store and, when the test database is there, with
// DATABASE_URL.

import Foundation
import LinkParseServerTestSupport
import Testing

@Suite(.serialized) struct ExampleServerTests {
  /// The binary built beside the test bundle (`swift build --build-tests` builds it).
  static let binary: String = {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: executable).deletingLastPathComponent()
      .appendingPathComponent("linkparse-example-server").path
  }()

  /// Runs the example on a free port with `environment`, walks the demo login, stops it.
  func walkDemoLogin(_ environment: [String: String]) async throws {
    let port = Int.random(in: 20_000..<40_000)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.binary)
    process.environment = environment.merging(["HOST": "127.0.0.1", "PORT": "\(port)"]) { a, _ in a }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      process.terminate()
      process.waitUntilExit()
    }
    var index = try? await ServerTests.get(port, "/")
    for _ in 0..<100 where index == nil {
      try await Task.sleep(for: .milliseconds(100))
      index = try? await ServerTests.get(port, "/")
    }
    #expect(index?.status == 200)
    let (start, cookie) = try await ServerTests.getWithCookie(port, "/login/demo")
    #expect(start.status == 302)
    let login = try #require(cookie)
    let authorize = try #require(start.location.flatMap(URLComponents.init(string:)))
    let back = try await ServerTests.get(port, authorize.path + "?" + (authorize.percentEncodedQuery ?? ""))
    #expect(back.status == 302)
    let callback = try #require(back.location.flatMap(URLComponents.init(string:)))
    #expect(callback.path == "/auth/demo/callback")
    let target = callback.path + "?" + (callback.percentEncodedQuery ?? "")
    // Another browser (no cookie, or another login's) is refused, and the login stays this browser's.
    #expect(try await ServerTests.get(port, target).code == "unknown-login")
    let (_, other) = try await ServerTests.getWithCookie(port, "/login/demo")
    #expect(try await ServerTests.get(port, target, cookie: try #require(other)).code == "unknown-login")
    #expect(try await ServerTests.get(port, target, cookie: login).status == 200)
    #expect(try await ServerTests.get(port, target, cookie: login).code == "replayed")
    #expect(try await ServerTests.get(port, "/auth/elsewhere").code == "unknown-route")
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
}
