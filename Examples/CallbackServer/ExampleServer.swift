// An example login server: start-login endpoints for every configured provider, their callback routes served
// from a LinkParseRouter table, and a pending-authorization store in memory or, with DATABASE_URL, on
// PostgreSQL (so that several instances behind a load balancer share it).
//
//   make serve-example                                   # 127.0.0.1:8080, in-memory store
//   DATABASE_URL='postgres://u@127.0.0.1/db?sslmode=disable' make serve-example   (without sslmode: verified TLS)
//
// With no provider account at hand, the demo provider (Examples/DemoProvider/demo_provider.py, a real OpenID
// Connect server on 127.0.0.1:8081 that approves at once) walks the whole login; `make serve-example` starts
// both. It is registered only when DEMO_PROVIDER names its issuer (never beside real providers unless asked):
//   curl -c jar -b jar -sL http://127.0.0.1:8080/login/demo    # … ends at /me: the verified subject
// The callback exchanges the code (PKCE verifier, redirect URI as sent), verifies the id_token with the
// provider's JWKS (cached; a rotation costs one fetch), checks the user info's sub, opens a session and
// answers 303 to the login's return path, /me by default (Referrer-Policy: no-referrer, so the code leaves the
// address bar unseen).
//
// Sessions: hummingbird-auth's SessionMiddleware with LinkParseSessions' LoginSession, in memory or (DATABASE_URL) in
// PostgreSQL, sealed, shared by every instance, with an absolute and an idle lifetime. GET /me shows the session
// (refreshing its access token first when it is about to expire: once per session, across instances); POST
// /refresh refreshes now; POST /logout ends it. Refresh, logout and a new login exclude each other per session;
// both POSTs refuse other sites' pages (403); a failing session store answers 503, never "signed out".
// A login started as /login/demo?return_to=/somewhere ends there (a same-site path only).
//
// Environment: HOST (127.0.0.1), PORT (8080), PUBLIC_BASE_URL (http://HOST:PORT, or https://localhost:PORT with
// TLS), TLS_CERTIFICATE and TLS_PRIVATE_KEY (PEM files: serve HTTPS; `make serve-example-https` makes a
// certificate for localhost with Scripts/dev-certificate.py), DATABASE_URL,
// LINKPARSE_STORE_SECRET (64 hex digits; every instance sharing a database needs the same one),
// DEMO_PROVIDER (the demo provider's issuer), DEMO_CLIENT_SECRET (demo-secret), DEMO_JWKS_COOLDOWN (seconds
// between JWKS refetches, 60), LOGIN_START_LIMIT (logins one client may start a minute, 30), TRUSTED_PROXIES
// (reverse proxies of your own in front that append to X-Forwarded-For: the client is the address they forwarded),
// SESSION_REFRESH_MARGIN (seconds before its expiry an access token is refreshed, 60), SESSION_LIFETIME (seconds a
// session lives at the most, 43200), SESSION_IDLE_TIMEOUT (seconds it lives unused, 7200; 0: no limit), VK_CLIENT_ID,
// SBER_CLIENT_ID, TID_CLIENT_ID, APPLE_CLIENT_ID (each one adds /login/<provider>).

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LinkParseAuthorization
import LinkParseCore
import LinkParseHTTP
import LinkParseHummingbird
import LinkParseOAuth
import LinkParsePostgres
import LinkParseProviders
import HummingbirdAuth
import HummingbirdTLS
import NIOSSL
import LinkParseRouter
import LinkParseSessions
import Logging
import PostgresNIO

