// PostgresSessionDriver (LinkParsePostgres) against a real PostgreSQL server: Hummingbird's PersistDriver
// contract, sealing at rest, expiry, and the refresh lock across clients.

import Crypto
import Foundation
import Hummingbird
import LinkParseHTTP
import LinkParsePostgres
import LinkParseServerTestSupport
import LinkParseHummingbird
import PostgresNIO
import Testing

@Suite(.serialized, .enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
struct SessionDriverTests {
  struct Sample: Codable, Sendable, Equatable {
    var name: String
    var refreshToken: String
  }

  /// A migrated, emptied driver on a database of its own (other suites run meanwhile).
  static func withDriver<R: Sendable>(
    secret: SymmetricKey = TestDatabase.secret, sweepInterval: Duration = .seconds(60),
    _ body: @Sendable (PostgresSessionDriver, PostgresClient) async throws -> R
  ) async throws -> R {
    try await TestDatabase.ensureDatabase("linkparse_session_driver_test")
    return try await TestDatabase.withClient(try TestDatabase.configuration(database: "linkparse_session_driver_test")) {
      client in
      let driver = PostgresSessionDriver(client: client, secret: secret, sweepInterval: sweepInterval)
      try await driver.migrate()
      try await driver.migrate()  // again: idempotent
      try await client.query("TRUNCATE linkparse_persist")
      return try await body(driver, client)
    }
  }

  @Test func persistDriverContract() async throws {
    try await Self.withDriver { driver, _ in
      let value = Sample(name: "n", refreshToken: "rt-1")
      try await driver.create(key: "k1", value: value, expires: .seconds(60))
      #expect(try await driver.get(key: "k1", as: Sample.self) == value)
      // create refuses a live key; set replaces it.
      await #expect(throws: PersistError.duplicate) {
        try await driver.create(key: "k1", value: value, expires: nil)
      }
      try await driver.set(key: "k1", value: Sample(name: "n", refreshToken: "rt-2"), expires: nil)
      #expect(try await driver.get(key: "k1", as: Sample.self)?.refreshToken == "rt-2")
      // set with no expiry keeps the one there.
      let ttl = try #require(try await driver.getWithTTL(key: "k1", as: Sample.self)?.ttl)
      #expect(ttl > .seconds(55) && ttl <= .seconds(60))
      // Another type: invalidConversion (the session middleware then drops the session).
      await #expect(throws: PersistError.invalidConversion) { try await driver.get(key: "k1", as: Int.self) }
      // A write without a lifetime creates nothing (a session that ended stays ended).
      try await driver.set(key: "k2", value: 7, expires: nil)
      #expect(try await driver.get(key: "k2", as: Int.self) == nil)
      try await driver.remove(key: "k1")
      #expect(try await driver.get(key: "k1", as: Sample.self) == nil)
      try await driver.remove(key: "never-there")
      #expect(try await driver.get(key: "unknown", as: Int.self) == nil)
    }
  }

  @Test func expiredValuesAreGoneAndSwept() async throws {
    try await Self.withDriver(sweepInterval: .zero) { driver, client in
      // (Two seconds: a loaded machine must not let it expire before the first read.)
      try await driver.set(key: "short", value: 1, expires: .seconds(2))
      try await driver.set(key: "long", value: 2, expires: .seconds(60))
      #expect(try await driver.get(key: "short", as: Int.self) == 1)
      try await Task.sleep(for: .milliseconds(2_200))
      #expect(try await driver.get(key: "short", as: Int.self) == nil)
      // An expired key can be created again.
      try await driver.create(key: "short", value: 3, expires: .milliseconds(100))
      try await Task.sleep(for: .milliseconds(200))
      // The next write sweeps (interval 0): the expired row is deleted, the live ones stay.
      try await driver.set(key: "other", value: 4, expires: .seconds(60))
      let rows = try await client.query("SELECT count(*) FROM linkparse_persist")
      var count = -1
      for try await n in rows.decode(Int64.self) { count = Int(n) }
      #expect(count == 2)
      #expect(try await driver.get(key: "long", as: Int.self) == 2)
    }
  }

  @Test func nothingReadableAtRest() async throws {
    try await Self.withDriver { driver, client in
      try await driver.set(
        key: "lp-session.SECRETID", value: Sample(name: "Alice", refreshToken: "RT-PLAIN"), expires: .seconds(60))
      var raw: [UInt8] = []
      for try await (key, sealed) in try await client.query("SELECT key_hash, sealed FROM linkparse_persist")
        .decode((ByteBuffer, ByteBuffer).self)
      {
        #expect(key.readableBytes == 32)
        raw += Array(key.readableBytesView) + Array(sealed.readableBytesView)
      }
      let text = String(decoding: raw, as: UTF8.self)
      #expect(!raw.isEmpty && !text.contains("SECRETID") && !text.contains("RT-PLAIN") && !text.contains("Alice"))
      // A row moved under another key does not open (its seal is bound to its key): nothing, not garbage.
      try await driver.set(key: "other", value: Sample(name: "Bob", refreshToken: "x"), expires: .seconds(60))
      try await client.query(
        """
        UPDATE linkparse_persist SET sealed = (SELECT sealed FROM linkparse_persist p
          WHERE p.key_hash <> linkparse_persist.key_hash LIMIT 1)
        """)
      #expect(try await driver.get(key: "other", as: Sample.self) == nil)
    }
  }

  @Test func anotherSecretReadsNothing() async throws {
    try await Self.withDriver { driver, client in
      try await driver.set(key: "k", value: 1, expires: .seconds(60))
      let stranger = PostgresSessionDriver(client: client, secret: SymmetricKey(size: .bits256))
      #expect(try await stranger.get(key: "k", as: Int.self) == nil)
    }
  }

  /// The refresh lock: two drivers (two instances) on their own clients take turns for one key, and do not
  /// wait for each other on different keys.
  @Test func refreshLockIsExclusivePerKey() async throws {
    try await Self.withDriver { driver, _ in
      try await TestDatabase.withClient(try TestDatabase.configuration(database: "linkparse_session_driver_test")) {
        otherClient in
        let other = PostgresSessionDriver(client: otherClient, secret: TestDatabase.secret)
        let inside = ManagedAtomicCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
          for index in 0..<8 {
            let holder = index % 2 == 0 ? driver : other
            group.addTask {
              try await holder.withRefreshLock(for: "lp-session.same") {
                let now = inside.enter()
                #expect(now == 1, "two holders of one key's lock at once")
                try await Task.sleep(for: .milliseconds(50))
                inside.leave()
              }
            }
          }
          try await group.waitForAll()
        }
        #expect(inside.maximum == 1)
        // Different keys do not exclude each other: all four holders are inside at once (each waits for the
        // others; were they serialized, the first would wait out its minute alone). No wall-clock bound.
        let together = ManagedAtomicCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
          for index in 0..<4 {
            group.addTask {
              try await driver.withRefreshLock(for: "lp-session.\(index)") {
                _ = together.enter()
                let deadline = ContinuousClock.now + .seconds(60)
                while together.maximum < 4 && ContinuousClock.now < deadline {
                  try await Task.sleep(for: .milliseconds(10))
                }
              }
            }
          }
          try await group.waitForAll()
        }
        #expect(together.maximum == 4)
      }
    }
  }
}

