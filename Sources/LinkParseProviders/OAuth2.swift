// Generic OAuth 2.0 / OIDC authorization responses (RFC 6749 §4.1.2, OIDC Core, RFC 9207; providers.md §5–6).

public import LinkParseCore
import LinkParseBytes

/// A decoded generic OAuth 2.0 / OIDC authorization response.
///
/// Like AppAuth, an `error` wins over `code`; unlike AppAuth, `iss` (RFC 9207) and `session_state` are read.
/// Unrecognized parameters are ignored (RFC 6749 §4.1.2), and empty ones count as absent (§3.1).
///
/// Classification: `error` → ``failure(_:state:issuer:)``; else `code` → ``success(_:)`` (the code flow, and
/// OIDC `code id_token`, whose `id_token` it carries; an `access_token` beside a `code`, as in the hybrid
/// `code token`, is not read); else `access_token` → ``implicit(_:)`` (the implicit flow, RFC 6749 §4.2.2,
/// usually in the fragment).
///
/// ```swift
/// let url = try ParsedURL("https://client.example/cb?code=x1848&state=ZWVl&iss=https%3A%2F%2Fhonest.as.example")
/// if case .success(let s) = try OAuth2Callback(url.queryParameters) {
///   s.issuer  // "https://honest.as.example"
/// }
/// let implicit = try ParsedURL("https://client.example/cb#access_token=T&token_type=Bearer&expires_in=3600&state=s")
/// if case .implicit(let grant) = try OAuth2Callback(ProviderDetector.callbackParameters(of: implicit)) {
///   grant.accessToken  // "T"
///   grant.expiresIn    // 3600
/// }
/// ```
public enum OAuth2Callback: Sendable, Hashable {
  /// `code` (+ `state`, `iss`, `session_state`, `id_token`).
  case success(OAuth2Success)
  /// `error` (+ `error_description`, `error_uri`), with the echoed `state` and `iss`.
  case failure(ProviderError, state: Substring?, issuer: Substring?)
  /// An implicit-flow response: `access_token` (+ `token_type`, `expires_in`, `scope`, `id_token`, `state`),
  /// without a `code`.
  ///
  /// ```swift
  /// try OAuth2Callback(FormParameters("access_token=T&token_type=Bearer&state=s"))  // .implicit(…)
  /// ```
  case implicit(OAuth2ImplicitGrant)

  /// Decodes a response's parameters.
  ///
  /// ```swift
  /// try OAuth2Callback(FormParameters("error=login_required&state=s"))
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` (RFC 6749 §3.1; also for `access_token` and
  ///   `id_token`), `missing-parameter` (neither an error, a non-empty `code` nor a non-empty
  ///   `access_token`).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates(
      also: CallbackFields.Key.accessToken.bit | CallbackFields.Key.idToken.bit | CallbackFields.Key.tokenType.bit)
    if let error = ProviderError(&fields) {
      self = .failure(error, state: fields.value(.state), issuer: fields.value(.iss))
      return
    }
    let code = fields.span(.code)
    guard !code.isAbsent else {
      self = .implicit(try OAuth2ImplicitGrant(&fields))
      return
    }
    let spans = (
      code: code, state: fields.span(.state), issuer: fields.span(.iss), sessionState: fields.span(.sessionState),
      idToken: fields.span(.idToken)
    )
    self = .success(OAuth2Success(text: fields.takeText(), spans: spans))
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
    case .implicit(let g): return g.state
    }
  }
}

/// A successful OAuth 2.0 / OIDC authorization response.
///
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``).
///
/// ```swift
/// success.code     // exchange it with the PKCE verifier
/// success.idToken  // OIDC `code id_token`: the raw JWT (verify it on your backend)
/// OAuth2Success(code: "c", state: "s", issuer: nil, sessionState: nil)  // made from values
/// ```
public struct OAuth2Success: Sendable, Hashable {
  /// Where each value lies in ``text``.
  typealias Spans = (code: ValueSpan, state: ValueSpan, issuer: ValueSpan, sessionState: ValueSpan, idToken: ValueSpan)

  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `code`, `state`, `iss`, `session_state` and `id_token` lie in ``text``.
  private(set) var spans: Spans

  init(text: CallbackText, spans: Spans) {
    self.text = text
    self.spans = spans
  }

