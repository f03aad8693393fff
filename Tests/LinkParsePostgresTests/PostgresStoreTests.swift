// PostgresPendingAuthorizationStore against a real PostgreSQL server: LINKPARSE_TEST_DATABASE_URL, which
// `make test` sets (.ci/postgres.sh starts the server). Without it these tests are skipped, unless CI is set.

import Crypto
import Foundation
import LinkParseAuthorization
import LinkParseCore
import LinkParsePostgres
import LinkParseProviders
import LinkParseServerTestSupport
import Logging
import PostgresNIO
import Testing

extension TestDatabase {
  /// The secret every "server instance" shares.
  static let secret = SymmetricKey(data: Array(repeating: UInt8(0x5A), count: 32))

  /// Runs `body` with a running client and a store on it (migrated; the table emptied when `fresh`), on the test
  /// database or on `database` (created when missing).
  static func withStore<R: Sendable>(
    fresh: Bool = true, timeout: Duration = .seconds(60), database: String? = nil, capacity: Int = 100_000,
    _ body: @Sendable (PostgresPendingAuthorizationStore, PostgresClient) async throws -> R
  ) async throws -> R {
    if let database { try await ensureDatabase(database) }
    return try await withClient(try configuration(database: database)) { client in
      let store = PostgresPendingAuthorizationStore(
        client: client, secret: secret, operationTimeout: timeout, capacity: capacity)
      try await store.migrate()
      if fresh { try await client.query("TRUNCATE linkparse_pending_authorizations") }
      return try await body(store, client)
    }
  }
}

/// What `body` throws, as `E`'s code; `nil` when it succeeds (another error is an issue).
func thrownCode<E: Error, Code, T>(_: E.Type, _ code: (E) -> Code, _ body: () async throws -> T) async -> Code? {
  do {
    _ = try await body()
    return nil
  } catch let error as E {
    return code(error)
  } catch {
    Issue.record("not a \(E.self): \(error)")
    return nil
  }
}

/// The code of the ``CallbackError`` `body` throws, `nil` when it succeeds (any other error is an issue).
func code<T>(_ body: () async throws -> T) async -> CallbackError.Code? {
  await thrownCode(CallbackError.self, \.code, body)
}

/// The code of the ``PostgresStoreError`` `body` throws, `nil` when it succeeds (any other error is an issue).
func storeFailure<T>(_ body: () async throws -> T) async -> PostgresStoreError.Code? {
  await thrownCode(PostgresStoreError.self, \.code, body)
}

@Suite struct PostgresStoreEnvironmentTests {
  @Test func databaseURLIsSetUnderCI() {
    if TestDatabase.url == nil {
      if TestDatabase.isCI {
        Issue.record("CI is set, so this is a failure: \(TestDatabase.missingMessage)")
      } else {
        print("LinkParsePostgresTests: \(TestDatabase.missingMessage)")
      }
    }
  }

  /// A database that is not there: every operation throws a `PostgresStoreError`, never crashes or hangs.
  @Test func closedPortIsStoreUnavailable() async throws {
    // A port nothing listens on (the test database's configuration, or localhost's defaults).
    var configuration =
      TestDatabase.url == nil
      ? PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "u", password: nil, database: nil, tls: .disable)
      : try TestDatabase.configuration(port: 1)
    configuration.options.connectTimeout = .seconds(1)
    let client = PostgresClient(configuration: configuration)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      defer { group.cancelAll() }
      let store = PostgresPendingAuthorizationStore(
        client: client, secret: TestDatabase.secret, operationTimeout: .milliseconds(500))
      let url = try ParsedURL("https://a.example/cb?code=x&state=s")
      #expect(await storeFailure { try await store.consume(url).callback } != nil)
      await #expect(throws: PostgresStoreError.self) { try await store.migrate() }
      await #expect(throws: PostgresStoreError.self) {
        try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s"))
      }
      await #expect(throws: PostgresStoreError.self) { _ = try await store.count }
      await #expect(throws: PostgresStoreError.self) { _ = try await store.removeExpired(now: 0) }
    }
  }

  /// A client that was never run: the store's time limit answers `store-unavailable`.
  @Test func clientNotRunningIsStoreUnavailable() async throws {
    let client = PostgresClient(
      configuration: PostgresClient.Configuration(
        host: "127.0.0.1", port: 1, username: "u", password: nil, database: nil, tls: .disable))
    let store = PostgresPendingAuthorizationStore(
      client: client, secret: TestDatabase.secret, operationTimeout: .milliseconds(300))
    let error = await storeFailure { try await store.consume(ParsedURL("myapp://authorized?code=c")).callback }
    #expect(error == .timedOut)
  }
}

