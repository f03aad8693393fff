// From a consumed authorization to a verified identity, and the logout, for the four named providers (VK ID,
// Sber ID, T-ID, Sign in with Apple), each with its quirks (providers.md §1–§4): VK ID's device_id round trip
// and user_id cross-check, Sber ID's rquid headers and client certificate, T-ID's Basic client authentication,
// Apple's client_secret JWT, keys, posted id_token (c_hash) and one-time `user` JSON. The steps they share
// with OIDCRelyingParty are LoginCompletion's.

public import LinkParseAuthorization
public import LinkParseCore
public import LinkParseOAuth
public import LinkParseIDToken
import LinkParseProviders

/// Everything after the callback for VK ID, Sber ID, T-ID or Sign in with Apple, in one call
/// (``complete(_:now:)``), and the logout (``endSession(tokens:now:)``). Make one per provider with
/// ``vkID(_:client:issuer:)``, ``sberID(_:issuer:client:keys:)``, ``tid(_:client:issuer:keys:)`` or
/// ``apple(_:clientSecret:client:keys:)``, and keep it for the life of the process (its ``keys`` cache is shared
/// by every login). A generic OpenID Connect provider is ``OIDCRelyingParty``'s.
///
/// What ``complete(_:now:)`` does, per provider:
/// - **VK ID**: the exchange with the callback's `device_id` and the PKCE verifier (in the request shape of the
///   ``VKIDClient``), the echoed `state` checked; VK publishes no keys for its id_token, so
///   ``VerifiedIdentity/idToken`` is `nil` and the subject is the token answer's `user_id`, which the
///   `POST /oauth2/user_info` answer (access token and `client_id`) must repeat.
/// - **Sber ID**: the exchange with an `rquid` header and the client secret; the id_token verified (nonce,
///   audience = client id, the configured issuer) when ``keys`` is set, required then; the user info (`rquid`,
///   `x-ibm-client-id`), whose `sub` must be the id_token's.
/// - **T-ID**: the exchange with HTTP Basic client authentication (web) or `client_id` in the form (mobile);
///   the id_token verified when the answer has one and ``keys`` is set; the user info, `sub` cross-checked.
/// - **Sign in with Apple**: the exchange with a fresh `client_secret` JWT; the id_token verified with Apple's
///   keys (issuer `https://appleid.apple.com`, audience = client id, nonce, `at_hash`); an id_token the callback
///   itself carried (`response_type=code id_token`) verified first, `c_hash` against the code included, and
///   its `sub` compared with the token endpoint's; no user info (Apple has none); the callback's one-time
///   `user` JSON surfaced, unverified, as ``VerifiedIdentity/unverifiedAppleUser``.
///
/// ```swift
/// let client = OAuthHTTPClient()
/// let vk = ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client)
/// // in the callback's closure:
/// let identity = try await vk.complete(consumed)
/// identity.subject  // "1234567890"
/// ```
public struct ProviderRelyingParty: Sendable {
  /// The provider's request builders (and, for Apple, the client secret's key).
  private enum Endpoints: Sendable {
    case vk(VKIDClient)
    case sber(SberIDClient)
    case tid(TIDClient)
    case apple(AppleClient, AppleClientSecret)
  }

  /// Apple's JWKS: `https://appleid.apple.com/auth/keys`.
  ///
  /// ```swift
  /// JWKSCache(url: ProviderRelyingParty.appleKeysURL, client: client)
  /// ```
  public static let appleKeysURL = "https://appleid.apple.com/auth/keys"

