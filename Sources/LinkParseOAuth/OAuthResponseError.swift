// Why a provider's answer could not be turned into a result: the provider said no (its error JSON), the body
// is not the JSON it should be, or (in LinkParseHTTP) the exchange itself failed.


/// Why a token, refresh, revoke, user-info or introspection answer was not a result.
///
/// Every error has a stable kebab-case ``code``, the byte ``offset`` in the body where one applies (JSON
/// syntax errors), the ``field`` concerned, and a ``message`` a person can act on. When the provider
/// answered with its own error JSON (`{"error":"invalid_grant",…}`), ``providerError`` holds it, raw body
/// included. Secrets (tokens, codes) are never copied into the message.
///
/// ```swift
/// do {
///   let tokens = try TokenResponse(json: body, provider: .vk)
/// } catch {
///   print(error.code, error.offset ?? -1, error.message)   // invalid-json 17 expected ':' after an object key
///   if let provider = error.providerError { print(provider.error) }  // invalid_grant
/// }
/// ```
public struct OAuthResponseError: Error, Sendable, Hashable, CustomStringConvertible {

  /// A stable, machine-readable code. New codes may be added; existing ones never change meaning.
  public struct Code: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kebab-case spelling.
    public let rawValue: String
    init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The body is not valid JSON (syntax, invalid UTF-8, nesting too deep); ``OAuthResponseError/offset`` says where.
    public static let invalidJSON = Code("invalid-json")
    /// The JSON is valid but not the expected shape (not an object, a field of the wrong type).
    public static let unexpectedShape = Code("unexpected-shape")
    /// A field the result needs is missing or empty (e.g. `access_token`).
    public static let missingField = Code("missing-field")
    /// A field has a value outside its grammar (e.g. `expires_in` that is not a whole number).
    public static let invalidField = Code("invalid-field")
    /// The provider answered with its error JSON (`error`, `error_description`, …): see ``OAuthResponseError/providerError``.
    public static let providerError = Code("provider-error")
    /// The HTTP status was not a success and the body was not the provider's error JSON.
    public static let httpStatus = Code("http-status")
    /// The body is larger than the configured limit.
    public static let bodyTooLarge = Code("body-too-large")
    /// The provider did not answer in time (LinkParseHTTP).
    public static let timeout = Code("timeout")
    /// The connection failed (LinkParseHTTP): DNS, TCP, TLS, a reset.
    public static let transport = Code("transport")
  }

  /// What went wrong.
  public var code: Code
  /// The byte offset in the body, for JSON errors.
  public var offset: Int?
  /// The JSON field concerned, when there is one.
  public var field: String?
  /// A sentence for a log line or a developer; never contains a token or code.
  public var message: String
  /// The provider's own error answer, for ``Code/providerError`` (and for ``Code/httpStatus`` when the body
  /// held one).
  public var providerError: OAuthErrorResponse?
  /// The HTTP status, when the answer came over HTTP.
  public var status: Int?
  /// The kind of the request when it is known never to have left this process (``Code/transport`` or
  /// ``Code/timeout`` from `OAuthHTTPClient`): no connection could be made to the server (refused, no
  /// address, the connect or TLS handshake timed out). `nil` whenever the request may have been sent. A login
  /// whose code exchange failed so (`.tokenExchange`) may be tried again with the same code: the provider
  /// never saw it.
  ///
  /// ```swift
  /// if error.unsentRequest == .tokenExchange { /* the code is unused: the login may be retried */ }
  /// ```
  public var unsentRequest: OAuthRequest.Kind? = nil

  /// Creates an error.
  ///
  /// ```swift
  /// OAuthResponseError(.missingField, field: "access_token", message: "the token response has no access_token")
  /// ```
  public init(
    _ code: Code, offset: Int? = nil, field: String? = nil, message: String,
    providerError: OAuthErrorResponse? = nil, status: Int? = nil
  ) {
    self.code = code
    self.offset = offset
    self.field = field
    self.message = message
    self.providerError = providerError
    self.status = status
  }

  /// `code at offset: message`.
  public var description: String {
    var out = code.rawValue
    if let status { out += " (HTTP \(status))" }
    if let offset { out += " at byte \(offset)" }
    return out + ": " + message
  }
}
