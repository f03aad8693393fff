// At most N bodies at once; the others wait their turn in order (an async semaphore).

import LinkParseBytes

/// Runs at most `limit` bodies at once; later callers wait, first come first served.
final class AsyncLimiter: Sendable {
  private struct State {
    var available: Int
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state: PThreadLocked<State>

  init(_ limit: Int) { state = PThreadLocked(State(available: limit)) }

  /// `body`, once a place is free; the place is given back however `body` ends.
  func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    await acquire()
    defer { release() }
    return try await body()
  }

  private func acquire() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let granted = state.withLock { state -> Bool in
        if state.available > 0 {
          state.available -= 1
          return true
        }
        state.waiting.append(continuation)
        return false
      }
      if granted { continuation.resume() }
    }
  }

  private func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.waiting.isEmpty {
        state.available += 1
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()  // the place passes straight to the next caller
  }
}
