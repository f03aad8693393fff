// The one shape every relying party has: start a login, complete it to a verified identity, refresh its tokens,
// end its session at the provider. `OIDCRelyingParty` (any OpenID Connect provider) and `ProviderRelyingParty`
// (VK ID, Sber ID, T-ID, Sign in with Apple) conform; a web login (LinkParseHummingbird's `WebLogin`) holds them as
// `any RelyingParty` and dispatches once, by the session's provider and issuer.

public import LinkParseAuthorization
public import LinkParseOAuth
public import LinkParseCore
import LinkParseIDToken

/// A relying party of one provider and client: what a server needs of it after the start.
///
/// Every conforming party refuses, before anything is sent, a consumed authorization made for another provider,
/// client or authorization server (`authorization-mismatch`, RFC 9700 §4.4), so two parties on one callback
/// path never send one's code and verifier to the other's token endpoint.
///
/// ```swift
/// let parties: [any RelyingParty] = [
///   try await OIDCRelyingParty.discover(issuer: "https://id.example", clientID: "app", clientSecret: nil, client: client),
///   ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client),
/// ]
/// let identity = try await parties[0].complete(consumed, now: IDTokenVerifier.currentUnixTime)
/// let fresh = try await parties[0].refresh(refreshToken: identity.tokens!.refreshToken!, deviceID: nil, now: IDTokenVerifier.currentUnixTime)
/// ```
public protocol RelyingParty: Sendable {
  /// The provider of the logins this party starts and of the identities it completes (`.oauth2` for a generic
  /// OpenID Connect party).
  var provider: Provider { get }
  /// The client id: the one a consumed authorization must have been made for.
  var clientID: String { get }
  /// The issuer of the identities this party completes (``VerifiedIdentity/issuer``): with ``provider``, what
  /// finds the party of a session again.
  var issuer: String { get }

  /// Throws when a setting cannot work (checked once, before the first login); the default checks nothing.
  func validate() throws(ConfigurationError)

  /// How a login at this provider starts, its callback at `redirectURI`, with the provider's usual scope.
  func loginStart(redirectURI: String) -> LoginStart

  /// The exchange, the verified identity: see each party's `complete(_:now:)`.
  func complete(_ consumed: ConsumedAuthorization, now: Int64) async throws -> VerifiedIdentity

  /// New tokens for a refresh token (VK ID needs the login's `device_id` too; others ignore it).
  func refresh(refreshToken: String, deviceID: String?, now: Int64) async throws -> TokenResponse

  /// Ends the user's session at the provider: sent from here (``SessionEnd/ended``), a page the browser must
  /// visit (``SessionEnd/redirect(_:)``, which ends at `postLogoutRedirectURI`), or nothing to do.
  func endSession(tokens: TokenResponse, postLogoutRedirectURI: String?, now: Int64) async throws -> SessionEnd

  /// Verifies a back-channel logout token its provider posted (``OIDCRelyingParty``'s); the default throws
  /// ``IdentityError`` `logout-tokens-unsupported`.
  func verifyLogoutToken(_ token: String, now: Int64) async throws -> LogoutToken
}

extension RelyingParty {
  /// Nothing to check (``ProviderRelyingParty`` checks its settings).
  ///
  /// ```swift
  /// try party.validate()
  /// ```
  public func validate() throws(ConfigurationError) {}

  /// Refuses every logout token: `logout-tokens-unsupported` (VK ID, Sber ID, T-ID and Apple send none).
  ///
  /// ```swift
  /// try await vk.verifyLogoutToken(token, now: 0)  // throws IdentityError logout-tokens-unsupported
  /// ```
  public func verifyLogoutToken(_ token: String, now: Int64) async throws -> LogoutToken {
    throw IdentityError(.logoutTokensUnsupported, message: "\(issuer) sends no back-channel logout tokens to this party")
  }
}

extension OIDCRelyingParty: RelyingParty {
  /// `.oauth2`: a generic OpenID Connect login.
  ///
  /// ```swift
  /// party.provider  // .oauth2
  /// ```
  public var provider: Provider { .oauth2 }

  /// The discovered issuer.
  ///
  /// ```swift
  /// party.issuer  // "https://id.example"
  /// ```
  public var issuer: String { metadata.issuer }

  /// ``loginStart(redirectURI:scope:)`` with the scope `openid`.
  ///
  /// ```swift
  /// let start: LoginStart = party.loginStart(redirectURI: "https://example.com/auth/demo/callback")
  /// ```
  public func loginStart(redirectURI: String) -> LoginStart {
    loginStart(redirectURI: redirectURI, scope: ["openid"])
  }

  /// ``refresh(refreshToken:)`` (a generic provider needs no device id).
  ///
  /// ```swift
  /// let tokens = try await party.refresh(refreshToken: refreshToken, deviceID: nil, now: 0)
  /// ```
  public func refresh(refreshToken: String, deviceID: String?, now: Int64) async throws -> TokenResponse {
    try await refresh(refreshToken: refreshToken)
  }

  /// ``endSession(tokens:postLogoutRedirectURI:state:)``: the provider's `end_session_endpoint`, to visit.
  ///
  /// ```swift
  /// let end = try await party.endSession(tokens: tokens, postLogoutRedirectURI: "https://example.com/", now: 0)
  /// ```
  public func endSession(tokens: TokenResponse, postLogoutRedirectURI: String?, now: Int64) async throws -> SessionEnd {
    try await endSession(tokens: tokens, postLogoutRedirectURI: postLogoutRedirectURI, state: nil)
  }
}

extension ProviderRelyingParty: RelyingParty {
  /// ``endSession(tokens:now:)``: the provider ends its session from here, or has nothing to end; the
  /// post-logout address is not used (none of the four redirects the browser).
  ///
  /// ```swift
  /// let end = try await vk.endSession(tokens: tokens, postLogoutRedirectURI: nil, now: 0)
  /// ```
  public func endSession(tokens: TokenResponse, postLogoutRedirectURI: String?, now: Int64) async throws -> SessionEnd {
    try await endSession(tokens: tokens, now: now)
  }
}
