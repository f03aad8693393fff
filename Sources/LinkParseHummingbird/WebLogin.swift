// The owner of a web login: registered once with its relying parties, the sealing secret, the pending store
// and the session storage, it serves every route of the login — the starts, the callbacks, refresh and logout —
// and dispatches to a party in exactly two places: the callback by its route, a session by its provider and
// issuer.

public import Crypto
public import Hummingbird
public import HummingbirdAuth
public import LinkParseAuthorization
public import LinkParseHTTP
public import LinkParseOAuth
public import LinkParseCore
public import Logging
import LinkParseRouter
import LinkParseBytes
import LinkParseIDToken
import NIOCore

/// A whole web login on a Hummingbird router: `GET /login/<name>` starts a login at that provider (sealed in
/// the browser's login cookie: a start costs the server nothing), `/auth/<name>/callback` completes it through
/// the name's ``RelyingParty`` and opens a session (a fresh id; the session it replaces ends), `POST /refresh`
/// refreshes the session's tokens at the provider that issued them, `POST /logout` ends the session here and at
/// the provider (a server-side revocation, or a redirect to its end-session page). Both POSTs refuse requests
/// from other sites' pages; a failing session store answers 503, never "signed out"; a provider failure answers
/// a stable problem code, its detail logged, never shown.
///
/// ```swift
/// let login = try WebLogin(
///   publicBaseURL: "https://example.com",
///   logins: [.init("demo", party: demoParty), .init("vk", party: vkParty)],
///   store: PendingAuthorizationStore(), sessions: MemorySessionDriver(), secret: SymmetricKey(size: .bits256))
/// let router = Router(context: LoginSessionContext.self)
/// login.addRoutes(to: router)
/// router.get("/me") { request, context in
///   try await login.withSession(request, context) { session in session.summaryResponse() }
/// }
/// ```
public struct WebLogin<Store: PendingAuthorizationStoring>: Sendable {
  /// One provider of the login: its name (the start's and the callback's path segment) and its party.
  ///
  /// ```swift
  /// WebLogin<PendingAuthorizationStore>.Login("vk", party: ProviderRelyingParty.vkID(VKIDClient(clientID: "7915193"), client: client))
  /// ```
  public struct Login: Sendable {
    /// The path segment: `/login/<name>`, `/auth/<name>/callback`.
    public let name: String
    /// The party that completes, refreshes and ends its logins.
    public let party: any RelyingParty
    /// How its logins start; `nil`: the party's own ``RelyingParty/loginStart(redirectURI:)``.
    public let start: LoginStart?

    /// A login named `name` through `party`, started by `start` (its redirect URI must be the callback's:
    /// `<publicBaseURL>/auth/<name>/callback`) or by the party's own start.
    ///
    /// ```swift
    /// WebLogin<PendingAuthorizationStore>.Login("demo", party: party)
    /// ```
    public init(_ name: String, party: any RelyingParty, start: LoginStart? = nil) {
      self.name = name
      self.party = party
      self.start = start
    }
  }

  /// The routes' paths, the lifetimes and the limits; every field has a default.
  ///
  /// ```swift
  /// var configuration = WebLogin<PendingAuthorizationStore>.Configuration()
  /// configuration.sessionLifetime = .seconds(8 * 3600)
  /// ```
  public struct Configuration: Sendable {
    /// The start's path is this and the login's name: `/login/`.
    public var startPathPrefix = "/login/"
    /// The callback's path is this, the login's name and `/callback`: `/auth/` (an unknown path under it
    /// answers `unknown-route` problem JSON).
    public var callbackPathPrefix = "/auth/"
    /// `POST` ends the session: `/logout`.
    public var logoutPath = "/logout"
    /// `POST` refreshes the session's tokens now: `/refresh`.
    public var refreshPath = "/refresh"
    /// `POST` takes OpenID Connect back-channel logout tokens (register it with the provider as the client's
    /// `backchannel_logout_uri`, prefixed with the public base URL): `/backchannel-logout`; `nil`: not served.
    public var backChannelLogoutPath: String? = "/backchannel-logout"
    /// Where a login without a `return_to` ends: `/`.
    public var defaultReturnPath = "/"
    /// Where a logout ends (also the `post_logout_redirect_uri` a provider's end-session page returns to,
    /// prefixed with the public base URL): `/`.
    public var afterLogoutPath = "/"
    /// How long a session lives at the most: 12 hours.
    public var sessionLifetime: Duration = .seconds(12 * 3600)
    /// How long before its expiry an access token is refreshed: 60 seconds.
    public var refreshMargin: Duration = .seconds(60)
    /// The starts one client may make (``StartLimits``: 30 a minute).
    public var startLimits = StartLimits()
    /// Where the app's instances add up their clients' starts, so that ``startLimits`` holds app-wide
    /// (LinkParsePostgres' `PostgresStartCounts`); `nil`: each instance counts alone.
    public var startCounts: (any StartCountSharing)? = nil
    /// Reverse proxies of your own in front that append to `X-Forwarded-For` (the client is the address they
    /// forwarded: ``ForwardedClient``); 0: the connection's address.
    public var trustedProxies = 0