  /// Creates a success from its values.
  ///
  /// ```swift
  /// OAuth2Success(code: "c", issuer: "https://as.example").issuer  // "https://as.example"
  /// OAuth2Success(code: "c", idToken: "h.p.s").idToken            // "h.p.s"
  /// ```
  public init(
    code: Substring, state: Substring? = nil, issuer: Substring? = nil, sessionState: Substring? = nil,
    idToken: Substring? = nil
  ) {
    var builder = CallbackText.Builder()
    let spans = (
      code: builder.append(code), state: builder.append(state), issuer: builder.append(issuer),
      sessionState: builder.append(sessionState), idToken: builder.append(idToken)
    )
    self.init(text: builder.text, spans: spans)
  }

  /// `code`.
  public var code: Substring {
    get { text.value(spans.code) ?? "" }
    set {
      self = OAuth2Success(
        code: newValue, state: state, issuer: issuer, sessionState: sessionState, idToken: idToken)
    }
  }
  /// `state`.
  public var state: Substring? {
    get { text.value(spans.state) }
    set {
      self = OAuth2Success(
        code: code, state: newValue, issuer: issuer, sessionState: sessionState, idToken: idToken)
    }
  }
  /// `iss` (RFC 9207).
  public var issuer: Substring? {
    get { text.value(spans.issuer) }
    set {
      self = OAuth2Success(
        code: code, state: state, issuer: newValue, sessionState: sessionState, idToken: idToken)
    }
  }
  /// `session_state` (OIDC Session Management).
  public var sessionState: Substring? {
    get { text.value(spans.sessionState) }
    set {
      self = OAuth2Success(
        code: code, state: state, issuer: issuer, sessionState: newValue, idToken: idToken)
    }
  }
  /// The raw `id_token` JWT of an OIDC `response_type=code id_token` response (usually in the fragment), when
  /// sent. Not decoded nor verified here: verify its signature, `nonce` and `c_hash` on your backend.
  ///
  /// ```swift
  /// // https://client.example/cb#code=c&id_token=eyJ…&state=s
  /// success.idToken  // "eyJ…"
  /// ```
  public var idToken: Substring? {
    get { text.value(spans.idToken) }
    set {
      self = OAuth2Success(
        code: code, state: state, issuer: issuer, sessionState: sessionState, idToken: newValue)
    }
  }

  public static func == (lhs: OAuth2Success, rhs: OAuth2Success) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.issuer == rhs.issuer && lhs.sessionState == rhs.sessionState
      && lhs.idToken == rhs.idToken
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(issuer)
    hasher.combine(sessionState)
    hasher.combine(idToken)
  }
}

/// An OAuth 2.0 implicit-flow response (RFC 6749 §4.2.2; OIDC `response_type=id_token token`): the access
/// token itself, delivered in the redirect URI's fragment, with no code to exchange.
///
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``). The implicit flow is
/// deprecated (RFC 9700 §2.1.2): prefer the code flow with PKCE; this type exists to read such callbacks. A
/// ``ProviderCallback`` holding one has the outcome ``CallbackOutcome/implicitGrant`` (not `.success`: there
/// is no code to exchange).
///
/// ```swift
/// let url = try ParsedURL("https://client.example/cb#access_token=2YotnFZFEjr1zCsicMWpAA&token_type=Bearer&expires_in=3600&state=xyz")
/// if case .oauth2(.implicit(let grant))? = try ProviderDetector.decode(url: url)?.result.get() {
///   grant.accessToken  // "2YotnFZFEjr1zCsicMWpAA"
///   grant.tokenType    // "Bearer"
///   grant.expiresIn    // 3600
///   grant.state        // "xyz"
/// }
/// ```
public struct OAuth2ImplicitGrant: Sendable, Hashable {
  /// Where each value lies in ``text``.
  typealias Spans = (
    accessToken: ValueSpan, tokenType: ValueSpan, expiresInRaw: ValueSpan, scope: ValueSpan, idToken: ValueSpan,
    state: ValueSpan
  )

  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `access_token`, `token_type`, `expires_in`, `scope`, `id_token` and `state` lie in ``text``.
  private(set) var spans: Spans
  /// `expires_in` as an integer (seconds), when sent as one.
  public var expiresIn: Int?

  init(text: CallbackText, spans: Spans, expiresIn: Int?) {
    self.text = text
    self.spans = spans
    self.expiresIn = expiresIn
  }