extension SessionDriverTests {
  /// Many sessions refreshing at once on a small pool: each lock holds a connection and its body needs
  /// another, so without a bound the holders would take the whole pool and wait on each other; with
  /// `maximumRefreshLocks` they all finish.
  @Test func manyRefreshesDoNotExhaustThePool() async throws {
    try await TestDatabase.ensureDatabase("linkparse_session_driver_test")
    let configuration = try TestDatabase.configuration(database: "linkparse_session_driver_test", maximumConnections: 3)
    try await TestDatabase.withClient(configuration) { client in
      let driver = PostgresSessionDriver(
        client: client, secret: TestDatabase.secret, operationTimeout: .seconds(60), maximumRefreshLocks: 2)
      try await driver.migrate()
      try await driver.set(key: "shared", value: 1, expires: .seconds(60))
      let inside = ManagedAtomicCounter()
      let results = try await withThrowingTaskGroup(of: Int?.self) { group in
        for index in 0..<12 {
          group.addTask {
            try await driver.withRefreshLock(for: "lp-session.\(index)") {
              _ = inside.enter()
              defer { inside.leave() }
              return try await driver.get(key: "shared", as: Int.self)
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(results.count == 12 && results.allSatisfy { $0 == 1 })
      #expect(inside.maximum <= 2)
    }
  }
}

/// How many are inside at once, and the most there were.
final class ManagedAtomicCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var current = 0
  private var _maximum = 0
  var maximum: Int {
    lock.lock()
    defer { lock.unlock() }
    return _maximum
  }

  func enter() -> Int {
    lock.lock()
    defer { lock.unlock() }
    current += 1
    _maximum = max(_maximum, current)
    return current
  }

  func leave() {
    lock.lock()
    current -= 1
    lock.unlock()
  }
}

/// PostgresJWKSSharing (LinkParsePostgres): documents round-trip, and one that is not authenticated under the
/// shared secret — written by someone else, or altered — is never used.
@Suite(.serialized, .enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
struct JWKSSharingTests {
  static let url = "https://id.example/jwks"

  static func withSharing<R: Sendable>(
    _ body: @Sendable (PostgresJWKSSharing, PostgresClient) async throws -> R
  ) async throws -> R {
    try await TestDatabase.ensureDatabase("linkparse_session_driver_test")
    return try await TestDatabase.withClient(try TestDatabase.configuration(database: "linkparse_session_driver_test")) {
      client in
      let sharing = PostgresJWKSSharing(client: client, secret: TestDatabase.secret)
      try await sharing.migrate()
      try await sharing.migrate()
      try await client.query("TRUNCATE linkparse_jwks")
      return try await body(sharing, client)
    }
  }

  @Test func documentsRoundTrip() async throws {
    try await Self.withSharing { sharing, _ in
      #expect(try await sharing.loadJWKS(url: Self.url) == nil)
      let document = SharedJWKS(json: Array(#"{"keys":[]}"#.utf8), fetchedAt: 100, expiresAt: 400, fetchID: .max)
      try await sharing.storeJWKS(document, url: Self.url)
      #expect(try await sharing.loadJWKS(url: Self.url) == document)
      let newer = SharedJWKS(json: Array(#"{"keys":[1]}"#.utf8), fetchedAt: 200, expiresAt: 500, fetchID: 3)
      try await sharing.storeJWKS(newer, url: Self.url)
      #expect(try await sharing.loadJWKS(url: Self.url) == newer)
      #expect(try await sharing.loadJWKS(url: Self.url + "/other") == nil)
    }
  }

  @Test func unauthenticatedDocumentsAreIgnored() async throws {
    try await Self.withSharing { sharing, client in
      let document = SharedJWKS(json: Array(#"{"keys":[]}"#.utf8), fetchedAt: 100, expiresAt: 400, fetchID: 1)
      try await sharing.storeJWKS(document, url: Self.url)
      // Another secret (another app, or an attacker's writer) does not authenticate it.
      let stranger = PostgresJWKSSharing(client: client, secret: SymmetricKey(size: .bits256))
      #expect(try await stranger.loadJWKS(url: Self.url) == nil)
      // Keys swapped in the row, or its expiry moved, or the row moved to another URL: ignored.
      for tamper in [
        "UPDATE linkparse_jwks SET document = convert_to('{\"keys\":[{\"kty\":\"EC\"}]}', 'UTF8')",
        "UPDATE linkparse_jwks SET expires_at = expires_at + 86400",
        "UPDATE linkparse_jwks SET url = 'https://evil.example/jwks'",
      ] {
        try await sharing.storeJWKS(document, url: Self.url)
        try await client.query(PostgresQuery(unsafeSQL: tamper))
        #expect(try await sharing.loadJWKS(url: Self.url) == nil, "\(tamper)")
        #expect(try await sharing.loadJWKS(url: "https://evil.example/jwks") == nil, "\(tamper)")
        try await client.query("TRUNCATE linkparse_jwks")
      }
    }
  }
}

/// The time limit of every database operation holds even for work that does not stop when cancelled.
/// (A race that waited for its body would hang for an hour: the time limit fails the test instead.)
@Suite(.timeLimit(.minutes(5))) struct OperationTimeLimitTests {
  /// Set by a deaf body when it finally resumes: a race that waited for its body would see it set.
  final class Finished: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
  }

  /// A body deaf to cancellation that resumes only after an hour.
  static func deafBody(_ finished: Finished) async -> Int {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().asyncAfter(deadline: .now() + 3600) {
        finished.set()
        continuation.resume(returning: 1)
      }
    }
  }

  // The time limit's answer comes before the body's: asserted on what happened (the body has not finished), not
  // on the wall clock, which a loaded machine's starved cooperative pool stretches (a 30 s bound failed CI).
  @Test func aBodyThatIgnoresCancellationStillTimesOut() async throws {
    let finished = Finished()
    let outcome = await PostgresOperation.race(.milliseconds(100)) { await Self.deafBody(finished) }
    #expect(outcome == nil)
    #expect(!finished.isSet)
  }

  @Test func aQuickBodyWins() async throws {
    let outcome = await PostgresOperation.race(.seconds(5)) { 42 }
    #expect(try outcome?.get() == 42)
    let failed = await PostgresOperation.race(.seconds(5)) { () async throws -> Int in throw CancellationError() }
    #expect(throws: CancellationError.self) { try failed?.get() }
  }

  @Test func aCancelledCallerReturnsAtOnce() async throws {
    let finished = Finished()
    // A limit of an hour: only the caller's cancellation can end the race before the body does.
    let task = Task { await PostgresOperation.race(.seconds(3600)) { await Self.deafBody(finished) } }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    let outcome = await task.value
    #expect(!finished.isSet)
    #expect(throws: CancellationError.self) { try outcome?.get() }
  }
}
