// The lifetime rules every session driver keeps, on PostgreSQL (over its socket) and in memory alike: a write
// without a lifetime only replaces a live value, no write takes an expiry away, an unused value ends after its
// idle lifetime, and the per-key lock excludes.

import Crypto
import Foundation
import Hummingbird
import LinkParseServerTestSupport
import LinkParseHummingbird
import LinkParsePostgres
import PostgresNIO
import Testing

@Suite(.serialized) struct SessionLifetimeTests {
  enum Backend: String, CustomTestStringConvertible, Sendable {
    case memory, postgres
    var testDescription: String { rawValue }
  }

  static let backends: [Backend] = TestDatabase.url == nil ? [.memory] : [.memory, .postgres]
  static let database = "linkparse_session_lifetime_test"

  /// A fresh driver of `backend` with `idleLifetime`, and a count of its values without an expiry (PostgreSQL).
  static func withDriver(
    _ backend: Backend, idleLifetime: Duration? = nil,
    _ body: @Sendable (any PersistDriver & SessionRefreshLocking, _ rowsWithoutExpiry: @Sendable () async throws -> Int) async throws
      -> Void
  ) async throws {
    switch backend {
    case .memory:
      try await body(MemorySessionDriver(idleLifetime: idleLifetime, sweepInterval: .zero)) { 0 }
    case .postgres:
      try await TestDatabase.ensureDatabase(database)
      try await TestDatabase.withClient(try TestDatabase.configuration(database: database)) { client in
        let driver = PostgresSessionDriver(
          client: client, secret: TestDatabase.secret, sweepInterval: .zero, idleLifetime: idleLifetime)
        try await driver.migrate()
        try await client.query("TRUNCATE linkparse_persist")
        try await body(driver) {
          for try await count in try await client.query(
            "SELECT count(*) FROM linkparse_persist WHERE expires_at IS NULL"
          ).decode(Int64.self) { return Int(count) }
          return -1
        }
      }
    }
  }

  @Test(arguments: backends)
  func aWriteWithoutALifetimeNeverCreates(_ backend: Backend) async throws {
    try await Self.withDriver(backend) { driver, rowsWithoutExpiry in
      // Missing: nothing is written.
      try await driver.set(key: "lp-session.gone", value: 1, expires: nil)
      #expect(try await driver.get(key: "lp-session.gone", as: Int.self) == nil)
      // Removed (logged out): stays removed.
      try await driver.set(key: "lp-session.out", value: 1, expires: .seconds(60))
      try await driver.remove(key: "lp-session.out")
      try await driver.set(key: "lp-session.out", value: 2, expires: nil)
      #expect(try await driver.get(key: "lp-session.out", as: Int.self) == nil)
      // Expired (not yet swept): stays expired, its expiry not taken away.
      try await driver.set(key: "lp-session.old", value: 1, expires: .milliseconds(300))
      try await Task.sleep(for: .milliseconds(500))
      try await driver.set(key: "lp-session.old", value: 2, expires: nil)
      #expect(try await driver.get(key: "lp-session.old", as: Int.self) == nil)
      #expect(try await rowsWithoutExpiry() == 0)
    }
  }

  @Test(arguments: backends)
  func aWriteWithoutALifetimeKeepsTheExpiry(_ backend: Backend) async throws {
    try await Self.withDriver(backend) { driver, rowsWithoutExpiry in
      // (5 s: room for a loaded runner between the two writes; a delay after them only makes the row older.)
      try await driver.set(key: "lp-session.live", value: 1, expires: .seconds(5))
      try await driver.set(key: "lp-session.live", value: 2, expires: nil)
      let (value, ttl) = try #require(try await driver.getWithTTL(key: "lp-session.live", as: Int.self))
      #expect(value == 2)
      #expect(try #require(ttl) <= .seconds(5))
      try await Task.sleep(for: .milliseconds(5_200))
      #expect(try await driver.get(key: "lp-session.live", as: Int.self) == nil)
      #expect(try await rowsWithoutExpiry() == 0)
    }
  }

