// One database operation within a time limit, its errors made safe to show: what the pending-authorization
// store and the session driver share.

import LinkParseBytes
import Logging
package import PostgresNIO

package enum PostgresOperation {
  /// Runs `body` on `client` within `timeout`; any error becomes a ``PostgresStoreError`` (`store-timed-out`,
  /// or `store-unavailable` with the error's kind, never its message), logged as `failure` at warning level.
  ///
  /// The time limit holds even when `body` does not stop on cancellation (a connection being set up through
  /// a network that went silent can take longer than asked): at the limit this returns, and `body`'s task is
  /// cancelled and left to end on its own.
  @discardableResult
  package static func run<T: Sendable>(
    on client: PostgresClient, within timeout: Duration, logger: Logger, failure: Logger.Message,
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    switch await race(timeout, { try await body(client, logger) }) {
    case .none:
      throw PostgresStoreError(.timedOut, "timed out")
    case .some(.success(let value)):
      return value
    case .some(.failure(let error as PostgresStoreError)):
      throw error
    case .some(.failure(let error)):
      logger.warning(failure, metadata: ["error": "\(String(reflecting: error))"])
      throw PostgresStoreError(.unavailable, kind(of: error))
    }
  }

  /// `body`'s result, or `nil` when `timeout` passes first; a cancelled caller gets `CancellationError` at
  /// once. Either way `body`'s task is cancelled (not awaited) once this returns.
  package static func race<T: Sendable>(
    _ timeout: Duration, _ body: @escaping @Sendable () async throws -> T
  ) async -> Result<T, any Error>? {
    let finish = FirstResult<Result<T, any Error>?>()
    let work = Task {
      do { finish.resolve(.success(try await body())) } catch { finish.resolve(.failure(error)) }
    }
    let timer = Task {
      try? await Task.sleep(for: timeout)
      finish.resolve(nil)
    }
    let outcome = await withTaskCancellationHandler {
      await finish.value()
    } onCancel: {
      finish.resolve(.failure(CancellationError()))
    }
    work.cancel()
    timer.cancel()
    return outcome
  }

  /// `body`, unless it has not started its real work within `timeout`: `body` calls `started()` once it has
  /// what it waited for (a connection, a lock) and goes on only if that returns `true`; after `timeout` without
  /// it, the answer is `nil` at once (and `started()` then returns `false`). Work that has started runs for as
  /// long as it takes. Cancelling the caller answers `CancellationError`.
  package static func raceUntilStarted<T: Sendable>(
    _ timeout: Duration, _ body: @escaping @Sendable (_ started: @escaping @Sendable () -> Bool) async throws -> T
  ) async -> Result<T, any Error>? {
    let finish = FirstResult<Result<T, any Error>?>()
    // 0: waiting, 1: started, 2: too late.
    let phase = PThreadLocked(0)
    let started: @Sendable () -> Bool = {
      phase.withLock { phase in
        if phase == 0 { phase = 1 }
        return phase == 1
      }
    }
    let work = Task {
      do { finish.resolve(.success(try await body(started))) } catch { finish.resolve(.failure(error)) }
    }
    let timer = Task {
      try? await Task.sleep(for: timeout)
      let late = phase.withLock { phase in
        if phase == 0 { phase = 2 }
        return phase == 2
      }
      if late { finish.resolve(nil) }
    }
    let outcome = await withTaskCancellationHandler {
      await finish.value()
    } onCancel: {
      finish.resolve(.failure(CancellationError()))
    }
    timer.cancel()
    if case .success = outcome {} else { work.cancel() }
    return outcome
  }

  /// Runs `statements` in one transaction under the advisory lock `lock` (so that instances starting at once
  /// do not race on the catalog: `CREATE … IF NOT EXISTS` can), within `timeout`.
  package static func migrate(
    on client: PostgresClient, within timeout: Duration, logger: Logger, lock: Int64, _ statements: [PostgresQuery]
  ) async throws(PostgresStoreError) {
    try await run(on: client, within: timeout, logger: logger, failure: "migration failed") { client, logger in
      try await withAdvisoryLock(lock, on: client, logger: logger) { c in
        for statement in statements { try await c.query(statement, logger: logger) }
      }
    }
  }

  /// Runs `body` in a transaction that holds the advisory lock `lock` (transaction-level: released when `body`
  /// ends, however it ends, or when the connection drops); `body` gets the transaction's connection.
  package static func withAdvisoryLock<T: Sendable>(
    _ lock: Int64, on client: PostgresClient, logger: Logger,
    _ body: @escaping @Sendable (PostgresConnection) async throws -> T
  ) async throws -> T {
    try await client.withConnection { connection in
      try await connection.withTransaction(logger: logger) { c in
        try await c.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
        return try await body(c)
      }
    }
  }

  /// The kind of a database error, safe to show (never its message, which may quote a query's values).
  package static func kind(of error: any Error) -> String {
    if let error = error as? PSQLError { return "database error: \(error.code)" }
    if error is PostgresTransactionError { return "database transaction failed" }
    if error is CancellationError { return "cancelled" }
    return "database error"
  }
}

/// When a sweep of expired rows is due, for one store on one instance: the first write at or after that time
/// runs it, and the next is due `interval` later.
package final class SweepSchedule: Sendable {
  private let next = PThreadLocked<Int64>(0)

  package init() {}

  /// Whether a sweep is due at `now`; when it is, the next one is due at `now + interval` (same unit).
  package func claim(now: Int64, interval: Int64) -> Bool {
    next.withLock { next in
      guard now >= next else { return false }
      next = now + interval
      return true
    }
  }
}

/// The first of several values offered (`resolve`), handed to the one waiter (`value()`), whichever comes first.
private final class FirstResult<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var resolved = false
    var waiter: CheckedContinuation<Value, Never>?
  }

  private let state = PThreadLocked(State())

  /// Offers `value`: the first offer wins, later ones are dropped.
  func resolve(_ value: Value) {
    let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
      guard !state.resolved else { return nil }
      state.resolved = true
      guard let waiter = state.waiter else {
        state.value = value
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: value)
  }

  /// The first value offered, when there is one.
  func value() async -> Value {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Ready in
        guard state.resolved, let value = state.value else {
          state.waiter = continuation
          return .waiting
        }
        return .now(value)
      }
      if case .now(let value) = ready { continuation.resume(returning: value) }
    }
  }

  private enum Ready {
    case waiting
    case now(Value)
  }
}
