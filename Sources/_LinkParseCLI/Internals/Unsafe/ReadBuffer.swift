// The line splitter's read buffer: owned storage that a byte source fills and lines are sliced from.
//
// Safe because: `storage` holds `capacity` bytes, allocated in `init` or `grown` (which copies the first
// `keeping` bytes and frees the old block; the owner replaces its buffer with the result) and freed by
// `release()`, which the owner calls once, from its `deinit`. (A copyable value, not a non-copyable one with
// a `deinit`: stored in a class, a non-copyable field costs a dynamic exclusivity check per access.) The owner passes indices and ranges inside the bytes it has read,
// `0 <= i <= j <= capacity` (`LineSplitter` keeps `0 <= start <= scanFrom <= end <= capacity`), asserted
// in debug builds; `read` fills only `storage[offset..<capacity]`; slices handed out are valid until the
// next `read`, `grown`, `moveToFront` or `release`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable block of bytes read from a ``ByteSource``, addressed by index.
struct ReadBuffer {
  private let storage: UnsafeMutablePointer<UInt8>
  /// The size of the buffer, in bytes.
  let capacity: Int

  /// A buffer of `capacity` bytes, none read yet; free it with ``release()``.
  init(capacity: Int) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
  }

  /// Frees the storage. Called once; the buffer is not used afterwards.
  func release() { storage.deallocate() }

  /// The byte at `index` (one that was read).
  @inline(__always)
  subscript(index: Int) -> UInt8 {
    assert(index >= 0 && index < capacity, "ReadBuffer index out of range")
    return storage[index]
  }

  /// The index of the first `byte` in `start..<end`, or `nil`.
  @inline(__always)
  func firstIndex(of byte: UInt8, from start: Int, to end: Int) -> Int? {
    assert(0 <= start && start <= end && end <= capacity, "ReadBuffer range out of bounds")
    guard let found = memchr(storage + start, Int32(byte), end &- start) else { return nil }
    return storage.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }

  /// The bytes `start..<start + count`, valid until the buffer next changes.
  @inline(__always)
  func bytes(from start: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
    assert(0 <= start && count >= 0 && start &+ count <= capacity, "ReadBuffer range out of bounds")
    return UnsafeBufferPointer(start: storage + start, count: count)
  }

  /// Moves the `count` bytes at `start` to the front.
  func moveToFront(from start: Int, count: Int) {
    assert(0 <= start && count >= 0 && start &+ count <= capacity, "ReadBuffer range out of bounds")
    if count > 0 { memmove(storage, storage + start, count) }
  }

  /// A buffer of `newCapacity` bytes holding the first `keeping` bytes of this one, which is freed: use
  /// only the result from then on.
  func grown(to newCapacity: Int, keeping: Int) -> ReadBuffer {
    assert(keeping <= capacity && keeping <= newCapacity, "ReadBuffer.grown loses bytes")
    let grown = ReadBuffer(capacity: newCapacity)
    grown.storage.update(from: storage, count: keeping)
    release()
    return grown
  }

  /// Reads from `source` into `offset..<capacity` and returns how many bytes came (`0` at the end).
  @inline(__always)
  func read(from source: any ByteSource, at offset: Int) throws(IOError) -> Int {
    assert(0 <= offset && offset <= capacity, "ReadBuffer offset out of bounds")
    return try source.read(into: UnsafeMutableRawBufferPointer(start: storage + offset, count: capacity &- offset))
  }
}

extension ByteSource {
  /// Reads to the end of the input, `chunkSize` bytes at a time, and returns every byte.
  func readAll(chunkSize: Int = 65_536) throws(IOError) -> [UInt8] {
    let chunk = ReadBuffer(capacity: chunkSize)
    defer { chunk.release() }
    var bytes: [UInt8] = []
    while true {
      let n = try chunk.read(from: self, at: 0)
      if n == 0 { return bytes }
      bytes += chunk.bytes(from: 0, count: n)
    }
  }
}
