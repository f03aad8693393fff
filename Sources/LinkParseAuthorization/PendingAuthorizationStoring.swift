// The interface every pending-authorization store offers, the consumed authorization a callback hands back,
// and the one consume policy, written once over a small storage interface (in process, or in a database).

public import LinkParseCore
@_spi(PendingAuthorizationStores) public import LinkParseProviders
import LinkParseBytes

/// A store of pending authorizations whose callbacks are consumed once: the in-process
/// ``PendingAuthorizationStore``, or a store that several server instances share (LinkParsePostgres's
/// `PostgresPendingAuthorizationStore`).
///
/// Both are ``PendingAuthorizationStorage``s: they implement a handful of queries, and the one consume policy
/// (``PendingAuthorizationStorage/consume(_:parameters:now:)``) binds and spends callbacks for all of them.
///
/// ```swift
/// func finish(_ store: some PendingAuthorizationStoring, _ url: ParsedURL) async throws -> OAuthRequest {
///   let consumed = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
///   return try consumed.tokenRequest()   // LinkParseOAuth: verifier, client id, redirect URI as sent
/// }
/// ```
public protocol PendingAuthorizationStoring: Sendable {
  /// Adds a pending authorization.
  ///
  /// ```swift
  /// try await store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "s"))
  /// ```
  func insert(_ authorization: PendingAuthorization) async throws

  /// Binds `url` (and its `parameters`, `nil` for the URL's own) to a pending authorization, validates it at
  /// `now` (Unix seconds) and consumes it: the pending authorization (its PKCE verifier, nonce, client id and
  /// redirect URI as sent) together with the callback.
  ///
  /// ```swift
  /// let consumed = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
  /// consumed.callback.code           // the authorization code
  /// consumed.authorization.nonce     // what the id_token must carry
  /// ```
  ///
  /// A login bound to its browser (``PendingAuthorization/browserBinding``) is bound only when `browser`
  /// presents its cookie's hash; otherwise the callback is refused with `browser-mismatch` and the login stays
  /// pending for its own browser. A login without a binding (an app's) accepts any `browser`, `nil` included.
  ///
  /// - Throws: ``CallbackError``: `not-pending`, `replayed`, `ambiguous-authorization`, `browser-mismatch`, any
  ///   error of ``PendingAuthorization/validate(_:parameters:now:)``; or the store's own error when it cannot
  ///   answer (LinkParsePostgres: `PostgresStoreError`).
  func consume(
    _ url: ParsedURL, parameters: FormParameters?, browser: BrowserBinding?, now: Int64
  ) async throws -> ConsumedAuthorization

  /// Binds `url` to a pending authorization that the browser carried back itself — sealed in its login cookie
  /// (LinkParseHummingbird's `LoginCookies`), so the store never held it — validates it at `now` and spends it
  /// once: the store remembers only that this state was used (until the authorization expires), so of any
  /// number of callbacks carrying the same login, one succeeds and the others are `replayed`.
  ///
  /// The carrier has already proved the browser (only the browser that started the login holds the sealed
  /// cookie); `pending.browserBinding` is what a later replay from another browser is compared with.
  ///
  /// ```swift
  /// let consumed = try await store.consume(url, parameters: nil, carried: openedFromCookie, now: now)
  /// ```
  ///
  /// - Throws: ``CallbackError``: `state-mismatch` (the callback's state is not the carried one's),
  ///   `redirect-mismatch`, `replayed`, any error of ``PendingAuthorization/validate(_:parameters:now:)``; or
  ///   the store's own error.
  func consume(
    _ url: ParsedURL, parameters: FormParameters?, carried pending: PendingAuthorization, now: Int64
  ) async throws -> ConsumedAuthorization

  /// Gives back a carried authorization that ``consume(_:parameters:carried:now:)`` spent but nobody used —
  /// its code never reached the provider (the token endpoint could not be connected to) —, so that the same
  /// callback, from the same browser, may be delivered again. Returns `false` when it was not recorded spent
  /// (or the store cannot give logins back: the default).
  ///
  /// ```swift
  /// if error.unsentRequest == .tokenExchange { _ = try await store.restore(carried: consumed.authorization) }
  /// ```
  func restore(carried pending: PendingAuthorization) async throws -> Bool