    /// The defaults.
    ///
    /// ```swift
    /// WebLogin<PendingAuthorizationStore>.Configuration().logoutPath  // "/logout"
    /// ```
    public init() {}
  }

  /// The server's public origin, without a trailing slash.
  public let publicBaseURL: String
  /// The logins, in the order given.
  public let logins: [Login]
  /// The settings.
  public let configuration: Configuration
  /// The callback and start endpoint (its store, login cookies and start limits).
  public let endpoint: LinkParseCallbackEndpoint<Store>
  /// The sessions' refresh, logout and sign-in, locked per session.
  public let refresher: SessionRefresher
  private let sessions: any PersistDriver
  private let sessionConfiguration: SessionMiddlewareConfiguration
  private let routes: LinkParseRouter.Router
  private let starts: [LoginStart]
  private let parties: [PartyKey: any RelyingParty]
  private let crossSite: CrossSiteCheck
  private let logger: Logger
  /// Refused back-channel logouts this minute: logged at the 1st, 2nd, 4th, 8th… (a flood writes a few lines).
  private let logoutRefusals = ThrottledCount(window: 60)

  /// A session's party: its provider and issuer.
  private struct PartyKey: Hashable, Sendable {
    let provider: Provider
    let issuer: String
  }

  /// A web login at `publicBaseURL` for `logins`, its pending logins in `store` (those a cookie cannot carry)
  /// and sealed with a key derived from `secret` (every instance of the site needs the same one), its
  /// sessions in `sessions`.
  ///
  /// ```swift
  /// let login = try WebLogin(
  ///   publicBaseURL: "https://example.com", logins: [.init("demo", party: party)],
  ///   store: PendingAuthorizationStore(), sessions: MemorySessionDriver(), secret: secret)
  /// ```
  ///
  /// - Throws: ``ConfigurationError`` when a party's settings cannot work, two logins share a name, two parties
  ///   share a provider and issuer (a session could not tell them apart), or a start's redirect URI is not its
  ///   callback's.
  public init(
    publicBaseURL: String, logins: [Login], store: Store, sessions: any PersistDriver, secret: SymmetricKey,
    configuration: Configuration = Configuration(), logger: Logger = Logger(label: "linkparse.web-login")
  ) throws {
    var base = publicBaseURL
    while base.hasSuffix("/") { base.removeLast() }
    self.publicBaseURL = base
    self.logins = logins
    self.configuration = configuration
    self.sessions = sessions
    self.logger = logger
    let secure = base.lowercased().hasPrefix("https:")
    var starts: [LoginStart] = []
    var parties: [PartyKey: any RelyingParty] = [:]
    for login in logins {
      try login.party.validate()
      let redirectURI = base + configuration.callbackPathPrefix + login.name + "/callback"
      let start = login.start ?? login.party.loginStart(redirectURI: redirectURI)
      guard start.redirectURI == redirectURI else {
        throw ConfigurationError(
          setting: "WebLogin.Login(\(login.name)).start.redirectURI", value: start.redirectURI,
          reason: "must be the login's callback, \(redirectURI)")
      }
      guard !starts.contains(where: { $0.redirectURI == redirectURI }) else {
        throw ConfigurationError(setting: "WebLogin.Login.name", value: login.name, reason: "is used twice")
      }
      let key = PartyKey(provider: login.party.provider, issuer: login.party.issuer)
      guard parties.updateValue(login.party, forKey: key) == nil else {
        throw ConfigurationError(
          setting: "WebLogin.Login(\(login.name)).party", value: "\(key.provider.rawValue) \(key.issuer)",
          reason: "has the provider and issuer of another login: a session could not tell them apart")
      }
      starts.append(start)
    }
    self.starts = starts
    self.parties = parties
    self.routes = try LinkParseRouter.Router(
      zip(logins, starts).map { Route($0.name, $1.redirectURI, provider: $1.provider) })
    // The login cookies' key, from the secret: every instance that shares the secret shares it.
    let cookieKey = HMAC<SHA256>.authenticationCode(for: Array("linkparse login cookies".utf8), using: secret)
    var clientKey: (@Sendable (Request, SocketAddress?) -> String?)?
    if configuration.trustedProxies > 0 {
      let forwarded = ForwardedClient(trustedProxies: configuration.trustedProxies)
      clientKey = { request, _ in forwarded.key(request) }
    }
    self.endpoint = LinkParseCallbackEndpoint(
      store: store, publicBaseURL: base, logger: logger,
      loginCookies: LoginCookies(key: Array(cookieKey), secure: secure), startLimits: configuration.startLimits,
      clientKey: clientKey, startCounts: configuration.startCounts)
    self.sessionConfiguration = LoginSession.middlewareConfiguration(
      secure: secure, lifetime: configuration.sessionLifetime)
    self.refresher = SessionRefresher(
      driver: sessions, configuration: sessionConfiguration, margin: configuration.refreshMargin)
    self.crossSite = CrossSiteCheck(publicBaseURL: base)
  }

