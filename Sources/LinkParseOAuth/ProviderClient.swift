// One dispatch over the five providers' clients: the request a grant needs, for whichever provider, with what
// each provider requires checked in one place (the token request of a consumed authorization, the command's
// `token-request`).

public import LinkParseCore

/// The requests that follow a callback, for any provider: ``VKIDClient``, ``SberIDClient``, ``TIDClient``,
/// ``AppleClient`` or ``OAuth2Client`` behind one interface. A request the provider does not have throws
/// `unsupported-grant`; a value the provider requires and that was not given throws its own code
/// (`missing-client-secret` for Sber ID and Apple, `missing-code-verifier` and `missing-device-id` for VK ID,
/// `missing-redirect-uri`, `missing-endpoint` for a generic server).
///
/// ```swift
/// let client = try ProviderClient(provider: .tid, clientID: "partner", clientSecret: secret)
/// let refresh = try client.refresh(refreshToken: "t.1")
/// let revoke = try client.revoke(token: "t.1")
/// ```
public struct ProviderClient: Sendable {
  private enum Client: Sendable {
    case vk(VKIDClient)
    case sber(SberIDClient)
    case tid(TIDClient)
    case apple(AppleClient, clientSecret: String?)
    case oauth2(OAuth2Client)
  }

  /// A request that follows a callback.
  public enum Request: String, Sendable, Hashable, CaseIterable {
    case tokenExchange = "token-exchange", refresh, revoke, introspect
    case userInfo = "user-info", logout
    case publicInfo = "public-info"
  }

  /// Whether `provider` has `request`: every provider has the exchange and refresh; Sber ID has no revocation,
  /// Apple no user info, only T-ID and generic servers introspection, only VK ID logout and public info.
  ///
  /// ```swift
  /// ProviderClient.supports(.revoke, provider: .sber)  // false
  /// ```
  public static func supports(_ request: Request, provider: Provider) -> Bool {
    switch (request, provider) {
    case (.tokenExchange, _), (.refresh, _): return true
    case (.revoke, let p): return p != .sber
    case (.introspect, let p): return p == .tid || p == .oauth2
    case (.userInfo, let p): return p != .apple
    case (.logout, let p), (.publicInfo, let p): return p == .vk
    }
  }

  /// The provider the requests go to.
  ///
  /// ```swift
  /// try ProviderClient(provider: .vk, clientID: "7915193").provider  // .vk
  /// ```
  public let provider: Provider
  private let client: Client

  /// A client of `provider`: `endpoint`, when given, replaces every default endpoint (required for `.oauth2`);
  /// `clientSecret` is Sber ID's and T-ID web's secret, a generic server's `client_secret_basic`, or Apple's
  /// client_secret JWT; `vkShape` is VK ID's request shape.
  ///
  /// ```swift
  /// let client = try ProviderClient(provider: .oauth2, clientID: "app", endpoint: "https://id.example/token")
  /// ```
  ///
  /// - Throws: ``TokenRequestError`` `missing-client-secret` (Sber ID), `missing-endpoint` (`.oauth2`).
  public init(
    provider: Provider, clientID: String, clientSecret: String? = nil, endpoint: String? = nil,
    vkShape: VKIDClient.RequestShape = .guide
  ) throws(TokenRequestError) {
    self.provider = provider
    switch provider {
    case .vk:
      client = .vk(
        endpoint.map {
          VKIDClient(
            clientID: clientID, tokenEndpoint: $0, revokeEndpoint: $0, logoutEndpoint: $0, userInfoEndpoint: $0,
            publicInfoEndpoint: $0, shape: vkShape)
        } ?? VKIDClient(clientID: clientID, shape: vkShape))
    case .sber:
      guard let clientSecret else {
        throw TokenRequestError(.missingClientSecret, message: "Sber ID's endpoints need the client secret")
      }
      client = .sber(
        endpoint.map {
          SberIDClient(clientID: clientID, clientSecret: clientSecret, tokenEndpoint: $0, userInfoEndpoint: $0)
        } ?? SberIDClient(clientID: clientID, clientSecret: clientSecret))
    case .tid:
      client = .tid(
        endpoint.map {
          TIDClient(
            clientID: clientID, clientSecret: clientSecret, tokenEndpoint: $0, revokeEndpoint: $0,
            introspectionEndpoint: $0, userInfoEndpoint: $0)
        } ?? TIDClient(clientID: clientID, clientSecret: clientSecret))
    case .apple:
      client = .apple(
        endpoint.map { AppleClient(clientID: clientID, tokenEndpoint: $0, revokeEndpoint: $0) }
          ?? AppleClient(clientID: clientID), clientSecret: clientSecret)
    case .oauth2:
      guard let endpoint else {
        throw TokenRequestError(.missingEndpoint, message: "a generic OAuth 2.0 server has no default endpoint")
      }
      client = .oauth2(
        OAuth2Client(
          clientID: clientID, authentication: clientSecret.map { .clientSecretBasic($0) } ?? .none,
          tokenEndpoint: endpoint, revocationEndpoint: endpoint, introspectionEndpoint: endpoint,
          userInfoEndpoint: endpoint))
    }
  }

