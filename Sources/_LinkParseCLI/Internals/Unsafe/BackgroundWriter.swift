// The JSON writers' spare blocks and the thread that writes full ones: `linkparse` fills a block while earlier ones
// are written, so that the work of `write(2)` into a pipe (the kernel's copy, about a third of the tool's time behind
// a pipe) runs on the other core instead of between records.
//
// Safe because: every block is `capacity` bytes from `OutputBuffer.allocateBlock` (zeroed; freed with
// `deallocateBlock`), and at any time it is in exactly one place: a writer's `OutputBuffer` (its owner fills it),
// `queue` (handed over, not yet written), the thread's hands (being written; `writing` is set) or `free`. `queue`,
// `free`, `writing`, `stopping` and `failure` are read and written only under `condition`'s mutex. A block moves from
// an `OutputBuffer` to `queue` and takes a block from `free` in one step under the mutex (`handOver`); the thread takes
// the oldest block out of `queue`, writes it without the lock (nothing else touches a block in its hands) and puts it
// in `free` under the lock. `finish()` waits until `queue` is empty and nothing is being written, then stops and joins
// the thread; `deinit` requires that (or that no thread was made), so no thread outlives the object or the sink it
// writes to, and frees the blocks in `free` — all of its own by then.

/// Writes blocks of ``OutputBuffer``s to a ``ByteSink`` on a thread of its own, in the order they are handed over,
/// while the callers fill the next ones.
///
/// ```swift
/// let writer = BackgroundWriter(sink: sink, capacity: buffer.capacity)
/// writer.handOver(&buffer)   // `buffer` continues in an empty spare block; its bytes are being written
/// writer.finish()            // every block written, the thread ended; the sink's first error, if any
/// ```
final class BackgroundWriter: @unchecked Sendable {
  /// The size of every block, in bytes.
  let capacity: Int
  private let sink: any ByteSink
  private let condition = Condition()
  /// Under the mutex: blocks handed over and not yet taken by the thread, oldest first, with their byte counts.
  private var queue: [(block: UnsafeMutablePointer<UInt8>, count: Int)] = []
  /// Under the mutex: blocks free to fill.
  private var free: [UnsafeMutablePointer<UInt8>] = []
  /// Under the mutex: the thread holds a block it is writing.
  private var writing = false
  /// Under the mutex: the thread is to end once `queue` is empty.
  private var stopping = false
  /// Under the mutex: the sink's first error; blocks handed over after it are not written.
  private var failure: IOError?
  /// The writing thread; `nil` when none could be made (then ``handOver(_:)`` writes itself).
  private var thread: SpawnedThread?
  /// `finish()` has run.
  private var finished = false

  /// A writer with `spares` empty blocks of `capacity` bytes (at least one), and its thread.
  init(sink: any ByteSink, capacity: Int, spares: Int = 2) {
    precondition(spares >= 1, "a background writer needs a spare block")
    self.sink = sink
    self.capacity = capacity
    free = (0..<spares).map { _ in OutputBuffer.allocateBlock(capacity: capacity) }
    thread = spawnThread { [self] in run() }
  }

  deinit {
    precondition(finished || thread == nil, "BackgroundWriter released before finish()")
    for block in free { OutputBuffer.deallocateBlock(block) }
    for (block, _) in queue { OutputBuffer.deallocateBlock(block) }
  }

  /// Queues `buffer`'s bytes to be written after those handed over before, and gives `buffer` an empty spare
  /// block to go on in (waiting while every spare is still queued or being written). Once a write failed,
  /// returns the sink's first error instead and empties `buffer`. `buffer` must have this writer's `capacity`.
  func handOver(_ buffer: inout OutputBuffer) -> IOError? {
    precondition(buffer.capacity == capacity, "a block of another size handed to a background writer")
    guard buffer.count > 0 else { return nil }
    guard thread != nil else {
      defer { buffer.removeAll() }
      if failure == nil {
        do throws(IOError) { try sink.write(buffer.written) } catch { failure = error }
      }
      return failure
    }
    return condition.withLock {
      while free.isEmpty && failure == nil { condition.wait() }
      if let failure {
        buffer.removeAll()
        return failure
      }
      let full = buffer.exchange(free.removeLast())
      queue.append(full)
      condition.broadcast()
      return nil
    }
  }

  /// Waits until every block handed over is written, ends the thread and returns the sink's first error. Nothing
  /// may be handed over after it.
  func finish() -> IOError? {
    guard !finished else { return failure }
    finished = true
    guard let thread else { return failure }
    let result = condition.withLock {
      while !queue.isEmpty || writing { condition.wait() }
      stopping = true
      condition.broadcast()
      return failure
    }
    thread.join()
    return result
  }

  /// The thread: writes each block handed over, oldest first, until `finish()`.
  private func run() {
    while true {
      let (taken, skip): ((block: UnsafeMutablePointer<UInt8>, count: Int)?, Bool) = condition.withLock {
        while queue.isEmpty && !stopping { condition.wait() }
        if queue.isEmpty { return (nil, true) }
        writing = true
        return (queue.removeFirst(), failure != nil)
      }
      guard let (block, count) = taken else { return }
      var writeError: IOError?
      if !skip {
        do throws(IOError) {
          try sink.write(UnsafeRawBufferPointer(start: block, count: count))
        } catch {
          writeError = error
        }
      }
      condition.withLock {
        if failure == nil { failure = writeError }
        free.append(block)
        writing = false
        condition.broadcast()
      }
    }
  }
}