  private let endpoints: Endpoints
  /// The provider.
  ///
  /// ```swift
  /// ProviderRelyingParty.vkID(VKIDClient(clientID: "1"), client: client).provider  // .vk
  /// ```
  public let provider: Provider
  /// The client id: the id_token's audience, and the one a consumed authorization must have been made for.
  ///
  /// ```swift
  /// party.clientID  // "7915193"
  /// ```
  public let clientID: String
  /// The issuer an id_token must name, and the identity's issuer when none is verified.
  ///
  /// ```swift
  /// party.issuer  // "https://id.vk.ru"
  /// ```
  public let issuer: String
  /// The keys id_tokens are verified with: Apple's, Sber ID's or T-ID's when given; `nil` for VK ID.
  ///
  /// ```swift
  /// party.keys?.url  // "https://appleid.apple.com/auth/keys"
  /// ```
  public let keys: JWKSCache?
  /// The HTTP client every request goes through (for Sber ID, one that presents the client certificate).
  ///
  /// ```swift
  /// party.client.configuration.timeout  // .seconds(10)
  /// ```
  public let client: OAuthHTTPClient
  /// How old an id_token's `iat` may be, seconds (600 by default).
  ///
  /// ```swift
  /// party.maxIssuedAtAge = .seconds(300)
  /// ```
  public var maxIssuedAtAge: Duration? = IDTokenVerifier.Expectations.defaultMaxIssuedAtAge
  /// Whether ``complete(_:now:)`` fetches the user info (VK ID, Sber ID, T-ID; Apple has none). Without it,
  /// VK ID's subject is the token answer's unchecked `user_id`, and Sber ID or T-ID need verified id_tokens.
  ///
  /// ```swift
  /// party.fetchesUserInfo = false
  /// ```
  public var fetchesUserInfo = true
  /// The scope ``loginStart(redirectURI:)`` asks for; `nil`: `LoginStart`'s default for the provider (VK ID:
  /// none, Sber ID: `openid`, T-ID: none, Apple: `name email`).
  ///
  /// ```swift
  /// var vk = ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client)
  /// vk.scope = ["vkid.personal_info"]
  /// ```
  public var scope: [String]?

  private init(_ endpoints: Endpoints, issuer: String, keys: JWKSCache?, client: OAuthHTTPClient) {
    self.endpoints = endpoints
    switch endpoints {
    case .vk(let vk): (provider, clientID) = (.vk, vk.clientID)
    case .sber(let sber): (provider, clientID) = (.sber, sber.clientID)
    case .tid(let tid): (provider, clientID) = (.tid, tid.clientID)
    case .apple(let apple, _): (provider, clientID) = (.apple, apple.clientID)
    }
    self.issuer = issuer
    self.keys = keys
    self.client = client
    // The settings are all `let`s: checked once here, not again before every login.
    do throws(ConfigurationError) {
      try Self.check(endpoints, issuer: issuer, keys: keys)
      configurationError = nil
    } catch {
      configurationError = error
    }
  }

  /// What ``validate()`` reports, found when the party was made.
  private let configurationError: ConfigurationError?

  /// VK ID, with `vk`'s endpoints and request shape. `issuer` is the identity's issuer (VK ID's id_token is not
  /// verified here: VK publishes no keys for it).
  ///
  /// ```swift
  /// let vk = ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client)
  /// ```
  public static func vkID(_ vk: VKIDClient, client: OAuthHTTPClient, issuer: String = "https://id.vk.ru")
    -> ProviderRelyingParty
  {
    ProviderRelyingParty(.vk(vk), issuer: issuer, keys: nil, client: client)
  }

  /// Sber ID, with `sber`'s endpoints and secret. `issuer` comes from your Sber ID onboarding material (Sber
  /// documents none); `keys`, when given, are the JWKS the id_tokens are verified with (then every answer must
  /// carry one).
  ///
  /// **The client certificate.** Sber's API gateway wants a TLS client certificate issued by Sber (and its
  /// server chains to the Russian Trusted Root CA): give `client` an `HTTPClient` whose TLS configuration
  /// presents it. The request builders add the `rquid` headers.
  ///
  /// ```swift
  /// import AsyncHTTPClient
  /// import NIOSSL
  ///
  /// var tls = TLSConfiguration.makeClientConfiguration()
  /// tls.certificateChain = try NIOSSLCertificate.fromPEMFile("/etc/sber/client.crt").map { .certificate($0) }
  /// tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: "/etc/sber/client.key", format: .pem))
  /// tls.trustRoots = .file("/etc/sber/russian_trusted_root_ca.pem")
  /// var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
  /// configuration.redirectConfiguration = .disallow
  /// let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  /// let sber = ProviderRelyingParty.sberID(
  ///   SberIDClient(clientID: "0A1B2C3D", clientSecret: secret), issuer: sberIssuer,
  ///   client: OAuthHTTPClient(httpClient: http))
  /// ```
  public static func sberID(
    _ sber: SberIDClient, issuer: String, client: OAuthHTTPClient, keys: JWKSCache? = nil
  ) -> ProviderRelyingParty {
    ProviderRelyingParty(.sber(sber), issuer: issuer, keys: keys, client: client)
  }