@Suite(
  .serialized,
  .enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (see PostgresStoreEnvironmentTests)"))
struct PostgresPendingAuthorizationStoreTests {
  @Test func migrateIsIdempotent() async throws {
    try await TestDatabase.withStore { store, client in
      try await store.migrate()
      try await store.migrate()
      let rows = try await client.query(
        "SELECT version FROM linkparse_schema_version WHERE component = 'pending_authorizations'")
      var versions: [Int32] = []
      for try await v in rows.decode(Int32.self) { versions.append(v) }
      #expect(versions == [1])
    }
  }

  /// The capacity holds exactly under concurrent inserts (no overshoot: each takes its place from the counter
  /// row in its own statement, no count of the table), and the counter follows every statement that changes
  /// what is pending: consuming, putting back, deleting, TRUNCATE, a refused duplicate state.
  @Test func capacityIsExactUnderConcurrentInsertsAndTheCounterFollows() async throws {
    try await TestDatabase.withStore(database: "linkparse_store_capacity", capacity: 50) { store, client in
      @Sendable func counter() async throws -> Int64 {
        for try await n in try await client.query("SELECT pending FROM linkparse_pending_count").decode(Int64.self) {
          return n
        }
        return -1
      }
      #expect(try await counter() == 0)
      let url = try ParsedURL("https://cap.example/cb")
      let added = try await withThrowingTaskGroup(of: Int.self) { group in
        for worker in 0..<8 {
          group.addTask {
            var added = 0
            for i in 0..<20 {
              do {
                try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: url, state: "w\(worker)-\(i)"))
                added += 1
              } catch is PendingAuthorizationStoreFull {}
            }
            return added
          }
        }
        return try await group.reduce(0, +)
      }
      #expect(added == 50)
      #expect(try await store.count == 50)
      #expect(try await counter() == 50)
      try await client.query("DELETE FROM linkparse_pending_authorizations WHERE id IN (SELECT id FROM linkparse_pending_authorizations LIMIT 5)")
      #expect(try await counter() == 45)
      // A state already pending is a conflict, and takes no place.
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: url, state: "again"))
      await #expect(throws: PendingAuthorizationConflict.self) {
        try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: url, state: "again"))
      }
      #expect(try await counter() == 46)
      _ = try await store.consume(ParsedURL("https://cap.example/cb?code=c&state=again"))
      #expect(try await counter() == 45)
      #expect(try await store.count == 45)
      try await client.query("UPDATE linkparse_pending_authorizations SET consumed_at = NULL")
      #expect(try await counter() == 46)
      try await client.query("TRUNCATE linkparse_pending_authorizations")
      #expect(try await counter() == 0)
      try await store.migrate()
      #expect(try await counter() == 0)
    }
  }

  @Test func insertThenConsume() async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(
        provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s1", clientID: "client",
        codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", nonce: "n"))
      #expect(try await store.count == 1)
      let callback = try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s1")).callback
      #expect(callback.code == "x")
      #expect(try await store.count == 0)
      #expect(await code { try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s1")).callback } == .replayed)
      #expect(await code { try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s9")).callback } == .notPending)
    }
  }

  @Test func vkHostsAndReplays() async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .vk, redirectURI: ParsedURL("vk1://vk.ru/blank.html"), state: "S1"))
      try await store.insert(PendingAuthorization(provider: .vk, redirectURI: ParsedURL("vk1://vk.ru/blank.html"), state: "S2"))
      let url = try ParsedURL("vk1://vk.ru/blank.html?code=c&state=S2&device_id=d")
      #expect(try await store.consume(url).callback.state == "S2")
      #expect(try await store.count == 1)
      #expect(await code { try await store.consume(url).callback } == .replayed)
      #expect(try await store.consume(ParsedURL("vk1://vk.com/blank.html?code=c&state=S1&device_id=d")).callback.state == "S1")
    }
  }

  @Test func forgedStateDoesNotConsume() async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "real"))
      #expect(await code { try await store.consume(ParsedURL("https://a.example/cb?code=x&state=forged")).callback } == .stateMismatch)
      #expect(await code { try await store.consume(ParsedURL("https://b.example/cb?code=x&state=real")).callback } == .redirectMismatch)
      #expect(try await store.count == 1)
      #expect(try await store.consume(ParsedURL("https://a.example/cb?code=x&state=real")).callback.code == "x")
    }
  }

  @Test(arguments: [
    "myapp://sberidauth?error_code=5", "myapp://sberidauth?result=FAILURE&error_code=5",
    "myapp://sberidauth?status=fail&error=access_denied",
  ])
  func forgedStatelessSberErrorDoesNotRetire(_ forged: String) async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .sber, redirectURI: ParsedURL("myapp://sberidauth"), state: "Qk7x2LmN9pRtVw3a"))
      let reported = try await store.consume(ParsedURL(forged)).callback
      #expect(reported.outcome == .error)
      #expect(try await store.count == 1)
      let real = try await store.consume(ParsedURL("myapp://sberidauth?state=Qk7x2LmN9pRtVw3a&code=FA21")).callback
      #expect(real.code == "FA21")
      #expect(try await store.count == 0)
    }
  }

  /// providers.md §3.6: a forged state-less T-ID cancel, unavailable or debug result is reported but leaves the
  /// app-to-app login pending; the genuine code then succeeds once.
  @Test(arguments: ["cancelled", "unavailable", "result=failure", "result=garbage"])
  func forgedTIDOutcomeKeepsTheLogin(forged: String) async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
      _ = try? await store.consume(ParsedURL("myapp://authorized?\(forged)")).callback
      #expect(try await store.count == 1)
      #expect(try await store.consume(ParsedURL("myapp://authorized?code=c.9fQ2mZtR1x")).callback.code == "c.9fQ2mZtR1x")
      #expect(await code { try await store.consume(ParsedURL("myapp://authorized?code=c.9fQ2mZtR1x")).callback } == .replayed)
    }
  }

  @Test func tidSinglePendingRule() async throws {
    let url = try ParsedURL("myapp://authorized?code=c.1")
    try await TestDatabase.withStore { store, _ in
      #expect(await code { try await store.consume(url).callback } == .notPending)
      // Two clients on one redirect URI (a second login of the same client replaces the first: StoreContractTests).
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil, clientID: "a"))
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil, clientID: "b"))
      #expect(await code { try await store.consume(url).callback } == .ambiguousAuthorization)
      #expect(try await store.count == 2)
    }
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("otherapp://authorized"), state: nil))
      // Two T-ID requests pending in all.
      #expect(await code { try await store.consume(url).callback } == .ambiguousAuthorization)
    }
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
      try await store.insert(PendingAuthorization(provider: .sber, redirectURI: ParsedURL("myapp://sberidauth"), state: "s"))
      #expect(try await store.consume(url).callback == .tid(.success(TIDSuccess(code: "c.1"))))
      #expect(await code { try await store.consume(ParsedURL("myapp://authorized?cancelled")).callback } == .replayed)
      #expect(try await store.count == 1)
    }
  }

  @Test func expiredRetiresAndRemoveExpiredSweeps() async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a/cb"), state: "s", expiresAt: 10))
      #expect(await code { try await store.consume(ParsedURL("https://a/cb?code=x&state=s"), now: 20).callback } == .expired)
      #expect(try await store.count == 0)
      #expect(await code { try await store.consume(ParsedURL("https://a/cb?code=x&state=s"), now: 5).callback } == .replayed)
    }
    try await TestDatabase.withStore { store, client in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a/cb"), state: "a", expiresAt: 10))
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a/cb"), state: "b", expiresAt: 30))
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a/cb"), state: "c"))
      #expect(try await store.removeExpired(now: 20) == 1)
      #expect(try await store.count == 2)
      // A consumed row is kept for the grace period (to answer `replayed`), then swept.
      _ = try await store.consume(ParsedURL("https://a/cb?code=x&state=b"), now: 25).callback
      #expect(try await store.removeExpired(now: 31) == 0)
      #expect(try await store.removeExpired(now: 30 + store.consumedGracePeriod.components.seconds) == 1)
      let rows = try await client.query("SELECT count(*) FROM linkparse_pending_authorizations")
      for try await n in rows.decode(Int64.self) { #expect(n == 1) }
    }
  }

  /// Neither the state nor the PKCE verifier (nor the nonce) appears in any column, in any encoding.
  @Test func secretsAreNotStoredInClear() async throws {
    let state = "Qk7x2LmN9pRtVw3aStateSecret"
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    try await TestDatabase.withStore { store, client in
      try await store.insert(PendingAuthorization(
        provider: .sber, redirectURI: ParsedURL("https://a.example/cb"), state: state, expiresAt: 99_999_999_999,
        codeVerifier: verifier, nonce: "NonceSecretValue"))
      let rows = try await client.query(
        """
        SELECT coalesce(encode(state_key, 'escape'), ''), redirect_key, provider, encode(sealed, 'escape'),
               coalesce(encode(state_key, 'hex'), ''), encode(sealed, 'hex'), encode(sealed, 'base64')
        FROM linkparse_pending_authorizations
        """)
      var seen = 0
      for try await (a, b, c, d, e, f, g) in rows.decode((String, String, String, String, String, String, String).self) {
        seen += 1
        for column in [a, b, c, d, e, f, g] {
          for secret in [state, verifier, "NonceSecretValue"] {
            #expect(!column.contains(secret))
            #expect(!column.lowercased().contains(Data(secret.utf8).map { String(format: "%02x", $0) }.joined()))
          }
        }
      }
      #expect(seen == 1)
      // And it all comes back, sealed and opened, for the token request.
      let callback = try await store.consume(ParsedURL("https://a.example/cb?code=x&state=\(state)")).callback
      #expect(callback.code == "x")
    }
  }

  /// A repeated critical parameter binds nothing: `duplicate-parameter`, and the authorization stays pending.
  @Test func duplicateStateDoesNotConsume() async throws {
    try await TestDatabase.withStore { store, _ in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s"))
      #expect(await code { try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s&state=s")).callback } == .duplicateParameter)
      #expect(try await store.count == 1)
      #expect(try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s")).callback.code == "x")
    }
  }

  /// One state-less T-ID authorization, its callback sent 8 times to each of two instances at once: one
  /// success (the FOR UPDATE lock serializes them), every other attempt `replayed`.
  @Test func concurrentStatelessTIDAcrossInstances() async throws {
    try await TestDatabase.withStore { first, _ in
      try await TestDatabase.withStore(fresh: false) { second, _ in
        try await first.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
        let url = try ParsedURL("myapp://authorized?code=c.1")
        let codes = await withTaskGroup(of: CallbackError.Code?.self) { group in
          for store in [first, second] {
            for _ in 0..<8 { group.addTask { await code { try await store.consume(url).callback } } }
          }
          var all: [CallbackError.Code?] = []
          for await c in group { all.append(c) }
          return all
        }
        #expect(codes.filter { $0 == nil }.count == 1)
        #expect(codes.filter { $0 == .replayed }.count == 15)
      }
    }
  }

  /// A client stopped while the store is in use: `store-unavailable`, not a crash or a hang.
  @Test func stoppedClientIsStoreUnavailable() async throws {
    let client = PostgresClient(configuration: try TestDatabase.configuration())
    let store = PostgresPendingAuthorizationStore(
      client: client, secret: TestDatabase.secret, operationTimeout: .seconds(30))  // a stopped client fails at once
    let running = Task { await client.run() }
    try await store.migrate()
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://stopped.example/cb"), state: "stopped-\(UInt64.random(in: 0...UInt64.max))"))
    running.cancel()
    await running.value
    #expect(await storeFailure { try await store.consume(ParsedURL("https://stopped.example/cb?code=x&state=s")).callback } != nil)
    await #expect(throws: PostgresStoreError.self) { _ = try await store.count }
  }

  /// A row whose sealed value is moved or tampered with does not open: `store-unavailable`, never a crash.
  @Test func tamperedRowIsStoreUnavailable() async throws {
    try await TestDatabase.withStore { store, client in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a/cb"), state: "s"))
      try await client.query("UPDATE linkparse_pending_authorizations SET provider = 'vk'")
      #expect(await storeFailure { try await store.consume(ParsedURL("https://a/cb?code=x&state=s")).callback } != nil)
    }
  }

  /// Two "servers" (two clients, two stores) on one database; every login's callback is sent to both, and
  /// again, concurrently: exactly one success per login, every other attempt `replayed`.
  /// How many logins the concurrency test runs: 200, or LINKPARSE_PG_CONCURRENCY_LOGINS.
  static let concurrencyLogins =
    ProcessInfo.processInfo.environment["LINKPARSE_PG_CONCURRENCY_LOGINS"].flatMap { Int($0) } ?? 200

  @Test(arguments: [concurrencyLogins])
  func concurrentReplaysAcrossInstances(logins: Int) async throws {
    try await Self.runConcurrentReplays(logins: logins, attemptsPerInstance: 2)
  }

  static func runConcurrentReplays(logins: Int, attemptsPerInstance: Int) async throws {
    try await TestDatabase.withStore { first, _ in
      try await TestDatabase.withStore(fresh: false) { second, _ in
        let redirect = try ParsedURL("https://app.example/callback")
        try await withThrowingTaskGroup(of: Void.self) { group in
          for i in 0..<logins {
            group.addTask {
              let store = i % 2 == 0 ? first : second
              try await store.insert(PendingAuthorization(
                provider: .oauth2, redirectURI: redirect, state: "state-\(i)", codeVerifier: "verifier-\(i)"))
            }
          }
          try await group.waitForAll()
        }
        #expect(try await first.count == logins)
        let results = await withTaskGroup(of: (Int, CallbackError.Code?).self) { group in
          for i in 0..<logins {
            let url = try! ParsedURL("https://app.example/callback?code=c\(i)&state=state-\(i)")
            for store in [first, second] {
              for _ in 0..<attemptsPerInstance {
                group.addTask { (i, await code { try await store.consume(url).callback }) }
              }
            }
          }
          var all: [(Int, CallbackError.Code?)] = []
          for await result in group { all.append(result) }
          return all
        }
        let attempts = 2 * attemptsPerInstance
        #expect(results.count == logins * attempts)
        var successes = Array(repeating: 0, count: logins)
        var others: [CallbackError.Code: Int] = [:]
        for (i, error) in results {
          if let error { others[error, default: 0] += 1 } else { successes[i] += 1 }
        }
        #expect(successes.allSatisfy { $0 == 1 })
        #expect(others == [.replayed: logins * (attempts - 1)])
        #expect(try await second.count == 0)
      }
    }
  }
}