  /// Adds the login's middleware (sessions, callbacks) and routes (starts, refresh, logout) to `router`. Add
  /// it before routes that read the session.
  ///
  /// ```swift
  /// let router = Router(context: LoginSessionContext.self)
  /// login.addRoutes(to: router)
  /// ```
  public func addRoutes(to router: Hummingbird.Router<LoginSessionContext>) {
    router.add(middleware: SessionMiddleware(storage: sessions, configuration: sessionConfiguration))
    let login = self
    let byName = Dictionary(uniqueKeysWithValues: logins.map { ($0.name, $0) })
    router.add(
      middleware: endpoint.callbackRoutes(
        routes, context: LoginSessionContext.self, unknownRoutePrefix: configuration.callbackPathPrefix
      ) { consumed, match, request, context in
        guard let registered = byName[match.name] else { return ProblemDetails.unknownRoute.response() }
        return try await login.complete(consumed, login: registered, request: request, context: context)
      })
    for (registered, start) in zip(logins, starts) {
      endpoint.registerStart(on: router, path: RouterPath(configuration.startPathPrefix + registered.name), login: start)
    }
    router.post(RouterPath(configuration.refreshPath)) { request, context -> Response in
      if let refusal = login.crossSite.refusal(request) { return refusal }
      return try await login.withSession(request, context, forceRefresh: true) { $0.summaryResponse() }
    }
    router.post(RouterPath(configuration.logoutPath)) { request, _ -> Response in
      if let refusal = login.crossSite.refusal(request) { return refusal }
      return await login.logout(request)
    }
    if let path = configuration.backChannelLogoutPath {
      // From the provider's server, not a browser: no cross-site check; the signed token is the authentication.
      router.post(RouterPath(path)) { request, _ -> Response in try await login.backChannelLogout(request) }
    }
  }

  /// OpenID Connect Back-Channel Logout 1.0 (§2.5–§2.8): the form's one `logout_token`, verified by the party
  /// of its issuer (``RelyingParty/verifyLogoutToken(_:now:)``: signature, `iss`, `aud`, `iat`, `exp`, the
  /// `events` claim, no `nonce`), its `jti` accepted once, then every session it names ends — on every instance,
  /// for sessions in PostgreSQL. `200` with `Cache-Control: no-store`; `400 invalid-logout-token` or
  /// `logout-token-replayed`; `501` when the session storage cannot end sessions by owner; `503` when it fails.
  private func backChannelLogout(_ request: Request) async throws -> Response {
    guard let ending = sessions as? any SessionEnding else { return ProblemDetails.backChannelLogoutUnsupported.response() }
    let form: FormParameters
    switch try await endpoint.formBody(request) {
    case .form(let body): form = body
    case .refused(let refusal): return refusal.response()
    }
    let tokens = form.values(for: "logout_token")
    guard tokens.count == 1, let token = tokens.first else {
      return refuseLogout(.invalidLogoutToken, ["reason": "\(tokens.count) logout_token parameters"])
    }
    // The party of the token's issuer (unverified here: only to pick the keys that verify it).
    let issuer = (try? IDTokenVerifier.decodeUnverified(token))?.claims.issuer
    let candidates = parties.values.filter { $0.issuer == issuer }
    var logout: LogoutToken?
    var failure: (any Error)?
    for party in candidates where logout == nil {
      do { logout = try await party.verifyLogoutToken(token, now: endpoint.now()) } catch { failure = error }
    }
    guard let logout else {
      return refuseLogout(
        .invalidLogoutToken,
        ["issuer": "\(issuer.map { String($0.prefix(100)) } ?? "none")", "error": "\(failure.map { "\($0)" } ?? "no party of this issuer")"])
    }
    do {
      guard try await ending.recordLogoutToken(logout) else {
        return refuseLogout(.logoutTokenReplayed, ["reason": "jti replayed", "issuer": "\(logout.issuer)"])
      }
      let ended = try await ending.endSessions(matching: logout)
      logger.info("back-channel logout", metadata: ["issuer": "\(logout.issuer)", "sessions": "\(ended)"])
    } catch {
      logger.warning("back-channel logout failed", metadata: ["error": "\(error)"])
      return ProblemDetails.sessionStoreUnavailable.response()
    }
    return Response(status: .ok, headers: [.cacheControl: "no-store"])
  }