  /// T-ID, with `tid`'s endpoints (HTTP Basic with a client secret, `client_id` in the form without one).
  /// `keys`, when given, verify the id_token of an answer that has one.
  ///
  /// ```swift
  /// let tid = ProviderRelyingParty.tid(TIDClient(clientID: "partner", clientSecret: secret), client: client)
  /// ```
  public static func tid(
    _ tid: TIDClient, client: OAuthHTTPClient, issuer: String = "https://id.tbank.ru", keys: JWKSCache? = nil
  ) -> ProviderRelyingParty {
    ProviderRelyingParty(.tid(tid), issuer: issuer, keys: keys, client: client)
  }

  /// Sign in with Apple, with `apple`'s endpoints, a `client_secret` JWT made from `clientSecret` for each
  /// request, and Apple's keys (a cache of ``appleKeysURL`` unless `keys` is given).
  ///
  /// ```swift
  /// let secret = try AppleClientSecret(
  ///   privateKeyPEM: p8, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clientID: "com.example.web")
  /// let apple = ProviderRelyingParty.apple(
  ///   AppleClient(clientID: "com.example.web"), clientSecret: secret, client: client)
  /// ```
  public static func apple(
    _ apple: AppleClient, clientSecret: AppleClientSecret, client: OAuthHTTPClient, keys: JWKSCache? = nil
  ) -> ProviderRelyingParty {
    ProviderRelyingParty(
      .apple(apple, clientSecret), issuer: AppleClientSecret.audience,
      keys: keys ?? JWKSCache(url: appleKeysURL, client: client), client: client)
  }

  /// Checks the configuration now, naming the setting that cannot work (``ConfigurationError``): the provider
  /// client's id and endpoints, the issuer (an https URL without a query or fragment) and the keys' URL. Call it
  /// at start-up; ``complete(_:now:)`` calls it too, so a bad setting never fails a login with a network error.
  ///
  /// ```swift
  /// let vk = ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client)
  /// try vk.validate()
  /// ```
  public func validate() throws(ConfigurationError) {
    if let configurationError { throw configurationError }
  }

  /// The checks ``validate()`` reports.
  private static func check(_ endpoints: Endpoints, issuer: String, keys: JWKSCache?) throws(ConfigurationError) {
    switch endpoints {
    case .vk(let vk): try vk.validate()
    case .sber(let sber): try sber.validate()
    case .tid(let tid): try tid.validate()
    case .apple(let apple, _): try apple.validate()
    }
    try ConfigurationCheck.url(issuer, setting: "ProviderRelyingParty.issuer", isIssuer: true)
    if let keys { try ConfigurationCheck.url(keys.url, setting: "JWKSCache.url") }
  }