@Suite struct DatabaseURLTests {
  @Test func urlsMakeConfigurations() throws {
    let c = try PostgresPendingAuthorizationStore.clientConfiguration(
      databaseURL: "postgresql://app%40x:p%3As@[::1]:6543/log%20ins?sslmode=disable")
    #expect(c.host == "::1" && c.port == 6543)
    #expect(c.username == "app@x" && c.password == "p:s" && c.database == "log ins")
    let d = try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: "postgres://u@db.example/app")
    #expect(d.port == 5432 && d.password == nil && d.database == "app")
  }

  /// Without `sslmode` the connection requires verified TLS: against the test server, which offers none, the
  /// store cannot connect (a silent downgrade to plaintext, libpq's `prefer`, happens only when asked for).
  @Test(.enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set"))
  func withoutSSLModeTLSIsRequired() async throws {
    let url = try #require(TestDatabase.url)
    let plain = String(url.prefix { $0 != "?" })
    let store = { (databaseURL: String) async throws -> PostgresStoreError.Code? in
      try await TestDatabase.withClient(try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: databaseURL)) {
        client in
        let store = PostgresPendingAuthorizationStore(client: client, secret: TestDatabase.secret, operationTimeout: .seconds(3))
        do {
          _ = try await store.count
          return nil
        } catch let error as PostgresStoreError {
          return error.code
        }
      }
    }
    #expect(try await store(plain) != nil)
    #expect(try await store(plain + "?sslmode=verify-full") != nil)
    #expect(try await store(plain + "?sslmode=prefer") == nil)
    #expect(try await store(plain + "?sslmode=disable") == nil)
  }

  @Test(arguments: [
    ("mysql://u@h/db", "scheme \"mysql\" is not postgres or postgresql"),
    ("postgres://h/db", "the database URL has no user name"),
    ("postgres://u@h/db?sslmode=allow", "sslmode \"allow\" is not disable, prefer, require or verify-full"),
    ("postgres://u:pw@[::1/db", "the database URL does not parse: invalid-ipv6 at byte 16"),
  ])
  func badURLsSayWhy(url: String, message: String) {
    let error = #expect(throws: DatabaseURLError.self) {
      _ = try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: url)
    }
    #expect(error?.message == message)
  }
}