  /// Answers with `body` for the request's session, its access token refreshed first (at the provider that
  /// issued it) when it is about to expire, or when `forceRefresh`. Without a session: `401 no-session`; a
  /// refresh the provider refused ends the session: `401 session-ended`; an unreachable provider `503
  /// provider-unavailable` and a failing store `503 session-store-unavailable` leave it as it is.
  ///
  /// ```swift
  /// router.get("/me") { request, context in
  ///   try await login.withSession(request, context) { session in session.summaryResponse() }
  /// }
  /// ```
  public func withSession(
    _ request: Request, _ context: LoginSessionContext, forceRefresh: Bool = false,
    _ body: (LoginSession) async throws -> Response
  ) async throws -> Response {
    let session: LoginSession?
    do {
      session = try await refresher.freshSession(
        request: request, context: context, force: forceRefresh, now: endpoint.now(),
        refresh: { [parties, endpoint] session in
          guard let party = parties[PartyKey(provider: session.provider, issuer: session.issuer)],
            let refreshToken = session.refreshToken
          else { throw SessionRefreshError(.noRefreshToken) }
          return try await party.refresh(refreshToken: refreshToken, deviceID: session.deviceID, now: endpoint.now())
        })
    } catch {
      logger.warning("session refresh failed", metadata: ["error": "\(error)"])
      if let failure = error as? SessionRefreshError, failure.code == .storeUnavailable {
        return ProblemDetails.sessionStoreUnavailable.response()
      }
      if Self.isUnreachable(error) { return ProblemDetails.providerUnavailable.response() }
      context.sessions.clearSession()
      return ProblemDetails.sessionEnded.response()
    }
    guard let session else { return ProblemDetails.noSession.response() }
    return try await body(session)
  }

  /// A refused back-channel logout's answer, logged at a bounded rate with why and how many this minute.
  private func refuseLogout(_ problem: ProblemDetails, _ metadata: Logger.Metadata) -> Response {
    if let count = logoutRefusals.count(now: endpoint.now()) {
      logger.warning(
        "back-channel logout refused", metadata: metadata.merging(["refused_this_minute": "\(count)"]) { $1 })
    }
    return problem.response()
  }

  /// The callback's end: the party completes the login, a new session replaces the request's, `303` to the
  /// return path; a failure answers its problem (the detail to the log). A code that never reached the
  /// provider throws ``LoginRetry``: the login goes back to the browser, and a reload of the callback finishes it.
  private func complete(
    _ consumed: ConsumedAuthorization, login: Login, request: Request, context: LoginSessionContext
  ) async throws -> Response {
    do {
      let identity = try await login.party.complete(consumed, now: endpoint.now())
      return try await refresher.signIn(
        identity, consumed: consumed, request: request, context: context,
        defaultReturnPath: configuration.defaultReturnPath)
    } catch let failure as SessionRefreshError where failure.code == .storeUnavailable {
      return ProblemDetails.sessionStoreUnavailable.response()
    } catch let failure as OAuthResponseError where failure.unsentRequest == .tokenExchange {
      // The code never reached the provider: the login is given back to the browser, a reload finishes it.
      logger.warning("login not sent", metadata: ["login": "\(login.name)", "error": "\(failure)"])
      var response = ProblemDetails.loginNotSent.response()
      response.headers[.retryAfter] = "5"
      throw LoginRetry(response)
    } catch {
      logger.warning("login failed", metadata: ["login": "\(login.name)", "error": "\(error)"])
      if let refusal = error as? IdentityError, refusal.code == .notASuccess {
        return ProblemDetails.loginNotApproved.response()
      }
      return (Self.isUnreachable(error) ? ProblemDetails.providerUnavailable : .loginFailed).response()
    }
  }

