// An example login server: configuration of a LinkParseHummingbird `WebLogin`, which owns the whole web login —
// GET /login/<provider> (the pending login sealed in the browser's cookie: a start costs the server nothing),
// the callbacks /auth/<provider>/callback (exchange, verified identity, a new session replacing the old one, 303
// to the return path), POST /refresh and POST /logout (refused from other sites' pages; logout ends the
// session here and at the provider). This file only picks the stores and the providers, and adds /me.
//
//   make serve-example                                   # 127.0.0.1:8080, in-memory store and sessions
//   DATABASE_URL='postgres://u@127.0.0.1/db?sslmode=disable' make serve-example   (without sslmode: verified TLS)
//
// With no provider account at hand, the demo provider (Examples/DemoProvider/demo_provider.py, a real OpenID
// Connect server on 127.0.0.1:8081 that approves at once) walks the whole login; `make serve-example` starts
// both. It is registered only when DEMO_PROVIDER names its issuer (never beside real providers unless asked):
//   curl -c jar -b jar -sL http://127.0.0.1:8080/login/demo    # … ends at /me: the verified subject
// A login started as /login/demo?return_to=/somewhere ends there (a same-site path only).
//
// Sessions: hummingbird-auth's SessionMiddleware with LoginSession, in memory or (DATABASE_URL) in PostgreSQL,
// sealed, shared by every instance, with an absolute and an idle lifetime. GET /me shows the session,
// refreshing its access token first (at the provider that issued it) when it is about to expire.
//
// Environment: HOST (127.0.0.1), PORT (8080), PUBLIC_BASE_URL (http://HOST:PORT, or https://localhost:PORT with
// TLS), TLS_CERTIFICATE and TLS_PRIVATE_KEY (PEM files: serve HTTPS; `make serve-example-https` makes a
// certificate for localhost with Scripts/dev-certificate.py), DATABASE_URL,
// LINKPARSE_STORE_SECRET (64 hex digits; every instance sharing a database needs the same one),
// DEMO_PROVIDER (the demo provider's issuer), DEMO_CLIENT_SECRET (demo-secret), DEMO_JWKS_COOLDOWN (seconds
// between JWKS refetches, 60), LOGIN_START_LIMIT (logins one client may start a minute, 30; with DATABASE_URL, across every instance), TRUSTED_PROXIES
// (reverse proxies of your own in front that append to X-Forwarded-For: the client is the address they forwarded),
// SESSION_REFRESH_MARGIN (seconds before its expiry an access token is refreshed, 60), SESSION_LIFETIME (seconds a
// session lives at the most, 43200), SESSION_IDLE_TIMEOUT (seconds it lives unused, 7200; 0: no limit). Each
// provider whose settings are all there adds /login/<provider>: VK_CLIENT_ID (vk); TID_CLIENT_ID and, for a web
// client, TID_CLIENT_SECRET (tid); SBER_CLIENT_ID, SBER_CLIENT_SECRET, SBER_ISSUER (sber); APPLE_CLIENT_ID,
// APPLE_TEAM_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY (a .p8 file) (apple).