  /// Completes the login `consumed` carries (see the type's description for each provider).
  ///
  /// ```swift
  /// let identity = try await party.complete(consumed)
  /// identity.subject          // the user's id at the provider
  /// identity.email?.value     // from the verified id_token or the user info
  /// ```
  ///
  /// - Throws: ``ConfigurationError`` (a setting that cannot work), ``IdentityError`` (`not-a-success`,
  ///   `authorization-mismatch` for another provider's or
  ///   client's authorization, `missing-id-token`, `subject-mismatch`, `missing-subject`), ``TokenRequestError``
  ///   (the request cannot be built: no verifier, no `device_id`), ``OAuthResponseError`` (the token or
  ///   user-info answer, or the JWKS that could not be read: status, timeout, shape, the provider's error),
  ///   ``IDTokenError`` (an id_token refused: signature, audience, nonce, `c_hash`, times; or Apple's client
  ///   secret could not be made).
  public func complete(
    _ consumed: ConsumedAuthorization, now: Int64 = IDTokenVerifier.currentUnixTime
  ) async throws -> VerifiedIdentity {
    try validate()
    let authorization = consumed.authorization
    try LoginCompletion.requireOwn(authorization, provider: provider, clientID: clientID, issuer: issuer)
    var expected = IDTokenVerifier.Expectations(
      issuer: issuer, audience: clientID, nonce: authorization.nonce, maxIssuedAtAge: maxIssuedAtAge)
    if case .apple(.idTokenGrant(let grant)) = consumed.callback {
      return try await completeIDTokenGrant(grant, expected: expected, now: now)
    }
    let code = try LoginCompletion.requireSuccess(consumed)
    let userInfo = fetchesUserInfo ? endpoints : nil
    let idToken = keys.map { LoginCompletion.IDTokenCheck(keys: $0, expected: expected, isRequired: provider != .tid) }

    var exchange: OAuthRequest
    var callbackToken: VerifiedIDToken?
    var appleUser: AppleUser?
    switch endpoints {
    case .vk(let vk):
      exchange = try consumed.tokenRequest(endpoint: vk.tokenEndpoint)
      if vk.shape == .formBody {
        exchange = OAuthRequest(kind: .tokenExchange, provider: .vk, url: vk.tokenEndpoint, form: exchange.fields)
      }
    case .sber(let sber):
      exchange = try consumed.tokenRequest(clientSecret: sber.clientSecret, endpoint: sber.tokenEndpoint)
    case .tid(let tid):
      exchange = try consumed.tokenRequest(clientSecret: tid.clientSecret, endpoint: tid.tokenEndpoint)
    case .apple(let apple, let secret):
      if case .apple(.success(let success)) = consumed.callback {
        appleUser = success.user
        // The id_token posted with the code (hybrid flow) is checked before the code is spent: its c_hash
        // binds it to this code (OIDC Core §3.3.2.11, REQUIRED there).
        if let posted = success.idToken, let keys {
          expected.authorizationCode = String(code)
          expected.requiresCodeHash = true
          callbackToken = try await keys.verify(posted, expecting: expected, now: now)
        }
      }
      exchange = try consumed.tokenRequest(clientSecret: try secret.make(now: now), endpoint: apple.tokenEndpoint)
    }
    var identity = try await LoginCompletion.complete(
      exchange: exchange, provider: provider, issuer: issuer, client: client, idToken: idToken,
      userInfo: { tokens in
        switch userInfo {
        case .vk(let vk): return .vk(vk.userInfo(accessToken: tokens.accessToken))
        case .sber(let sber): return .sber(sber.userInfo(accessToken: tokens.accessToken))
        case .tid(let tid): return .tid(tid.userInfo(accessToken: tokens.accessToken))
        case .apple, nil: return nil
        }
      }, callbackToken: callbackToken, appleUser: appleUser, now: now)
    if case .vk(.success(let success)) = consumed.callback { identity.deviceID = String(success.deviceID) }
    return identity
  }

  /// A Sign in with Apple `response_type=id_token` login: no code, so no exchange; the posted id_token is the
  /// result, verified with Apple's keys (issuer, audience, signature, times) and bound to the authorization by
  /// its `nonce`, which is required (`c_hash` does not apply: there is no code).
  private func completeIDTokenGrant(
    _ grant: AppleSuccess, expected: IDTokenVerifier.Expectations, now: Int64
  ) async throws -> VerifiedIdentity {
    guard expected.nonce != nil else {
      throw IdentityError(
        .nonceRequired, message: "an id_token without a code is accepted only for an authorization that sent a nonce")
    }
    guard let keys, let posted = grant.idToken else {
      throw IdentityError(.missingIDToken, message: "the callback has no id_token, or no keys verify it")
    }
    let verified = try await keys.verify(posted, expecting: expected, now: now)
    let claims = verified.claims
    guard let subject = claims.subject, !subject.isEmpty else {
      throw IdentityError(.missingSubject, message: "the verified id_token from \(issuer) names no subject")
    }
    return LoginCompletion.identity(
      provider: provider, issuer: issuer, subject: subject, idToken: verified, tokens: nil, userInfo: nil,
      appleUser: grant.user)
  }

  /// How a login at this provider starts: `LoginStart`'s `vkID`, `sberID`, `tid` or `apple` with the client id,
  /// `redirectURI` and ``scope``, at the provider's usual authorization address.
  ///
  /// ```swift
  /// let start = vk.loginStart(redirectURI: "https://example.com/auth/vk/callback")
  /// start.provider  // .vk
  /// ```
  public func loginStart(redirectURI: String) -> LoginStart {
    switch endpoints {
    case .vk: return .vkID(clientID: clientID, redirectURI: redirectURI, scope: scope ?? [])
    case .sber: return .sberID(clientID: clientID, redirectURI: redirectURI, scope: scope ?? ["openid"])
    case .tid: return .tid(clientID: clientID, redirectURI: redirectURI, scope: scope ?? [])
    case .apple: return .apple(clientID: clientID, redirectURI: redirectURI, scope: scope ?? ["name", "email"])
    }
  }

