// One body at a time per key, in process: the lock of a session's refresh, logout and replacement when the
// sessions live in this process's memory (across instances, the driver's own lock: PostgresSessionDriver's).

import LinkParseBytes

/// Runs one body at a time for each key; later callers for that key wait, first come first served. A key
/// nobody holds costs nothing.
final class KeyedLock: Sendable {
  private let waiting = PThreadLocked<[String: [CheckedContinuation<Void, Never>]]>([:])

  init() {}

  /// `body`, once no other body holds `key`; the key is given back however `body` ends.
  func run<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
    await acquire(key)
    defer { release(key) }
    return try await body()
  }

  private func acquire(_ key: String) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let granted = waiting.withLock { waiting -> Bool in
        guard waiting[key] != nil else {
          waiting[key] = []  // held, nobody waiting
          return true
        }
        waiting[key]!.append(continuation)
        return false
      }
      if granted { continuation.resume() }
    }
  }

  private func release(_ key: String) {
    let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
      guard var queue = waiting[key], !queue.isEmpty else {
        waiting[key] = nil
        return nil
      }
      let next = queue.removeFirst()
      waiting[key] = queue
      return next
    }
    next?.resume()  // the key passes straight to the next caller
  }
}

/// A ``SessionRefreshLocking`` in this process: ``SessionRefresher``'s lock when its driver has none of its own.
final class ProcessSessionLock: SessionRefreshLocking {
  private let locks = KeyedLock()

  func withRefreshLock<T: Sendable>(for key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await locks.run(key, body)
  }
}
