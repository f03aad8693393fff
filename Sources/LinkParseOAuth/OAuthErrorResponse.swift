// A provider's error answer from its token, revoke or user-info endpoint (RFC 6749 §5.2 and providers'
// variants: T-ID's `error_message`, VK's echoed `state`).

public import LinkParseProviders

/// The error JSON a provider answers with instead of a result, raw body kept: the provider's error (a
/// ``ProviderError``, the type a callback's error has too) with what the answer carries besides.
///
/// ```swift
/// let error = try OAuthErrorResponse(json: Array(#"{"error":"invalid_grant","error_description":"code expired"}"#.utf8))
/// error.error == .invalidGrant   // true
/// error.errorDescription          // "code expired"
/// error.providerError.descriptionEN
/// ```
public struct OAuthErrorResponse: Sendable, Hashable, Codable {
  /// The provider's error: `error` (typed when it is a known OAuth code, kept raw otherwise, `limit_exceeded`),
  /// `error_description` (or T-ID's `error_message`), `error_uri`.
  ///
  /// ```swift
  /// response.providerError.code  // .invalidGrant
  /// ```
  public var providerError: ProviderError
  /// `state`, which VK ID echoes in its error answers.
  public var state: String?
  /// Every member the properties above do not name, in document order.
  public var additionalFields: JSONValue
  /// The body as received (UTF-8, invalid sequences replaced).
  public var rawBody: String

  /// `error`: ``providerError``'s code.
  ///
  /// ```swift
  /// response.error == .invalidGrant
  /// ```
  public var error: OAuthErrorCode {
    get { providerError.code }
    set { providerError.code = newValue }
  }
  /// `error_description` (or T-ID's `error_message`), when present: ``providerError``'s.
  ///
  /// ```swift
  /// response.errorDescription  // "code expired"
  /// ```
  public var errorDescription: String? {
    get { providerError.errorDescription }
    set { providerError.errorDescription = newValue }
  }
  /// `error_uri`, when present: ``providerError``'s.
  ///
  /// ```swift
  /// response.errorURI  // nil
  /// ```
  public var errorURI: String? {
    get { providerError.errorURI }
    set { providerError.errorURI = newValue }
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
    self.providerError = ProviderError(code: error, errorDescription: errorDescription, errorURI: errorURI)
    self.state = state
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  private enum CodingKeys: String, CodingKey {
    case error, errorDescription, errorURI, state, additionalFields, rawBody
  }

  /// Decodes the flat form ``encode(to:)`` writes.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      error: try c.decode(OAuthErrorCode.self, forKey: .error),
      errorDescription: try c.decodeIfPresent(String.self, forKey: .errorDescription),
      errorURI: try c.decodeIfPresent(String.self, forKey: .errorURI),
      state: try c.decodeIfPresent(String.self, forKey: .state),
      additionalFields: try c.decode(JSONValue.self, forKey: .additionalFields),
      rawBody: try c.decode(String.self, forKey: .rawBody))
  }

  /// Encodes `error`, `errorDescription`, `errorURI`, `state`, `additionalFields`, `rawBody` (flat, as before
  /// the error was a ``ProviderError``).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(error, forKey: .error)
    try c.encodeIfPresent(errorDescription, forKey: .errorDescription)
    try c.encodeIfPresent(errorURI, forKey: .errorURI)
    try c.encodeIfPresent(state, forKey: .state)
    try c.encode(additionalFields, forKey: .additionalFields)
    try c.encode(rawBody, forKey: .rawBody)
  }
}
