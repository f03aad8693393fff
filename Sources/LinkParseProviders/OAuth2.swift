// Generic OAuth 2.0 / OIDC authorization responses (RFC 6749 §4.1.2, OIDC Core, RFC 9207; providers.md §5–6).

public import LinkParseCore

/// A decoded generic OAuth 2.0 / OIDC authorization response.
///
/// Like AppAuth, an `error` wins over `code`; unlike AppAuth, `iss` (RFC 9207) and `session_state` are read.
/// Unrecognized parameters are ignored (RFC 6749 §4.1.2), and empty ones count as absent (§3.1).
///
/// ```swift
/// let url = try ParsedURL("https://client.example/cb?code=x1848&state=ZWVl&iss=https%3A%2F%2Fhonest.as.example")
/// if case .success(let s) = try OAuth2Callback(url.queryParameters) {
///   s.issuer  // "https://honest.as.example"
/// }
/// ```
public enum OAuth2Callback: Sendable, Hashable {
  /// `code` (+ `state`, `iss`, `session_state`).
  case success(OAuth2Success)
  /// `error` (+ `error_description`, `error_uri`), with the echoed `state` and `iss`.
  case failure(ProviderError, state: Substring?, issuer: Substring?)

  /// Decodes a response's parameters.
  ///
  /// ```swift
  /// try OAuth2Callback(FormParameters("error=login_required&state=s"))
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` (RFC 6749 §3.1), `missing-parameter` (neither an
  ///   error nor a non-empty `code`).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    try self.init(CallbackFields(parameters))
  }

  init(_ fields: borrowing CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates()
    let state = fields.value(.state)
    let issuer = fields.value(.iss)
    if let error = ProviderError(fields) {
      self = .failure(error, state: state, issuer: issuer)
      return
    }
    guard let code = fields.value(.code) else {
      throw CallbackError(.missingParameter, parameter: "code")
    }
    self = .success(OAuth2Success(code: code, state: state, issuer: issuer, sessionState: fields.value(.sessionState)))
  }

  /// The echoed `state`, if any.
  ///
  /// ```swift
  /// try OAuth2Callback(FormParameters("code=c&state=s")).state  // "s"
  /// ```
  public var state: Substring? {
    switch self {
    case .success(let s): return s.state
    case .failure(_, let state, _): return state
    }
  }
}

/// A successful OAuth 2.0 / OIDC authorization response.
///
/// ```swift
/// success.code  // exchange it with the PKCE verifier
/// ```
public struct OAuth2Success: Sendable, Hashable {
  /// `code`.
  public var code: Substring
  /// `state`.
  public var state: Substring?
  /// `iss` (RFC 9207).
  public var issuer: Substring?
  /// `session_state` (OIDC Session Management).
  public var sessionState: Substring?
}
