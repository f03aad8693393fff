// A POSIX mutex with the value it guards.
//
// Safe because: the mutex lives in memory of its own, allocated and initialized once in `init`, never moved,
// and destroyed and freed in `deinit`, after which nothing can reach it; `value` is read or written only
// between lock and unlock, in `withLock`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a POSIX mutex: the small lock ``PendingAuthorizationStore`` uses instead of
/// `Synchronization.Mutex` (iOS 18 / macOS 15 and later only), so that the store has no OS-version floor.
///
/// The `pthread_mutex_t` lives in memory of its own, allocated once and never moved (a mutex must not be
/// copied or moved once initialized, which a stored property of a class does not promise), and is destroyed
/// with the object. `@unchecked Sendable`: `value` is only read or written between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` on that mutex, in ``withLock(_:)``, which is the only access.
///
/// ```swift
/// let counter = PThreadLocked(0)
/// counter.withLock { $0 += 1 }
/// ```
package final class PThreadLocked<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  package init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed (\(status))")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the value while holding the lock.
  package func withLock<R>(_ body: (inout Value) -> R) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body(&value)
  }
}
