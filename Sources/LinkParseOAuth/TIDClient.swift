// T-ID's (Tinkoff ID) token, refresh, revoke, introspection and user-info requests
// (developer.tbank.ru/docs/products/TID: web "Обмен кода на токены", mobile SDK sources, providers.md §3).
//
// Client authentication: a web integration has a client secret and authenticates with HTTP Basic
// (`client_id:client_secret`) [DOC]; a mobile integration has none and sends `client_id` in the form, with
// PKCE [SRC: TinkoffID iOS/Android SDKs].

internal import LinkParseProviders
import LinkParseBytes
import LinkParseCore

/// Builds T-ID's requests after the callback.
///
/// ```swift
/// let web = TIDClient(clientID: "partner", clientSecret: "s3cr3t")
/// web.tokenExchange(code: "c.9f", redirectURI: "https://partner.ru/cb").headerValue("Authorization")
/// // "Basic cGFydG5lcjpzM2NyM3Q="
///
/// let mobile = TIDClient(clientID: "partner")
/// mobile.tokenExchange(code: "c.9f", redirectURI: "myapp://authorized", codeVerifier: pkce.verifier).body
/// // "grant_type=authorization_code&code=c.9f&client_id=partner&code_verifier=…&redirect_uri=myapp%3A%2F%2Fauthorized"
/// ```
public struct TIDClient: Sendable, Hashable, Codable {
  /// `client_id`.
  public var clientID: String
  /// The client secret of a web integration; `nil` for a mobile one.
  public var clientSecret: String?
  /// Token exchange and refresh: `https://id.tbank.ru/auth/token` [DOC].
  public var tokenEndpoint: String
  /// Revocation: `https://id.tbank.ru/auth/revoke` [DOC/SRC].
  public var revokeEndpoint: String
  /// Introspection: `https://id.tbank.ru/auth/introspect` [DOC].
  public var introspectionEndpoint: String
  /// User info: `https://id.tbank.ru/userinfo/userinfo` [DOC].
  public var userInfoEndpoint: String

  /// The default token endpoint.
  public static let defaultTokenEndpoint = "https://id.tbank.ru/auth/token"

  /// Creates a client; the endpoints default to T-ID's.
  ///
  /// ```swift
  /// TIDClient(clientID: "partner", clientSecret: nil, tokenEndpoint: "https://id.tinkoff.ru/auth/token")
  /// ```
  public init(
    clientID: String, clientSecret: String? = nil, tokenEndpoint: String = TIDClient.defaultTokenEndpoint,
    revokeEndpoint: String = "https://id.tbank.ru/auth/revoke",
    introspectionEndpoint: String = "https://id.tbank.ru/auth/introspect",
    userInfoEndpoint: String = "https://id.tbank.ru/userinfo/userinfo"
  ) {
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.tokenEndpoint = tokenEndpoint
    self.revokeEndpoint = revokeEndpoint
    self.introspectionEndpoint = introspectionEndpoint
    self.userInfoEndpoint = userInfoEndpoint
  }

  /// `Authorization: Basic …` with a secret; nothing without.
  private var authHeaders: [OAuthRequest.Header] {
    guard let clientSecret else { return [] }
    return [.basic(clientID, clientSecret, formEncoded: false)]
  }

  /// `client_id` in the form without a secret (mobile); nothing with one (web: HTTP Basic).
  private var clientIDField: [OAuthRequest.Field] { clientSecret == nil ? [.init("client_id", clientID)] : [] }

  /// Exchanges `code`: `grant_type=authorization_code`, `code`, `client_id` (mobile), `code_verifier` (with
  /// PKCE), `redirect_uri` (exactly as sent: the iOS SDK's `callbackUrl`, or the registered mobile redirect
  /// on Android).
  ///
  /// ```swift
  /// tid.tokenExchange(code: "c", redirectURI: "myapp://authorized", codeVerifier: "v…")
  /// ```
  public func tokenExchange(code: String, redirectURI: String, codeVerifier: String? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("grant_type", "authorization_code"), .init("code", code)]
    form += clientIDField
    if let codeVerifier { form.append(.init("code_verifier", codeVerifier)) }
    form.append(.init("redirect_uri", redirectURI))
    return OAuthRequest(kind: .tokenExchange, provider: .tid, url: tokenEndpoint, headers: authHeaders, form: form)
  }

  /// Refreshes the tokens: `grant_type=refresh_token`, `refresh_token`, `client_id` (mobile).
  ///
  /// ```swift
  /// tid.refresh(refreshToken: tokens.refreshToken!)
  /// ```
  public func refresh(refreshToken: String) -> OAuthRequest {
    OAuthRequest(
      kind: .refresh, provider: .tid, url: tokenEndpoint, headers: authHeaders,
      form: [.init("grant_type", "refresh_token"), .init("refresh_token", refreshToken)] + clientIDField)
  }

  /// Revokes a token: `token`, `token_type_hint` (`access_token` or `refresh_token`), `client_id` (mobile).
  ///
  /// ```swift
  /// tid.revoke(token: tokens.refreshToken!, tokenTypeHint: "refresh_token")
  /// ```
  public func revoke(token: String, tokenTypeHint: String? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("token", token)]
    if let tokenTypeHint { form.append(.init("token_type_hint", tokenTypeHint)) }
    return OAuthRequest(kind: .revoke, provider: .tid, url: revokeEndpoint, headers: authHeaders, form: form + clientIDField)
  }

  /// Asks whether a token is active (answered by a ``TIDIntrospection``): `token`, `token_type_hint`,
  /// `client_id` (mobile) [DOC: RFC 7662 parameters].
  ///
  /// ```swift
  /// tid.introspect(token: tokens.accessToken)
  /// ```
  public func introspect(token: String, tokenTypeHint: String? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("token", token)]
    if let tokenTypeHint { form.append(.init("token_type_hint", tokenTypeHint)) }
    return OAuthRequest(
      kind: .introspection, provider: .tid, url: introspectionEndpoint, headers: authHeaders, form: form + clientIDField)
  }

  /// The user's data (answered by a ``TIDUserInfo``): `POST` with `Authorization: Bearer <token>` and the
  /// form `client_id` (and `client_secret`, for a web client) [INF: T-ID's web docs show a POST with the client's
  /// credentials in the form beside the Bearer token].
  ///
  /// ```swift
  /// tid.userInfo(accessToken: tokens.accessToken)
  /// ```
  public func userInfo(accessToken: String) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("client_id", clientID)]
    if let clientSecret { form.append(.init("client_secret", clientSecret)) }
    return OAuthRequest(
      kind: .userInfo, provider: .tid, url: userInfoEndpoint,
      headers: [.bearer(accessToken)], form: form)
  }
}