  /// Decodes the implicit-flow values of scanned parameters that hold no `error` and no `code`.
  init(_ fields: inout CallbackFields) throws(CallbackError) {
    let accessToken = fields.span(.accessToken)
    guard !accessToken.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
    // `token_type` is REQUIRED by RFC 6749 §4.2.2 but, as AppAuth does, not insisted on: it is nil when absent.
    let tokenType = fields.span(.tokenType)
    let expiresInRaw = fields.span(.expiresIn)
    let expiresIn = expiresInRaw.isAbsent ? nil : fields.withDecodedValue(.expiresIn) { parseDecimalInt($0) }
    let spans = (
      accessToken: accessToken, tokenType: tokenType, expiresInRaw: expiresInRaw, scope: fields.span(.scope),
      idToken: fields.span(.idToken), state: fields.span(.state)
    )
    self.init(text: fields.takeText(), spans: spans, expiresIn: expiresIn)
  }

  /// Creates a grant from its values. `expiresInRaw` defaults to `expiresIn`'s digits.
  ///
  /// ```swift
  /// OAuth2ImplicitGrant(accessToken: "T", tokenType: "Bearer", expiresIn: 3600, expiresInRaw: "3600").expiresIn  // 3600
  /// ```
  public init(
    accessToken: Substring, tokenType: Substring? = nil, expiresIn: Int? = nil, expiresInRaw: Substring? = nil,
    scope: Substring? = nil, idToken: Substring? = nil, state: Substring? = nil
  ) {
    var builder = CallbackText.Builder()
    let spans = (
      accessToken: builder.append(accessToken), tokenType: builder.append(tokenType),
      expiresInRaw: builder.append(expiresInRaw ?? expiresIn.map { String($0)[...] }), scope: builder.append(scope), idToken: builder.append(idToken),
      state: builder.append(state)
    )
    self.init(text: builder.text, spans: spans, expiresIn: expiresIn)
  }

  /// `access_token`: a bearer credential. Never log it.
  public var accessToken: Substring {
    get { text.value(spans.accessToken) ?? "" }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: newValue, tokenType: tokenType, expiresIn: expiresIn, expiresInRaw: expiresInRaw, scope: scope,
        idToken: idToken, state: state)
    }
  }
  /// `token_type` as sent (`Bearer`; compare case-insensitively), when sent.
  public var tokenType: Substring? {
    get { text.value(spans.tokenType) }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: accessToken, tokenType: newValue, expiresIn: expiresIn, expiresInRaw: expiresInRaw, scope: scope,
        idToken: idToken, state: state)
    }
  }
  /// `expires_in` as sent.
  public var expiresInRaw: Substring? {
    get { text.value(spans.expiresInRaw) }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, expiresInRaw: newValue, scope: scope,
        idToken: idToken, state: state)
    }
  }
  /// `scope`, when the granted scope differs from the requested one (RFC 6749 §4.2.2).
  public var scope: Substring? {
    get { text.value(spans.scope) }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, expiresInRaw: expiresInRaw,
        scope: newValue, idToken: idToken, state: state)
    }
  }
  /// The raw `id_token` JWT (OIDC `id_token token`), when sent: verify it on your backend.
  public var idToken: Substring? {
    get { text.value(spans.idToken) }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, expiresInRaw: expiresInRaw,
        scope: scope, idToken: newValue, state: state)
    }
  }
  /// The echoed `state`.
  public var state: Substring? {
    get { text.value(spans.state) }
    set {
      self = OAuth2ImplicitGrant(
        accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, expiresInRaw: expiresInRaw,
        scope: scope, idToken: idToken, state: newValue)
    }
  }

  public static func == (lhs: OAuth2ImplicitGrant, rhs: OAuth2ImplicitGrant) -> Bool {
    lhs.accessToken == rhs.accessToken && lhs.tokenType == rhs.tokenType && lhs.expiresIn == rhs.expiresIn
      && lhs.expiresInRaw == rhs.expiresInRaw && lhs.scope == rhs.scope && lhs.idToken == rhs.idToken
      && lhs.state == rhs.state
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(accessToken)
    hasher.combine(tokenType)
    hasher.combine(expiresIn)
    hasher.combine(expiresInRaw)
    hasher.combine(scope)
    hasher.combine(idToken)
    hasher.combine(state)
  }
}
