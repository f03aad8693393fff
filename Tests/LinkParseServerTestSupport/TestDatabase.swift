// The PostgreSQL server the tests use: LINKPARSE_TEST_DATABASE_URL, which `make test` sets after
// `.ci/postgres.sh start`. Without it the database tests are skipped, unless CI is set.

import Foundation
import LinkParseCore
import LinkParsePostgres
public import PostgresNIO

/// The test database, from LINKPARSE_TEST_DATABASE_URL (`postgres://user[:password]@host:port/database`).
public enum TestDatabase {
  /// The URL, or `nil` when the variable is unset or empty.
  public static let url: String? = ProcessInfo.processInfo.environment["LINKPARSE_TEST_DATABASE_URL"].flatMap {
    $0.isEmpty ? nil : $0
  }
  /// Whether CI is set: then a missing database fails instead of skipping.
  public static let isCI = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty

  /// The message a skipped database test prints or, under CI, records as a failure.
  public static let missingMessage =
    "LINKPARSE_TEST_DATABASE_URL is not set: the PostgreSQL tests are SKIPPED (run `make test`, which starts "
    + "PostgreSQL with .ci/postgres.sh, or `.ci/postgres.sh start` and export "
    + "LINKPARSE_TEST_DATABASE_URL=$(.ci/postgres.sh url))"

  /// No LINKPARSE_TEST_DATABASE_URL.
  public struct NotConfigured: Error {}

  /// A client configuration for the test server; `database` and `port` replace the URL's.
  public static func configuration(
    database override: String? = nil, port: Int? = nil, maximumConnections: Int = 8
  ) throws -> PostgresClient.Configuration {
    guard let url else { throw NotConfigured() }
    var configuration = try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: url)
    if let override { configuration.database = override }
    if let port {
      configuration = PostgresClient.Configuration(
        host: configuration.host ?? "127.0.0.1", port: port, username: configuration.username,
        password: configuration.password, database: configuration.database, tls: .disable)
    }
    configuration.options.maximumConnections = maximumConnections
    return configuration
  }

  /// The server's port (from the URL).
  public static func port() throws -> Int {
    guard let url else { throw NotConfigured() }
    return Int(try ParsedURL(url).port ?? 5432)
  }

  /// Runs `body` with a client on `configuration` that runs meanwhile (cancelled afterwards).
  public static func withClient<R: Sendable>(
    _ configuration: PostgresClient.Configuration, _ body: (PostgresClient) async throws -> R
  ) async throws -> R {
    let client = PostgresClient(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      defer { group.cancelAll() }
      return try await body(client)
    }
  }

  /// Creates database `name` on the test server unless it exists, so that test targets running at the same
  /// time do not empty each other's tables. `.ci/postgres.sh start` creates the test suites' databases up
  /// front; this covers a server started otherwise. Two `CREATE DATABASE` at once can refuse each other
  /// (template1 in use): retried for a few seconds.
  public static func ensureDatabase(_ name: String) async throws {
    try await withClient(try configuration(maximumConnections: 1)) { client in
      for attempt in 1...50 {
        let rows = try await client.query("SELECT 1 FROM pg_database WHERE datname = \(name)")
        var exists = false
        for try await _ in rows { exists = true }
        guard !exists else { return }
        do {
          try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""))
          return
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P04" {
          return  // duplicate_database: created meanwhile by another test.
        } catch where attempt < 50 {
          try await Task.sleep(for: .milliseconds(100))
        }
      }
    }
  }
}
