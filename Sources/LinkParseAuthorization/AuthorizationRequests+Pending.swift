// Each authorization request makes the pending authorization its callback is checked against, carrying
// what the token request will need (client id, redirect URI as sent, PKCE verifier, nonce), so that the
// redirect URI is written once and the verifier never travels separately.

public import LinkParseCore
public import LinkParseProviders

extension PendingAuthorization {
  /// How long a pending authorization stays acceptable by default: ten minutes, VK ID's and Sber ID's code
  /// lifetime (the user may take a while in the provider's app).
  ///
  /// ```swift
  /// PendingAuthorization.defaultLifetime  // .seconds(600)
  /// ```
  public static let defaultLifetime: Duration = .seconds(600)
}

extension SberIDAuthorizationRequest {
  /// The pending authorization for this request: provider `.sber`, redirect URI, state, nonce, client id and
  /// the PKCE verifier (when PKCE is used).
  ///
  /// ```swift
  /// let pending = try request.pendingAuthorization()
  /// store.insert(pending)
  /// open(request.appURL())
  /// ```
  ///
  /// - Throws: ``URLParseError`` when ``redirectURI`` is not a URL.
  public func pendingAuthorization(
    expiresAt: Int64? = PendingAuthorization.currentUnixTime() + PendingAuthorization.defaultLifetime.components.seconds
  ) throws(URLParseError) -> PendingAuthorization {
    PendingAuthorization(
      provider: .sber, redirectURI: try ParsedURL(redirectURI), state: state, expiresAt: expiresAt,
      clientID: clientID, codeVerifier: pkce?.verifier, nonce: nonce, redirectURIAsSent: redirectURI)
  }
}

extension VKIDAuthorizationRequest {
  /// The pending authorization for this request: provider `.vk`, redirect URI, state, client id and the PKCE
  /// verifier.
  ///
  /// ```swift
  /// let pending = try request.pendingAuthorization()
  /// ```
  ///
  /// - Throws: ``URLParseError`` when ``redirectURI`` is not a URL.
  public func pendingAuthorization(
    expiresAt: Int64? = PendingAuthorization.currentUnixTime() + PendingAuthorization.defaultLifetime.components.seconds
  ) throws(URLParseError) -> PendingAuthorization {
    PendingAuthorization(
      provider: .vk, redirectURI: try ParsedURL(redirectURI), state: state, expiresAt: expiresAt,
      clientID: clientID, codeVerifier: pkce.verifier, redirectURIAsSent: redirectURI)
  }
}

extension TIDAuthorizationRequest {
  /// The pending authorization for this app-to-app request: provider `.tid`, the callback URL as redirect URI
  /// (and as the token request's `redirect_uri`, as the iOS SDK sends it), no state (the app flow has
  /// none), client id and the PKCE verifier.
  ///
  /// ```swift
  /// let pending = try request.pendingAuthorization()
  /// ```
  ///
  /// - Throws: ``URLParseError`` when ``callbackURL`` is not a URL.
  public func pendingAuthorization(
    expiresAt: Int64? = PendingAuthorization.currentUnixTime() + PendingAuthorization.defaultLifetime.components.seconds
  ) throws(URLParseError) -> PendingAuthorization {
    PendingAuthorization(
      provider: .tid, redirectURI: try ParsedURL(callbackURL), state: nil, expiresAt: expiresAt,
      clientID: clientID, codeVerifier: pkce.verifier, redirectURIAsSent: callbackURL)
  }
}

extension AppleAuthorizationRequest {
  /// The pending authorization for this request: provider `.apple`, redirect URI, state, nonce and client id.
  /// Apple's codes live five minutes; the default expiry is still ten, as the user may take a while first.
  ///
  /// ```swift
  /// let pending = try request.pendingAuthorization()
  /// let callback = try pending.validate(redirect, parameters: FormParameters(utf8: postBody))
  /// ```
  ///
  /// - Throws: ``URLParseError`` when ``redirectURI`` is not a URL.
  public func pendingAuthorization(
    expiresAt: Int64? = PendingAuthorization.currentUnixTime() + PendingAuthorization.defaultLifetime.components.seconds
  ) throws(URLParseError) -> PendingAuthorization {
    PendingAuthorization(
      provider: .apple, redirectURI: try ParsedURL(redirectURI), state: state, expiresAt: expiresAt,
      clientID: clientID, nonce: nonce, redirectURIAsSent: redirectURI)
  }
}

