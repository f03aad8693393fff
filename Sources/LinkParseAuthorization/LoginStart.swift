// How a login starts: a fresh state, nonce and PKCE verifier per login, the provider's authorize URL built by the
// request builders, and the pending authorization that the callback will be checked against.

public import LinkParseCore
import LinkParseBytes
public import LinkParseProviders

/// How one provider's login starts on a web server: the authorize URL to send the browser to, and the pending
/// authorization the callback will be checked against. Each call of ``makeAuthorization(now:lifetime:)`` draws a
/// fresh `state` (256 random bits), `nonce` and PKCE verifier.
///
/// ```swift
/// let vk = LoginStart.vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback")
/// let (url, pending) = try vk.makeAuthorization()
/// try await store.insert(pending)   // then answer 302 to `url`
/// ```
///
/// LinkParseHummingbird's `LinkParseCallbackEndpoint.registerStart(on:path:login:)` does exactly that on a
/// Hummingbird router.
public struct LoginStart: Sendable {
  /// The provider whose callback the pending authorization expects.
  ///
  /// ```swift
  /// LoginStart.apple(clientID: "com.example.web", redirectURI: "https://example.com/auth/apple").provider  // .apple
  /// ```
  public let provider: Provider
  /// The redirect URI sent to the provider (the callback route's URL).
  ///
  /// ```swift
  /// LoginStart.tid(clientID: "partner", redirectURI: "https://example.com/auth/tid").redirectURI
  /// ```
  public let redirectURI: String
  private let build: @Sendable (_ secrets: Secrets, _ expiresAt: Int64?) throws(URLParseError) -> (String, PendingAuthorization)

  /// The per-login random values.
  struct Secrets {
    let state: String
    let nonce: String
    let pkce: PKCE

    static func fresh() -> Secrets {
      var rng = SystemRandomNumberGenerator()
      return Secrets(
        state: Base64URL.randomToken(using: &rng), nonce: Base64URL.randomToken(using: &rng),
        pkce: PKCE(generator: &rng))
    }
  }

  private init(
    provider: Provider, redirectURI: String,
    build: @escaping @Sendable (Secrets, Int64?) throws(URLParseError) -> (String, PendingAuthorization)
  ) {
    self.provider = provider
    self.redirectURI = redirectURI
    self.build = build
  }

  /// A fresh authorize URL and its pending authorization, expiring `lifetime` (whole seconds) after `now`.
  ///
  /// ```swift
  /// let (url, pending) = try LoginStart.sberID(clientID: "0A1B2C3D", redirectURI: "https://example.com/auth/sber")
  ///   .makeAuthorization()
  /// ```
  ///
  /// - Throws: ``URLParseError`` when the configured redirect URI is not a URL.
  public func makeAuthorization(
    now: Int64 = PendingAuthorization.currentUnixTime(), lifetime: Duration = PendingAuthorization.defaultLifetime
  ) throws(URLParseError) -> (authorizeURL: String, pending: PendingAuthorization) {
    let (end, overflow) = now.addingReportingOverflow(lifetime.wholeSeconds)
    let (url, pending) = try build(Secrets.fresh(), overflow ? .max : end)
    return (url, pending)
  }

  /// VK ID on the web (`https://id.vk.ru/authorize`, PKCE S256, `state`), with `prompt` (`login` by default, as
  /// the guide recommends; `[]` for none) and checked `extraParameters`.
  ///
  /// ```swift
  /// LoginStart.vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk", scope: ["vkid.personal_info"])
  /// ```
  public static func vkID(
    clientID: String, redirectURI: String, scope: [String] = [], endpoint: String = VKIDAuthorizationRequest.defaultEndpoint,
    prompt: [AuthorizationPrompt] = [.login], extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) -> LoginStart {
    LoginStart(provider: .vk, redirectURI: redirectURI) { (s, expiresAt) throws(URLParseError) in
      let request = VKIDAuthorizationRequest(
        clientID: clientID, redirectURI: redirectURI, state: s.state, pkce: s.pkce, scope: scope, endpoint: endpoint,
        prompt: prompt, extraParameters: extraParameters)
      return (request.url, try request.pendingAuthorization(expiresAt: expiresAt))
    }
  }