  /// Drops what has expired at `now` (Unix seconds); returns how many entries went.
  ///
  /// ```swift
  /// let dropped = try await store.removeExpired(now: PendingAuthorization.currentUnixTime())
  /// ```
  func removeExpired(now: Int64) async throws -> Int

  /// The number of pending (not yet consumed) authorizations.
  ///
  /// ```swift
  /// let pending = try await store.count
  /// ```
  var count: Int { get async throws }
}

extension PendingAuthorizationStoring {
  /// A store that cannot give a spent login back: `false`.
  ///
  /// ```swift
  /// try await store.restore(carried: pending)  // false
  /// ```
  public func restore(carried pending: PendingAuthorization) async throws -> Bool { false }

  /// ``consume(_:parameters:browser:now:)`` from no browser: for app callbacks (deep links), whose logins are
  /// not bound to a browser.
  ///
  /// ```swift
  /// let consumed = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
  /// ```
  public func consume(
    _ url: ParsedURL, parameters: FormParameters? = nil, now: Int64 = PendingAuthorization.currentUnixTime()
  ) async throws -> ConsumedAuthorization {
    try await consume(url, parameters: parameters, browser: nil, now: now)
  }
}

/// A store that holds as many pending authorizations as it may (its capacity, counted after dropping the
/// expired ones) refuses another with this error, code `store-full`: the web endpoint answers 503 with
/// `Retry-After`. A flood of anonymous starts then costs a bounded amount of memory, and the logins already
/// pending are kept.
///
/// ```swift
/// do { try await store.insert(pending) } catch let error as PendingAuthorizationStoreFull { print(error.capacity) }
/// ```
public struct PendingAuthorizationStoreFull: Error, Sendable, Hashable, CustomStringConvertible {
  /// The store's capacity.
  public let capacity: Int

  /// The error of a store with `capacity`.
  ///
  /// ```swift
  /// PendingAuthorizationStoreFull(capacity: 100_000).code  // "store-full"
  /// ```
  public init(capacity: Int) { self.capacity = capacity }

  /// The stable code, `store-full`.
  public var code: String { "store-full" }

  /// `store-full: …`.
  public var description: String {
    "store-full: the store already holds its capacity of \(capacity) pending authorizations"
  }
}

/// A store refuses to add a pending authorization whose `state` is already pending with this error, code
/// `state-pending`: two records under one state would let one callback be consumed twice (once per record).
/// The rule is the storage contract's (``PendingAuthorizationStorage/add(_:stateKey:redirectKey:now:)``), so
/// every store keeps it atomically: the in-memory store under its lock, PostgreSQL by its unique index on the
/// state's keyed hash (which also refuses a state consumed recently, until its row is swept). A state drawn
/// fresh for every start (``LoginStart`` draws 256 random bits) never meets it; an app that inserts the same
/// authorization twice does.
///
/// ```swift
/// do { try await store.insert(pending) } catch let error as PendingAuthorizationConflict { print(error.code) }
/// ```
public struct PendingAuthorizationConflict: Error, Sendable, Hashable, CustomStringConvertible {
  /// Creates the error.
  ///
  /// ```swift
  /// PendingAuthorizationConflict().code  // "state-pending"
  /// ```
  public init() {}

  /// The stable code, `state-pending`.
  public var code: String { "state-pending" }

  /// `state-pending: …`.
  public var description: String {
    "state-pending: an authorization with this state is already pending; draw a fresh state for every start"
  }
}

extension PendingAuthorization {
  /// Whether adding `self` makes `other`, already pending, obsolete: both are T-ID app logins without state
  /// (the T-ID app's callback carries none) for the same client id and redirect URI. Their callbacks cannot
  /// be told apart, and the user finishes the login started last (a double tap, a retry after the app was
  /// slow), so the newer replaces the older instead of making the real callback `ambiguous-authorization`.
  /// Every store applies this one rule when it adds a pending authorization.
  ///
  /// ```swift
  /// newer.replaces(older)  // true for two state-less T-ID logins of one client to one redirect URI
  /// ```
  public func replaces(_ other: PendingAuthorization) -> Bool {
    provider == .tid && other.provider == .tid && state == nil && other.state == nil && clientID == other.clientID
      && Self.redirectKey(redirectURI) == Self.redirectKey(other.redirectURI)
  }
}