  @Test(arguments: backends)
  func anUnusedValueEndsAfterItsIdleLifetime(_ backend: Backend) async throws {
    let idle = Duration.seconds(3)
    try await Self.withDriver(backend, idleLifetime: idle) { driver, _ in
      // Read every 250 ms for 4 s (longer than the idle lifetime): kept alive; the other, unused, ends. A read
      // the machine delayed past the idle lifetime (a loaded CI runner stalls a test for seconds) rightly finds
      // the value gone, so only reads that came in time are checked; the unused value's end is checked always
      // (a delay only makes it older). In time: a read that ended within 3/4 of the idle lifetime (less a
      // margin) of the start of the call before it — the write, or the read before. The driver takes its clock
      // when a call starts, and after any call the value has at least 3/4 of the idle lifetime left from then
      // (a read moves the idle expiry on once a quarter of it has passed); a CI run found a write that the
      // loaded database held for seconds, so its value was born idle, which the end of the write, the old
      // reference point, did not see.
      let inTime = idle * 3 / 4 - .milliseconds(250)
      var previousStart = ContinuousClock.now
      try await driver.set(key: "lp-session.used", value: 1, expires: .seconds(60))
      try await driver.set(key: "lp-session.unused", value: 1, expires: .seconds(60))
      var readInTime = 0
      for _ in 0..<16 {
        try await Task.sleep(for: .milliseconds(250))
        let start = ContinuousClock.now
        let value = try await driver.get(key: "lp-session.used", as: Int.self)
        if ContinuousClock.now - previousStart < inTime {
          #expect(value == 1)
          readInTime += 1
        } else if value == nil {
          break  // idled out during a stall: nothing more to see about it
        }
        previousStart = start
      }
      // Its remaining lifetime, read at once after the reads and under the same in-time rule.
      if readInTime == 16 {
        let read = try await driver.getWithTTL(key: "lp-session.used", as: Int.self)
        if ContinuousClock.now - previousStart < inTime {
          let ttl = try #require(read?.ttl)
          #expect(ttl <= idle)
        }
      }
      #expect(try await driver.get(key: "lp-session.unused", as: Int.self) == nil)
      // A write without a lifetime does not bring it back.
      try await driver.set(key: "lp-session.unused", value: 2, expires: nil)
      #expect(try await driver.get(key: "lp-session.unused", as: Int.self) == nil)
      try await Task.sleep(for: idle + .milliseconds(500))
      #expect(try await driver.get(key: "lp-session.used", as: Int.self) == nil)
    }
  }

  /// What the body throws comes out as it is (a refresh's "session ended", a provider's refusal), not as a
  /// store failure.
  @Test(arguments: backends)
  func theLockPassesTheBodysErrorThrough(_ backend: Backend) async throws {
    try await Self.withDriver(backend) { driver, _ in
      await #expect(throws: SessionRefreshError(.sessionEnded)) {
        try await driver.withRefreshLock(for: "lp-session.x") { () async throws -> Int in
          throw SessionRefreshError(.sessionEnded)
        }
      }
      let value = try await driver.withRefreshLock(for: "lp-session.x") { 7 }
      #expect(value == 7)
    }
  }

  @Test(arguments: backends)
  func theLockExcludesPerKey(_ backend: Backend) async throws {
    try await Self.withDriver(backend) { driver, _ in
      let order = LockedLog()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<6 {
          group.addTask {
            try await driver.withRefreshLock(for: "lp-session.same") {
              order.append("in \(index)")
              try await Task.sleep(for: .milliseconds(30))
              order.append("out \(index)")
            }
          }
        }
        try await group.waitForAll()
      }
      let entries = order.entries
      #expect(entries.count == 12)
      for pair in stride(from: 0, to: entries.count, by: 2) {
        #expect(entries[pair].dropFirst(3) == entries[pair + 1].dropFirst(4), "\(entries)")
      }
    }
  }
}

final class LockedLog: @unchecked Sendable {
  private let lock = NSLock()
  private var log: [String] = []
  func append(_ entry: String) { lock.withLock { log.append(entry) } }
  var entries: [String] { lock.withLock { log } }
}