  /// The authorization code's exchange. VK ID needs `codeVerifier`, `deviceID` and `redirectURI` (its `state`
  /// is the exchange's own, optional); Sber ID and T-ID need `redirectURI`; Apple needs the client secret.
  ///
  /// ```swift
  /// let request = try client.tokenExchange(code: "c", redirectURI: "https://example.com/cb", codeVerifier: verifier)
  /// ```
  public func tokenExchange(
    code: String, redirectURI: String?, codeVerifier: String? = nil, deviceID: String? = nil, state: String? = nil
  ) throws(TokenRequestError) -> OAuthRequest {
    switch client {
    case .vk(let vk):
      return vk.tokenExchange(
        code: code, codeVerifier: try need(codeVerifier, .missingCodeVerifier, "VK ID needs the PKCE code_verifier"),
        deviceID: try need(deviceID, .missingDeviceID, "VK ID's exchange needs the callback's device_id"),
        redirectURI: try need(redirectURI, .missingRedirectURI, "VK ID's exchange needs the redirect URI"),
        state: state)
    case .sber(let sber):
      return sber.tokenExchange(
        code: code, redirectURI: try need(redirectURI, .missingRedirectURI, "Sber ID's exchange needs the redirect URI"),
        codeVerifier: codeVerifier)
    case .tid(let tid):
      return tid.tokenExchange(
        code: code, redirectURI: try need(redirectURI, .missingRedirectURI, "T-ID's exchange needs the redirect URI"),
        codeVerifier: codeVerifier)
    case .apple(let apple, let secret):
      return apple.tokenExchange(
        code: code, clientSecret: try appleSecret(secret), redirectURI: redirectURI, codeVerifier: codeVerifier)
    case .oauth2(let oauth2):
      return oauth2.tokenExchange(code: code, redirectURI: redirectURI, codeVerifier: codeVerifier)
    }
  }

  /// `grant_type=refresh_token`. VK ID needs `deviceID` (and may send a `state` of its own).
  ///
  /// ```swift
  /// let request = try client.refresh(refreshToken: "t.1")
  /// ```
  public func refresh(refreshToken: String, deviceID: String? = nil, state: String? = nil) throws(TokenRequestError)
    -> OAuthRequest
  {
    switch client {
    case .vk(let vk):
      return vk.refresh(
        refreshToken: refreshToken,
        deviceID: try need(deviceID, .missingDeviceID, "VK ID's refresh needs the device_id"), state: state)
    case .sber(let sber): return sber.refresh(refreshToken: refreshToken)
    case .tid(let tid): return tid.refresh(refreshToken: refreshToken)
    case .apple(let apple, let secret): return apple.refresh(refreshToken: refreshToken, clientSecret: try appleSecret(secret))
    case .oauth2(let oauth2): return oauth2.refresh(refreshToken: refreshToken)
    }
  }

  /// Revokes `token` (VK ID: an access token).
  ///
  /// ```swift
  /// let request = try client.revoke(token: "t.1")
  /// ```
  public func revoke(token: String) throws(TokenRequestError) -> OAuthRequest {
    switch client {
    case .vk(let vk): return vk.revoke(accessToken: token)
    case .tid(let tid): return tid.revoke(token: token)
    case .apple(let apple, let secret): return apple.revoke(token: token, clientSecret: try appleSecret(secret))
    case .oauth2(let oauth2): return try oauth2.revoke(token: token)
    case .sber: throw unsupported(.revoke)
    }
  }

  /// Token introspection (T-ID, a generic server).
  ///
  /// ```swift
  /// let request = try client.introspect(token: "t.1")
  /// ```
  public func introspect(token: String) throws(TokenRequestError) -> OAuthRequest {
    switch client {
    case .tid(let tid): return tid.introspect(token: token)
    case .oauth2(let oauth2): return try oauth2.introspect(token: token)
    default: throw unsupported(.introspect)
    }
  }

  /// The user's profile.
  ///
  /// ```swift
  /// let request = try client.userInfo(accessToken: "t.1")
  /// ```
  public func userInfo(accessToken: String) throws(TokenRequestError) -> OAuthRequest {
    switch client {
    case .vk(let vk): return vk.userInfo(accessToken: accessToken)
    case .sber(let sber): return sber.userInfo(accessToken: accessToken)
    case .tid(let tid): return tid.userInfo(accessToken: accessToken)
    case .oauth2(let oauth2): return try oauth2.userInfo(accessToken: accessToken)
    case .apple: throw unsupported(.userInfo)
    }
  }

  /// VK ID's logout.
  ///
  /// ```swift
  /// let request = try client.logout(accessToken: "t.1")
  /// ```
  public func logout(accessToken: String) throws(TokenRequestError) -> OAuthRequest {
    guard case .vk(let vk) = client else { throw unsupported(.logout) }
    return vk.logout(accessToken: accessToken)
  }

  /// VK ID's public info for an id_token.
  ///
  /// ```swift
  /// let request = try client.publicInfo(idToken: idToken)
  /// ```
  public func publicInfo(idToken: String) throws(TokenRequestError) -> OAuthRequest {
    guard case .vk(let vk) = client else { throw unsupported(.publicInfo) }
    return vk.publicInfo(idToken: idToken)
  }

  private func need(_ value: String?, _ code: TokenRequestError.Code, _ message: String) throws(TokenRequestError)
    -> String
  {
    guard let value, !value.isEmpty else { throw TokenRequestError(code, message: message) }
    return value
  }

  private func appleSecret(_ secret: String?) throws(TokenRequestError) -> String {
    try need(secret, .missingClientSecret, "Apple's endpoints need the client_secret JWT")
  }

  private func unsupported(_ request: Request) -> TokenRequestError {
    TokenRequestError(.unsupportedGrant, message: "\(provider.rawValue) has no '\(request.rawValue)' request")
  }
}