/// An authorization request to any OAuth 2.0 / OpenID Connect server (RFC 6749 §4.1.1, RFC 7636, OIDC Core
/// §3.1.2.1), and the pending authorization its callback is checked against.
///
/// ```swift
/// let request = OAuth2AuthorizationRequest(
///   endpoint: "https://as.example/authorize", clientID: "app", redirectURI: "https://app.example/cb",
///   scope: ["openid", "email"], state: "Qk7x2LmN", nonce: "n-0S6", pkce: PKCE(), issuer: "https://as.example")
/// request.url  // https://as.example/authorize?response_type=code&client_id=app&redirect_uri=…
/// let pending = try request.pendingAuthorization()
/// ```
public struct OAuth2AuthorizationRequest: Sendable, Hashable {
  /// The authorization endpoint (discovery's `authorization_endpoint`).
  public var endpoint: String
  /// `client_id`.
  public var clientID: String
  /// `redirect_uri`.
  public var redirectURI: String
  /// Scopes, space-separated (`openid` for OIDC).
  public var scope: [String]
  /// `state`.
  public var state: String
  /// `nonce` (OIDC), checked later in the ID token.
  public var nonce: String?
  /// PKCE (`S256`).
  public var pkce: PKCE?
  /// The server's issuer identifier, when it sends `iss` in its callbacks (RFC 9207): the pending
  /// authorization then requires it.
  public var issuer: String?
  /// `response_type` (`code`).
  public var responseType: String
  /// `prompt` (OIDC Core §3.1.2.1), space-separated; none by default.
  public var prompt: [AuthorizationPrompt]
  /// `login_hint` (OIDC Core §3.1.2.1).
  public var loginHint: String?
  /// Further parameters, after the builder's own (checked: see ``AuthorizationParameters``).
  public var extraParameters: AuthorizationParameters

  /// Creates a request.
  ///
  /// ```swift
  /// OAuth2AuthorizationRequest(endpoint: "https://as.example/authorize", clientID: "app", redirectURI: "myapp://cb", state: "s", pkce: PKCE())
  /// ```
  public init(
    endpoint: String, clientID: String, redirectURI: String, scope: [String] = ["openid"], state: String,
    nonce: String? = nil, pkce: PKCE? = nil, issuer: String? = nil, responseType: String = "code",
    prompt: [AuthorizationPrompt] = [], loginHint: String? = nil,
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) {
    self.endpoint = endpoint
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.scope = scope
    self.state = state
    self.nonce = nonce
    self.pkce = pkce
    self.issuer = issuer
    self.responseType = responseType
    self.prompt = prompt
    self.loginHint = loginHint
    self.extraParameters = extraParameters
  }

  /// The request URL: `response_type`, `client_id`, `redirect_uri`, `scope`, `state`, `nonce`,
  /// `code_challenge`, `code_challenge_method`, form-encoded.
  ///
  /// ```swift
  /// request.url
  /// ```
  public var url: String {
    var pairs = [("response_type", responseType), ("client_id", clientID), ("redirect_uri", redirectURI)]
    if !scope.isEmpty { pairs.append(("scope", scope.joined(separator: " "))) }
    pairs.append(("state", state))
    if let nonce { pairs.append(("nonce", nonce)) }
    if let pkce {
      pairs.append(("code_challenge", pkce.challenge))
      pairs.append(("code_challenge_method", pkce.method))
    }
    if !prompt.isEmpty { pairs.append(("prompt", prompt.map(\.rawValue).joined(separator: " "))) }
    if let loginHint { pairs.append(("login_hint", loginHint)) }
    return appendQuery(endpoint, pairs + extraParameters.pairs)
  }

  /// The pending authorization for this request: provider `.oauth2`, redirect URI, state, expected issuer,
  /// nonce, client id and the PKCE verifier.
  ///
  /// ```swift
  /// let pending = try request.pendingAuthorization(expiresAt: nil)
  /// ```
  ///
  /// - Throws: ``URLParseError`` when ``redirectURI`` is not a URL.
  public func pendingAuthorization(
    expiresAt: Int64? = PendingAuthorization.currentUnixTime() + PendingAuthorization.defaultLifetime.components.seconds
  ) throws(URLParseError) -> PendingAuthorization {
    PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL(redirectURI), state: state, issuer: issuer,
      expiresAt: expiresAt, clientID: clientID, codeVerifier: pkce?.verifier, nonce: nonce,
      redirectURIAsSent: redirectURI)
  }
}
