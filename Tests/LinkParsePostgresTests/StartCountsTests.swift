// StartLimits held app-wide: two instances (each a start endpoint on its own live server, over real sockets)
// add up one client's starts through a StartCountSharing — an in-memory one, and PostgresStartCounts on the
// test database — and a sharing that fails leaves each instance to its own counts.

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkParseAuthorization
import LinkParsePostgres
import LinkParseServerTestSupport
import PostgresNIO
import Testing

@testable import LinkParseHummingbird

/// Counts in this process, as a database would keep them for several instances.
actor MemoryStartCounts: StartCountSharing {
  private var counts: [Int64: [String: Int]] = [:]

  func add(_ starts: [String: Int], windowStart: Int64, windowSeconds: Int64) -> StartCountTotals {
    var totals = StartCountTotals(current: [:], previous: [:])
    for (client, n) in starts {
      counts[windowStart, default: [:]][client, default: 0] += n
      totals.current[client] = counts[windowStart]![client]
      totals.previous[client] = counts[windowStart - windowSeconds]?[client]
    }
    return totals
  }
}

/// A sharing whose database is gone.
struct FailingStartCounts: StartCountSharing {
  struct Down: Error {}
  func add(_ starts: [String: Int], windowStart: Int64, windowSeconds: Int64) throws -> StartCountTotals { throw Down() }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct StartCountsTests {
  static let vk = LoginStart.vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback")

  /// Two instances sharing `sharing`: each an endpoint whose client is the `X-Test-Client` header.
  static func withInstances(
    _ sharing: any StartCountSharing, limit: Int,
    _ body: @Sendable (_ a: any TestClientProtocol, _ b: any TestClientProtocol, _ endpoints: [LinkParseCallbackEndpoint<PendingAuthorizationStore>]) async throws -> Void
  ) async throws {
    let endpoints = (0..<2).map { _ in
      LinkParseCallbackEndpoint(
        store: PendingAuthorizationStore(), publicBaseURL: "https://example.com",
        startLimits: StartLimits(limit: limit, window: .seconds(3600)),
        clientKey: { request, _ in request.headers[HTTPField.Name("X-Test-Client")!] }, startCounts: sharing,
        now: { 1_764_000_000 + 1_800 })  // mid-window, whatever the hour: no window ends during the test
    }
    let apps = endpoints.map { endpoint in
      let router = Router(context: LoginRequestContext.self)
      endpoint.registerStart(on: router, path: "/login/vk", login: Self.vk)
      return Application(router: router)
    }
    try await apps[0].test(.live) { a in
      try await apps[1].test(.live) { b in try await body(a, b, endpoints) }
    }
  }

  /// Starts `n` logins as `client`; the statuses.
  static func starts(_ n: Int, _ client: any TestClientProtocol, as key: String) async throws -> [HTTPResponse.Status] {
    var statuses: [HTTPResponse.Status] = []
    for _ in 0..<n {
      let response = try await client.execute(
        uri: "/login/vk", method: .get, headers: [HTTPField.Name("X-Test-Client")!: key])
      statuses.append(response.status)
      if response.status == .tooManyRequests {
        #expect(response.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
      }
    }
    return statuses
  }

  /// Exchanges until the instance has heard an app-wide count of `expected` for `key` (its exchanges run in the
  /// background at most once a second; this one is the test's).
  static func settle(
    _ endpoint: LinkParseCallbackEndpoint<PendingAuthorizationStore>, _ key: String, to expected: Int
  ) async throws {
    for _ in 0..<100 {
      await endpoint.limiter.exchange(with: endpoint.limiter.sharing!)
      if endpoint.limiter.estimate(key) == expected { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("the instance heard \(endpoint.limiter.estimate(key)) starts of \(key), not \(expected)")
  }

  /// One client, limit 10, over two instances: 7 starts at A, then at B one (B has not heard of A's yet) and
  /// five more once B has heard: 2 admitted and 3 refused — 10 in all, where counts per instance would have
  /// admitted 13. Another client is not affected.
  static func checkLimitHoldsAcrossInstances(_ sharing: any StartCountSharing, key: String) async throws {
    try await withInstances(sharing, limit: 10) { a, b, endpoints in
      #expect(try await starts(7, a, as: key) == Array(repeating: .found, count: 7))
      try await settle(endpoints[0], key, to: 7)
      #expect(try await starts(1, b, as: key) == [.found])
      try await settle(endpoints[1], key, to: 8)
      #expect(try await starts(5, b, as: key) == [.found, .found, .tooManyRequests, .tooManyRequests, .tooManyRequests])
      try await settle(endpoints[0], key, to: 7)  // nothing new at A: A hears 7 + nothing of its own
      #expect(try await starts(1, a, as: "other-\(key)") == [.found])
      // Everything admitted reaches the shared counts: 10 for the client, 1 for the other.
      try await settle(endpoints[1], key, to: 10)
      try await settle(endpoints[0], "other-\(key)", to: 1)
    }
  }

  @Test func theLimitHoldsAcrossInstancesInMemory() async throws {
    try await Self.checkLimitHoldsAcrossInstances(MemoryStartCounts(), key: "client-1")
  }

  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
  func theLimitHoldsAcrossInstancesOnPostgres() async throws {
    try await TestDatabase.ensureDatabase("linkparse_start_counts_test")
    try await TestDatabase.withClient(try TestDatabase.configuration(database: "linkparse_start_counts_test")) { client in
      let counts = PostgresStartCounts(client: client, secret: TestDatabase.secret)
      try await counts.migrate()
      try await counts.migrate()  // again: idempotent
      try await client.query("TRUNCATE linkparse_start_counts")
      let key = "4:192.0.2.\(Int.random(in: 1...250))"
      try await Self.checkLimitHoldsAcrossInstances(counts, key: key)
      // The table holds keyed hashes of the clients, never their addresses.
      let rows = try await client.query("SELECT client_hash, starts FROM linkparse_start_counts")
      var stored: [(ByteBuffer, Int64)] = []
      for try await row in rows.decode((ByteBuffer, Int64).self) { stored.append(row) }
      #expect(stored.count == 2 && stored.allSatisfy { $0.0.readableBytes == 16 })
      #expect(stored.map(\.1).sorted() == [1, 10])
      #expect(!stored.contains { String(decoding: $0.0.readableBytesView, as: UTF8.self).contains("192.0.2") })
      // Another window's first exchange deletes the rows of windows before the previous one.
      _ = try await counts.add(["x": 1], windowStart: 3_600 * 1_000_000, windowSeconds: 3_600)
      let left = try await client.query("SELECT count(*) FROM linkparse_start_counts")
      for try await (n) in left.decode(Int64.self) { #expect(n == 1) }
    }
  }

  /// A sharing that fails (its database is down) does not stop the starts: each instance keeps its own counts.
  @Test func aFailingSharingLeavesEachInstanceItsOwnLimit() async throws {
    try await Self.withInstances(FailingStartCounts(), limit: 3) { a, b, endpoints in
      let atA = try await Self.starts(4, a, as: "c")
      #expect(atA == [.found, .found, .found, .tooManyRequests])
      await endpoints[0].limiter.exchange(with: FailingStartCounts())
      #expect(endpoints[0].limiter.estimate("c") == 3)
      let atB = try await Self.starts(4, b, as: "c")
      #expect(atB == [.found, .found, .found, .tooManyRequests])
    }
  }
}
