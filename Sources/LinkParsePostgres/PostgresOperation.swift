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
