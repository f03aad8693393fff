// Sessions in this process's memory, under the same lifetime rules as PostgresSessionDriver: what a single
// instance (or a test) keeps its sessions in.

public import Hummingbird
public import LinkParseHTTP
import LinkParseBytes
import Foundation

/// Hummingbird's `PersistDriver` in memory, for sessions (hummingbird-auth's `SessionMiddleware`) on one
/// instance, with the lifetime rules of ``PostgresSessionDriver``:
///
/// - a value has an absolute expiry, set by the write that gives a lifetime, and an idle expiry,
///   ``idleLifetime`` after its last use (a read or a write);
/// - a write without a lifetime (`set(key:value:expires: nil)`: a session update, a token refresh) replaces the
///   value of a live key only, and keeps its expiry — it never creates a key, so a session that was logged out
///   or expired while a request ran stays ended (Hummingbird's `MemoryPersistDriver` creates one with no
///   expiry);
/// - expired values are never returned, and are dropped by a sweep that a write runs at most every
///   ``sweepInterval``.
///
/// It is also the lock ``SessionRefresher`` takes per session (``SessionRefreshLocking``), in process.
///
/// ```swift
/// let sessions = MemorySessionDriver(idleLifetime: .seconds(1800))
/// router.add(middleware: SessionMiddleware(storage: sessions, configuration: LoginSession.middlewareConfiguration(secure: true)))
/// ```
public final class MemorySessionDriver: PersistDriver, SessionRefreshLocking, SessionEnding {
  private struct Entry {
    var value: any Codable & Sendable
    /// The absolute expiry (`nil`: only from `create(key:value:expires: nil)`).
    var expiresAt: ContinuousClock.Instant?
    /// The idle expiry (`nil`: no idle limit).
    var idleExpiresAt: ContinuousClock.Instant?

    func isLive(at now: ContinuousClock.Instant) -> Bool {
      (expiresAt.map { now < $0 } ?? true) && (idleExpiresAt.map { now < $0 } ?? true)
    }
  }

  private struct State {
    var entries: [String: Entry] = [:]
    var nextSweep: ContinuousClock.Instant
    /// The logout tokens seen (issuer and jti), with their expiry (Unix seconds).
    var logoutTokens: [String: Int64] = [:]
  }

  /// How many logout token ids are remembered at the most (beyond, the one expiring first goes).
  public static let maximumLogoutTokens = 100_000

  private let state: PThreadLocked<State>
  private let locks = KeyedLock()

  /// How long a value lives unused (`nil`: no idle limit), beside its absolute expiry.
  ///
  /// ```swift
  /// sessions.idleLifetime  // .seconds(7200)
  /// ```
  public let idleLifetime: Duration?

  /// How often, at the most, a write first drops the expired values.
  ///
  /// ```swift
  /// sessions.sweepInterval  // .seconds(60)
  /// ```
  public let sweepInterval: Duration

  /// An empty driver.
  ///
  /// ```swift
  /// let sessions = MemorySessionDriver(idleLifetime: .seconds(1800))
  /// ```
  public init(idleLifetime: Duration? = .seconds(2 * 3600), sweepInterval: Duration = .seconds(60)) {
    self.idleLifetime = idleLifetime
    self.sweepInterval = sweepInterval
    state = PThreadLocked(State(nextSweep: .now + sweepInterval))
  }

  /// How many values it holds, expired ones not yet swept included.
  ///
  /// ```swift
  /// sessions.count  // 0
  /// ```
  public var count: Int { state.withLock { $0.entries.count } }

