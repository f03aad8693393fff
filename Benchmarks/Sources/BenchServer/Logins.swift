// Whole web logins against the demo provider: start → the provider's approval → callback (exchange, verified
// identity, session) → 303. See main.swift's header for the line this prints.

import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import HummingbirdAuth
import LinkParseAuthorization
import LinkParseHTTP
import LinkParseHummingbird
import LinkParseRouter
import LinkParsePostgres
import Logging
import NIOCore
import NIOHTTP1

/// The demo provider's script, from this file's place in the repository.
let demoProviderScript = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Examples/DemoProvider/demo_provider.py").path

/// Milliseconds in a duration.
func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// The `p` quantile of sorted values (nearest rank).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
  sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
}

/// Runs the demo provider on `port` for `body` (killed afterwards).
func withDemoProvider<R>(port: Int, redirectPrefix: String, _ body: () async throws -> R) async throws -> R {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", demoProviderScript, "--port", "\(port)", "--redirect-prefix", redirectPrefix]
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  defer {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
  return try await body()
}

/// The `name=value` of the first `Set-Cookie` whose name starts with `prefix`.
func cookie(_ headers: HTTPHeaders, _ prefix: String) -> String? {
  headers["set-cookie"].first { $0.hasPrefix(prefix) }?.split(separator: ";").first.map(String.init)
}

/// Whole logins against the demo provider, served by the parts wired by hand (`webLogin: false`, the way the
/// example did it before WebLogin) or by a `WebLogin` (its routes, its session sign-in that ends a replaced
/// session): `bench=login-<name>` and `bench=login-weblogin-<name>`, to compare in one run.
func runLoginBench<Store: PendingAuthorizationStoring>(
  _ name: String, store: Store, sessions: any PersistDriver, webLogin: Bool = false
) async throws {
  let providerPort = Int.random(in: 30_000..<40_000)
  let issuer = "http://127.0.0.1:\(providerPort)"
  try await withDemoProvider(port: providerPort, redirectPrefix: "http://127.0.0.1:") {
    let http = OAuthHTTPClient(configuration: .init(allowsInsecureHTTP: true))
    var party: OIDCRelyingParty?
    for _ in 0..<100 where party == nil {
      party = try? await OIDCRelyingParty.discover(
        issuer: issuer, clientID: "demo", clientSecret: "demo-secret", client: http)
      if party == nil { try await Task.sleep(for: .milliseconds(100)) }
    }
    guard let party else { throw CancellationError() }

    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.loginConcurrency
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    // The public base is known only once the port is: a placeholder router first would do, but a fixed
    // port chosen here is simpler.
    let port = Int.random(in: 40_000..<50_000)
    let base = "http://127.0.0.1:\(port)"
    let router = Router(context: LoginSessionContext.self)
    if webLogin {
      var settings = WebLogin<Store>.Configuration()
      settings.startLimits = StartLimits(limit: Int.max / 2)
      try WebLogin(
        publicBaseURL: base, logins: [.init("demo", party: party)], store: store, sessions: sessions,
        secret: SymmetricKey(size: .bits256), configuration: settings, logger: quiet
      ).addRoutes(to: router)
    } else {
      let endpoint = LinkParseCallbackEndpoint(
        store: store, publicBaseURL: base, logger: quiet, loginCookies: LoginCookies(secure: false),
        startLimits: StartLimits(limit: Int.max / 2))
      let login = party.loginStart(redirectURI: base + "/auth/demo/callback")
      let table = try LinkParseRouter.Router([Route("demo", login.redirectURI, provider: .oauth2)])
      router.add(
        middleware: SessionMiddleware(storage: sessions, configuration: LoginSession.middlewareConfiguration(secure: false)))
      router.add(
        middleware: endpoint.callbackRoutes(table, context: LoginSessionContext.self) { consumed, _, _, context in
          LoginSession.signIn(try await party.complete(consumed), consumed: consumed, context: context)
        })
      endpoint.registerStart(on: router, path: "/login/demo", login: login)
    }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
      onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: quiet)

    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await app.runService(gracefulShutdownSignals: []) }
      var iterator = ports.makeAsyncIterator()
      _ = await iterator.next()

      /// One login; its whole time and its callback's, or nil when a step failed.
      @Sendable func oneLogin() async throws -> (Double, Double)? {
        let started = ContinuousClock.now
        let start = try await client.execute(HTTPClientRequest(url: base + "/login/demo"), timeout: .seconds(30))
        _ = try await start.body.collect(upTo: 1 << 16)
        guard start.status == .found, let authorize = start.headers.first(name: "location"),
          let loginCookie = cookie(start.headers, "lp-login-")
        else { return nil }
        let approval = try await client.execute(HTTPClientRequest(url: authorize), timeout: .seconds(30))
        _ = try await approval.body.collect(upTo: 1 << 16)
        guard approval.status == .found, let callbackURL = approval.headers.first(name: "location") else { return nil }
        var callback = HTTPClientRequest(url: callbackURL)
        callback.headers.add(name: "Cookie", value: loginCookie)
        let callbackSent = ContinuousClock.now
        let done = try await client.execute(callback, timeout: .seconds(30))
        _ = try await done.body.collect(upTo: 1 << 16)
        let ended = ContinuousClock.now
        guard done.status == .seeOther, cookie(done.headers, "lp-session=") != nil else { return nil }
        return (milliseconds(ended - started), milliseconds(ended - callbackSent))
      }

      // Warm up (the JWKS fetch, connections), not counted.
      for _ in 0..<20 { _ = try await oneLogin() }
      let total = settings.logins
      let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
      let started = ContinuousClock.now
      let workers = settings.loginConcurrency
      let results = try await withThrowingTaskGroup(of: ([Double], [Double], Int).self) { workersGroup in
        for worker in 0..<workers {
          workersGroup.addTask {
            var whole: [Double] = []
            var callbacks: [Double] = []
            var errors = 0
            var i = worker
            while i < total, ContinuousClock.now < deadline {
              if let (login, callback) = try await oneLogin() {
                whole.append(login)
                callbacks.append(callback)
              } else {
                errors += 1
              }
              i += workers
            }
            return (whole, callbacks, errors)
          }
        }
        return try await workersGroup.reduce(into: ([Double](), [Double](), 0)) {
          $0.0 += $1.0
          $0.1 += $1.1
          $0.2 += $1.2
        }
      }
      let wall = milliseconds(ContinuousClock.now - started) / 1e3
      let whole = results.0.sorted()
      let callbacks = results.1.sorted()
      print(
        String(
          format:
            "bench=login-%@ logins=%d seconds=%.2f logins_per_s=%.0f p50_ms=%.2f p99_ms=%.2f callback_p50_ms=%.2f callback_p99_ms=%.2f errors=%d concurrency=%d",
          (webLogin ? "weblogin-" : "") + name, whole.count, wall, Double(whole.count) / wall, percentile(whole, 0.5), percentile(whole, 0.99),
          percentile(callbacks, 0.5), percentile(callbacks, 0.99), results.2, workers))
      group.cancelAll()
    }
    try await client.shutdown()
    try await http.shutdown()
  }
}
