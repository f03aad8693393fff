// A thread-safe, single-use set of pending authorizations (providers.md §3.6, §7 step 4).

import Crypto
public import LinkParseCore


/// Pending authorizations, consumed atomically by the first callback that binds to one.
///
/// ``consume(_:parameters:now:)`` finds the pending authorization a callback belongs to (redirect URI,
/// then `state` in constant time), validates it (``PendingAuthorization/validate(_:parameters:now:)``) and
/// removes it under one lock, so two concurrent callbacks can never both succeed; a later callback for it
/// is `replayed`. A callback whose state matches nothing leaves every entry pending (a forged callback
/// cannot cancel a real login). Likewise a state-less error (the Sber apps' grammars
/// `?result=FAILURE&error_code=5`, `?status=fail&error=X`, which carry no state and so can be forged by
/// anyone) is decoded and returned, but does not consume the authorization it was matched to: the genuine
/// callback still succeeds afterwards. A VK SDK 1.x `payload` is bound by its `oauth.state`. The same holds
/// for the T-ID app flow, which has no state at all: a `?cancelled`, `?unavailable` or debug `?result=…` is
/// reported but leaves the login pending; only a code spends it
/// (``PendingAuthorization/retires(_:callbackHasState:authorizationHasState:)``).
///
/// The T-ID app flow carries no `state`: a state-less callback is accepted only while exactly one T-ID
/// authorization without state is pending for that redirect URI (`ambiguous-authorization` otherwise).
///
/// ```swift
/// let store = PendingAuthorizationStore()
/// store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
/// let first = try store.consume(try ParsedURL("myapp://authorized?code=c.1"))   // .tid(.success)
/// let second = try store.consume(try ParsedURL("myapp://authorized?code=c.1"))  // throws replayed
///
/// // A forged state-less error is reported, but the real authorization stays pending:
/// store.insert(PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s"))
/// try store.consume(try ParsedURL("myapp://sberidauth?result=FAILURE&error_code=5")).outcome  // .error
/// store.count  // 1
/// ```
///
/// It conforms to ``PendingAuthorizationStoring``, the interface a store shared by several server instances
/// (LinkParsePostgres's `PostgresPendingAuthorizationStore`) offers too; used directly, it stays synchronous.
///
/// Available on every OS version the package supports: the lock is a POSIX mutex of its own
/// (``PendingAuthorizationStore`` needs no `Synchronization.Mutex`, so no iOS 18 / macOS 15 floor).
public final class PendingAuthorizationStore: Sendable {

  /// The pending authorizations, indexed so that a callback costs the same with 10 or 100,000 of them: by
  /// a keyed hash of the state (HMAC-SHA256 under a key of the store's own, so that the dictionary compares
  /// digests, never state bytes), and by redirect key (``PendingAuthorization/redirectKey(_:)``).
  private struct Contents {
    var entries: [UInt64: PendingAuthorization] = [:]
    var nextID: UInt64 = 0
    var byState: [[UInt8]: [UInt64]] = [:]
    var byRedirect: [String: Set<UInt64>] = [:]
    /// Entries without state, by redirect key (the T-ID app flow; few).
    var statelessByRedirect: [String: [UInt64]] = [:]
    var statelessTIDCount = 0
    /// Consumed authorizations, oldest first (to report replays).
    var consumed: [PendingAuthorization] = []
  }

  private let contents = PThreadLocked(Contents())
  private let consumedLimit: Int
  private let stateKey = SymmetricKey(size: .bits256)

  /// Creates an empty store that remembers the last `consumedLimit` consumed authorizations to report
  /// replays.
  ///
  /// ```swift
  /// let store = PendingAuthorizationStore(consumedLimit: 1024)
  /// ```
  public init(consumedLimit: Int = 256) {
    self.consumedLimit = max(1, consumedLimit)
  }

