// A provider's error answer from its token, revoke or user-info endpoint (RFC 6749 §5.2 and providers'
// variants: T-ID's `error_message`, VK's echoed `state`).

public import LinkParseProviders

/// The error JSON a provider answers with instead of a result, raw body kept: the provider's error (as the
/// ``ProviderError`` a callback's error is too, ``providerError``) with what the answer carries besides.
///
/// ```swift
/// let error = try OAuthErrorResponse(json: Array(#"{"error":"invalid_grant","error_description":"code expired"}"#.utf8))
/// error.error == .invalidGrant   // true
/// error.errorDescription          // "code expired"
/// error.providerError.code        // .invalidGrant
/// ```
public struct OAuthErrorResponse: Sendable, Hashable, Codable {
  /// `error`, typed when it is a known OAuth code, kept raw otherwise (`limit_exceeded`).
  public var error: OAuthErrorCode
  /// `error_description` (or T-ID's `error_message`), when present.
  public var errorDescription: String?
  /// `error_uri`, when present.
  public var errorURI: String?
  /// `state`, which VK ID echoes in its error answers.
  public var state: String?
  /// Every member the properties above do not name, in document order.
  public var additionalFields: JSONValue
  /// The body as received (UTF-8, invalid sequences replaced).
  public var rawBody: String

  /// The provider's error: `error`, `error_description`, `error_uri` as the ``ProviderError`` a callback's error
  /// is.
  ///
  /// ```swift
  /// response.providerError.code.descriptionEN
  /// ```
  public var providerError: ProviderError {
    ProviderError(code: error, errorDescription: errorDescription, errorURI: errorURI)
  }

  /// Creates an error answer from its values.
  ///
  /// ```swift
  /// OAuthErrorResponse(error: .invalidGrant)
  /// ```
  public init(
    error: OAuthErrorCode, errorDescription: String? = nil, errorURI: String? = nil, state: String? = nil,
    additionalFields: JSONValue = .object([]), rawBody: String = ""
  ) {
    self.error = error
    self.errorDescription = errorDescription
    self.errorURI = errorURI
    self.state = state
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }
}