  /// Ends the request's session here (under its lock: no refresh brings it back) and at its provider; always
  /// expires the session cookie; a store that fails answers 503.
  private func logout(_ request: Request) async -> Response {
    var response: Response
    do {
      let afterLogout = configuration.afterLogoutPath
      var target = afterLogout
      if let session = try await refresher.endSession(request: request),
        let party = parties[PartyKey(provider: session.provider, issuer: session.issuer)]
      {
        do {
          let end = try await party.endSession(
            tokens: session.tokens, postLogoutRedirectURI: publicBaseURL + afterLogout, now: endpoint.now())
          if case .redirect(let url) = end { target = url }
        } catch {
          // Ours has ended; the provider's failure is logged.
          logger.warning("provider logout failed", metadata: ["provider": "\(session.provider)", "error": "\(error)"])
        }
      }
      response = Response.loginRedirect(.seeOther, to: target)
    } catch {
      logger.warning("logout failed", metadata: ["error": "\(error)"])
      response = ProblemDetails.sessionStoreUnavailable.response()
    }
    response.headers[values: .setCookie].append(refresher.expiredCookie.description)
    return response
  }

  /// A provider that could not be reached or did not answer in time (not one that answered "no").
  private static func isUnreachable(_ error: any Error) -> Bool {
    guard let failure = error as? OAuthResponseError else { return false }
    return failure.code == .transport || failure.code == .timeout
  }
}

extension ProblemDetails {
  /// `no-session` (401): the request has no session; sign in.
  public static let noSession = ProblemDetails(code: "no-session", status: 401, detail: "There is no session; sign in.")
  /// `session-ended` (401): the provider refused to refresh the session's tokens, which ended it; sign in again.
  public static let sessionEnded = ProblemDetails(
    code: "session-ended", status: 401, detail: "The session has ended at its provider; sign in again.")
  /// `login-failed` (502): the provider did not confirm the login (its answer or its token was refused).
  public static let loginFailed = ProblemDetails(
    code: "login-failed", status: 502, detail: "The provider did not confirm this login; start it again.")
  /// `login-not-approved` (403): the provider sent the user back without approving (denied, cancelled).
  public static let loginNotApproved = ProblemDetails(
    code: "login-not-approved", status: 403, detail: "The login was not approved at the provider; start it again.")
  /// `invalid-logout-token` (400): the back-channel logout request has no single valid logout token.
  public static let invalidLogoutToken = ProblemDetails(
    code: "invalid-logout-token", status: 400,
    detail: "The request has no single logout_token that verifies for a provider of this site.")
  /// `logout-token-replayed` (400): this logout token was used before.
  public static let logoutTokenReplayed = ProblemDetails(
    code: "logout-token-replayed", status: 400, detail: "This logout token has been used already.")
  /// `back-channel-logout-unsupported` (501): the session storage cannot end sessions by their owner.
  public static let backChannelLogoutUnsupported = ProblemDetails(
    code: "back-channel-logout-unsupported", status: 501,
    detail: "This site's session storage cannot end sessions by their owner.")
  /// `login-not-sent` (503, `Retry-After: 5`): the provider's token endpoint could not be connected to, so the
  /// login's code was never sent; the login is kept, and loading the same callback again finishes it.
  public static let loginNotSent = ProblemDetails(
    code: "login-not-sent", status: 503,
    detail: "The provider could not be reached and your login was kept; reload this page in a moment.")

  /// `provider-unavailable` (503): the provider could not be reached or did not answer in time.
  public static let providerUnavailable = ProblemDetails(
    code: "provider-unavailable", status: 503, detail: "The provider could not be reached; try again in a moment.")
}

/// The secret a web login derives its keys from (``WebLogin``'s login cookies and sessions, and
/// LinkParsePostgres' state hashes and seals): 32 random bytes that every instance of the app shares, kept
/// with the app's other secrets, usually as 64 hex digits in its environment.
///
/// ```swift
/// let secret = LoginSecret.key(hex: env["LINKPARSE_STORE_SECRET"] ?? "") ?? SymmetricKey(size: .bits256)
/// ```
public enum LoginSecret {
  /// `hex` (exactly 64 hex digits, either case) as a 256-bit key; `nil` for anything else.
  ///
  /// ```swift
  /// LoginSecret.key(hex: String(repeating: "ab", count: 32))?.bitCount  // 256
  /// LoginSecret.key(hex: "abc")                                         // nil
  /// ```
  public static func key(hex: String) -> SymmetricKey? {
    let digits = Array(hex.utf8)
    guard digits.count == 64 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for pair in stride(from: 0, to: 64, by: 2) {
      let (high, low) = (digits[pair], digits[pair + 1])
      guard isASCIIHexDigit(high) && isASCIIHexDigit(low) else { return nil }
      bytes.append(hexValue(high) << 4 | hexValue(low))
    }
    return SymmetricKey(data: bytes)
  }
}
