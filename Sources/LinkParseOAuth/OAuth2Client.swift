// Any OAuth 2.0 / OIDC server: token endpoint (RFC 6749 §4.1.3, §6), revocation (RFC 7009), introspection
// (RFC 7662), userinfo (OIDC Core §5.3), with the client authentication methods of OIDC Core §9.

internal import LinkParseCore
internal import LinkParseProviders
import LinkParseBytes

/// How a client authenticates to the token, revocation and introspection endpoints (OIDC Core §9).
///
/// ```swift
/// let auth = OAuthClientAuthentication.clientSecretBasic("s3cr3t")
/// ```
public enum OAuthClientAuthentication: Sendable, Hashable, Codable {
  /// `client_secret_basic`: `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
  case clientSecretBasic(String)
  /// `client_secret_post`: `client_id` and `client_secret` in the form.
  case clientSecretPost(String)
  /// `none`: a public client; `client_id` in the form (use PKCE).
  case none
}

/// Builds requests to any OAuth 2.0 / OpenID Connect server. Only the token endpoint is required; a method
/// whose endpoint was not given throws `missing-endpoint`.
///
/// ```swift
/// let client = OAuth2Client(
///   clientID: "app", authentication: .clientSecretBasic("s3cr3t"), tokenEndpoint: "https://as.example/token",
///   userInfoEndpoint: "https://as.example/userinfo")
/// client.tokenExchange(code: "c", redirectURI: "https://app.example/cb", codeVerifier: pkce.verifier)
/// ```
public struct OAuth2Client: Sendable, Hashable, Codable {
  /// `client_id`.
  public var clientID: String
  /// The client authentication method and its secret.
  public var authentication: OAuthClientAuthentication
  /// The token endpoint (discovery's `token_endpoint`).
  public var tokenEndpoint: String
  /// The revocation endpoint (`revocation_endpoint`), if any.
  public var revocationEndpoint: String?
  /// The introspection endpoint (`introspection_endpoint`), if any.
  public var introspectionEndpoint: String?
  /// The userinfo endpoint (`userinfo_endpoint`), if any.
  public var userInfoEndpoint: String?

  /// Creates a client.
  ///
  /// ```swift
  /// OAuth2Client(clientID: "app", authentication: .none, tokenEndpoint: "https://as.example/token")
  /// ```
  public init(
    clientID: String, authentication: OAuthClientAuthentication = .none, tokenEndpoint: String,
    revocationEndpoint: String? = nil, introspectionEndpoint: String? = nil, userInfoEndpoint: String? = nil
  ) {
    self.clientID = clientID
    self.authentication = authentication
    self.tokenEndpoint = tokenEndpoint
    self.revocationEndpoint = revocationEndpoint
    self.introspectionEndpoint = introspectionEndpoint
    self.userInfoEndpoint = userInfoEndpoint
  }

  /// `form` with the client's credentials, and the headers they need.
  private func authenticated(_ form: [OAuthRequest.Field]) -> (headers: [OAuthRequest.Header], form: [OAuthRequest.Field]) {
    switch authentication {
    case .clientSecretBasic(let secret):
      return ([.basic(clientID, secret, formEncoded: true)], form)
    case .clientSecretPost(let secret):
      return ([], form + [.init("client_id", clientID), .init("client_secret", secret)])
    case .none:
      return ([], form + [.init("client_id", clientID)])
    }
  }

  private func post(_ kind: OAuthRequest.Kind, _ url: String, _ fields: [OAuthRequest.Field]) -> OAuthRequest {
    let (headers, form) = authenticated(fields)
    return OAuthRequest(kind: kind, provider: .oauth2, url: url, headers: headers, form: form)
  }

  /// Exchanges `code` (RFC 6749 §4.1.3, RFC 7636 §4.5): `grant_type=authorization_code`, `code`,
  /// `redirect_uri` (when one was sent), `code_verifier` (with PKCE), then the client's credentials.
  ///
  /// ```swift
  /// client.tokenExchange(code: "c", redirectURI: "https://app.example/cb")
  /// ```
  public func tokenExchange(code: String, redirectURI: String?, codeVerifier: String? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("grant_type", "authorization_code"), .init("code", code)]
    if let redirectURI { form.append(.init("redirect_uri", redirectURI)) }
    if let codeVerifier { form.append(.init("code_verifier", codeVerifier)) }
    return post(.tokenExchange, tokenEndpoint, form)
  }

  /// Refreshes (RFC 6749 §6): `grant_type=refresh_token`, `refresh_token`, `scope` (when narrowing).
  ///
  /// ```swift
  /// client.refresh(refreshToken: tokens.refreshToken!)
  /// ```
  public func refresh(refreshToken: String, scope: [String]? = nil) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [.init("grant_type", "refresh_token"), .init("refresh_token", refreshToken)]
    if let scope { form.append(.init("scope", scope.joined(separator: " "))) }
    return post(.refresh, tokenEndpoint, form)
  }

  /// Revokes a token (RFC 7009 §2.1): `token`, `token_type_hint`.
  ///
  /// ```swift
  /// try client.revoke(token: tokens.refreshToken!, tokenTypeHint: "refresh_token")
  /// ```
  ///
  /// - Throws: ``TokenRequestError`` `missing-endpoint` without a ``revocationEndpoint``.
  public func revoke(token: String, tokenTypeHint: String? = nil) throws(TokenRequestError) -> OAuthRequest {
    guard let revocationEndpoint else {
      throw TokenRequestError(.missingEndpoint, message: "the client has no revocation endpoint")
    }
    var form: [OAuthRequest.Field] = [.init("token", token)]
    if let tokenTypeHint { form.append(.init("token_type_hint", tokenTypeHint)) }
    return post(.revoke, revocationEndpoint, form)
  }

  /// Introspects a token (RFC 7662 §2.1; answered by a ``TokenIntrospection``): `token`, `token_type_hint`.
  ///
  /// ```swift
  /// try client.introspect(token: tokens.accessToken)
  /// ```
  ///
  /// - Throws: ``TokenRequestError`` `missing-endpoint` without an ``introspectionEndpoint``.
  public func introspect(token: String, tokenTypeHint: String? = nil) throws(TokenRequestError) -> OAuthRequest {
    guard let introspectionEndpoint else {
      throw TokenRequestError(.missingEndpoint, message: "the client has no introspection endpoint")
    }
    var form: [OAuthRequest.Field] = [.init("token", token)]
    if let tokenTypeHint { form.append(.init("token_type_hint", tokenTypeHint)) }
    return post(.introspection, introspectionEndpoint, form)
  }

  /// The userinfo request (OIDC Core §5.3.1; answered by an ``OIDCUserInfo``): `GET` with
  /// `Authorization: Bearer <token>`.
  ///
  /// ```swift
  /// try client.userInfo(accessToken: tokens.accessToken)
  /// ```
  ///
  /// - Throws: ``TokenRequestError`` `missing-endpoint` without a ``userInfoEndpoint``.
  public func userInfo(accessToken: String) throws(TokenRequestError) -> OAuthRequest {
    guard let userInfoEndpoint else {
      throw TokenRequestError(.missingEndpoint, message: "the client has no userinfo endpoint")
    }
    return OAuthRequest(
      kind: .userInfo, provider: .oauth2, method: .get, url: userInfoEndpoint,
      headers: [.bearer(accessToken)])
  }
}