import Crypto
import Foundation
import Hummingbird
import LinkParseAuthorization
import LinkParseHTTP
import LinkParseHummingbird
import LinkParseOAuth
import LinkParsePostgres
import HummingbirdAuth
import HummingbirdTLS
import NIOSSL
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
      // DATABASE_TIMEOUT (seconds, default 10): how long a request waits for the database before its 503.
      let timeout = Duration.seconds(Double(env["DATABASE_TIMEOUT"] ?? "") ?? 10)
      let store = PostgresPendingAuthorizationStore(client: client, secret: secret, operationTimeout: timeout)
      let sessions = PostgresSessionDriver(
        client: client, secret: secret, operationTimeout: timeout, idleLifetime: idleLifetime(env))
      let jwksSharing = PostgresJWKSSharing(client: client, secret: secret, operationTimeout: timeout)
      // LOGIN_START_LIMIT for all instances.
      let startCounts = PostgresStartCounts(client: client, secret: secret, operationTimeout: min(timeout, .seconds(5)))
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        try await store.migrate()
        try await sessions.migrate()
        try await jwksSharing.migrate()
        try await startCounts.migrate()
        logger.info(
          "store and sessions: PostgreSQL (tables \(PostgresPendingAuthorizationStore.tableName), \(PostgresSessionDriver.tableName))")
        try await serve(
          store: store, sessions: sessions, jwksSharing: jwksSharing, startCounts: startCounts, secret: secret, base: base, host: host,
          port: port, tls: tls, env: env, logger: logger)
        group.cancelAll()
      }
    } else {
      logger.info("store and sessions: in memory (set DATABASE_URL to share them between instances)")
      try await serve(
        store: PendingAuthorizationStore(), sessions: MemorySessionDriver(idleLifetime: idleLifetime(env)),
        jwksSharing: nil, startCounts: nil, secret: SymmetricKey(size: .bits256),
        base: base, host: host, port: port, tls: tls, env: env, logger: logger)
    }
  }

  /// SESSION_IDLE_TIMEOUT: how long a session lives unused (`nil`: no limit).
  static func idleLifetime(_ env: [String: String]) -> Duration? {
    let seconds = Double(env["SESSION_IDLE_TIMEOUT"] ?? "") ?? 7200
    return seconds > 0 ? .seconds(seconds) : nil
  }

  /// The key the login's cookies, sessions and the PostgreSQL store derive theirs from.
  static func storeSecret(_ env: [String: String], _ logger: Logger) -> SymmetricKey {
    if let key = LoginSecret.key(hex: env["LINKPARSE_STORE_SECRET"] ?? "") { return key }
    logger.warning(
      "LINKPARSE_STORE_SECRET is not 64 hex digits: using a random key, so logins do not survive a restart and other instances cannot read them"
    )
    return SymmetricKey(size: .bits256)
  }

  static func serve<Store: PendingAuthorizationStoring>(
    store: Store, sessions: any PersistDriver, jwksSharing: (any JWKSSharing)?, startCounts: (any StartCountSharing)?,
    secret: SymmetricKey, base: String,
    host: String, port: Int, tls: TLSConfiguration?, env: [String: String], logger: Logger
  ) async throws {
    // Every provider this server logs in with, each a relying party: completion, refresh and logout.
    let http = OAuthHTTPClient()
    var logins: [WebLogin<Store>.Login] = []
    var demo: OIDCRelyingParty?  // the demo provider, only when asked for: discovered, its keys cached
    if let issuer = env["DEMO_PROVIDER"], !issuer.isEmpty {
      // Plain http is for the loopback demo only; discovery waits a few seconds for the demo to start. With
      // PostgreSQL the instances share their JWKS fetches: a rotation costs one fetch for all of them.
      let client = OAuthHTTPClient(configuration: .init(allowsInsecureHTTP: issuer.hasPrefix("http://127.0.0.1")))
      let cooldown = Duration.seconds(Int64(env["DEMO_JWKS_COOLDOWN"] ?? "") ?? 60)
      do {
        demo = try await OIDCRelyingParty.discover(
          issuer: issuer, clientID: env["DEMO_CLIENT_ID"] ?? "demo", clientSecret: env["DEMO_CLIENT_SECRET"] ?? "demo-secret",
          client: client, keysConfiguration: .init(refetchCooldown: cooldown), sharing: jwksSharing,
          retryingFor: .seconds(5))
      } catch {
        try await client.shutdown()
        throw error
      }
      logins.append(.init("demo", party: demo!))
    }
    if let id = env["VK_CLIENT_ID"] {
      var vk = ProviderRelyingParty.vkID(VKIDClient(clientID: id), client: http)
      vk.scope = ["vkid.personal_info"]
      logins.append(.init("vk", party: vk))
    }
    if let id = env["TID_CLIENT_ID"] {
      logins.append(.init("tid", party: ProviderRelyingParty.tid(TIDClient(clientID: id, clientSecret: env["TID_CLIENT_SECRET"]), client: http)))
    }
    // Sber ID also needs its client certificate on the HTTP client (OAuthHTTPClient's TLS configuration).
    if let id = env["SBER_CLIENT_ID"], let secret = env["SBER_CLIENT_SECRET"], let issuer = env["SBER_ISSUER"] {
      var sber = ProviderRelyingParty.sberID(SberIDClient(clientID: id, clientSecret: secret), issuer: issuer, client: http)
      sber.scope = ["openid", "name"]
      logins.append(.init("sber", party: sber))
    }
    if let id = env["APPLE_CLIENT_ID"], let team = env["APPLE_TEAM_ID"], let key = env["APPLE_KEY_ID"],
      let pem = env["APPLE_PRIVATE_KEY"].flatMap({ try? String(contentsOfFile: $0, encoding: .utf8) })
    {
      let secret = try AppleClientSecret(privateKeyPEM: pem, keyID: key, teamID: team, clientID: id)
      let keys = JWKSCache(url: ProviderRelyingParty.appleKeysURL, client: http, sharing: jwksSharing)
      logins.append(.init("apple", party: ProviderRelyingParty.apple(AppleClient(clientID: id), clientSecret: secret, client: http, keys: keys)))
    }

    var configuration = WebLogin<Store>.Configuration()
    configuration.defaultReturnPath = "/me"
    configuration.startLimits = StartLimits(limit: Int(env["LOGIN_START_LIMIT"] ?? "") ?? 30)
    configuration.startCounts = startCounts
    configuration.trustedProxies = Int(env["TRUSTED_PROXIES"] ?? "") ?? 0
    configuration.refreshMargin = .seconds(Double(env["SESSION_REFRESH_MARGIN"] ?? "") ?? 60)
    configuration.sessionLifetime = .seconds(Double(env["SESSION_LIFETIME"] ?? "") ?? 12 * 3600)
    // A setting that cannot work stops the server here, named, instead of failing the first login.
    let login = try WebLogin(
      publicBaseURL: base, logins: logins, store: store, sessions: sessions, secret: secret,
      configuration: configuration, logger: logger)

    let router = Router(context: LoginSessionContext.self)
    login.addRoutes(to: router)
    // The signed-in user; the access token is refreshed first when it is about to expire.
    router.get("/me") { request, context in
      try await login.withSession(request, context) { $0.summaryResponse() }
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
    try await http.shutdown()
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
}