  /// New tokens for a refresh token (`grant_type=refresh_token`, each provider's request shape and client
  /// authentication, as the exchange): VK ID with the login's `deviceID` (required: VK binds its tokens to the
  /// device) and its refresh tokens rotate (keep the new one); Sber ID with an `rquid` and the client secret;
  /// T-ID with HTTP Basic (web) or `client_id` (mobile); Apple with a fresh `client_secret` JWT.
  ///
  /// ```swift
  /// let tokens = try await vk.refresh(refreshToken: session.refreshToken!, deviceID: session.deviceID)
  /// ```
  ///
  /// - Throws: ``ConfigurationError``, ``TokenRequestError`` (`missing-device-id` for VK ID),
  ///   ``OAuthResponseError`` (the provider's `invalid_grant` for a used or revoked refresh token, a status, a
  ///   timeout, the answer's shape), ``IDTokenError`` (Apple's client secret could not be made).
  public func refresh(
    refreshToken: String, deviceID: String? = nil, now: Int64 = IDTokenVerifier.currentUnixTime
  ) async throws -> TokenResponse {
    try validate()
    let request: OAuthRequest
    switch endpoints {
    case .vk(let vk):
      guard let deviceID, !deviceID.isEmpty else {
        throw TokenRequestError(.missingDeviceID, message: "VK ID refreshes a token only with the login's device_id")
      }
      request = vk.refresh(refreshToken: refreshToken, deviceID: deviceID)
    case .sber(let sber): request = sber.refresh(refreshToken: refreshToken)
    case .tid(let tid): request = tid.refresh(refreshToken: refreshToken)
    case .apple(let apple, let secret):
      request = apple.refresh(refreshToken: refreshToken, clientSecret: try secret.make(now: now))
    }
    return try await client.perform(request, as: TokenResponse.self)
  }

  /// Ends the user's session at the provider, where it has a way to:
  /// - VK ID: `GET /oauth2/logout` with `client_id` in the query and the access token as `Authorization: Bearer`,
  ///   as the guide's `curl` sends it;
  /// - T-ID: revokes the access token (TinkoffID-iOS's `signOut(with: accessToken …)`), then the refresh token;
  /// - Sign in with Apple: revokes the refresh token (the access token when there is none) with a fresh
  ///   `client_secret` (Apple requires this when a user deletes their account);
  /// - Sber ID documents no revocation or logout endpoint: nothing is sent, and the answer is
  ///   ``SessionEnd/unsupported(reason:)`` (its tokens expire; end the app's own session).
  ///
  /// ```swift
  /// switch try await party.endSession(tokens: session.tokens) {
  /// case .ended, .redirect: break
  /// case .unsupported(let reason): logger.info("\(reason)")
  /// }
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` (the provider's error, a status, a timeout), ``IDTokenError`` (Apple's
  ///   client secret could not be made).
  public func endSession(tokens: TokenResponse, now: Int64 = IDTokenVerifier.currentUnixTime) async throws
    -> SessionEnd
  {
    let (token, hint) = tokens.refreshToken.map { ($0, "refresh_token") } ?? (tokens.accessToken, "access_token")
    let request: OAuthRequest
    switch endpoints {
    case .vk(let vk): request = vk.logout(accessToken: tokens.accessToken)
    case .tid(let tid):
      // TinkoffID-iOS signs out with the access token (`signOut(with: accessToken …)`): that one first, then the
      // refresh token, which the endpoint revokes as well.
      _ = try await client.perform(tid.revoke(token: tokens.accessToken, tokenTypeHint: "access_token"), as: RevokeResponse.self)
      guard let refreshToken = tokens.refreshToken else { return .ended }
      request = tid.revoke(token: refreshToken, tokenTypeHint: "refresh_token")
    case .apple(let apple, let secret):
      request = apple.revoke(token: token, tokenTypeHint: hint, clientSecret: try secret.make(now: now))
    case .sber:
      return .unsupported(
        reason:
          "Sber ID documents no revocation or logout endpoint: its tokens expire (the refresh token after 30 days)")
    }
    _ = try await client.perform(request, as: RevokeResponse.self)
    return .ended
  }
}
