// Sber ID's token and user-info requests (developers.sber.ru/docs/ru/sberid, "Получение Access Token" and
// "Получение данных клиента"). Both go through Sber's API gateway, which wants a request id (`rquid`, 32
// hex digits) and, in production, a TLS client certificate issued by Sber: that is the sender's concern
// (LinkParseHTTP's TLS configuration), not the request's.
//
// Revocation: Sber ID documents no revocation endpoint, so there is no revoke request here.

internal import LinkParseProviders
import LinkParseCore

/// Builds Sber ID's requests after the callback. Every endpoint has a documented default and can be
/// overridden (the test environment `https://oauth-ift.sber.ru/…`, a proxy).
///
/// There is no revoke request: Sber ID documents no revocation endpoint (tokens expire; a refresh token
/// lives 30 days, with scope `offline_access`).
///
/// ```swift
/// let sber = SberIDClient(clientID: "0A1B2C3D", clientSecret: secret)
/// let exchange = sber.tokenExchange(code: "FA21…", redirectURI: "https://partner.ru/login", codeVerifier: v)
/// exchange.headerValue("rquid")  // 32 random hex digits
/// ```
public struct SberIDClient: Sendable, Hashable, Codable {
  /// `client_id`.
  public var clientID: String
  /// `client_secret`, issued with the client id.
  public var clientSecret: String
  /// Token exchange and refresh: `https://oauth.sber.ru/ru/prod/tokens/v2/oidc` [DOC].
  public var tokenEndpoint: String
  /// User info: `https://oauth.sber.ru/ru/prod/sberbankid/v2.1/userinfo` [DOC].
  public var userInfoEndpoint: String

  /// The default token endpoint.
  public static let defaultTokenEndpoint = "https://oauth.sber.ru/ru/prod/tokens/v2/oidc"
  /// The default user-info endpoint.
  public static let defaultUserInfoEndpoint = "https://oauth.sber.ru/ru/prod/sberbankid/v2.1/userinfo"

  /// Creates a client; the endpoints default to Sber ID's production ones.
  ///
  /// ```swift
  /// SberIDClient(clientID: "id", clientSecret: "secret", tokenEndpoint: "https://oauth-ift.sber.ru/ru/prod/tokens/v2/oidc")
  /// ```
  public init(
    clientID: String, clientSecret: String, tokenEndpoint: String = SberIDClient.defaultTokenEndpoint,
    userInfoEndpoint: String = SberIDClient.defaultUserInfoEndpoint
  ) {
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.tokenEndpoint = tokenEndpoint
    self.userInfoEndpoint = userInfoEndpoint
  }

  /// A fresh request id: 32 lower-case hex digits from the system's secure random generator.
  ///
  /// ```swift
  /// SberIDClient.randomRquid().count  // 32
  /// ```
  public static func randomRquid() -> String {
    var rng = SystemRandomNumberGenerator()
    var out = ""
    for _ in 0..<2 {
      let word = rng.next() as UInt64
      let hex = String(word, radix: 16)
      out += String(repeating: "0", count: 16 - hex.count) + hex
    }
    return out
  }

  /// Exchanges `code`: header `rquid`; form `grant_type=authorization_code`, `code`, `client_id`,
  /// `client_secret`, `redirect_uri` (exactly as sent, without the `utm_*` extras), `code_verifier` (with
  /// PKCE).
  ///
  /// ```swift
  /// sber.tokenExchange(code: "c", redirectURI: "https://partner.ru/login", codeVerifier: nil, rquid: "0123456789abcdef0123456789abcdef")
  /// ```
  public func tokenExchange(
    code: String, redirectURI: String, codeVerifier: String? = nil, rquid: String = SberIDClient.randomRquid()
  ) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [
      .init("grant_type", "authorization_code"), .init("code", code), .init("client_id", clientID),
      .init("client_secret", clientSecret), .init("redirect_uri", redirectURI),
    ]
    if let codeVerifier { form.append(.init("code_verifier", codeVerifier)) }
    return OAuthRequest(
      kind: .tokenExchange, provider: .sber, url: tokenEndpoint, headers: [.init("rquid", rquid)], form: form)
  }

  /// Refreshes the tokens: header `rquid`; form `grant_type=refresh_token`, `refresh_token`, `client_id`,
  /// `client_secret` [INF: the token endpoint's documented refresh grant; the parameter set follows RFC 6749
  /// §6 with the same client authentication as the exchange].
  ///
  /// ```swift
  /// sber.refresh(refreshToken: tokens.refreshToken!)
  /// ```
  public func refresh(refreshToken: String, rquid: String = SberIDClient.randomRquid()) -> OAuthRequest {
    OAuthRequest(
      kind: .refresh, provider: .sber, url: tokenEndpoint, headers: [.init("rquid", rquid)],
      form: [
        .init("grant_type", "refresh_token"), .init("refresh_token", refreshToken), .init("client_id", clientID),
        .init("client_secret", clientSecret),
      ])
  }

  /// The user's data (answered by a ``SberUserInfo``): `GET` with `Authorization: Bearer <token>`,
  /// `x-introspect-rquid` and `x-ibm-client-id` (the client id) [DOC].
  ///
  /// ```swift
  /// sber.userInfo(accessToken: tokens.accessToken)
  /// ```
  public func userInfo(accessToken: String, rquid: String = SberIDClient.randomRquid()) -> OAuthRequest {
    OAuthRequest(
      kind: .userInfo, provider: .sber, method: .get, url: userInfoEndpoint,
      headers: [
        .bearer(accessToken), .init("x-introspect-rquid", rquid),
        .init("x-ibm-client-id", clientID),
      ])
  }
}