  /// Stores `value` under `key` unless a live value is there already (then `PersistError.duplicate`).
  ///
  /// ```swift
  /// try await sessions.create(key: "k", value: "v", expires: .seconds(60))
  /// ```
  public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    let now = ContinuousClock.now
    let created = write(now) { entries in
      if let entry = entries[key], entry.isLive(at: now) { return false }
      entries[key] = Entry(value: value, expiresAt: expires.map { now + $0 }, idleExpiresAt: idleExpiry(now))
      return true
    }
    if !created { throw PersistError.duplicate }
  }

  /// Stores `value` under `key` with `expires`, replacing what is there; with `expires` nil, replaces the value
  /// of a live key only, keeping its expiry (no live key: nothing is stored, and nothing is thrown).
  ///
  /// ```swift
  /// try await sessions.set(key: "k", value: "v2", expires: nil)
  /// ```
  public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    let now = ContinuousClock.now
    write(now) { entries in
      if let expires {
        entries[key] = Entry(value: value, expiresAt: now + expires, idleExpiresAt: idleExpiry(now))
      } else if var entry = entries[key], entry.isLive(at: now) {
        entry.value = value
        if entry.idleExpiresAt != nil { entry.idleExpiresAt = idleExpiry(now) }
        entries[key] = entry
      }
    }
  }

  /// The live value under `key`, or `nil`; `PersistError.invalidConversion` when it is not an `Object`.
  ///
  /// ```swift
  /// try await sessions.get(key: "k", as: String.self)  // "v2"
  /// ```
  public func get<Object: Codable & Sendable>(key: String, as type: Object.Type) async throws -> Object? {
    try await getWithTTL(key: key, as: type)?.object
  }

  /// The live value under `key` and the time it has left unused (`nil`: no expiry); the read counts as a use.
  ///
  /// ```swift
  /// try await sessions.getWithTTL(key: "k", as: String.self)?.ttl  // .seconds(59.87)
  /// ```
  public func getWithTTL<Object: Codable & Sendable>(
    key: String, as type: Object.Type
  ) async throws -> (object: Object, ttl: Duration?)? {
    let now = ContinuousClock.now
    let found = state.withLock { state -> Entry? in
      guard var entry = state.entries[key], entry.isLive(at: now) else { return nil }
      if entry.idleExpiresAt != nil {
        entry.idleExpiresAt = idleExpiry(now)
        state.entries[key] = entry
      }
      return entry
    }
    guard let found else { return nil }
    guard let object = found.value as? Object else { throw PersistError.invalidConversion }
    let left = [found.expiresAt, found.idleExpiresAt].compactMap { $0 }.min()
    return (object, left.map { now.duration(to: $0) })
  }

  /// Deletes the value under `key` (nothing when there is none).
  ///
  /// ```swift
  /// try await sessions.remove(key: "k")
  /// ```
  public func remove(key: String) async throws {
    _ = state.withLock { $0.entries.removeValue(forKey: key) }
  }

  /// Drops every expired value now; returns how many went.
  ///
  /// ```swift
  /// sessions.removeExpired()  // 12
  /// ```
  @discardableResult
  public func removeExpired() -> Int {
    let now = ContinuousClock.now
    return state.withLock { state in
      let before = state.entries.count
      state.entries = state.entries.filter { $0.value.isLive(at: now) }
      state.nextSweep = now + sweepInterval
      return before - state.entries.count
    }
  }

  /// Runs `body` while no other body holds `key` in this process.
  ///
  /// ```swift
  /// try await sessions.withRefreshLock(for: "lp-session.abc") { try await refresh() }
  /// ```
  /// Deletes the live ``LoginSession``s `logout` names (a scan: one process's sessions).
  ///
  /// ```swift
  /// try await sessions.endSessions(matching: logout)  // 1
  /// ```
  public func endSessions(matching logout: LogoutToken) async throws -> Int {
    state.withLock { state in
      let named = state.entries.filter { ($0.value.value as? LoginSession)?.isNamed(by: logout) == true }.keys
      for key in named { state.entries.removeValue(forKey: key) }
      return named.count
    }
  }

  /// Records `logout`'s `jti` until its expiry; `false` for one already recorded.
  ///
  /// ```swift
  /// try await sessions.recordLogoutToken(logout)  // true, then false
  /// ```
  public func recordLogoutToken(_ logout: LogoutToken) async throws -> Bool {
    let key = logout.issuer + "\u{0}" + logout.tokenID
    let now = Int64(Date().timeIntervalSince1970)
    return state.withLock { state in
      if let expiry = state.logoutTokens[key], expiry >= now { return false }
      if state.logoutTokens.count >= Self.maximumLogoutTokens {
        state.logoutTokens = state.logoutTokens.filter { $0.value >= now }
        if state.logoutTokens.count >= Self.maximumLogoutTokens,
          let first = state.logoutTokens.min(by: { $0.value < $1.value })
        {
          state.logoutTokens.removeValue(forKey: first.key)
        }
      }
      state.logoutTokens[key] = logout.expiresAt
      return true
    }
  }

  public func withRefreshLock<T: Sendable>(
    for key: String, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    try await locks.run(key, body)
  }

  /// A write at `now`: the sweep first when due, then `body` on the entries, under the lock.
  @discardableResult
  private func write<R>(_ now: ContinuousClock.Instant, _ body: (inout [String: Entry]) -> R) -> R {
    state.withLock { state in
      if state.nextSweep <= now {
        state.entries = state.entries.filter { $0.value.isLive(at: now) }
        state.nextSweep = now + sweepInterval
      }
      return body(&state.entries)
    }
  }

  private func idleExpiry(_ now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
    idleLifetime.map { now + $0 }
  }
}
