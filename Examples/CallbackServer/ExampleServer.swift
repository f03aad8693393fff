// An example login server: start-login endpoints for every configured provider, their callback routes served
// from a LinkParseRouter table, and a pending-authorization store in memory or, with DATABASE_URL, on
// PostgreSQL (so that several instances behind a load balancer share it).
//
//   make serve-example                                   # 127.0.0.1:8080, in-memory store
//   DATABASE_URL='postgres://u@127.0.0.1/db?sslmode=disable' make serve-example   (without sslmode: verified TLS)
//
// With no provider account at hand, the built-in demo provider walks the whole flow:
//   curl -si http://127.0.0.1:8080/login/demo             # 302 to /demo/authorize?…&state=…
//   curl -si 'http://127.0.0.1:8080/demo/authorize?…'    # 302 back to /auth/demo/callback?code=…&state=…
//   curl -si 'http://127.0.0.1:8080/auth/demo/callback?code=…&state=…'   # 200, the typed result
//
// Environment: HOST (127.0.0.1), PORT (8080), PUBLIC_BASE_URL (http://HOST:PORT), DATABASE_URL,
// LINKPARSE_STORE_SECRET (64 hex digits; every instance sharing a database needs the same one),
// VK_CLIENT_ID, SBER_CLIENT_ID, TID_CLIENT_ID, APPLE_CLIENT_ID (each one adds /login/<provider>).

import Crypto
import Foundation
import Hummingbird
import LinkParseAuthorization
import LinkParseCore
import LinkParseHummingbird
import LinkParsePostgres
import LinkParseProviders
import LinkParseRouter
import Logging
import PostgresNIO

@main
struct ExampleServer {
  static func main() async throws {
    let env = ProcessInfo.processInfo.environment
    let host = env["HOST"] ?? "127.0.0.1"
    let port = Int(env["PORT"] ?? "") ?? 8080
    var base = env["PUBLIC_BASE_URL"] ?? "http://\(host):\(port)"
    while base.hasSuffix("/") { base.removeLast() }
    var logger = Logger(label: "linkparse.example")
    logger.logLevel = .info

    if let databaseURL = env["DATABASE_URL"], !databaseURL.isEmpty {
      let client = PostgresClient(
        configuration: try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: databaseURL))
      let secret = storeSecret(env, logger)
      let store = PostgresPendingAuthorizationStore(client: client, secret: secret)
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        try await store.migrate()
        logger.info("store: PostgreSQL (table \(PostgresPendingAuthorizationStore.tableName))")
        try await serve(store: store, secret: secret, base: base, host: host, port: port, env: env, logger: logger)
        group.cancelAll()
      }
    } else {
      logger.info("store: in memory (set DATABASE_URL to share it between instances)")
      try await serve(
        store: PendingAuthorizationStore(), secret: SymmetricKey(size: .bits256), base: base, host: host, port: port,
        env: env, logger: logger)
    }
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
    store: Store, secret: SymmetricKey, base: String, host: String, port: Int, env: [String: String], logger: Logger
  ) async throws {
    // Every login this server can start, with the callback route its redirect URI names.
    var logins: [(name: String, login: LoginStart)] = [
      ("demo", .oauth2(authorizeURL: base + "/demo/authorize", clientID: "demo", redirectURI: base + "/auth/demo/callback"))
    ]
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
      loginCookies: LoginCookies(key: Array(cookieKey), secure: base.lowercased().hasPrefix("https:")))
    // LoginRequestContext knows the client's address: the per-client start limit (StartLimits) needs it.
    let router = Router(context: LoginRequestContext.self)
    router.add(
      middleware: endpoint.callbackRoutes(table, context: LoginRequestContext.self, unknownRoutePrefix: "/auth/") {
        consumed, match, _, _ in
        // A real app exchanges the code now (LinkParseOAuth's `consumed.tokenRequest()`, which carries the PKCE
        // verifier, client id and redirect URI as sent; sent with LinkParseHTTP) and sets its session. The
        // example shows what arrived, without the code itself.
        let callback = consumed.callback
        var json = "{\"route\":\"\(match.name)\",\"provider\":\"\(callback.provider.rawValue)\","
        json += "\"outcome\":\"\(callback.outcome.rawValue)\",\"has_code\":\(callback.code != nil)}\n"
        return Response(
          status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
          body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
      })
    for (name, login) in logins {
      endpoint.registerStart(on: router, path: RouterPath("/login/\(name)"), login: login)
    }
    let demoCallback = base + "/auth/demo/callback"
    router.get("/demo/authorize") { request, _ -> Response in
      demoAuthorize(request, callback: demoCallback)
    }
    let index = "LinkParse example server\n" + logins.map { "  GET /login/\($0.name)\n" }.joined()
    router.get("/") { _, _ in index }

    // A connection idle for 30 s is closed (a slow client holds nothing for long; the callback's body has its
    // own read timeout, LinkParseCallbackEndpoint.bodyReadTimeout).
    let app = Application(
      router: router, server: .http1(configuration: .init(idleTimeout: .seconds(30))),
      configuration: .init(address: .hostname(host, port: port), serverName: "linkparse-example"),
      logger: logger)
    logger.info("listening on http://\(host):\(port), public base \(base); logins: \(logins.map(\.name))")
    try await app.runService()
  }

  /// The demo provider: approves at once and sends the browser back with a code and the request's state.
  /// It only ever redirects to the demo's own callback (no open redirect).
  static func demoAuthorize(_ request: Request, callback: String) -> Response {
    let query = request.uri.queryParameters
    guard query["redirect_uri"].map(String.init) == callback, let state = query["state"].map(String.init) else {
      return Response(status: .badRequest)
    }
    let code = "demo-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    let location = callback + "?" + FormParameters.encode([("code", code), ("state", state)])
    return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
  }
}
