// The in-process pending-authorization storage: the consume policy's queries over dictionaries under one lock.

import Crypto
public import LinkParseCore
public import LinkParseProviders
import LinkParseBytes

/// Pending authorizations in this process, consumed once by the first callback that binds to one.
///
/// It is a ``PendingAuthorizationStorage``: the consume policy (redirect URI, then `state` in constant time,
/// single use, state-less errors that do not retire a login, the T-ID single-pending rule) is
/// ``PendingAuthorizationStorage/consume(_:parameters:now:)``, the same for every store. Two concurrent callbacks
/// can never both succeed; a later callback for a consumed authorization is `replayed` (the last
/// `consumedLimit` consumed ones are remembered).
///
/// ```swift
/// let store = PendingAuthorizationStore()
/// store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
/// let first = try await store.consume(try ParsedURL("myapp://authorized?code=c.1"))   // .tid(.success)
/// // try await store.consume(try ParsedURL("myapp://authorized?code=c.1"))          // throws replayed
///
/// // A forged state-less error is reported, but the real authorization stays pending:
/// store.insert(PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s"))
/// try await store.consume(try ParsedURL("myapp://sberidauth?result=FAILURE&error_code=5")).isSpent  // false
/// store.count  // 1
/// ```
///
/// Every lookup costs the same with 10 or 100,000 entries: by a keyed hash of the state (HMAC-SHA256 under a
/// key of the store's own, so that the dictionary compares digests, never state bytes), and by redirect key.
/// Available on every OS version the package supports (the lock is a POSIX mutex of its own).
public final class PendingAuthorizationStore: PendingAuthorizationStorage {
  private struct Entry {
    let authorization: PendingAuthorization
    let stateKey: [UInt8]?
    let redirectKey: String
  }

  private struct Contents {
    var entries: [UInt64: Entry] = [:]
    var nextID: UInt64 = 0
    var byState: [[UInt8]: [UInt64]] = [:]
    var byRedirect: [String: Set<UInt64>] = [:]
    var statelessByProvider: [Provider: Int] = [:]
    /// Consumed entries, oldest first (to report replays, and to put a claimed one back).
    var consumed: [(id: UInt64, entry: Entry)] = []
  }

  private let contents = PThreadLocked(Contents())
  private let consumedLimit: Int
  private let key = SymmetricKey(size: .bits256)

  /// Creates an empty store that remembers the last `consumedLimit` consumed authorizations to report
  /// replays.
  ///
  /// ```swift
  /// let store = PendingAuthorizationStore(consumedLimit: 1024)
  /// ```
  public init(consumedLimit: Int = 256) {
    self.consumedLimit = max(1, consumedLimit)
  }

  /// Adds a pending authorization (synchronously: the in-memory store never waits).
  ///
  /// ```swift
  /// store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "s"))
  /// ```
  public func insert(_ authorization: PendingAuthorization) {
    add(
      authorization, stateKey: authorization.state.map { stateKey(Array($0.utf8)) },
      redirectKey: PendingAuthorization.redirectKey(authorization.redirectURI), now: 0)
  }

  /// The number of pending authorizations.
  ///
  /// ```swift
  /// try await store.count  // 0
  /// ```
  public var count: Int { contents.withLock { $0.entries.count } }

  /// Drops every pending authorization that has expired at `now` (Unix seconds); returns how many.
  ///
  /// ```swift
  /// store.removeExpired(now: PendingAuthorization.currentUnixTime())
  /// ```
  @discardableResult
  public func removeExpired(now: Int64 = PendingAuthorization.currentUnixTime()) -> Int {
    contents.withLock { c in
      let expired = c.entries.filter { $0.value.authorization.expiresAt.map { now >= $0 } ?? false }.map(\.key)
      for id in expired { Self.remove(id, &c) }
      return expired.count
    }
  }

  // MARK: - PendingAuthorizationStorage

