// VK ID's token, refresh, revoke, logout and profile requests (id.vk.ru/about/business/go/docs, "VK ID:
// обмен кода на токены", "Обновление токенов", "Инвалидация токенов", "Получение данных пользователя"), in
// two shapes: as the "without SDK" integration guide shows each call (providers.md §2.7: parameters in the
// query, the one secret in a JSON body or an `Authorization: Bearer` header), the default; or every parameter
// in an `application/x-www-form-urlencoded` body (RFC 6749 §4.1.3).

internal import LinkParseProviders
import LinkParseBytes
import LinkParseCore

/// Builds VK ID's requests after the callback. Every endpoint has a documented default and can be overridden
/// (a test server, a proxy).
///
/// **Shape.** By default (``RequestShape/guide``) each request is what VK ID's integration guide sends
/// (providers.md §2.7): `grant_type`, `client_id`, `device_id`, `redirect_uri`, `code_verifier` and the optional
/// `state` in the query; the code or refresh token as a JSON body (`{"code": …}`); the access token as
/// `Authorization: Bearer` (RFC 6750 §2.1) for logout and user info. That is the default because it is the
/// shape VK documents and answers: a server may read only what it documents. The tokens themselves never go
/// in a URL. ``RequestShape/formBody`` sends every parameter in a form body instead (RFC 6749 §4.1.3), for a
/// proxy or a VK deployment that expects it.
///
/// ```swift
/// let vk = VKIDClient(clientID: "7915193")
/// let exchange = vk.tokenExchange(
///   code: "vk2.a.F", codeVerifier: pkce.verifier, deviceID: "D", redirectURI: "vk7915193://vk.ru/blank.html",
///   state: "abracadabracodeexchange")
/// exchange.fullURL  // "https://id.vk.ru/oauth2/auth?grant_type=authorization_code&redirect_uri=…&client_id=7915193&…"
/// exchange.body     // {"code":"vk2.a.F"}
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
  /// Where the parameters go: as the guide shows (the default) or in a form body.
  public var shape: RequestShape

  /// Where a request's parameters go.
  public enum RequestShape: String, Sendable, Hashable, Codable, CaseIterable {
    /// As VK ID's "without SDK" guide shows each call (providers.md §2.7): parameters in the query, the code,
    /// refresh token, `client_id` (user info) or id_token in a JSON body, the access token as
    /// `Authorization: Bearer`. The default.
    case guide
    /// Every parameter in an `application/x-www-form-urlencoded` body (RFC 6749 §4.1.3), tokens included.
    case formBody = "form-body"
  }

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
    publicInfoEndpoint: String = "https://id.vk.ru/oauth2/public_info", shape: RequestShape = .guide
  ) {
    self.clientID = clientID
    self.tokenEndpoint = tokenEndpoint
    self.revokeEndpoint = revokeEndpoint
    self.logoutEndpoint = logoutEndpoint
    self.userInfoEndpoint = userInfoEndpoint
    self.publicInfoEndpoint = publicInfoEndpoint
    self.shape = shape
  }

  private enum CodingKeys: String, CodingKey {
    case clientID, tokenEndpoint, revokeEndpoint, logoutEndpoint, userInfoEndpoint, publicInfoEndpoint, shape
  }

  /// Decodes a client; `shape` may be absent (``RequestShape/guide``).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      clientID: try c.decode(String.self, forKey: .clientID),
      tokenEndpoint: try c.decode(String.self, forKey: .tokenEndpoint),
      revokeEndpoint: try c.decode(String.self, forKey: .revokeEndpoint),
      logoutEndpoint: try c.decode(String.self, forKey: .logoutEndpoint),
      userInfoEndpoint: try c.decode(String.self, forKey: .userInfoEndpoint),
      publicInfoEndpoint: try c.decode(String.self, forKey: .publicInfoEndpoint),
      shape: try c.decodeIfPresent(RequestShape.self, forKey: .shape) ?? .guide)
  }

  /// A POST to `url`: `parameters` in the query and `secret` in a JSON body (``RequestShape/guide``), or all of
  /// them in a form body (``RequestShape/formBody``); `bearer`, if any, as `Authorization: Bearer` in the
  /// guide's shape and as an `access_token` field in the form's.
  private func request(
    _ kind: OAuthRequest.Kind, _ url: String, _ parameters: [OAuthRequest.Field], secret: [OAuthRequest.Field] = [],
    bearer: String? = nil
  ) -> OAuthRequest {
    switch shape {
    case .guide:
      return OAuthRequest(
        kind: kind, provider: .vk, url: url, headers: bearer.map { [.bearer($0)] } ?? [],
        query: parameters, form: secret, bodyFormat: .json)
    case .formBody:
      let token = bearer.map { [OAuthRequest.Field("access_token", $0)] } ?? []
      return OAuthRequest(kind: kind, provider: .vk, url: url, form: parameters + secret + token)
    }
  }

  /// A fresh `state` for a token request (VK echoes it): 256 random bits, base64url.
  ///
  /// ```swift
  /// vk.tokenExchange(code: c, codeVerifier: v, deviceID: d, redirectURI: r, state: VKIDClient.freshState())
  /// ```
  public static func freshState() -> String {
    var generator = SystemRandomNumberGenerator()
    return Base64URL.randomToken(using: &generator)
  }

  /// Exchanges the callback's `code` (with the callback's `device_id`) for tokens. In the guide's shape:
  /// `grant_type=authorization_code`, `redirect_uri`, `client_id`, `device_id`, `state` (when given) and
  /// `code_verifier` in the query, `{"code": …}` as the body. `state` is the exchange's own optional value, not
  /// the authorization request's: VK echoes it in the answer, which
  /// ``OAuthRequest/checkEchoedState(of:)`` compares.
  ///
  /// ```swift
  /// vk.tokenExchange(code: "c", codeVerifier: "v…", deviceID: "d", redirectURI: "vk1://vk.ru/blank.html", state: "s")
  /// ```
  public func tokenExchange(
    code: String, codeVerifier: String, deviceID: String, redirectURI: String, state: String? = nil
  ) -> OAuthRequest {
    var parameters: [OAuthRequest.Field] = [
      .init("grant_type", "authorization_code"), .init("redirect_uri", redirectURI), .init("client_id", clientID),
      .init("device_id", deviceID),
    ]
    if let state { parameters.append(.init("state", state)) }
    parameters.append(.init("code_verifier", codeVerifier))
    return request(.tokenExchange, tokenEndpoint, parameters, secret: [.init("code", code)])
  }

  /// Refreshes the tokens: `grant_type=refresh_token`, `client_id`, `device_id`, `state` when given (the guide
  /// sends none, and VK answers `"state": ""`), `scope` when narrowing; `{"refresh_token": …}` as the body.
  ///
  /// ```swift
  /// vk.refresh(refreshToken: tokens.refreshToken!, deviceID: "d")
  /// ```
  public func refresh(
    refreshToken: String, deviceID: String, state: String? = nil, scope: [String]? = nil
  ) -> OAuthRequest {
    var parameters: [OAuthRequest.Field] = [
      .init("grant_type", "refresh_token"), .init("client_id", clientID), .init("device_id", deviceID),
    ]
    if let state { parameters.append(.init("state", state)) }
    if let scope { parameters.append(.init("scope", scope.joined(separator: " "))) }
    return request(.refresh, tokenEndpoint, parameters, secret: [.init("refresh_token", refreshToken)])
  }

  /// Revokes the access token (and the app's rights to the user's data): `client_id`, `access_token`, in a form
  /// body in either shape (the guide shows no revocation call).
  ///
  /// ```swift
  /// vk.revoke(accessToken: tokens.accessToken)
  /// ```
  public func revoke(accessToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .revoke, provider: .vk, url: revokeEndpoint,
      form: [.init("client_id", clientID), .init("access_token", accessToken)])
  }

  /// Ends the VK ID session of the token. In the guide's shape a plain request without a body, as the guide's
  /// `curl` sends it: `GET` with `client_id` in the query and `Authorization: Bearer <access token>`; in the form
  /// shape a `POST` of `client_id` and `access_token`.
  ///
  /// ```swift
  /// let request = vk.logout(accessToken: tokens.accessToken)
  /// request.method  // .get
  /// request.body    // nil
  /// ```
  public func logout(accessToken: String) -> OAuthRequest {
    switch shape {
    case .guide:
      return OAuthRequest(
        kind: .logout, provider: .vk, method: .get, url: logoutEndpoint,
        headers: [.bearer(accessToken)], query: [.init("client_id", clientID)])
    case .formBody:
      return request(.logout, logoutEndpoint, [.init("client_id", clientID)], bearer: accessToken)
    }
  }

  /// The user's profile (answered by a ``VKUserInfo``): `Authorization: Bearer <access token>` and
  /// `{"client_id": …}` as the body.
  ///
  /// ```swift
  /// vk.userInfo(accessToken: tokens.accessToken)
  /// ```
  public func userInfo(accessToken: String) -> OAuthRequest {
    switch shape {
    case .guide: return request(.userInfo, userInfoEndpoint, [], secret: [.init("client_id", clientID)], bearer: accessToken)
    case .formBody: return request(.userInfo, userInfoEndpoint, [.init("client_id", clientID)], bearer: accessToken)
    }
  }

  /// The user's masked public profile (a ``VKUserInfo``) from the ID token: `client_id` in the query,
  /// `{"id_token": …}` as the body.
  ///
  /// ```swift
  /// vk.publicInfo(idToken: tokens.idToken!)
  /// ```
  public func publicInfo(idToken: String) -> OAuthRequest {
    request(.userInfo, publicInfoEndpoint, [.init("client_id", clientID)], secret: [.init("id_token", idToken)])
  }
}
