// Blocking work (socket calls, a fuzz property that waits on async work) kept off Swift's cooperative pool.

import Foundation

/// Runs `body` on a thread of its own and returns its result without blocking a thread of the cooperative
/// pool: on a 2-core machine the pool has two threads, and a test that blocks one while another test blocks
/// the other stalls every `await` of the process (a server's timers included) until one of them returns.
///
/// ```swift
/// let answer = try await onOwnThread { try blockingExchange(port: port) }
/// ```
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}

/// ``onOwnThread(_:)`` for work that cannot throw.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
