// Sign in with Apple's token, refresh and revoke requests (developer.apple.com/documentation/
// sign_in_with_apple: "Generate and validate tokens", "Revoke tokens"). Apple has no user-info endpoint: the
// user's data is in the id_token and, at the first sign-in only, in the callback's `user` JSON.

internal import LinkParseProviders
import LinkParseCore

/// Builds Sign in with Apple's requests after the callback. `client_secret` is a JWT signed with the team's
/// key (at most six months valid), which the caller makes (``AppleClientSecret``) and passes in.
///
/// ```swift
/// let apple = AppleClient(clientID: "com.example.web")
/// let exchange = apple.tokenExchange(code: "c7253d…", clientSecret: jwt, redirectURI: "https://example.com/auth/apple/callback")
/// exchange.url  // "https://appleid.apple.com/auth/token"
/// ```
public struct AppleClient: Sendable, Hashable, Codable {
  /// `client_id`: the Services ID (web) or the app's bundle id (native).
  public var clientID: String
  /// Token exchange and refresh: `https://appleid.apple.com/auth/token` [DOC].
  public var tokenEndpoint: String
  /// Revocation: `https://appleid.apple.com/auth/revoke` [DOC].
  public var revokeEndpoint: String

  /// The default token endpoint.
  public static let defaultTokenEndpoint = "https://appleid.apple.com/auth/token"

  /// Creates a client; the endpoints default to Apple's.
  ///
  /// ```swift
  /// AppleClient(clientID: "com.example.web")
  /// ```
  public init(
    clientID: String, tokenEndpoint: String = AppleClient.defaultTokenEndpoint,
    revokeEndpoint: String = "https://appleid.apple.com/auth/revoke"
  ) {
    self.clientID = clientID
    self.tokenEndpoint = tokenEndpoint
    self.revokeEndpoint = revokeEndpoint
  }

  /// Validates an authorization code: `client_id`, `client_secret`, `code`, `grant_type=authorization_code`,
  /// `redirect_uri` (required when the authorization request had one, i.e. on the web; a native app's code
  /// has none), `code_verifier` (only if PKCE was used).
  ///
  /// ```swift
  /// apple.tokenExchange(code: "c", clientSecret: jwt, redirectURI: "https://example.com/cb")
  /// ```
  public func tokenExchange(
    code: String, clientSecret: String, redirectURI: String?, codeVerifier: String? = nil
  ) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [
      .init("client_id", clientID), .init("client_secret", clientSecret), .init("code", code),
      .init("grant_type", "authorization_code"),
    ]
    if let redirectURI { form.append(.init("redirect_uri", redirectURI)) }
    if let codeVerifier { form.append(.init("code_verifier", codeVerifier)) }
    return OAuthRequest(kind: .tokenExchange, provider: .apple, url: tokenEndpoint, form: form)
  }

  /// Validates a refresh token (Apple answers with a new access token and no new refresh token):
  /// `client_id`, `client_secret`, `grant_type=refresh_token`, `refresh_token`.
  ///
  /// ```swift
  /// apple.refresh(refreshToken: tokens.refreshToken!, clientSecret: jwt)
  /// ```
  public func refresh(refreshToken: String, clientSecret: String) -> OAuthRequest {
    OAuthRequest(
      kind: .refresh, provider: .apple, url: tokenEndpoint,
      form: [
        .init("client_id", clientID), .init("client_secret", clientSecret), .init("grant_type", "refresh_token"),
        .init("refresh_token", refreshToken),
      ])
  }

  /// Revokes a token (required when a user deletes their account): `client_id`, `client_secret`, `token`,
  /// `token_type_hint` (`refresh_token` or `access_token`).
  ///
  /// ```swift
  /// apple.revoke(token: tokens.refreshToken!, tokenTypeHint: "refresh_token", clientSecret: jwt)
  /// ```
  public func revoke(token: String, tokenTypeHint: String? = nil, clientSecret: String) -> OAuthRequest {
    var form: [OAuthRequest.Field] = [
      .init("client_id", clientID), .init("client_secret", clientSecret), .init("token", token),
    ]
    if let tokenTypeHint { form.append(.init("token_type_hint", tokenTypeHint)) }
    return OAuthRequest(kind: .revoke, provider: .apple, url: revokeEndpoint, form: form)
  }
}
