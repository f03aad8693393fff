// What the thread `linkparse` may add to its own needs (BackgroundWriter: the writes), in POSIX terms: a mutex with one
// condition variable, and a thread started on a closure.
//
// Safe because: the mutex and the condition variable live in memory of their own, allocated and initialized once in
// `init`, never moved, destroyed and freed in `deinit`; `wait()` is called with the mutex held (the owners call it
// only inside `withLock`). `spawnThread` hands the closure to the new thread as a retained box, which the thread
// takes back (releases) when it starts; when no thread could be made the box is released at once.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX mutex and a condition variable: the state it guards belongs to the owner, who reads and writes it only
/// inside ``withLock(_:)``.
///
/// ```swift
/// let condition = Condition()
/// condition.withLock { while !ready { condition.wait() } }    // one thread
/// condition.withLock { ready = true; condition.broadcast() }  // another
/// ```
final class Condition: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let changed: UnsafeMutablePointer<pthread_cond_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    changed = .allocate(capacity: 1)
    changed.initialize(to: pthread_cond_t())
    var status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed (\(status))")
    status = pthread_cond_init(changed, nil)
    precondition(status == 0, "pthread_cond_init failed (\(status))")
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  /// Runs `body` holding the mutex.
  @inline(__always)
  func withLock<R>(_ body: () throws(Never) -> R) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// Releases the mutex until another thread calls ``broadcast()`` (or spuriously), then takes it again. Only
  /// inside ``withLock(_:)``, in a loop that tests what it waits for.
  @inline(__always)
  func wait() { pthread_cond_wait(changed, mutex) }

  /// Wakes every thread in ``wait()``. Inside ``withLock(_:)``.
  @inline(__always)
  func broadcast() { pthread_cond_broadcast(changed) }
}

/// A started thread, to join.
struct SpawnedThread {
  fileprivate let handle: pthread_t

  /// Waits until the thread's closure has returned.
  func join() { pthread_join(handle, nil) }
}

/// Starts a thread that runs `body`; `nil` when the system refuses one (the caller then does the work itself).
func spawnThread(_ body: @escaping @Sendable () -> Void) -> SpawnedThread? {
  final class Box: @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let context = Unmanaged.passRetained(Box(body)).toOpaque()
  #if canImport(Darwin)
  var handle: pthread_t? = nil
  #else
  var handle = pthread_t()
  #endif
  let status = pthread_create(&handle, nil, { argument in
    let context: UnsafeMutableRawPointer? = argument
    Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
    return nil
  }, context)
  guard status == 0 else {
    Unmanaged<Box>.fromOpaque(context).release()
    return nil
  }
  #if canImport(Darwin)
  return handle.map(SpawnedThread.init(handle:))
  #else
  return SpawnedThread(handle: handle)
  #endif
}