/// What the browser delivering a callback presents of the logins it started: the keyed hashes of its login
/// (transaction) cookies. The web endpoint (LinkParseHummingbird) makes it from the request's cookies; the
/// store compares it with the hash kept in the pending authorization (``PendingAuthorization/browserBinding``),
/// in constant time.
///
/// ```swift
/// let browser = BrowserBinding(hashes: ["Yk3…"])
/// let consumed = try await store.consume(url, parameters: nil, browser: browser, now: now)
/// ```
public struct BrowserBinding: Sendable, Hashable {
  /// The hashes presented (one per login cookie the request carried).
  public var hashes: [String]

  /// The hashes a browser presents.
  ///
  /// ```swift
  /// BrowserBinding(hashes: [])  // a browser with no login cookie
  /// ```
  public init(hashes: [String]) { self.hashes = hashes }

  /// Whether a callback from this browser may bind `pending`: yes for a login without a binding, else when
  /// one of ``hashes`` equals its binding (constant-time comparison).
  ///
  /// ```swift
  /// BrowserBinding(hashes: ["h"]).admits(pending)
  /// ```
  public func admits(_ pending: PendingAuthorization) -> Bool {
    Self.admits(self, pending)
  }

  /// ``admits(_:)`` for an optional browser (`nil`: none presented).
  static func admits(_ browser: BrowserBinding?, _ pending: PendingAuthorization) -> Bool {
    guard let expected = pending.browserBinding else { return true }
    var found = false
    for hash in browser?.hashes ?? [] {
      let same = withUTF8Bytes(expected) { e in withUTF8Bytes(hash) { constantTimeEquals(e, $0) } }
      found = found || same
    }
    return found
  }
}

/// A callback bound to the pending authorization it answers: what a server needs for the next step. The
/// token request comes from it (`consumed.tokenRequest()` in LinkParseOAuth), with the PKCE verifier, the
/// client id and the redirect URI exactly as the authorization request sent them; the `nonce` checks the
/// id_token.
///
/// ```swift
/// let consumed = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
/// switch consumed.callback.outcome {
/// case .success: let request = try consumed.tokenRequest()   // send it (LinkParseHTTP)
/// default: break                                             // cancelled, or the provider's error
/// }
/// ```
public struct ConsumedAuthorization: Sendable, Hashable {
  /// The pending authorization the callback answers.
  ///
  /// ```swift
  /// consumed.authorization.codeVerifier  // the PKCE verifier the token request needs
  /// ```
  public let authorization: PendingAuthorization
  /// The validated, decoded callback.
  ///
  /// ```swift
  /// consumed.callback.code  // "FA21"
  /// ```
  public let callback: ProviderCallback
  /// Whether the callback spent the authorization (single use). `false` only for a callback without a state
  /// that does not deliver a code to an authorization without state (a T-ID `?cancelled`, a Sber app's
  /// `?result=FAILURE&error_code=5`): anyone can send those, so the login stays pending and the genuine
  /// callback still succeeds. Report such an outcome; do not end the login on it.
  ///
  /// ```swift
  /// if !consumed.isSpent { /* a state-less error: the login is still pending */ }
  /// ```
  public let isSpent: Bool

  /// Pairs a pending authorization with its validated callback (a store's ``PendingAuthorizationStoring/consume(_:parameters:now:)``
  /// makes these; tests and custom flows may too).
  ///
  /// ```swift
  /// let consumed = ConsumedAuthorization(authorization: pending, callback: try pending.validate(url))
  /// ```
  public init(authorization: PendingAuthorization, callback: ProviderCallback, isSpent: Bool = true) {
    self.authorization = authorization
    self.callback = callback
    self.isSpent = isSpent
  }
}

/// A pending authorization as a storage keeps it, with the storage's own identifier.
///
/// ```swift
/// let record = StoredAuthorization(id: 7, authorization: pending)
/// ```
public struct StoredAuthorization<ID: Sendable>: Sendable {
  /// The storage's identifier of the record.
  public var id: ID
  /// The pending authorization.
  public var authorization: PendingAuthorization

  /// Creates a record.
  ///
  /// ```swift
  /// StoredAuthorization(id: 7, authorization: pending)
  /// ```
  public init(id: ID, authorization: PendingAuthorization) {
    self.id = id
    self.authorization = authorization
  }
}

