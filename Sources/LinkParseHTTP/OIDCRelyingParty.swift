// From a consumed authorization to a verified identity, in one call: OpenID Connect discovery, the token
// exchange, the id_token verified with keys from a JWKSCache, and the user info cross-checked (OIDC Core
// §3.1.3.7, §5.3.2; OpenID Connect Discovery 1.0 §4).

public import LinkParseAuthorization
import LinkParseCore
public import LinkParseOAuth
public import LinkParseIDToken
import LinkParseProviders

/// Why a login could not be completed beyond what the token endpoint, the JWKS or the id_token said
/// (``OAuthResponseError``, ``IDTokenError`` and ``TokenRequestError`` carry those): a stable ``code`` and a
/// message a person can act on.
///
/// ```swift
/// do { _ = try await party.complete(consumed) }
/// catch let error as IdentityError { print(error.code) }  // subject-mismatch
/// ```
public struct IdentityError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A stable, machine-readable code.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The kebab-case spelling.
    public let rawValue: String
    /// A code.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }
    /// The discovery document names another issuer than the one asked for (Discovery §4.3).
    public static let issuerMismatch = Code(rawValue: "issuer-mismatch")
    /// The discovery document lacks an endpoint the login needs, or names one that is not an `https` URL.
    public static let invalidMetadata = Code(rawValue: "invalid-metadata")
    /// The token answer has no `id_token` (an OpenID Connect login always gets one).
    public static let missingIDToken = Code(rawValue: "missing-id-token")
    /// The user info's `sub` is not the id_token's (OIDC Core §5.3.2: the user info must not be used).
    public static let subjectMismatch = Code(rawValue: "subject-mismatch")
    /// The consumed authorization is not a success with a code (a provider error, a cancel).
    public static let notASuccess = Code(rawValue: "not-a-success")
    /// Nothing names the user: no verified id_token, no VK ID `user_id`, no user info (a relying party that
    /// neither verifies id_tokens nor fetches the user info).
    public static let missingSubject = Code(rawValue: "missing-subject")
    /// The consumed authorization was made for another provider or another client id than the relying party's.
    public static let authorizationMismatch = Code(rawValue: "authorization-mismatch")
    /// An id_token-only login (Sign in with Apple's `response_type=id_token`) for an authorization that sent no
    /// `nonce`: nothing would bind the token to this login.
    public static let nonceRequired = Code(rawValue: "nonce-required")
    /// A back-channel logout token that is not one: no `events` member for back-channel logout, neither `sub`
    /// nor `sid`, or no `jti` (OpenID Connect Back-Channel Logout 1.0 §2.6).
    public static let invalidLogoutToken = Code(rawValue: "invalid-logout-token")
    /// The party takes no back-channel logout tokens (its provider sends none).
    public static let logoutTokensUnsupported = Code(rawValue: "logout-tokens-unsupported")
  }

  /// What went wrong.
  public let code: Code
  /// A sentence for a log line; never a token or a code.
  public let message: String

  /// An error.
  ///
  /// ```swift
  /// IdentityError(.missingIDToken, message: "the token answer has no id_token")
  /// ```
  public init(_ code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// `code: message`.
  public var description: String { "\(code): \(message)" }
}

/// An OpenID Connect provider's metadata (Discovery 1.0 §3): what a login needs of it.
///
/// ```swift
/// let metadata = try await client.discover(issuer: "https://id.example")
/// metadata.tokenEndpoint  // "https://id.example/token"
/// ```
public struct OIDCProviderMetadata: Sendable, Hashable {
  /// `issuer`: exactly the issuer asked for.
  public var issuer: String
  /// `authorization_endpoint`.
  public var authorizationEndpoint: String
  /// `token_endpoint`.
  public var tokenEndpoint: String
  /// `jwks_uri`.
  public var jwksURI: String
  /// `userinfo_endpoint`, when the provider has one.
  public var userinfoEndpoint: String?
  /// `end_session_endpoint` (RP-initiated logout), when the provider has one.
  public var endSessionEndpoint: String?
  /// `revocation_endpoint`, when the provider has one.
  public var revocationEndpoint: String?

  /// Metadata from its values.
  ///
  /// ```swift
  /// OIDCProviderMetadata(issuer: "https://id.example", authorizationEndpoint: "https://id.example/authorize",
  ///   tokenEndpoint: "https://id.example/token", jwksURI: "https://id.example/jwks")
  /// ```
  public init(
    issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String,
    userinfoEndpoint: String? = nil, endSessionEndpoint: String? = nil, revocationEndpoint: String? = nil
  ) {
    self.issuer = issuer
    self.authorizationEndpoint = authorizationEndpoint
    self.tokenEndpoint = tokenEndpoint
    self.jwksURI = jwksURI
    self.userinfoEndpoint = userinfoEndpoint
    self.endSessionEndpoint = endSessionEndpoint
    self.revocationEndpoint = revocationEndpoint
  }

