// The interface every pending-authorization store offers (in process, or shared through a database).

public import LinkParseCore

/// A store of pending authorizations whose callbacks are consumed once: the in-process
/// ``PendingAuthorizationStore``, or a store that several server instances share (LinkParsePostgres's
/// `PostgresPendingAuthorizationStore`).
///
/// Every implementation follows ``PendingAuthorizationStore``'s rules: binding by redirect URI then state
/// (constant time), single use (`replayed` afterwards), state-less forged errors reported without retiring the
/// real authorization, the T-ID single-pending rule (`ambiguous-authorization`). A store that cannot answer
/// (a lost database) throws ``CallbackError`` with code ``CallbackError/Code/storeUnavailable``, so
/// ``consume(_:parameters:now:)`` has one error type.
///
/// ```swift
/// func finish(_ store: some PendingAuthorizationStoring, _ url: ParsedURL) async throws(CallbackError) -> String? {
///   try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime()).code
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
  /// `now` (Unix seconds) and consumes it.
  ///
  /// ```swift
  /// let callback = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
  /// ```
  ///
  /// - Throws: ``CallbackError``: `not-pending`, `replayed`, `ambiguous-authorization`, any error of
  ///   ``PendingAuthorization/validate(_:parameters:now:)``, or `store-unavailable`.
  func consume(_ url: ParsedURL, parameters: FormParameters?, now: Int64) async throws(CallbackError)
    -> ProviderCallback

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

/// The in-process store, used synchronously as before or through the protocol.
///
/// ```swift
/// let store: any PendingAuthorizationStoring = PendingAuthorizationStore()
/// ```
extension PendingAuthorizationStore: PendingAuthorizationStoring {}

/// What a store needs from a callback to bind it, computed with the same scan
/// ``PendingAuthorizationStore`` uses: for stores outside this module (LinkParsePostgres). Not API for
/// applications.
///
/// ```swift
/// let binding = CallbackBinding(url, parameters: ProviderDetector.callbackParameters(of: url))
/// binding.state  // the decoded state's bytes, or nil
/// ```
@_spi(PendingAuthorizationStores)
public struct CallbackBinding: Sendable {
  /// The callback's decoded non-empty `state`, else a VK SDK 1.x `payload`'s `oauth.state`; `nil` for none.
  ///
  /// ```swift
  /// CallbackBinding(url, parameters: url.queryParameters).state  // Array("s".utf8) for ?state=s
  /// ```
  public let state: [UInt8]?
  /// The `duplicate-parameter` error the callback earns, if it repeats a critical parameter.
  ///
  /// ```swift
  /// if let duplicate = binding.duplicate { throw duplicate }
  /// ```
  public let duplicate: CallbackError?
  /// `state-mismatch` (found nothing), carrying the provider's error when the callback has one.
  ///
  /// ```swift
  /// throw binding.stateMismatch
  /// ```
  public let stateMismatch: CallbackError
  /// `state-mismatch` (found "none"), likewise.
  ///
  /// ```swift
  /// throw binding.stateMismatchNone
  /// ```
  public let stateMismatchNone: CallbackError
  /// `redirect-mismatch` for this URL (`scheme://host/path`, no query).
  ///
  /// ```swift
  /// throw binding.redirectMismatch
  /// ```
  public let redirectMismatch: CallbackError

  /// Scans `parameters` once.
  ///
  /// ```swift
  /// let binding = CallbackBinding(url, parameters: ProviderDetector.callbackParameters(of: url))
  /// ```
  public init(_ url: ParsedURL, parameters: FormParameters) {
    var fields = CallbackFields(parameters)
    if fields.isNonEmpty(.state) {
      state = fields.withDecodedValue(.state) { Array($0) }
    } else if fields.contains(.payload), let legacy = fields.legacyPayloadState() {
      state = Array(legacy.utf8)
    } else {
      state = nil
    }
    var duplicate: CallbackError?
    do throws(CallbackError) { try fields.rejectDuplicates() } catch { duplicate = error }
    self.duplicate = duplicate
    stateMismatch = fields.stateMismatch(found: nil)
    stateMismatchNone = fields.stateMismatch(found: "none")
    redirectMismatch = CallbackError(.redirectMismatch, found: PendingAuthorization.describe(url))
  }
}

extension PendingAuthorization {
  /// Whether validating a callback against this authorization spends it (single use), given what the validation
  /// gave: the one retire rule every ``PendingAuthorizationStoring`` follows. Not API for applications.
  ///
  /// - A callback bound by its `state` (or a VK SDK 1.x `payload`'s `oauth.state`) spends the authorization
  ///   whatever it says — success, error, cancel — unless it failed before binding (`state-mismatch`,
  ///   `redirect-mismatch`).
  /// - A callback without a state carries no proof that it answers this authorization: anyone can open
  ///   `myapp://authorized?cancelled` or send `?result=FAILURE&error_code=5`. It is decoded and reported, but it
  ///   spends the authorization only when it delivers what the login waits for (a code or a token, outcome
  ///   ``CallbackOutcome/success`` or ``CallbackOutcome/implicitGrant``) to an authorization that has no state
  ///   either (the T-ID app flow, which PKCE protects), or when the authorization has expired. A forged T-ID
  ///   `cancelled`, `unavailable` or debug `result=` therefore leaves the real login pending, as a forged Sber
  ///   error does.
  ///
  /// ```swift
  /// PendingAuthorization.retires(.success(.tid(.cancelled)), callbackHasState: false, authorizationHasState: false)  // false
  /// ```
  @_spi(PendingAuthorizationStores)
  public static func retires(
    _ result: Result<ProviderCallback, CallbackError>, callbackHasState: Bool, authorizationHasState: Bool
  ) -> Bool {
    switch result {
    case .failure(let error) where error.code == .stateMismatch || error.code == .redirectMismatch:
      return false
    case .failure(let error) where error.code == .expired:
      return true
    case .failure:
      return callbackHasState
    case .success(let callback):
      if callbackHasState { return true }
      guard !authorizationHasState else { return false }
      return callback.outcome == .success || callback.outcome == .implicitGrant
    }
  }
}