/// The queries a pending-authorization store answers; the consume policy
/// (``consume(_:parameters:now:)``) is written once on top of them, so every store binds and spends callbacks
/// the same way. Implement it to keep pending authorizations somewhere else (Redis, another database).
///
/// A record is *pending* until it is *consumed*; a consumed record is remembered for a while (to answer
/// `replayed`), then dropped. Records are found by a keyed hash of their state (``stateKey(_:)``, never the
/// state itself) and by redirect key (``PendingAuthorization/redirectKey(_:)``).
///
/// The policy, in order:
/// 1. A callback with a `state` (or a VK SDK 1.x `payload`'s `oauth.state`) is bound by its state key:
///    ``claim(stateKey:now:)`` marks the record consumed atomically, so of any number of concurrent callbacks
///    exactly one gets it. The state is compared again in constant time and the redirect URI is matched; the
///    callback is validated (``PendingAuthorization/validate(_:parameters:now:)``). A callback that turns out
///    not to be bound to it (`redirect-mismatch`, `state-mismatch`) puts it back (``release(_:)``); anything
///    else spends it, whatever validation said.
/// 2. A repeated critical parameter binds nothing: `duplicate-parameter` while anything is pending at the
///    redirect URI.
/// 3. A callback without a state binds only the one authorization without state pending at its redirect URI
///    (`ambiguous-authorization` for several; for T-ID, exactly one state-less T-ID authorization pending at
///    all), else the one authorization pending there at all (the Sber apps' state-less error grammars). It
///    spends the authorization only as ``PendingAuthorization/retires(_:callbackHasState:authorizationHasState:)``
///    says (a code delivered to an authorization without state), through ``retire(_:now:)``, which fails when
///    another callback got there first (`replayed`).
/// 4. Nothing bound: `replayed` when a consumed record for the state (and redirect URI) is remembered — to the
///    browser that started that login, or for a login bound to none; any other browser gets
///    `browser-mismatch`, as for a pending login, so a replay tells a stranger nothing —, else
///    `not-pending` when nothing is pending at all, `redirect-mismatch` when nothing is pending at the URL's
///    redirect URI, `state-mismatch` otherwise.
///
/// ```swift
/// final class RedisStore: PendingAuthorizationStorage { … }   // the queries below
/// let consumed = try await RedisStore().consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
/// ```
public protocol PendingAuthorizationStorage: PendingAuthorizationStoring {
  /// The storage's identifier of a record.
  associatedtype RecordID: Sendable

  /// The keyed hash a state is stored and found by (HMAC-SHA256 under a key of the storage's own).
  ///
  /// ```swift
  /// storage.stateKey(Array("s".utf8)).count  // 32
  /// ```
  func stateKey(_ state: [UInt8]) -> [UInt8]

  /// Stores a pending authorization under its state key (`nil` without state) and redirect key.
  ///
  /// Refuses, atomically, a state key that is already pending (``PendingAuthorizationConflict``, `state-pending`).
  ///
  /// ```swift
  /// try await storage.add(pending, stateKey: storage.stateKey(Array("s".utf8)), redirectKey: "https://a/cb", now: now)
  /// ```
  func add(_ authorization: PendingAuthorization, stateKey: [UInt8]?, redirectKey: String, now: Int64) async throws

  /// Records, atomically, that the carried authorization with this state key was spent (a consumed record,
  /// kept at least until the authorization expires, that no pending capacity counts); `false` when the state
  /// key is already recorded, pending or spent (a replay).
  ///
  /// ```swift
  /// guard try await storage.addSpent(pending, stateKey: key, redirectKey: "https://a/cb", now: now) else {
  ///   throw CallbackError(.replayed)
  /// }
  /// ```
  func addSpent(_ authorization: PendingAuthorization, stateKey: [UInt8], redirectKey: String, now: Int64) async throws
    -> Bool

  /// Forgets that the carried authorization with this state key was spent (what
  /// ``addSpent(_:stateKey:redirectKey:now:)`` recorded; a stored one's record is left alone), so it can be
  /// spent again; `false` when no such record is left. The default gives nothing back.
  ///
  /// ```swift
  /// try await storage.removeSpent(stateKey: key)  // true
  /// ```
  func removeSpent(stateKey: [UInt8]) async throws -> Bool

  /// Marks the pending record with this state key consumed and returns it, atomically; `nil` when none is
  /// pending.
  ///
  /// ```swift
  /// let record = try await storage.claim(stateKey: key, now: now)
  /// ```
  func claim(stateKey: [UInt8], now: Int64) async throws -> StoredAuthorization<RecordID>?