  /// Reads a discovery document, which must name `issuer` exactly and carry the authorization, token and JWKS
  /// endpoints as URLs (`https`, unless `allowsInsecureHTTP`).
  ///
  /// ```swift
  /// let metadata = try OIDCProviderMetadata(json: Array(document.utf8), issuer: "https://id.example")
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` for a body that is not a JSON object; ``IdentityError``
  ///   `issuer-mismatch` or `invalid-metadata`.
  public init(json: [UInt8], issuer: String, allowsInsecureHTTP: Bool = false) throws {
    let document = try JSONValue.parse(json)
    guard case .object = document else {
      throw OAuthResponseError(.unexpectedShape, message: "the discovery document is not a JSON object")
    }
    guard let named = document["issuer"]?.string, named == issuer else {
      throw IdentityError(
        .issuerMismatch, message: "the discovery document for \(issuer) names another issuer (Discovery §4.3)")
    }
    func endpoint(_ name: String, required: Bool) throws -> String? {
      guard let value = document[name]?.string else {
        if required { throw IdentityError(.invalidMetadata, message: "the discovery document has no \(name)") }
        return nil
      }
      guard let url = try? ParsedURL(value), url.scheme == "https" || (allowsInsecureHTTP && url.scheme == "http")
      else {
        throw IdentityError(.invalidMetadata, message: "the discovery document's \(name) is not an https URL")
      }
      return value
    }
    self.init(
      issuer: named, authorizationEndpoint: try endpoint("authorization_endpoint", required: true)!,
      tokenEndpoint: try endpoint("token_endpoint", required: true)!,
      jwksURI: try endpoint("jwks_uri", required: true)!,
      userinfoEndpoint: try endpoint("userinfo_endpoint", required: false),
      endSessionEndpoint: try endpoint("end_session_endpoint", required: false),
      revocationEndpoint: try endpoint("revocation_endpoint", required: false))
  }
}

extension OAuthHTTPClient {
  /// Fetches `issuer`'s discovery document (`issuer` + `/.well-known/openid-configuration`) and reads it
  /// (see ``OIDCProviderMetadata/init(json:issuer:allowsInsecureHTTP:)``).
  ///
  /// ```swift
  /// let metadata = try await client.discover(issuer: "https://id.example")
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` when the document could not be fetched (status, timeout, size, JSON),
  ///   ``IdentityError`` when it names another issuer or lacks an endpoint.
  public func discover(issuer: String) async throws -> OIDCProviderMetadata {
    var base = issuer
    while base.hasSuffix("/") { base.removeLast() }
    let request = OAuthRequest(kind: .discovery, method: .get, url: base + "/.well-known/openid-configuration")
    let response = try await send(request)
    guard response.isSuccess else { throw StatusErrors.error(for: response, request: request) }
    return try OIDCProviderMetadata(
      json: response.body, issuer: issuer, allowsInsecureHTTP: configuration.allowsInsecureHTTP)
  }
}

/// Everything after the callback for one OpenID Connect provider, in one call (``complete(_:now:)``): the token
/// exchange from the consumed authorization (its PKCE verifier, redirect URI as sent, client id), the id_token
/// verified with keys from a ``JWKSCache`` (the nonce sent, the client as audience, the issuer, `at_hash`
/// against the access token, `max_age` when set, `iat` no older than ``maxIssuedAtAge``), and the user info,
/// whose `sub` must be the id_token's.
///
/// Keep one per provider for the life of the process: its ``keys`` cache is shared by every login, so a key
/// rotation costs one JWKS fetch however many callbacks arrive at once.
///
/// ```swift
/// let client = OAuthHTTPClient()
/// let party = try await OIDCRelyingParty.discover(
///   issuer: "https://id.example", clientID: "app", clientSecret: secret, client: client)
/// // in the callback's closure:
/// let identity = try await party.complete(consumed)
/// ```
public struct OIDCRelyingParty: Sendable {
  /// The provider's metadata.
  public let metadata: OIDCProviderMetadata
  /// The client id registered with the provider (the id_token's audience).
  public let clientID: String
  /// The client secret, when the client has one (sent as `client_secret_basic`).
  public let clientSecret: String?
  /// The provider's keys.
  public let keys: JWKSCache
  /// The HTTP client every request goes through.
  public let client: OAuthHTTPClient
  /// `max_age` sent with the authorization request, if any: the id_token's `auth_time` must be within it.
  public var maxAge: Duration?
  /// How old an id_token's `iat` may be (600 seconds by default; `nil`: any age).
  public var maxIssuedAtAge: Duration? = IDTokenVerifier.Expectations.defaultMaxIssuedAtAge
  /// Whether ``complete(_:now:)`` fetches the user info (when the provider has an endpoint).
  public var fetchesUserInfo = true

