// Load test of the server side: LinkParseHummingbird's callback routes on 127.0.0.1, driven by an in-process
// AsyncHTTPClient over loopback, with the in-memory store and with the PostgreSQL store; then whole web logins
// against the demo OpenID Connect provider (Examples/DemoProvider, a Python process on loopback).
//
//   BenchServer [--store memory|postgres|both] [--mode callbacks|logins|both] [--callbacks N] [--logins N]
//               [--concurrency N] [--login-concurrency N] [--seconds S]
//               [--database-url URL]   (or DATABASE_URL; `make bench-server` starts a throw-away PostgreSQL)
//
// Logins: each is what a browser does — GET /login/demo (302, login cookie), the provider's /authorize (302
// back with a code), the callback with the cookie, on which the server consumes the pending authorization,
// exchanges the code (PKCE), verifies the id_token with the cached JWKS, fetches the user info (sub
// cross-check), opens a session (hummingbird-auth; MemoryPersistDriver, or PostgresSessionDriver with the
// PostgreSQL store) and answers 303. One line per store:
//
//   bench=login-memory logins=… seconds=… logins_per_s=… p50_ms=… p99_ms=… callback_p50_ms=… callback_p99_ms=… errors=…
//
// and the same through a WebLogin, bench=login-weblogin-memory (its routes own the login: compare the two).
//
// (p50/p99: the whole login; callback_*: its callback request alone, the exchange and verification included.)
// The demo provider is single-process Python: at these rates it, not the server, is most of the time.
//
// Per store: N pending authorizations are inserted first (not timed), then their N callbacks
// (`GET /auth/callback?code=…&state=…` on a LinkParseRouter route, consumed from the store, answered 303) are
// sent with `--concurrency` requests in flight until all are answered or `--seconds` have passed. Prints one
// line per store, in this form:
//
//   bench=server-memory callbacks=… seconds=… callbacks_per_s=… p50_ms=… p99_ms=… max_ms=… errors=…
//
// Client and server share the machine (2 cores here): the figures are for the whole loop, not the server alone.
//
// Build and run in release:  cd Benchmarks && swift build -c release --product BenchServer &&
//                            .build/release/BenchServer

import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import LinkParseAuthorization
import LinkParseCore
import LinkParseHummingbird
import LinkParsePostgres
import HummingbirdAuth
import LinkParseProviders
import LinkParseRouter
import Logging
import NIOCore
import PostgresNIO

// MARK: - Arguments

struct Settings {
  var store = "both"
  var callbacks = 20_000
  var concurrency = 32
  var seconds = 20.0
  var databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"]
  var mode = "both"
  var logins = 5_000
  var loginConcurrency = 16

  static func parse() -> Settings {
    var settings = Settings()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
      switch argument {
      case "--store": settings.store = arguments.popFirst() ?? "both"
      case "--callbacks": settings.callbacks = Int(arguments.popFirst() ?? "") ?? settings.callbacks
      case "--concurrency": settings.concurrency = Int(arguments.popFirst() ?? "") ?? settings.concurrency
      case "--seconds": settings.seconds = Double(arguments.popFirst() ?? "") ?? settings.seconds
      case "--database-url": settings.databaseURL = arguments.popFirst()
      case "--mode": settings.mode = arguments.popFirst() ?? "both"
      case "--logins": settings.logins = Int(arguments.popFirst() ?? "") ?? settings.logins
      case "--login-concurrency":
        settings.loginConcurrency = Int(arguments.popFirst() ?? "") ?? settings.loginConcurrency
      default:
        FileHandle.standardError.write(Data("BenchServer: unknown argument \(argument)\n".utf8))
        exit(2)
      }
    }
    return settings
  }
}

let settings = Settings.parse()
let callbacks = settings.callbacks
let concurrency = settings.concurrency
let seconds = settings.seconds

// MARK: - The server

let publicBase = "https://app.example"
let redirect = publicBase + "/auth/callback"
let quiet: Logger = {
  var logger = Logger(label: "bench")
  logger.logLevel = .critical  // cancelling the server at the end logs "already closed" errors
  return logger
}()

