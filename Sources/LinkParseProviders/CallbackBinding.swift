// What a store needs from a callback to bind it, and the one rule for whether validating spends a login: for the
// consume policy in LinkParseAuthorization (SPI `PendingAuthorizationStores`).

public import LinkParseCore

/// What a store needs from a callback to bind it, computed with the same scan
/// the consume policy uses (LinkParseAuthorization's `PendingAuthorizationStorage`). Not API for applications.
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
  /// The provider's error the callback carries, for the `state-mismatch` errors below.
  private let providerError: ProviderError?
  /// The callback's URL, for `redirect-mismatch`.
  private let url: ParsedURL

  /// `state-mismatch` (found nothing), carrying the provider's error when the callback has one. Made when
  /// asked: a callback that binds never needs it.
  ///
  /// ```swift
  /// throw binding.stateMismatch
  /// ```
  public var stateMismatch: CallbackError {
    CallbackError(.stateMismatch, parameter: "state", found: nil, providerError: providerError)
  }
  /// `state-mismatch` (nothing found), likewise.
  ///
  /// ```swift
  /// throw binding.stateMismatchNone
  /// ```
  public var stateMismatchNone: CallbackError {
    CallbackError(.stateMismatch, parameter: "state", providerError: providerError)
  }
  /// `redirect-mismatch` for this URL (`scheme://host/path`, no query).
  ///
  /// ```swift
  /// throw binding.redirectMismatch
  /// ```
  public var redirectMismatch: CallbackError {
    CallbackError(.redirectMismatch, found: PendingAuthorization.describe(url))
  }

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
    providerError = fields.reportedProviderError()
    self.url = url
  }
}

extension PendingAuthorization {
  /// Whether validating a callback against this authorization spends it (single use), given what the validation
  /// gave: the one retire rule of the consume policy. Not API for applications.
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
      return callback.outcome == .success || callback.outcome == .implicitGrant || callback.outcome == .idTokenGrant
    }
  }
}