  /// A relying party from known metadata.
  ///
  /// ```swift
  /// let party = OIDCRelyingParty(metadata: metadata, clientID: "app", clientSecret: nil, client: client)
  /// ```
  public init(
    metadata: OIDCProviderMetadata, clientID: String, clientSecret: String?, client: OAuthHTTPClient,
    keys: JWKSCache? = nil
  ) {
    self.metadata = metadata
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.client = client
    self.keys = keys ?? JWKSCache(url: metadata.jwksURI, client: client)
  }

  /// A relying party from `issuer`'s discovery document, its keys in a ``JWKSCache`` with `keysConfiguration`
  /// and `sharing` (the instances of one app share their fetches). A discovery that fails is tried again —
  /// after 100 ms, then doubling to at most 2 s — until `retryingFor` has passed (`.zero`, the default: once),
  /// for a provider that starts beside the app; the last failure is thrown.
  ///
  /// ```swift
  /// let party = try await OIDCRelyingParty.discover(issuer: "https://id.example", clientID: "app", clientSecret: nil, client: client)
  /// ```
  public static func discover(
    issuer: String, clientID: String, clientSecret: String?, client: OAuthHTTPClient,
    keysConfiguration: JWKSCache.Configuration = .init(), sharing: (any JWKSSharing)? = nil,
    retryingFor: Duration = .zero
  ) async throws -> OIDCRelyingParty {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: retryingFor)
    var pause = Duration.milliseconds(100)
    while true {
      do {
        let metadata = try await client.discover(issuer: issuer)
        let keys = JWKSCache(url: metadata.jwksURI, client: client, configuration: keysConfiguration, sharing: sharing)
        return OIDCRelyingParty(
          metadata: metadata, clientID: clientID, clientSecret: clientSecret, client: client, keys: keys)
      } catch {
        guard clock.now.advanced(by: pause) < deadline else { throw error }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .seconds(2))
      }
    }
  }

  /// Where to send the browser to end its session at the provider (OpenID Connect RP-Initiated Logout 1.0
  /// §2): the `end_session_endpoint` with `id_token_hint` (the id_token the login got), `client_id`,
  /// `post_logout_redirect_uri` (registered with the provider) and `state`, as given; `nil` when the provider
  /// has no such endpoint (then only the app's own session can end).
  ///
  /// ```swift
  /// party.endSessionURL(idTokenHint: identity.tokens.idToken, postLogoutRedirectURI: "https://example.com/")
  /// // "https://id.example/logout?id_token_hint=…&client_id=app&post_logout_redirect_uri=https%3A%2F%2Fexample.com%2F"
  /// ```
  public func endSessionURL(idTokenHint: String?, postLogoutRedirectURI: String? = nil, state: String? = nil) -> String? {
    guard let endpoint = metadata.endSessionEndpoint else { return nil }
    var pairs: [(String, String)] = []
    if let idTokenHint { pairs.append(("id_token_hint", idTokenHint)) }
    pairs.append(("client_id", clientID))
    if let postLogoutRedirectURI { pairs.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
    if let state { pairs.append(("state", state)) }
    return endpoint + (endpoint.contains("?") ? "&" : "?") + FormParameters.encode(pairs)
  }

  /// What ending the session takes at the provider: a ``SessionEnd/redirect(_:)`` to ``endSessionURL(idTokenHint:postLogoutRedirectURI:state:)``
  /// with the tokens' id_token as the hint, or ``SessionEnd/unsupported(reason:)`` when the provider has no
  /// `end_session_endpoint`. Nothing is sent from here: the browser has to go to the provider itself.
  ///
  /// ```swift
  /// if case .redirect(let url) = try await party.endSession(tokens: identity.tokens, postLogoutRedirectURI: "https://example.com/") {
  ///   return .redirect(to: url)
  /// }
  /// ```
  public func endSession(
    tokens: TokenResponse, postLogoutRedirectURI: String? = nil, state: String? = nil
  ) async throws -> SessionEnd {
    guard
      let url = endSessionURL(idTokenHint: tokens.idToken, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
    else {
      return .unsupported(reason: "\(metadata.issuer) has no end_session_endpoint: only the app's session ends")
    }
    return .redirect(url)
  }

  /// New tokens for a refresh token (RFC 6749 §6), sent to the token endpoint with the client's
  /// authentication, as the exchange is. A provider that rotates refresh tokens answers a new one; keep it
  /// (`LoginSession.refreshed(with:)` does, and `SessionRefresher` refreshes a session once at a time).
  ///
  /// ```swift
  /// let tokens = try await party.refresh(refreshToken: session.refreshToken!)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` (the provider's `invalid_grant` for a used or revoked refresh token, a
  ///   status, a timeout, the answer's shape).
  public func refresh(refreshToken: String) async throws(OAuthResponseError) -> TokenResponse {
    try await client.perform(tokenClient(clientID: clientID).refresh(refreshToken: refreshToken), as: TokenResponse.self)
  }

  /// The token endpoint's requests for `clientID`, authenticated with the client secret when there is one
  /// (`client_secret_basic`).
  private func tokenClient(clientID: String) -> OAuth2Client {
    OAuth2Client(
      clientID: clientID, authentication: clientSecret.map { .clientSecretBasic($0) } ?? .none,
      tokenEndpoint: metadata.tokenEndpoint)
  }

  /// How a login at this provider starts (for LinkParseHummingbird's `registerStart(on:path:login:)`): its
  /// authorization endpoint and client id, and its issuer recorded in the pending authorization
  /// (``PendingAuthorization/authorizationServer``), which ``complete(_:now:)`` requires.
  ///
  /// ```swift
  /// endpoint.registerStart(on: router, path: "/login/demo", login: party.loginStart(redirectURI: "https://example.com/auth/demo/callback"))
  /// ```
  public func loginStart(redirectURI: String, scope: [String]) -> LoginStart {
    .oauth2(
      authorizeURL: metadata.authorizationEndpoint, clientID: clientID, redirectURI: redirectURI, scope: scope,
      authorizationServer: metadata.issuer)
  }

  /// Completes the login `consumed` carries: the token exchange, the id_token, the user info. An authorization
  /// made for another client, or recorded for another authorization server
  /// (``PendingAuthorization/authorizationServer``), is refused before anything is sent: two parties on one
  /// callback path never send one's code and verifier to the other's token endpoint (RFC 9700 §4.4).
  ///
  /// ```swift
  /// let identity = try await party.complete(consumed)
  /// identity.idToken?.claims.subject == identity.subject  // true
  /// ```
  ///
  /// - Throws: ``IdentityError`` (`not-a-success`, `authorization-mismatch`, `missing-id-token`, `subject-mismatch`),
  ///   ``TokenRequestError`` (the request cannot be built), ``OAuthResponseError`` (the token or user-info
  ///   answer: the provider's error, status, timeout, shape; or the JWKS could not be read), ``IDTokenError``
  ///   (the id_token is refused: signature, audience, nonce, hashes, times).
  public func complete(
    _ consumed: ConsumedAuthorization, now: Int64 = IDTokenVerifier.currentUnixTime
  ) async throws -> VerifiedIdentity {
    try LoginCompletion.requireOwn(
      consumed.authorization, provider: consumed.authorization.provider, clientID: clientID, issuer: metadata.issuer)
    let code = try LoginCompletion.requireSuccess(consumed)
    // The exchange of a generic OAuth 2.0 login (its verifier and redirect URI as sent), authenticated with
    // the client secret when there is one; any other provider's comes from its own client.
    let request: OAuthRequest
    if consumed.authorization.provider == .oauth2 {
      let authorization = consumed.authorization
      request = tokenClient(clientID: clientID).tokenExchange(
        code: String(code), redirectURI: authorization.redirectURIAsSent ?? authorization.redirectURI.href,
        codeVerifier: authorization.codeVerifier)
    } else {
      request = try consumed.tokenRequest(clientSecret: clientSecret, endpoint: metadata.tokenEndpoint)
    }
    let expected = IDTokenVerifier.Expectations(
      issuer: metadata.issuer, audience: clientID, nonce: consumed.authorization.nonce, maxAge: maxAge,
      maxIssuedAtAge: maxIssuedAtAge)
    let endpoint = fetchesUserInfo ? metadata.userinfoEndpoint : nil
    return try await LoginCompletion.complete(
      exchange: request, provider: consumed.authorization.provider, issuer: metadata.issuer, client: client,
      idToken: .init(keys: keys, expected: expected, isRequired: true),
      userInfo: { tokens in
        endpoint.map {
          .oidc(
            OAuthRequest(
              kind: .userInfo, method: .get, url: $0, headers: [.bearer(tokens.accessToken)]))
        }
      }, now: now)
  }
}
