// Why a request could not be built: the callback is not one to exchange, or the pending authorization lacks
// what the provider's token endpoint needs.

/// Why ``PendingAuthorization/tokenRequest(for:clientSecret:endpoint:)`` (or a client without a configured
/// endpoint) could not build a request.
///
/// Every error has a stable kebab-case ``code`` and a ``message``; secrets are never copied into it.
///
/// ```swift
/// do {
///   let request = try pending.tokenRequest(for: callback)
/// } catch {
///   print(error.code, error.message)  // not-a-success the callback is cancelled, not a success with a code
/// }
/// ```
public struct TokenRequestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A stable, machine-readable code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The kebab-case spelling.
    public let rawValue: String
    init(_ rawValue: String) { self.rawValue = rawValue }
    /// The kebab-case spelling.
    ///
    /// ```swift
    /// TokenRequestError.Code.missingCode.description  // "missing-code"
    /// ```
    public var description: String { rawValue }

    /// The callback is not a success (cancelled, an error, unavailable, a seamless-login link).
    public static let notASuccess = Code("not-a-success")
    /// The callback is a success without an authorization code (the T-ID debug app's `result=success` stub).
    public static let missingCode = Code("missing-code")
    /// The callback comes from another provider than the pending authorization's.
    public static let providerMismatch = Code("provider-mismatch")
    /// The pending authorization has no `clientID`.
    public static let missingClientID = Code("missing-client-id")
    /// The provider needs a PKCE `code_verifier` (VK ID) and the pending authorization has none.
    public static let missingCodeVerifier = Code("missing-code-verifier")
    /// The provider needs a `client_secret` (Sber ID, Apple) and none was given.
    public static let missingClientSecret = Code("missing-client-secret")
    /// No endpoint is known: a generic OAuth 2.0 server's token endpoint, or a client built without the
    /// endpoint a method needs.
    public static let missingEndpoint = Code("missing-endpoint")
    /// No issuer is known for the id_token check: Sber ID, or a generic server whose pending authorization
    /// has no ``PendingAuthorization/issuer``, and none was given.
    public static let missingIssuer = Code("missing-issuer")
    /// VK ID's exchange or refresh needs the `device_id` and none was given.
    public static let missingDeviceID = Code("missing-device-id")
    /// The provider's code exchange needs the redirect URI as sent and none was given.
    public static let missingRedirectURI = Code("missing-redirect-uri")
    /// The provider has no such request (Sber ID revocation, Apple user info, …).
    public static let unsupportedGrant = Code("unsupported-grant")
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for a log line or a developer.
  public var message: String

  /// Creates an error.
  ///
  /// ```swift
  /// TokenRequestError(.missingEndpoint, message: "no token endpoint")
  /// ```
  public init(_ code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// `code: message`.
  public var description: String { code.rawValue + ": " + message }
}
