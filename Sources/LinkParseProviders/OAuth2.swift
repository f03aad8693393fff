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
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates()
    if let error = ProviderError(&fields) {
      self = .failure(error, state: fields.value(.state), issuer: fields.value(.iss))
      return
    }
    let code = fields.span(.code)
    guard !code.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
    let state = fields.span(.state)
    let issuer = fields.span(.iss)
    let sessionState = fields.span(.sessionState)
    self = .success(OAuth2Success(values: StoredValues(fields.takeText(), code, state, issuer, sessionState)))
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
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``).
///
/// ```swift
/// success.code  // exchange it with the PKCE verifier
/// OAuth2Success(code: "c", state: "s", issuer: nil, sessionState: nil)  // made from values
/// ```
public struct OAuth2Success: Sendable, Hashable {
  /// `code`, `state`, `iss`, `session_state`, read from the callback's text on access.
  private(set) var values: StoredValues

  init(values: StoredValues) { self.values = values }

  /// Creates a success from its values.
  ///
  /// ```swift
  /// OAuth2Success(code: "c", issuer: "https://as.example").issuer  // "https://as.example"
  /// ```
  public init(code: Substring, state: Substring? = nil, issuer: Substring? = nil, sessionState: Substring? = nil) {
    values = StoredValues([code, state, issuer, sessionState])
  }

  /// `code`.
  public var code: Substring {
    get { values[0] ?? "" }
    set { values[0] = newValue }
  }
  /// `state`.
  public var state: Substring? {
    get { values[1] }
    set { values[1] = newValue }
  }
  /// `iss` (RFC 9207).
  public var issuer: Substring? {
    get { values[2] }
    set { values[2] = newValue }
  }
  /// `session_state` (OIDC Session Management).
  public var sessionState: Substring? {
    get { values[3] }
    set { values[3] = newValue }
  }

  public static func == (lhs: OAuth2Success, rhs: OAuth2Success) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.issuer == rhs.issuer && lhs.sessionState == rhs.sessionState
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(issuer)
    hasher.combine(sessionState)
  }
}