  /// Makes a claimed record pending again (its callback was not bound to it).
  ///
  /// ```swift
  /// try await storage.release(record.id)
  /// ```
  func release(_ id: RecordID) async throws

  /// Marks a pending record consumed; `false` when it was no longer pending.
  ///
  /// ```swift
  /// guard try await storage.retire(record.id, now: now) else { throw CallbackError(.replayed) }
  /// ```
  func retire(_ id: RecordID, now: Int64) async throws -> Bool

  /// Pending records at `redirectKey`: those with a state (`withState` `true`), without (`false`), or both
  /// (`nil`), at most `limit`, in any order.
  ///
  /// ```swift
  /// let stateless = try await storage.pending(redirectKey: "myapp://authorized/", withState: false, limit: 16)
  /// ```
  func pending(redirectKey: String, withState: Bool?, limit: Int) async throws -> [StoredAuthorization<RecordID>]

  /// Consumed records still remembered at `redirectKey` with this state key (`nil`: those without state).
  ///
  /// ```swift
  /// let replays = try await storage.consumed(stateKey: key, redirectKey: "https://a/cb")
  /// ```
  func consumed(stateKey: [UInt8]?, redirectKey: String) async throws -> [PendingAuthorization]

  /// Whether anything at all is pending.
  ///
  /// ```swift
  /// try await storage.hasPending()  // false for an empty store
  /// ```
  func hasPending() async throws -> Bool

  /// How many authorizations without state are pending for `provider` (the T-ID app flow's rule).
  ///
  /// ```swift
  /// try await storage.pendingWithoutState(provider: .tid)  // 1
  /// ```
  func pendingWithoutState(provider: Provider) async throws -> Int

  /// The clock (Unix seconds) by which ``PendingAuthorizationStoring/insert(_:)`` stamps a new record (and a
  /// store sweeps what has expired): the system's, unless the storage has its own (a test's).
  ///
  /// ```swift
  /// store.currentTime()  // 1_764_000_000
  /// ```
  func currentTime() -> Int64
}

extension PendingAuthorizationStorage {
  /// Nothing to forget: `false` (a storage that records spent logins implements this to let them be retried).
  ///
  /// ```swift
  /// try await storage.removeSpent(stateKey: key)  // false
  /// ```
  public func removeSpent(stateKey: [UInt8]) async throws -> Bool { false }

  /// Gives back a carried authorization (see ``PendingAuthorizationStoring/restore(carried:)``) through
  /// ``removeSpent(stateKey:)``.
  ///
  /// ```swift
  /// try await store.restore(carried: consumed.authorization)  // true: the callback may come again
  /// ```
  public func restore(carried pending: PendingAuthorization) async throws -> Bool {
    guard let state = pending.state else { return false }
    return try await removeSpent(stateKey: stateKey(Array(state.utf8)))
  }

  /// Adds a pending authorization under its state key and redirect key.
  ///
  /// ```swift
  /// try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
  /// ```
  /// A state-less T-ID login replaces the one of the same client and redirect URI still pending
  /// (``PendingAuthorization/replaces(_:)``): that one is retired first, so its late callback is the newer's.
  /// A state already pending is refused with ``PendingAuthorizationConflict``.
  public func insert(_ authorization: PendingAuthorization) async throws {
    let redirectKey = PendingAuthorization.redirectKey(authorization.redirectURI)
    let now = currentTime()
    if authorization.state == nil && authorization.provider == .tid {
      for old in try await pending(redirectKey: redirectKey, withState: false, limit: 64)
      where authorization.replaces(old.authorization) {
        _ = try await retire(old.id, now: now)
      }
    }
    try await add(
      authorization, stateKey: authorization.state.map { stateKey(Array($0.utf8)) }, redirectKey: redirectKey, now: now)
  }

  /// The system's clock.
  ///
  /// ```swift
  /// store.currentTime()  // PendingAuthorization.currentUnixTime()
  /// ```
  public func currentTime() -> Int64 { PendingAuthorization.currentUnixTime() }

