// VK ID's token, refresh, revoke, logout and profile requests (id.vk.ru/about/business/go/docs, "VK ID:
// обмен кода на токены", "Обновление токенов", "Инвалидация токенов", "Получение данных пользователя").
// Every call is a form POST to https://id.vk.ru/oauth2/… (the docs write id.vk.com; both hosts serve VK ID
// [INF]). The parameters go in the `application/x-www-form-urlencoded` body: the method reference asks for
// tokens in the body, not in a header [DOC: "Справочник методов API VK ID"], and a body keeps codes and tokens
// out of access logs.

internal import LinkParseProviders

/// Builds VK ID's requests after the callback. Every endpoint has a documented default and can be overridden
/// (a test server, a proxy).
///
/// ```swift
/// let vk = VKIDClient(clientID: "7915193")
/// let exchange = vk.tokenExchange(
///   code: "vk2.a.F", codeVerifier: pkce.verifier, deviceID: "D", redirectURI: "vk7915193://vk.ru/blank.html",
///   state: "s")
/// exchange.url   // "https://id.vk.ru/oauth2/auth"
/// exchange.body  // "grant_type=authorization_code&code=vk2.a.F&code_verifier=…&client_id=7915193&device_id=D&…"
/// ```
public struct VKIDClient: Sendable, Hashable, Codable {
  /// `client_id` (the app id).
  public var clientID: String
  /// Token exchange and refresh: `https://id.vk.ru/oauth2/auth` [DOC].
  public var tokenEndpoint: String
  /// Token revocation: `https://id.vk.ru/oauth2/revoke` [DOC].
  public var revokeEndpoint: String
  /// Ending the session: `https://id.vk.ru/oauth2/logout` [DOC].
  public var logoutEndpoint: String
  /// The user's profile by access token: `https://id.vk.ru/oauth2/user_info` [DOC].
  public var userInfoEndpoint: String
  /// The user's masked profile by ID token: `https://id.vk.ru/oauth2/public_info` [DOC].
  public var publicInfoEndpoint: String

  /// The default token endpoint.
  public static let defaultTokenEndpoint = "https://id.vk.ru/oauth2/auth"

  /// Creates a client; the endpoints default to VK ID's.
  ///
  /// ```swift
  /// VKIDClient(clientID: "7915193", tokenEndpoint: "https://vk-proxy.internal/oauth2/auth")
  /// ```
  public init(
    clientID: String, tokenEndpoint: String = VKIDClient.defaultTokenEndpoint,
    revokeEndpoint: String = "https://id.vk.ru/oauth2/revoke",
    logoutEndpoint: String = "https://id.vk.ru/oauth2/logout",
    userInfoEndpoint: String = "https://id.vk.ru/oauth2/user_info",
    publicInfoEndpoint: String = "https://id.vk.ru/oauth2/public_info"
  ) {
    self.clientID = clientID
    self.tokenEndpoint = tokenEndpoint
    self.revokeEndpoint = revokeEndpoint
    self.logoutEndpoint = logoutEndpoint
    self.userInfoEndpoint = userInfoEndpoint
    self.publicInfoEndpoint = publicInfoEndpoint
  }

  /// Exchanges the callback's `code` (with the callback's `device_id` and the state sent) for tokens:
  /// `grant_type=authorization_code`, `code`, `code_verifier`, `client_id`, `device_id`, `redirect_uri`,
  /// `state`. The answer (a ``TokenResponse``) echoes `state`: compare it.
  ///
  /// ```swift
  /// vk.tokenExchange(code: "c", codeVerifier: "v…", deviceID: "d", redirectURI: "vk1://vk.ru/blank.html", state: "s")
  /// ```
  public func tokenExchange(
    code: String, codeVerifier: String, deviceID: String, redirectURI: String, state: String
  ) -> OAuthRequest {
    OAuthRequest(
      kind: .tokenExchange, provider: .vk, url: tokenEndpoint,
      form: [
        .init("grant_type", "authorization_code"), .init("code", code), .init("code_verifier", codeVerifier),
        .init("client_id", clientID), .init("device_id", deviceID), .init("redirect_uri", redirectURI),
        .init("state", state),
      ])
  }

  /// Refreshes the tokens: `grant_type=refresh_token`, `refresh_token`, `client_id`, `device_id`, `state`
  /// (a fresh random string; VK echoes it), and `scope` when narrowing.
  ///
  /// ```swift
  /// vk.refresh(refreshToken: tokens.refreshToken!, deviceID: "d", state: "s2")
  /// ```
  public func refresh(refreshToken: String, deviceID: String, state: String, scope: [String]? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [
      .init("grant_type", "refresh_token"), .init("refresh_token", refreshToken), .init("client_id", clientID),
      .init("device_id", deviceID), .init("state", state),
    ]
    if let scope { form.append(.init("scope", scope.joined(separator: " "))) }
    return OAuthRequest(kind: .refresh, provider: .vk, url: tokenEndpoint, form: form)
  }

  /// Revokes the access token (and the app's rights to the user's data): `client_id`, `access_token`.
  ///
  /// ```swift
  /// vk.revoke(accessToken: tokens.accessToken)
  /// ```
  public func revoke(accessToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .revoke, provider: .vk, url: revokeEndpoint,
      form: [.init("client_id", clientID), .init("access_token", accessToken)])
  }

  /// Ends the VK ID session of the token: `client_id`, `access_token`.
  ///
  /// ```swift
  /// vk.logout(accessToken: tokens.accessToken)
  /// ```
  public func logout(accessToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .logout, provider: .vk, url: logoutEndpoint,
      form: [.init("client_id", clientID), .init("access_token", accessToken)])
  }

  /// The user's profile (answered by a ``VKUserInfo``): `client_id`, `access_token`.
  ///
  /// ```swift
  /// vk.userInfo(accessToken: tokens.accessToken)
  /// ```
  public func userInfo(accessToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .userInfo, provider: .vk, url: userInfoEndpoint,
      form: [.init("client_id", clientID), .init("access_token", accessToken)])
  }

  /// The user's masked public profile (a ``VKUserInfo``) from the ID token: `client_id`, `id_token`.
  ///
  /// ```swift
  /// vk.publicInfo(idToken: tokens.idToken!)
  /// ```
  public func publicInfo(idToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .userInfo, provider: .vk, url: publicInfoEndpoint,
      form: [.init("client_id", clientID), .init("id_token", idToken)])
  }
}
