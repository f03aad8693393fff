// The in-process pending-authorization storage: the consume policy's queries over dictionaries under one lock.

import Crypto
import HeapModule
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
/// try store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
/// let first = try await store.consume(try ParsedURL("myapp://authorized?code=c.1"))   // .tid(.success)
/// // try await store.consume(try ParsedURL("myapp://authorized?code=c.1"))          // throws replayed
///
/// // A forged state-less error is reported, but the real authorization stays pending:
/// try store.insert(PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s"))
/// try await store.consume(try ParsedURL("myapp://sberidauth?result=FAILURE&error_code=5")).isSpent  // false
/// store.count  // 1
/// ```
///
/// Every lookup costs the same with 10 or 100,000 entries: by a keyed hash of the state (HMAC-SHA256 under a
/// key of the store's own, so that the dictionary compares digests, never state bytes), and by redirect key.
/// Available on every OS version the package supports (the lock is a POSIX mutex of its own).
///
/// Bounded: it holds at most `capacity` pending authorizations (100,000 by default; another is refused with
/// ``PendingAuthorizationStoreFull``, known in O(1): nothing is scanned), and what has expired is dropped as new
/// ones come in (from a min-heap of expiries, O(log n) per entry), with no call from the app; after a flood
/// has expired, its memory is given back.
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
    /// Entries with an expiry, soonest first (a min-heap, whatever their lifetimes): the sweep pops them while
    /// they have expired, so neither an insert nor a full store ever scans the entries. Entries already gone
    /// (consumed) are skipped when their expiry comes.
    var expiries = Heap<Expiry>()
    /// The most entries held since the indexes were last rebuilt (to give their memory back after a flood).
    var highWater = 0
    /// The state keys of carried authorizations that were spent, until they expire (their expiry: `spentOrder`).
    var spent: [[UInt8]: Int64] = [:]
    var spentOrder = Heap<SpentExpiry>()
  }

  private struct SpentExpiry: Comparable {
    var expiresAt: Int64
    var stateKey: [UInt8]
    static func < (a: SpentExpiry, b: SpentExpiry) -> Bool {
      a.expiresAt != b.expiresAt ? a.expiresAt < b.expiresAt : a.stateKey.lexicographicallyPrecedes(b.stateKey)
    }
  }

  private struct Expiry: Comparable {
    var expiresAt: Int64
    var id: UInt64
    static func < (a: Expiry, b: Expiry) -> Bool { (a.expiresAt, a.id) < (b.expiresAt, b.id) }
  }

  private let contents = PThreadLocked(Contents())
  private let consumedLimit: Int
  private let key = SymmetricKey(size: .bits256)
  /// The most pending authorizations held at once.
  public let capacity: Int
  private let now: @Sendable () -> Int64

  /// Creates an empty store that remembers the last `consumedLimit` consumed authorizations to report
  /// replays.
  ///
  /// ```swift
  /// let store = PendingAuthorizationStore(consumedLimit: 1024)
  /// ```
  /// `capacity` bounds the pending authorizations held at once; `now` is the clock (Unix seconds) by which
  /// ``insert(_:)`` drops what has expired.
  public init(
    consumedLimit: Int = 256, capacity: Int = 100_000,
    now: @escaping @Sendable () -> Int64 = { PendingAuthorization.currentUnixTime() }
  ) {
    self.consumedLimit = max(1, consumedLimit)
    self.capacity = max(1, capacity)
    self.now = now
  }

  /// Adds a pending authorization (synchronously: the in-memory store never waits).
  ///
  /// ```swift
  /// store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "s"))
  /// ```
  public func insert(_ authorization: PendingAuthorization) throws {
    try add(
      authorization, stateKey: authorization.state.map { stateKey(Array($0.utf8)) },
      redirectKey: PendingAuthorization.redirectKey(authorization.redirectURI), now: now())
  }

  /// The store's clock (the `now` it was made with).
  ///
  /// ```swift
  /// PendingAuthorizationStore(now: { 42 }).currentTime()  // 42
  /// ```
  public func currentTime() -> Int64 { now() }

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
    contents.withLock { Self.sweep(&$0, now: now) }
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

  /// Stores a pending authorization: a state already pending is refused (``PendingAuthorizationConflict``),
  /// and a state-less T-ID login replaces the one it makes obsolete (``PendingAuthorization/replaces(_:)``),
  /// which is remembered as consumed.
  ///
  /// ```swift
  /// try await store.add(pending, stateKey: nil, redirectKey: "myapp://authorized/", now: 0)
  /// ```
  public func add(_ authorization: PendingAuthorization, stateKey: [UInt8]?, redirectKey: String, now: Int64) throws {
    enum Outcome { case added, full, conflict }
    let capacity = self.capacity
    let consumedLimit = self.consumedLimit
    let outcome = contents.withLock { c -> Outcome in
      if let stateKey, c.byState[stateKey]?.isEmpty == false { return .conflict }
      if stateKey == nil && authorization.provider == .tid {
        for id in c.byRedirect[redirectKey] ?? [] {
          guard let old = c.entries[id], authorization.replaces(old.authorization) else { continue }
          Self.remove(id, &c)
          Self.remember(id, old, &c, consumedLimit)
        }
      }
      // What has expired goes first (O(log n) per expired entry, from the heap's top); a full store is then
      // known in O(1): nothing is scanned under the lock, however many are pending.
      Self.sweep(&c, now: now)
      if c.entries.count >= capacity { return .full }
      let id = c.nextID
      c.nextID &+= 1
      Self.insert(id, Entry(authorization: authorization, stateKey: stateKey, redirectKey: redirectKey), &c)
      if let expiresAt = authorization.expiresAt { c.expiries.insert(Expiry(expiresAt: expiresAt, id: id)) }
      c.highWater = max(c.highWater, c.entries.count)
      return .added
    }
    switch outcome {
    case .added: return
    case .full: throw PendingAuthorizationStoreFull(capacity: capacity)
    case .conflict: throw PendingAuthorizationConflict()
    }
  }

  /// Drops every entry that has expired at `now` (from the expiry heap's top); returns how many. After a flood
  /// has gone (a quarter of its high-water mark left), the indexes are rebuilt at their present size, so the
  /// memory the flood took is given back (amortized against the flood's inserts).
  @discardableResult
  private static func sweep(_ c: inout Contents, now: Int64) -> Int {
    var removed = 0
    while let first = c.expiries.min, first.expiresAt <= now {
      c.expiries.removeMin()
      // (The heap's expiry is the entry's own: ids are never reused.)
      if remove(first.id, &c) != nil { removed += 1 }
    }
    if c.highWater > 4096 && c.entries.count * 4 < c.highWater { compact(&c) }
    return removed
  }

  /// Rebuilds the indexes at their present size (Swift's dictionaries keep their largest capacity).
  private static func compact(_ c: inout Contents) {
    var entries = [UInt64: Entry](minimumCapacity: c.entries.count)
    for (id, entry) in c.entries { entries[id] = entry }
    c.entries = entries
    var byState = [[UInt8]: [UInt64]](minimumCapacity: c.byState.count)
    for (key, ids) in c.byState { byState[key] = ids }
    c.byState = byState
    var byRedirect = [String: Set<UInt64>](minimumCapacity: c.byRedirect.count)
    for (key, ids) in c.byRedirect { byRedirect[key] = Set(Array(ids)) }
    c.byRedirect = byRedirect
    c.expiries = Heap(Array(c.expiries.unordered).filter { c.entries[$0.id] != nil })
    c.highWater = c.entries.count
  }

  /// Records a carried authorization's state key as spent until the authorization expires (10 minutes when it
  /// has no expiry); `false` when that state key is pending or already spent. At most ``capacity`` spent keys
  /// are kept: beyond, the one that expires first goes (its login can then be replayed only at the provider,
  /// whose code is single-use), so a flood of completed logins never refuses the next one.
  ///
  /// ```swift
  /// store.addSpent(pending, stateKey: store.stateKey(Array("s".utf8)), redirectKey: "https://a/cb", now: now)  // true
  /// ```
  public func addSpent(_ authorization: PendingAuthorization, stateKey: [UInt8], redirectKey: String, now: Int64)
    -> Bool
  {
    let (capacity, consumedLimit) = (self.capacity, self.consumedLimit)
    return contents.withLock { c in
      /// Drops the spent key that expires first (its heap entry is stale when the key was recorded anew).
      func dropFirstSpent() {
        guard let first = c.spentOrder.popMin() else { return }
        if c.spent[first.stateKey] == first.expiresAt { c.spent[first.stateKey] = nil }
      }
      while let first = c.spentOrder.min, first.expiresAt <= now { dropFirstSpent() }
      // A replay is known before anything live is dropped for room.
      if c.spent[stateKey] != nil || c.byState[stateKey]?.isEmpty == false { return false }
      while c.spent.count >= capacity, !c.spentOrder.isEmpty { dropFirstSpent() }
      let expiresAt = authorization.expiresAt ?? now + PendingAuthorization.defaultLifetime.wholeSeconds
      c.spent[stateKey] = expiresAt
      c.spentOrder.insert(SpentExpiry(expiresAt: expiresAt, stateKey: stateKey))
      let id = c.nextID
      c.nextID &+= 1
      Self.remember(
        id, Entry(authorization: authorization, stateKey: stateKey, redirectKey: redirectKey), &c, consumedLimit)
      return true
    }
  }

  /// Forgets the spent carried authorization with this state key (and its consumed record), so it can be
  /// spent again.
  ///
  /// ```swift
  /// store.removeSpent(stateKey: store.stateKey(Array("s".utf8)))  // true after addSpent
  /// ```
  public func removeSpent(stateKey: [UInt8]) -> Bool {
    contents.withLock { c in
      // Its heap entry stays: when it comes, the key is gone (or recorded anew with the same expiry).
      guard c.spent.removeValue(forKey: stateKey) != nil else { return false }
      if let last = c.consumed.lastIndex(where: { $0.entry.stateKey == stateKey }) { c.consumed.remove(at: last) }
      return true
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
      // Its expiry may have been popped while it was claimed (a second copy in the heap is skipped).
      if let expiresAt = entry.authorization.expiresAt { c.expiries.insert(Expiry(expiresAt: expiresAt, id: id)) }
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