  /// The consume policy (see ``PendingAuthorizationStorage``).
  ///
  /// ```swift
  /// do {
  ///   let consumed = try await store.consume(url)
  /// } catch let error as CallbackError where error.code == .replayed {
  ///   // a second callback for an authorization already used
  /// }
  /// ```
  ///
  /// - Throws: ``CallbackError`` for the callback; the storage's own error when it cannot answer.
  public func consume(
    _ url: ParsedURL, parameters: FormParameters?, browser: BrowserBinding?, now: Int64
  ) async throws -> ConsumedAuthorization {
    let parameters = parameters ?? ProviderDetector.callbackParameters(of: url)
    let binding = CallbackBinding(url, parameters: parameters)
    let redirectKey = PendingAuthorization.redirectKey(url)
    if let state = binding.state {
      return try await consumeStated(url, parameters, now, binding, state, redirectKey, browser)
    }
    return try await consumeStateless(url, parameters, now, binding, redirectKey, browser)
  }

  /// The consume policy for an authorization the browser carried (see
  /// ``PendingAuthorizationStoring/consume(_:parameters:carried:now:)``): the same binding and validation as a
  /// stored one's, spent through ``addSpent(_:stateKey:redirectKey:now:)``.
  ///
  /// ```swift
  /// let consumed = try await store.consume(url, parameters: nil, carried: pending, now: now)
  /// ```
  public func consume(
    _ url: ParsedURL, parameters: FormParameters?, carried pending: PendingAuthorization, now: Int64
  ) async throws -> ConsumedAuthorization {
    let parameters = parameters ?? ProviderDetector.callbackParameters(of: url)
    let binding = CallbackBinding(url, parameters: parameters)
    if let duplicate = binding.duplicate { throw duplicate }
    guard let state = binding.state, Self.hasState(pending, state) else { throw binding.stateMismatch }
    guard pending.matchesRedirect(url) else { throw binding.redirectMismatch }
    let result = Self.validate(pending, url, parameters, now)
    let spent = PendingAuthorization.retires(result, callbackHasState: true, authorizationHasState: true)
    if spent {
      let redirectKey = PendingAuthorization.redirectKey(url)
      guard try await addSpent(pending, stateKey: stateKey(state), redirectKey: redirectKey, now: now) else {
        throw CallbackError(.replayed)
      }
    }
    return ConsumedAuthorization(authorization: pending, callback: try result.get(), isSpent: spent)
  }

  /// A callback with a state: claimed by its state key.
  private func consumeStated(
    _ url: ParsedURL, _ parameters: FormParameters, _ now: Int64, _ binding: CallbackBinding, _ state: [UInt8],
    _ redirectKey: String, _ browser: BrowserBinding?
  ) async throws -> ConsumedAuthorization {
    let key = stateKey(state)
    if let duplicate = binding.duplicate {
      // A repeated critical parameter binds nothing: rejected while anything is pending at this redirect URI.
      if try await !candidates(url, redirectKey, withState: nil, limit: 16).isEmpty { throw duplicate }
      throw try await notBound(url, binding, key, redirectKey, browser)
    }
    if let record = try await claim(stateKey: key, now: now) {
      let pending = record.authorization
      // The keyed hash found it; the state itself is compared too.
      if Self.hasState(pending, state) && pending.matchesRedirect(url) {
        // Another browser's callback (login CSRF): refused, and the login stays pending for its own browser.
        guard BrowserBinding.admits(browser, pending) else {
          try await release(record.id)
          throw CallbackError(.browserMismatch)
        }
        let result = Self.validate(pending, url, parameters, now)
        // Bound by its state: spent, unless it failed before binding (the one retire rule).
        let spent = PendingAuthorization.retires(
          result, callbackHasState: true, authorizationHasState: pending.state != nil)
        if !spent { try await release(record.id) }
        return ConsumedAuthorization(authorization: pending, callback: try result.get(), isSpent: spent)
      }
      try await release(record.id)  // not this callback's: as if the state had matched nothing
    }
    throw try await notBound(url, binding, key, redirectKey, browser)
  }

