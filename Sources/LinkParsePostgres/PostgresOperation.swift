// One database operation within a time limit, its errors made safe to show: what the pending-authorization
// store and the session driver share.

import Logging
package import PostgresNIO

package enum PostgresOperation {
  /// Runs `body` on `client` within `timeout`; any error becomes a ``PostgresStoreError`` (`store-timed-out`,
  /// or `store-unavailable` with the error's kind, never its message), logged as `failure` at warning level.
  @discardableResult
  package static func run<T: Sendable>(
    on client: PostgresClient, within timeout: Duration, logger: Logger, failure: Logger.Message,
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    do {
      return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
        group.addTask { .value(try await body(client, logger)) }
        group.addTask {
          try await Task.sleep(for: timeout)
          return .timedOut
        }
        defer { group.cancelAll() }
        guard case .value(let value)? = try await group.next() else {
          throw PostgresStoreError(.timedOut, "timed out")
        }
        return value
      }
    } catch let error as PostgresStoreError {
      throw error
    } catch {
      logger.warning(failure, metadata: ["error": "\(String(reflecting: error))"])
      throw PostgresStoreError(.unavailable, kind(of: error))
    }
  }

  /// Runs `statements` in one transaction under the advisory lock `lock` (so that instances starting at once
  /// do not race on the catalog: `CREATE … IF NOT EXISTS` can), within `timeout`.
  package static func migrate(
    on client: PostgresClient, within timeout: Duration, logger: Logger, lock: Int64, _ statements: [PostgresQuery]
  ) async throws(PostgresStoreError) {
    try await run(on: client, within: timeout, logger: logger, failure: "migration failed") { client, logger in
      try await client.withConnection { connection in
        try await connection.withTransaction(logger: logger) { c in
          try await c.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
          for statement in statements { try await c.query(statement, logger: logger) }
        }
      }
    }
  }

  /// Runs `body` while holding the transaction-level advisory lock `lock` on a connection of `client`: released
  /// when `body` ends, however it ends, or when the connection drops.
  package static func withAdvisoryLock<T: Sendable>(
    _ lock: Int64, on client: PostgresClient, logger: Logger, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    try await client.withConnection { connection in
      try await connection.withTransaction(logger: logger) { c in
        try await c.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
        return try await body()
      }
    }
  }

  private enum Outcome<T: Sendable>: Sendable {
    case value(T)
    case timedOut
  }

  /// The kind of a database error, safe to show (never its message, which may quote a query's values).
  package static func kind(of error: any Error) -> String {
    if let error = error as? PSQLError { return "database error: \(error.code)" }
    if error is PostgresTransactionError { return "database transaction failed" }
    if error is CancellationError { return "cancelled" }
    return "database error"
  }
}