  private func key(_ state: some Sequence<UInt8>) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: Array(state), using: stateKey))
  }

  /// Adds a pending authorization.
  ///
  /// ```swift
  /// store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "s"))
  /// ```
  public func insert(_ authorization: PendingAuthorization) {
    let stateKey = authorization.state.map { key($0.utf8) }
    let redirectKey = PendingAuthorization.redirectKey(authorization.redirectURI)
    contents.withLock { c in
      let id = c.nextID
      c.nextID &+= 1
      c.entries[id] = authorization
      c.byRedirect[redirectKey, default: []].insert(id)
      if let stateKey {
        c.byState[stateKey, default: []].append(id)
      } else {
        c.statelessByRedirect[redirectKey, default: []].append(id)
        if authorization.provider == .tid { c.statelessTIDCount += 1 }
      }
    }
  }

  /// The number of pending authorizations.
  ///
  /// ```swift
  /// store.count  // 0
  /// ```
  public var count: Int { contents.withLock { $0.entries.count } }

  /// Drops every pending authorization that has expired at `now` (Unix seconds); returns how many.
  ///
  /// ```swift
  /// store.removeExpired()
  /// ```
  @discardableResult
  public func removeExpired(now: Int64 = PendingAuthorization.currentUnixTime()) -> Int {
    let expired = contents.withLock { c in
      c.entries.filter { $0.value.expiresAt.map { now >= $0 } ?? false }.map { ($0.key, $0.value) }
    }
    let keys = expired.map { ($0.0, $0.1.state.map { key($0.utf8) }) }
    return contents.withLock { c in
      var removed = 0
      for (id, stateKey) in keys where c.entries[id] != nil {
        Self.remove(id, stateKey: stateKey, &c)
        removed += 1
      }
      return removed
    }
  }

  /// Binds `url` to a pending authorization, validates it, and consumes it.
  ///
  /// ```swift
  /// do {
  ///   let callback = try store.consume(url)
  /// } catch where error.code == .replayed {
  ///   // a second callback for an authorization already used
  /// }
  /// ```
  ///
  /// - Throws: ``CallbackError``: `not-pending`, `replayed`, `ambiguous-authorization`, or any error of
  ///   ``PendingAuthorization/validate(_:parameters:now:)``.
  public func consume(
    _ url: ParsedURL, parameters: FormParameters? = nil, now: Int64 = PendingAuthorization.currentUnixTime()
  ) throws(CallbackError) -> ProviderCallback {
    let parameters = parameters ?? ProviderDetector.callbackParameters(of: url)
    var fields = CallbackFields(parameters)
    let state = Self.callbackState(&fields)
    let stateKey = state.map { key($0) }
    let redirectKey = PendingAuthorization.redirectKey(url)
    let result: Result<ProviderCallback, CallbackError> = contents.withLock { contents in
      do throws(CallbackError) {
        return .success(
          try Self.consume(
            url, parameters, &fields, state, stateKey, redirectKey, now, &contents, consumedLimit))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private static func consume(
    _ url: ParsedURL, _ parameters: FormParameters, _ fields: inout CallbackFields, _ state: [UInt8]?,
    _ stateKey: [UInt8]?, _ redirectKey: String, _ now: Int64, _ contents: inout Contents, _ limit: Int
  ) throws(CallbackError) -> ProviderCallback {
    // Decoded bytes against the expected state's UTF-8 bytes, in constant time (no `String` repair of
    // invalid UTF-8: a `%FF` state matches no state).
    func matches(_ expected: String) -> Bool {
      guard let state else { return false }
      return withUTF8Bytes(expected) { e in state.withUnsafeBufferPointer { constantTimeEquals(e, $0) } }
    }
    func wasConsumed() -> Bool {
      contents.consumed.contains { record in
        guard record.matchesRedirect(url) else { return false }
        switch (record.state, state) {
        case (nil, nil): return true
        case (let a?, _?): return matches(a)
        default: return false
        }
      }
    }
    /// How many pending authorizations the URL's redirect matches, counting up to `limit`.
    func candidateCount(upTo limit: Int) -> Int {
      var n = 0
      for id in contents.byRedirect[redirectKey] ?? [] where contents.entries[id]?.matchesRedirect(url) == true {
        n += 1
        if n == limit { break }
      }
      return n
    }
    guard candidateCount(upTo: 1) > 0 else {
      if wasConsumed() { throw CallbackError(.replayed) }
      if contents.entries.isEmpty { throw CallbackError(.notPending) }
      throw CallbackError(.redirectMismatch, found: PendingAuthorization.describe(url))
    }
    try fields.rejectDuplicates()
    let id: UInt64
    if let stateKey {
      let match = (contents.byState[stateKey] ?? []).first { candidate in
        guard let pending = contents.entries[candidate], let expected = pending.state else { return false }
        return pending.matchesRedirect(url) && matches(expected)
      }
      guard let match else {
        if wasConsumed() { throw CallbackError(.replayed) }
        throw fields.stateMismatch(found: nil)
      }
      id = match
    } else {
      let stateless = (contents.statelessByRedirect[redirectKey] ?? []).filter {
        contents.entries[$0]?.matchesRedirect(url) == true
      }
      if stateless.count > 1 { throw CallbackError(.ambiguousAuthorization) }
      if let only = stateless.first, contents.entries[only]?.provider == .tid {
        // T-ID app flow: bind only while exactly one T-ID authorization without state is pending at all.
        if contents.statelessTIDCount != 1 { throw CallbackError(.ambiguousAuthorization) }
        id = only
      } else if let only = stateless.first {
        id = only
      } else if candidateCount(upTo: 2) == 1, let only = (contents.byRedirect[redirectKey] ?? []).first(where: {
        contents.entries[$0]?.matchesRedirect(url) == true
      }) {
        id = only  // validate() decides (e.g. the Sber apps' error grammars); else state-mismatch
      } else {
        if wasConsumed() { throw CallbackError(.replayed) }
        throw fields.stateMismatch(found: "none")
      }
    }
    guard let authorization = contents.entries[id] else { throw CallbackError(.notPending) }
    // Spent or not by the one retire rule (``PendingAuthorization/retires(_:callbackHasState:authorizationHasState:)``):
    // a state-less callback (anyone can send `?cancelled` or `?error_code=5`) is decoded and reported, but leaves
    // the authorization pending unless it delivers a code to one without state.
    let result: Result<ProviderCallback, CallbackError>
    do throws(CallbackError) {
      result = .success(try authorization.validate(url, parameters: parameters, now: now))
    } catch {
      result = .failure(error)
    }
    if PendingAuthorization.retires(
      result, callbackHasState: state != nil, authorizationHasState: authorization.state != nil)
    {
      Self.retire(id, stateKey: stateKey, &contents, limit)
    }
    return try result.get()
  }

  /// The callback's state as decoded bytes: its non-empty `state`, else the `oauth.state` of a VK SDK 1.x
  /// `payload` (what such a callback is bound by); `nil` for none.
  private static func callbackState(_ fields: inout CallbackFields) -> [UInt8]? {
    if fields.isNonEmpty(.state) { return fields.withDecodedValue(.state) { Array($0) } }
    if fields.contains(.payload), let state = fields.legacyPayloadState() { return Array(state.utf8) }
    return nil
  }

  private static func retire(_ id: UInt64, stateKey: [UInt8]?, _ contents: inout Contents, _ limit: Int) {
    guard let authorization = remove(id, stateKey: stateKey, &contents) else { return }
    contents.consumed.append(authorization)
    if contents.consumed.count > limit { contents.consumed.removeFirst(contents.consumed.count - limit) }
  }

  /// Removes entry `id` from every index (`stateKey`: its state's key, `nil` for an entry without state).
  @discardableResult
  private static func remove(_ id: UInt64, stateKey: [UInt8]?, _ c: inout Contents) -> PendingAuthorization? {
    guard let authorization = c.entries.removeValue(forKey: id) else { return nil }
    let redirectKey = PendingAuthorization.redirectKey(authorization.redirectURI)
    c.byRedirect[redirectKey]?.remove(id)
    if c.byRedirect[redirectKey]?.isEmpty == true { c.byRedirect[redirectKey] = nil }
    if authorization.state != nil, let stateKey {
      c.byState[stateKey]?.removeAll { $0 == id }
      if c.byState[stateKey]?.isEmpty == true { c.byState[stateKey] = nil }
    } else {
      c.statelessByRedirect[redirectKey]?.removeAll { $0 == id }
      if c.statelessByRedirect[redirectKey]?.isEmpty == true { c.statelessByRedirect[redirectKey] = nil }
      if authorization.provider == .tid { c.statelessTIDCount -= 1 }
    }
    return authorization
  }
}