  /// Sber ID's web page (`authorize.do`, `response_type=code`, `state`, `nonce`, PKCE S256), with
  /// `login_hint` and checked `extraParameters`.
  ///
  /// ```swift
  /// LoginStart.sberID(clientID: "0A1B2C3D", redirectURI: "https://example.com/auth/sber", scope: ["openid", "name"])
  /// ```
  public static func sberID(
    clientID: String, redirectURI: String, scope: [String] = ["openid"],
    authorizeURL: String = SberIDAuthorizationRequest.defaultWebURL, loginHint: String? = nil,
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) -> LoginStart {
    LoginStart(provider: .sber, redirectURI: redirectURI) { (s, expiresAt) throws(URLParseError) in
      let request = SberIDAuthorizationRequest(
        clientID: clientID, redirectURI: redirectURI, state: s.state, nonce: s.nonce, scope: scope, pkce: s.pkce,
        loginHint: loginHint, extraParameters: extraParameters)
      return (request.webURL(base: authorizeURL), try request.pendingAuthorization(expiresAt: expiresAt))
    }
  }

  /// T-ID on the web (`https://id.tbank.ru/auth/authorize`, `response_type=code`, `state`, PKCE S256). The
  /// callback (`?state=…&code=…&session_state=…`) is checked against the state, unlike the app-to-app flow.
  ///
  /// ```swift
  /// LoginStart.tid(clientID: "partner", redirectURI: "https://example.com/auth/tid")
  /// ```
  public static func tid(
    clientID: String, redirectURI: String, scope: [String] = [],
    authorizeURL: String = "https://id.tbank.ru/auth/authorize",
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) -> LoginStart {
    LoginStart(provider: .tid, redirectURI: redirectURI) { (s, expiresAt) throws(URLParseError) in
      let request = OAuth2AuthorizationRequest(
        endpoint: authorizeURL, clientID: clientID, redirectURI: redirectURI, scope: scope, state: s.state,
        pkce: s.pkce, extraParameters: extraParameters)
      let pending = PendingAuthorization(
        provider: .tid, redirectURI: try ParsedURL(redirectURI), state: s.state, expiresAt: expiresAt,
        clientID: clientID, codeVerifier: s.pkce.verifier, redirectURIAsSent: redirectURI)
      return (request.url, pending)
    }
  }

  /// Sign in with Apple on the web: `code id_token` (or `id_token` alone, or `code`) posted back (`form_post`)
  /// with `state` and `nonce`; asking for `name`/`email` requires `form_post`, so that is the only mode offered
  /// here.
  ///
  /// ```swift
  /// LoginStart.apple(clientID: "com.example.web", redirectURI: "https://example.com/auth/apple")
  /// LoginStart.apple(clientID: "com.example.web", redirectURI: "https://example.com/auth/apple", responseType: .idToken)
  /// ```
  public static func apple(
    clientID: String, redirectURI: String, scope: [String] = ["name", "email"],
    responseType: AppleAuthorizationRequest.ResponseType = .codeIDToken,
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) -> LoginStart {
    LoginStart(provider: .apple, redirectURI: redirectURI) { (s, expiresAt) throws(URLParseError) in
      let request = AppleAuthorizationRequest(
        clientID: clientID, redirectURI: redirectURI, state: s.state, nonce: s.nonce, scope: scope,
        responseType: responseType, extraParameters: extraParameters)
      return (request.url, try request.pendingAuthorization(expiresAt: expiresAt))
    }
  }

  /// Any OAuth 2.0 / OpenID Connect server: `response_type=code`, `state`, `nonce` (when `scope` has
  /// `openid`), PKCE S256, and the RFC 9207 `iss` check when `issuer` is given. The server's issuer
  /// identifier (`authorizationServer`, by default `issuer`) is recorded in the pending authorization
  /// (``PendingAuthorization/authorizationServer``): a relying party of another server refuses to complete it.
  ///
  /// ```swift
  /// LoginStart.oauth2(
  ///   authorizeURL: "https://as.example/authorize", clientID: "app", redirectURI: "https://example.com/auth/cb",
  ///   issuer: "https://as.example")
  /// ```
  public static func oauth2(
    authorizeURL: String, clientID: String, redirectURI: String, scope: [String] = ["openid"],
    issuer: String? = nil, authorizationServer: String? = nil, prompt: [AuthorizationPrompt] = [],
    loginHint: String? = nil, extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) -> LoginStart {
    LoginStart(provider: .oauth2, redirectURI: redirectURI) { (s, expiresAt) throws(URLParseError) in
      let request = OAuth2AuthorizationRequest(
        endpoint: authorizeURL, clientID: clientID, redirectURI: redirectURI, scope: scope, state: s.state,
        nonce: scope.contains("openid") ? s.nonce : nil, pkce: s.pkce, issuer: issuer, prompt: prompt,
        loginHint: loginHint, extraParameters: extraParameters)
      var pending = try request.pendingAuthorization(expiresAt: expiresAt)
      pending.authorizationServer = authorizationServer ?? issuer
      return (request.url, pending)
    }
  }
}