@main
struct ExampleServer {
  static func main() async throws {
    let env = ProcessInfo.processInfo.environment
    let host = env["HOST"] ?? "127.0.0.1"
    let port = Int(env["PORT"] ?? "") ?? 8080
    let tls = try tlsConfiguration(env)
    var base = env["PUBLIC_BASE_URL"] ?? (tls == nil ? "http://\(host):\(port)" : "https://localhost:\(port)")
    while base.hasSuffix("/") { base.removeLast() }
    var logger = Logger(label: "linkparse.example")
    logger.logLevel = .info

    if let databaseURL = env["DATABASE_URL"], !databaseURL.isEmpty {
      let client = PostgresClient(
        configuration: try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: databaseURL))
      let secret = storeSecret(env, logger)
      let store = PostgresPendingAuthorizationStore(client: client, secret: secret)
      let sessions = PostgresSessionDriver(client: client, secret: secret, idleLifetime: idleLifetime(env))
      let jwksSharing = PostgresJWKSSharing(client: client, secret: secret)
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        try await store.migrate()
        try await sessions.migrate()
        try await jwksSharing.migrate()
        logger.info(
          "store and sessions: PostgreSQL (tables \(PostgresPendingAuthorizationStore.tableName), \(PostgresSessionDriver.tableName))")
        try await serve(
          store: store, sessions: sessions, jwksSharing: jwksSharing, secret: secret, base: base, host: host,
          port: port, tls: tls, env: env, logger: logger)
        group.cancelAll()
      }
    } else {
      logger.info("store and sessions: in memory (set DATABASE_URL to share them between instances)")
      try await serve(
        store: PendingAuthorizationStore(), sessions: MemorySessionDriver(idleLifetime: idleLifetime(env)),
        jwksSharing: nil,
        secret: SymmetricKey(size: .bits256),
        base: base, host: host, port: port, tls: tls, env: env, logger: logger)
    }
  }

  /// SESSION_IDLE_TIMEOUT: how long a session lives unused (`nil`: no limit).
  static func idleLifetime(_ env: [String: String]) -> Duration? {
    let seconds = Double(env["SESSION_IDLE_TIMEOUT"] ?? "") ?? 7200
    return seconds > 0 ? .seconds(seconds) : nil
  }

  /// The key the PostgreSQL store derives its state hash and sealing keys from.
  static func storeSecret(_ env: [String: String], _ logger: Logger) -> SymmetricKey {
    if let hex = env["LINKPARSE_STORE_SECRET"], hex.utf8.count == 64 {
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let byte = UInt8(hex[index..<next], radix: 16) else { break }
        bytes.append(byte)
        index = next
      }
      if bytes.count == 32 { return SymmetricKey(data: bytes) }
    }
    logger.warning(
      "LINKPARSE_STORE_SECRET is not 64 hex digits: using a random key, so logins do not survive a restart and other instances cannot read them"
    )
    return SymmetricKey(size: .bits256)
  }

  static func serve<Store: PendingAuthorizationStoring>(
    store: Store, sessions: any PersistDriver, jwksSharing: (any JWKSSharing)?, secret: SymmetricKey, base: String,
    host: String, port: Int, tls: TLSConfiguration?, env: [String: String], logger: Logger
  ) async throws {
    // Every login this server can start, with the callback route its redirect URI names.
    var logins: [(name: String, login: LoginStart)] = []
    // The demo provider, only when asked for: discovered, with its keys cached for every login.
    var demoParty: OIDCRelyingParty?
    if let issuer = env["DEMO_PROVIDER"], !issuer.isEmpty {
      let party = try await discoverDemo(issuer: issuer, env: env, sharing: jwksSharing, logger: logger)
      demoParty = party
      logins.append(
        ("demo", party.loginStart(redirectURI: base + "/auth/demo/callback")))
    }
    if let id = env["VK_CLIENT_ID"] {
      logins.append(("vk", .vkID(clientID: id, redirectURI: base + "/auth/vk/callback", scope: ["vkid.personal_info"])))
    }
    if let id = env["SBER_CLIENT_ID"] {
      logins.append(("sber", .sberID(clientID: id, redirectURI: base + "/auth/sber/callback", scope: ["openid", "name"])))
    }
    if let id = env["TID_CLIENT_ID"] {
      logins.append(("tid", .tid(clientID: id, redirectURI: base + "/auth/tid/callback")))
    }
    if let id = env["APPLE_CLIENT_ID"] {
      logins.append(("apple", .apple(clientID: id, redirectURI: base + "/auth/apple/callback")))
    }

    let table = try LinkParseRouter.Router(
      logins.map { Route($0.name, $0.login.redirectURI, provider: $0.login.provider) })
    // The login cookies' key, from the store's secret: every instance that shares the database shares it.
    let cookieKey = HMAC<SHA256>.authenticationCode(for: Array("linkparse login cookies".utf8), using: secret)
    let endpoint = LinkParseCallbackEndpoint(
      store: store, publicBaseURL: base, logger: logger,
      loginCookies: LoginCookies(key: Array(cookieKey), secure: base.lowercased().hasPrefix("https:")),
      startLimits: StartLimits(limit: Int(env["LOGIN_START_LIMIT"] ?? "") ?? 30),
      // Behind TRUSTED_PROXIES reverse proxies of your own, the client is the address they forwarded.
      clientKey: Int(env["TRUSTED_PROXIES"] ?? "").flatMap { $0 > 0 ? ForwardedClient(trustedProxies: $0) : nil }
        .map { forwarded in { request, _ in forwarded.key(request) } })
    // LoginSessionContext knows the client's address (the per-client start limit, StartLimits, needs it) and
    // carries the session (hummingbird-auth's SessionMiddleware: a fresh random id per login, the cookie
    // __Host-lp-session over https, HttpOnly, SameSite=Lax; kept in PostgreSQL, sealed, with DATABASE_URL).
    let router = Router(context: LoginSessionContext.self)
    let secureCookies = base.lowercased().hasPrefix("https:")
    let sessionConfiguration = LoginSession.middlewareConfiguration(
      secure: secureCookies, lifetime: .seconds(Double(env["SESSION_LIFETIME"] ?? "") ?? 12 * 3600))
    // The session's POSTs refuse requests that a browser labels as sent from another site's page.
    let crossSite = CrossSiteCheck(publicBaseURL: base)
    router.add(middleware: SessionMiddleware(storage: sessions, configuration: sessionConfiguration))
    let refresher = SessionRefresher(
      driver: sessions, configuration: sessionConfiguration, margin: Int64(env["SESSION_REFRESH_MARGIN"] ?? "") ?? 60)
    let demo = demoParty
    // VK ID and T-ID (with TID_CLIENT_SECRET for a web client) complete their logins too, with their quirks in
    // the library (VK's device_id and user_info check, T-ID's Basic auth): LinkParseHTTP's ProviderRelyingParty.
    let providerHTTP = OAuthHTTPClient()
    var parties: [Provider: ProviderRelyingParty] = [:]
    if let id = env["VK_CLIENT_ID"] { parties[.vk] = .vkID(VKIDClient(clientID: id), client: providerHTTP) }
    if let id = env["TID_CLIENT_ID"] {
      parties[.tid] = .tid(TIDClient(clientID: id, clientSecret: env["TID_CLIENT_SECRET"]), client: providerHTTP)
    }
    // A setting that cannot work stops the server here, named, instead of failing the first login.
    for party in parties.values { try party.validate() }
    let providerParties = parties
    router.add(
      middleware: endpoint.callbackRoutes(table, context: LoginSessionContext.self, unknownRoutePrefix: "/auth/") {
        consumed, match, request, context in
        let callback = consumed.callback
        // The demo login goes all the way: exchange, verified identity, a new session, 303 to the return path.
        if match.name == "demo", let demo, callback.outcome == .success {
          do {
            // The session this browser had, if any, ends: the new one replaces it.
            return try await refresher.signIn(
              try await demo.complete(consumed), consumed: consumed, request: request, context: context,
              defaultReturnPath: "/me")
          } catch let failure as SessionRefreshError where failure.code == .storeUnavailable {
            return ProblemDetails.sessionStoreUnavailable.response()
          } catch {
            logger.warning("demo login failed", metadata: ["error": "\(error)"])
            return Self.json(.badGateway, "{\"error\":\"login-failed\",\"detail\":\(Self.quoted("\(error)"))}")
          }
        }
        if let party = providerParties[callback.provider], callback.outcome == .success {
          do {
            return try await refresher.signIn(
              try await party.complete(consumed), consumed: consumed, request: request, context: context,
              defaultReturnPath: "/me")
          } catch let failure as SessionRefreshError where failure.code == .storeUnavailable {
            return ProblemDetails.sessionStoreUnavailable.response()
          } catch {
            logger.warning("login failed", metadata: ["provider": "\(callback.provider)", "error": "\(error)"])
            return Self.json(.badGateway, "{\"error\":\"login-failed\",\"detail\":\(Self.quoted("\(error)"))}")
          }
        }
        // Any other provider (Sber ID needs its client certificate, Apple its key: ProviderRelyingParty.sberID,
        // .apple) completes the same way. The example shows what arrived, without the code itself.
        var json = "{\"route\":\"\(match.name)\",\"provider\":\"\(callback.provider.rawValue)\","
        json += "\"outcome\":\"\(callback.outcome.rawValue)\",\"has_code\":\(callback.code != nil)}\n"
        return Self.json(.ok, json)
      })
    // The demo provider's refresh request for a session (its refresh tokens rotate: each is good once).
    let refreshTokens: @Sendable (LoginSession) async throws -> TokenResponse = { session in
      guard let demo, let refreshToken = session.refreshToken else { throw SessionRefreshError(.noRefreshToken) }
      return try await demo.refresh(refreshToken: refreshToken)
    }
    // Logging out: a POST from this site's own pages (a link, an image or a form elsewhere cannot end the
    // session), which ends the session here under its lock (after any refresh of it: none brings it back),
    // always expires its cookie, and — when there was a session of the demo provider — sends the browser to
    // the provider's end_session_endpoint, which sends it back to /. A store that fails answers 503.
    router.post("/logout") { request, _ -> Response in
      if let refusal = crossSite.refusal(request) { return refusal }
      var response: Response
      do {
        let session = try await refresher.endSession(request: request)
        // VK ID's logout, T-ID's revocation: the provider's session ends too (a failure there is logged; ours has).
        if let session, let party = providerParties[session.provider] {
          do { _ = try await party.endSession(tokens: session.tokens) } catch {
            logger.warning("provider logout failed", metadata: ["error": "\(error)"])
          }
        }
        var target = "/"
        if let session, let demo, session.issuer == demo.metadata.issuer {
          target = demo.endSessionURL(idTokenHint: session.idToken, postLogoutRedirectURI: base + "/") ?? "/"
        }
        response = Response.loginRedirect(.seeOther, to: target)
      } catch {
        logger.warning("logout failed", metadata: ["error": "\(error)"])
        response = ProblemDetails.sessionStoreUnavailable.response()
      }
      response.headers[values: .setCookie].append(refresher.expiredCookie.description)
      return response
    }
    // The signed-in user; the access token is refreshed first when it is about to expire.
    router.get("/me") { request, context -> Response in
      do {
        guard let session = try await refresher.freshSession(request: request, context: context, refresh: refreshTokens)
        else { return Self.json(.unauthorized, "{\"error\":\"no-session\"}") }
        return Self.json(.ok, Self.summary(session))
      } catch {
        return Self.refreshFailed(error, context: context, logger: logger)
      }
    }
    // Refreshes the session's tokens now (once, however many requests of the session ask at the same time).
    router.post("/refresh") { request, context -> Response in
      if let refusal = crossSite.refusal(request) { return refusal }
      do {
        guard
          let session = try await refresher.freshSession(
            request: request, context: context, force: true, refresh: refreshTokens)
        else { return Self.json(.unauthorized, "{\"error\":\"no-session\"}") }
        return Self.json(.ok, Self.summary(session))
      } catch {
        return Self.refreshFailed(error, context: context, logger: logger)
      }
    }
    for (name, login) in logins {
      endpoint.registerStart(on: router, path: RouterPath("/login/\(name)"), login: login)
    }
    let index = "LinkParse example server\n" + logins.map { "  GET /login/\($0.name)\n" }.joined()
    router.get("/") { _, _ in index }

    // A connection idle for 30 s is closed (a slow client holds nothing for long; the callback's body has its
    // own read timeout, LinkParseCallbackEndpoint.bodyReadTimeout).
    var app = Application(
      router: router,
      server: try tls.map { try .tls(.http1(configuration: .init(idleTimeout: .seconds(30))), tlsConfiguration: $0) }
        ?? .http1(configuration: .init(idleTimeout: .seconds(30))),
      configuration: .init(address: .hostname(host, port: port), serverName: "linkparse-example"),
      logger: logger)
    app.addServices(sessions)  // (a PersistDriver is a service; MemorySessionDriver sweeps as it writes)
    logger.info(
      "listening on \(tls == nil ? "http" : "https")://\(host):\(port), public base \(base); logins: \(logins.map(\.name))")
    try await app.runService()
    try await demo?.client.shutdown()  // (an HTTP client must be shut down before it goes)
    try await providerHTTP.shutdown()
  }

  /// HTTPS when `TLS_CERTIFICATE` and `TLS_PRIVATE_KEY` name PEM files: the login cookies are then `__Host-`
  /// and `Secure`, and Sign in with Apple's form_post cookie (`SameSite=None`, which browsers keep only with
  /// `Secure`) works; `nil` for plain HTTP.
  static func tlsConfiguration(_ env: [String: String]) throws -> TLSConfiguration? {
    guard let certificate = env["TLS_CERTIFICATE"], let key = env["TLS_PRIVATE_KEY"] else { return nil }
    return TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
  }

  /// What /me shows of a session: who, and how fresh its tokens are (never the tokens).
  static func summary(_ session: LoginSession) -> String {
    var json = "{\"provider\":\"\(session.provider.rawValue)\",\"issuer\":\(quoted(session.issuer)),"
    json += "\"subject\":\(quoted(session.subject))"
    if let email = session.email { json += ",\"email\":\(quoted(email))" }
    json += ",\"refresh_count\":\(session.refreshCount)"
    if let expiresAt = session.accessTokenExpiresAt { json += ",\"access_token_expires_at\":\(expiresAt)" }
    return json + "}\n"
  }

  /// A refresh the provider refused (its refresh token used or revoked) ends the session: 401, sign in again.
  static func refreshFailed(_ error: any Error, context: LoginSessionContext, logger: Logger) -> Response {
    logger.warning("session refresh failed", metadata: ["error": "\(error)"])
    // The store failed: the session may well be alive; it is not ended, and the browser may try again.
    if let failure = error as? SessionRefreshError, failure.code == .storeUnavailable {
      return ProblemDetails.sessionStoreUnavailable.response()
    }
    context.sessions.clearSession()
    return json(.unauthorized, "{\"error\":\"session-ended\",\"detail\":\(quoted("\(error)"))}")
  }

  /// A JSON answer that is never cached.
  static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }

  /// `text` as a JSON string.
  static func quoted(_ text: String) -> String {
    let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
    return data.map { String(decoding: $0.dropFirst().dropLast(), as: UTF8.self) } ?? "\"\""
  }

  /// The demo provider's relying party, discovered (retried for a few seconds: it may be starting too). Its
  /// keys refetch at most once per DEMO_JWKS_COOLDOWN seconds.
  static func discoverDemo(
    issuer: String, env: [String: String], sharing: (any JWKSSharing)?, logger: Logger
  ) async throws -> OIDCRelyingParty {
    // Plain http is for the loopback demo only.
    let client = OAuthHTTPClient(configuration: .init(allowsInsecureHTTP: issuer.hasPrefix("http://127.0.0.1")))
    var lastError: (any Error)?
    for _ in 0..<50 {
      do {
        let metadata = try await client.discover(issuer: issuer)
        let cooldown = Int64(env["DEMO_JWKS_COOLDOWN"] ?? "") ?? 60
        // With PostgreSQL, the instances share their JWKS fetches: a rotation costs one fetch for all of them.
        let keys = JWKSCache(
          url: metadata.jwksURI, client: client, configuration: .init(refetchCooldown: .seconds(cooldown)),
          sharing: sharing)
        logger.info("demo provider: \(issuer)")
        return OIDCRelyingParty(
          metadata: metadata, clientID: env["DEMO_CLIENT_ID"] ?? "demo",
          clientSecret: env["DEMO_CLIENT_SECRET"] ?? "demo-secret", client: client, keys: keys)
      } catch {
        lastError = error
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    try await client.shutdown()
    throw lastError!
  }
}