  /// A callback without a state: the one state-less authorization at its redirect URI, or the one pending there.
  private func consumeStateless(
    _ url: ParsedURL, _ parameters: FormParameters, _ now: Int64, _ binding: CallbackBinding, _ redirectKey: String,
    _ browser: BrowserBinding?
  ) async throws -> ConsumedAuthorization {
    let stateless = try await candidates(url, redirectKey, withState: false, limit: 16)
    let chosen: StoredAuthorization<RecordID>
    if let only = stateless.first {
      if let duplicate = binding.duplicate { throw duplicate }
      guard stateless.count == 1 else { throw CallbackError(.ambiguousAuthorization) }
      // T-ID app flow: bind only while exactly one T-ID authorization without state is pending at all (none
      // left: a concurrent callback has just spent this one).
      if only.authorization.provider == .tid {
        switch try await pendingWithoutState(provider: .tid) {
        case 1: break
        case 0: throw CallbackError(.replayed)
        default: throw CallbackError(.ambiguousAuthorization)
        }
      }
      chosen = only
    } else {
      let stated = try await candidates(url, redirectKey, withState: true, limit: 4)
      guard let only = stated.first else { throw try await notBound(url, binding, nil, redirectKey, browser) }
      if let duplicate = binding.duplicate { throw duplicate }
      guard stated.count == 1 else {
        throw try await replay(url, nil, redirectKey, browser) ?? binding.stateMismatchNone
      }
      chosen = only  // validate() decides (the Sber apps' error grammars); else state-mismatch
    }
    // Spent only as the one retire rule says (a code to an authorization without state); a forged `?cancelled`
    // or Sber app error is reported but leaves the login pending.
    let pending = chosen.authorization
    guard BrowserBinding.admits(browser, pending) else { throw CallbackError(.browserMismatch) }
    let result = Self.validate(pending, url, parameters, now)
    let spent = PendingAuthorization.retires(result, callbackHasState: false, authorizationHasState: pending.state != nil)
    if spent, try await !retire(chosen.id, now: now) { throw CallbackError(.replayed) }
    return ConsumedAuthorization(authorization: pending, callback: try result.get(), isSpent: spent)
  }

  /// Whether `pending`'s state is the callback's decoded `state`, compared in constant time over the bytes (a
  /// `%FF` state matches no state; a pending authorization without a state matches none).
  private static func hasState(_ pending: PendingAuthorization, _ state: [UInt8]) -> Bool {
    pending.state.map { expected in
      withUTF8Bytes(expected) { e in state.withUnsafeBufferPointer { constantTimeEquals(e, $0) } }
    } ?? false
  }

  private static func validate(
    _ pending: PendingAuthorization, _ url: ParsedURL, _ parameters: FormParameters, _ now: Int64
  ) -> Result<ProviderCallback, CallbackError> {
    do throws(CallbackError) {
      return .success(try pending.validate(url, parameters: parameters, now: now))
    } catch {
      return .failure(error)
    }
  }

  /// Pending records at the URL's redirect key that its redirect URI matches.
  private func candidates(
    _ url: ParsedURL, _ redirectKey: String, withState: Bool?, limit: Int
  ) async throws -> [StoredAuthorization<RecordID>] {
    try await pending(redirectKey: redirectKey, withState: withState, limit: limit).filter {
      $0.authorization.matchesRedirect(url)
    }
  }

  /// When a consumed record for this state key (or without state) and the URL's redirect URI is remembered:
  /// `replayed` for the browser that started it (or a login bound to no browser), `browser-mismatch` for any
  /// other — a replay tells only the login's own browser that its login was used; `nil` when none is.
  private func replay(
    _ url: ParsedURL, _ key: [UInt8]?, _ redirectKey: String, _ browser: BrowserBinding?
  ) async throws -> CallbackError? {
    let spent = try await consumed(stateKey: key, redirectKey: redirectKey).filter { $0.matchesRedirect(url) }
    guard !spent.isEmpty else { return nil }
    return spent.contains { BrowserBinding.admits(browser, $0) } ? CallbackError(.replayed) : CallbackError(.browserMismatch)
  }

  /// Nothing bound: `replayed` (or, from another browser, `browser-mismatch`), `not-pending`,
  /// `redirect-mismatch`, the duplicate, or `state-mismatch`.
  private func notBound(
    _ url: ParsedURL, _ binding: CallbackBinding, _ key: [UInt8]?, _ redirectKey: String, _ browser: BrowserBinding?
  ) async throws -> CallbackError {
    if let replayed = try await replay(url, key, redirectKey, browser) { return replayed }
    if try await candidates(url, redirectKey, withState: nil, limit: 16).isEmpty {
      return try await hasPending() ? binding.redirectMismatch : CallbackError(.notPending)
    }
    if let duplicate = binding.duplicate { return duplicate }
    return key == nil ? binding.stateMismatchNone : binding.stateMismatch
  }
}