/// Serves the callback route with `store` on a free port of 127.0.0.1; `body` gets the port.
func withServer<Store: PendingAuthorizationStoring>(
  store: Store, _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
  let endpoint = LinkParseCallbackEndpoint(store: store, publicBaseURL: publicBase, logger: quiet)
  let table = try LinkParseRouter.Router([Route("callback", redirect, provider: .oauth2)])
  let router = Router()
  router.add(
    middleware: endpoint.callbackRoutes(table, context: BasicRequestContext.self) { _, _, _, _ in
      Response(status: .seeOther, headers: [.location: "/welcome"])
    })
  let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
  let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: quiet)
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await app.runService(gracefulShutdownSignals: []) }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { return }
    try await body(port)
    group.cancelAll()
  }
}

// MARK: - The load

struct Result {
  var latencies: [Double] = []  // milliseconds
  var errors = 0
  var elapsed = 0.0
}

/// Inserts `callbacks` pending authorizations, then sends their callbacks.
func run<Store: PendingAuthorizationStoring>(_ name: String, store: Store) async throws {
  let redirectURL = try ParsedURL(redirect)
  let states = (0..<callbacks).map { "bench-\(name)-\($0)-\(UInt64.random(in: 0...UInt64.max))" }
  try await withThrowingTaskGroup(of: Void.self) { group in
    for chunk in stride(from: 0, to: states.count, by: 1_000) {
      group.addTask {
        for state in states[chunk..<min(chunk + 1_000, states.count)] {
          try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: redirectURL, state: state))
        }
      }
    }
    try await group.waitForAll()
  }
  var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
  configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
  let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))

  try await withServer(store: store) { port in
    let started = ContinuousClock.now
    let result = try await withThrowingTaskGroup(of: Result.self) { group in
      for worker in 0..<concurrency {
        group.addTask {
          var result = Result()
          var i = worker
          while i < states.count, ContinuousClock.now < deadline {
            let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/auth/callback?code=c\(i)&state=\(states[i])")
            let sent = ContinuousClock.now
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 64 * 1024)
            let took = ContinuousClock.now - sent
            result.latencies.append(milliseconds(took))
            if response.status != .seeOther { result.errors += 1 }
            i += concurrency
          }
          return result
        }
      }
      var all = Result()
      for try await r in group {
        all.latencies += r.latencies
        all.errors += r.errors
      }
      return all
    }
    let elapsed = ContinuousClock.now - started
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let sorted = result.latencies.sorted()
    let line = String(
      format: "bench=server-%@ callbacks=%d seconds=%.2f callbacks_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d concurrency=%d",
      name, sorted.count, wall, Double(sorted.count) / wall, percentile(sorted, 0.50), percentile(sorted, 0.99), sorted.last ?? 0,
      result.errors, concurrency)
    print(line)
  }
  try await client.shutdown()
}

let runCallbacks = settings.mode == "callbacks" || settings.mode == "both"
let runLogins = settings.mode == "logins" || settings.mode == "both"

if settings.store == "memory" || settings.store == "both" {
  if runCallbacks { try await run("memory", store: PendingAuthorizationStore()) }
  if runLogins {
    try await runLoginBench("memory", store: PendingAuthorizationStore(), sessions: MemorySessionDriver())
    try await runLoginBench("memory", store: PendingAuthorizationStore(), sessions: MemorySessionDriver(), webLogin: true)
  }
}
if settings.store == "postgres" || settings.store == "both" {
  guard let databaseURL = settings.databaseURL, !databaseURL.isEmpty else {
    FileHandle.standardError.write(Data("BenchServer: no --database-url or DATABASE_URL: PostgreSQL skipped\n".utf8))
    exit(settings.store == "postgres" ? 1 : 0)
  }
  var configuration = try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: databaseURL)
  configuration.options.maximumConnections = max(8, concurrency / 2)
  let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
  let secret = SymmetricKey(size: .bits256)
  let store = PostgresPendingAuthorizationStore(client: client, secret: secret, logger: quiet)
  let sessions = PostgresSessionDriver(client: client, secret: secret, logger: quiet)
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { await client.run() }
    try await store.migrate()
    try await sessions.migrate()
    try await client.query("TRUNCATE linkparse_pending_authorizations")
    try await client.query("TRUNCATE linkparse_persist")
    if runCallbacks { try await run("postgres", store: store) }
    if runLogins {
      try await runLoginBench("postgres", store: store, sessions: sessions)
      try await runLoginBench("postgres", store: store, sessions: sessions, webLogin: true)
    }
    group.cancelAll()
  }
}