  /// HMAC-SHA256 of `state` under the store's key.
  ///
  /// ```swift
  /// store.stateKey(Array("s".utf8)).count  // 32
  /// ```
  public func stateKey(_ state: [UInt8]) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: state, using: key))
  }

  /// Stores a pending authorization.
  ///
  /// ```swift
  /// try await store.add(pending, stateKey: nil, redirectKey: "myapp://authorized/", now: 0)
  /// ```
  public func add(_ authorization: PendingAuthorization, stateKey: [UInt8]?, redirectKey: String, now: Int64) {
    contents.withLock { c in
      let id = c.nextID
      c.nextID &+= 1
      Self.insert(id, Entry(authorization: authorization, stateKey: stateKey, redirectKey: redirectKey), &c)
    }
  }

  /// Takes the pending entry with this state key, remembered as consumed.
  ///
  /// ```swift
  /// let record = store.claim(stateKey: store.stateKey(Array("s".utf8)), now: 0)
  /// ```
  public func claim(stateKey: [UInt8], now: Int64) -> StoredAuthorization<UInt64>? {
    contents.withLock { c in
      guard let id = c.byState[stateKey]?.first, let entry = Self.remove(id, &c) else { return nil }
      Self.remember(id, entry, &c, consumedLimit)
      return StoredAuthorization(id: id, authorization: entry.authorization)
    }
  }

  /// Puts a claimed entry back.
  ///
  /// ```swift
  /// store.release(record.id)
  /// ```
  public func release(_ id: UInt64) {
    contents.withLock { c in
      guard let index = c.consumed.lastIndex(where: { $0.id == id }) else { return }
      let entry = c.consumed.remove(at: index).entry
      Self.insert(id, entry, &c)
    }
  }

  /// Consumes a pending entry; `false` when it is no longer pending.
  ///
  /// ```swift
  /// store.retire(record.id, now: 0)  // true
  /// ```
  public func retire(_ id: UInt64, now: Int64) -> Bool {
    contents.withLock { c in
      guard let entry = Self.remove(id, &c) else { return false }
      Self.remember(id, entry, &c, consumedLimit)
      return true
    }
  }

  /// Pending entries at `redirectKey`, at most `limit`.
  ///
  /// ```swift
  /// store.pending(redirectKey: "myapp://authorized/", withState: false, limit: 16)
  /// ```
  public func pending(redirectKey: String, withState: Bool?, limit: Int) -> [StoredAuthorization<UInt64>] {
    contents.withLock { c in
      var found: [StoredAuthorization<UInt64>] = []
      for id in c.byRedirect[redirectKey] ?? [] {
        guard let entry = c.entries[id] else { continue }
        if let withState, withState != (entry.stateKey != nil) { continue }
        found.append(StoredAuthorization(id: id, authorization: entry.authorization))
        if found.count == limit { break }
      }
      return found
    }
  }

  /// Consumed entries still remembered at `redirectKey` with this state key.
  ///
  /// ```swift
  /// store.consumed(stateKey: nil, redirectKey: "myapp://authorized/")
  /// ```
  public func consumed(stateKey: [UInt8]?, redirectKey: String) -> [PendingAuthorization] {
    contents.withLock { c in
      c.consumed.filter { $0.entry.stateKey == stateKey && $0.entry.redirectKey == redirectKey }.map(\.entry.authorization)
    }
  }

  /// Whether anything is pending.
  ///
  /// ```swift
  /// store.hasPending()  // false
  /// ```
  public func hasPending() -> Bool { contents.withLock { !$0.entries.isEmpty } }

  /// Pending entries without state for `provider`.
  ///
  /// ```swift
  /// store.pendingWithoutState(provider: .tid)  // 0
  /// ```
  public func pendingWithoutState(provider: Provider) -> Int {
    contents.withLock { $0.statelessByProvider[provider] ?? 0 }
  }

  // MARK: - Indexes

  private static func insert(_ id: UInt64, _ entry: Entry, _ c: inout Contents) {
    c.entries[id] = entry
    c.byRedirect[entry.redirectKey, default: []].insert(id)
    if let stateKey = entry.stateKey {
      c.byState[stateKey, default: []].append(id)
    } else {
      c.statelessByProvider[entry.authorization.provider, default: 0] += 1
    }
  }

  /// Removes entry `id` from every index.
  @discardableResult
  private static func remove(_ id: UInt64, _ c: inout Contents) -> Entry? {
    guard let entry = c.entries.removeValue(forKey: id) else { return nil }
    c.byRedirect[entry.redirectKey]?.remove(id)
    if c.byRedirect[entry.redirectKey]?.isEmpty == true { c.byRedirect[entry.redirectKey] = nil }
    if let stateKey = entry.stateKey {
      c.byState[stateKey]?.removeAll { $0 == id }
      if c.byState[stateKey]?.isEmpty == true { c.byState[stateKey] = nil }
    } else {
      c.statelessByProvider[entry.authorization.provider, default: 1] -= 1
    }
    return entry
  }

  private static func remember(_ id: UInt64, _ entry: Entry, _ c: inout Contents, _ limit: Int) {
    c.consumed.append((id, entry))
    if c.consumed.count > limit { c.consumed.removeFirst(c.consumed.count - limit) }
  }
}
