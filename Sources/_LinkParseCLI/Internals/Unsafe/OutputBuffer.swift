// The JSON writer's output buffer: an owned block of bytes filled from the front and emptied all at once.
//
// Safe because: `storage` holds `capacity` bytes, allocated zeroed by `allocateBlock` (`calloc`: every byte is
// initialized, and the kernel's zero pages are not written twice; in `init`, or by a `BackgroundWriter` for the block
// `exchange` puts in its place, which the caller gives up) and freed once with `deallocateBlock` in `deinit` (the type
// is non-copyable: nothing else frees it or keeps it; a block `exchange` hands out is its receiver's to free);
// `0 <= count <= capacity` always. Every store is to `storage[count ..< count + n]` with `n <= free`: checked here by
// `append(_:)` for buffers, `appendPrefix(_:)` and `appendQuoted(_:after:checked:)` (which writes its prefix,
// quotes and string, `p + n + 2` bytes, only after testing that they fit); the single-byte
// `append(byte:)` requires the caller to have made room (`JSONWriter.reserve`), asserted in debug builds.
// `appendQuoted(_:after:checked:)` also keeps 16 bytes free after the string, because `Scan.hasJSONEscapable`
// reads whole blocks of sixteen (up to fifteen bytes past the string): those bytes are inside `storage`
// and initialized. Source buffers are only read within their own `count`.
//
// A `RecordCursor` stores without testing the free space: `cursor(reserving:)` makes one only when `bound`
// bytes are free and gives it `storage + count + bound` as its limit, the caller writes at most `bound`
// bytes through it (its writer's bound says why) and nothing else into the buffer until `commit(_:)`, which
// checks that the cursor stayed within the limit before counting its bytes. Its escape check reads up to
// fifteen bytes past a string, which the bound includes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LinkParseBytes

/// `free(3)`, by another name: inside `OutputBuffer`, `free` is the room left.
private func releaseBlock(_ block: UnsafeMutableRawPointer) { free(block) }

/// The bytes a ``JSONWriter`` produced and has not yet handed to its sink.
struct OutputBuffer: ~Copyable {
  /// The size of the buffer, in bytes.
  let capacity: Int
  /// The number of bytes written so far.
  private(set) var count = 0
  private var storage: UnsafeMutablePointer<UInt8>

  /// An empty buffer of `capacity` bytes (at least 16).
  init(capacity: Int) {
    precondition(capacity >= 16, "capacity must be at least 16 bytes")
    self.capacity = capacity
    storage = Self.allocateBlock(capacity: capacity)
  }

  deinit { Self.deallocateBlock(storage) }

  /// A block for a buffer of `capacity` bytes, every byte initialized (to zero), so that the escape check's block
  /// reads past a string's end never see uninitialized memory. `calloc`: a large block comes zeroed from the kernel
  /// and is not written until used (writing 3 MiB of zeros cost a threaded `linkparse` 3.2 M instructions at start).
  /// Free it with ``deallocateBlock(_:)``.
  static func allocateBlock(capacity: Int) -> UnsafeMutablePointer<UInt8> {
    guard let raw = calloc(capacity, 1) else { fatalError("out of memory: an output block of \(capacity) bytes") }
    return raw.bindMemory(to: UInt8.self, capacity: capacity)
  }

  /// Frees a block from ``allocateBlock(capacity:)``.
  static func deallocateBlock(_ block: UnsafeMutablePointer<UInt8>) { releaseBlock(block) }

  /// Gives up its block with the bytes written (the caller owns it now) and goes on, empty, in `replacement`: a
  /// block from ``allocateBlock(capacity:)`` of this buffer's `capacity` that nothing else uses.
  mutating func exchange(
    _ replacement: UnsafeMutablePointer<UInt8>
  ) -> (block: UnsafeMutablePointer<UInt8>, count: Int) {
    defer {
      storage = replacement
      count = 0
    }
    return (storage, count)
  }

  /// The room left, in bytes.
  @inline(__always)
  var free: Int { capacity &- count }

  /// The bytes written so far; valid until the next change to the buffer.
  @inline(__always)
  var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

  /// Forgets the bytes written (after they were handed on).
  @inline(__always)
  mutating func removeAll() { count = 0 }

  /// Appends one byte. The caller has made room for it (`free >= 1`).
  @inline(__always)
  mutating func append(byte value: UInt8) {
    assert(count < capacity, "OutputBuffer.append(byte:) without room")
    storage[count] = value
    count &+= 1
  }

  /// Appends all of `bytes` and returns `true` if they fit in the free space; else (or when `bytes` has no
  /// base address, which means it is empty) writes nothing and returns `false`.
  @inline(__always)
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if let source = bytes.baseAddress, capacity &- count >= bytes.count {
      Self.copy(storage + count, source, bytes.count)
      count &+= bytes.count
      return true
    }
    return false
  }

  /// Appends as many of `bytes` as fit (all of them, or until the buffer is full) and returns how many.
  mutating func appendPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    guard let source = bytes.baseAddress else { return 0 }
    let piece = min(bytes.count, capacity &- count)
    (storage + count).update(from: source, count: piece)
    count &+= piece
    return piece
  }

  /// Appends `prefix` (fixed text such as a record's key run), then `utf8` between two `"`, and returns `true`
  /// if they fit (with the 16 bytes of slack the check needs when `checked`) and, when `checked`, `utf8` holds
  /// no byte a JSON string must escape (below 0x20, `"`, `\`); else leaves the buffer as it was and returns
  /// `false`. One test of the free space for the whole member; the copy is what is checked, sixteen bytes at
  /// a time.
  @inline(__always)
  mutating func appendQuoted(
    _ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8> = .empty, checked: Bool
  ) -> Bool {
    let n = utf8.count, p = prefix.count
    guard let source = utf8.baseAddress, capacity &- count >= p &+ n &+ (checked ? 18 : 2) else { return false }
    var start = storage + count
    if let prefixStart = prefix.baseAddress {
      Self.copy(start, prefixStart, p)
      start += p
    }
    start.pointee = 0x22
    Self.copy(start + 1, source, n)
    if checked && Scan.hasJSONEscapable(start + 1, n) { return false }
    start[n &+ 1] = 0x22
    count &+= p &+ n &+ 2
    return true
  }

  /// A cursor over the next `bound` free bytes, or `nil` when fewer are free. Nothing else may write to the
  /// buffer until the cursor is committed.
  @inline(__always)
  func cursor(reserving bound: Int) -> RecordCursor? {
    guard capacity &- count >= bound else { return nil }
    return RecordCursor(storage + count, limit: storage + count + bound)
  }

  /// Keeps the bytes written through `cursor`, made by ``cursor(reserving:)`` since the last change.
  @inline(__always)
  mutating func commit(_ cursor: RecordCursor) {
    precondition(cursor.position <= cursor.limit, "a record outgrew the bytes reserved for it")
    count = cursor.position - storage
  }

  /// Copies `n` bytes (non-overlapping). Most pieces of a record are short (keys, components, values), and
  /// for them a libc `memcpy` call costs more than the copy: up to 32 bytes are copied inline as two
  /// possibly overlapping loads and stores that never read or write outside either range.
  @inline(__always)
  fileprivate static func copy(_ destination: UnsafeMutablePointer<UInt8>, _ source: UnsafePointer<UInt8>, _ n: Int) {
    let to = UnsafeMutableRawPointer(destination)
    let from = UnsafeRawPointer(source)
    if n >= 16 {
      guard n <= 32 else { return destination.update(from: source, count: n) }
      let head = from.loadUnaligned(as: SIMD16<UInt8>.self)
      let tail = from.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self)
      to.storeBytes(of: head, as: SIMD16<UInt8>.self)
      to.storeBytes(of: tail, toByteOffset: n &- 16, as: SIMD16<UInt8>.self)
    } else if n >= 8 {
      let head = from.loadUnaligned(as: UInt64.self)
      let tail = from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
      to.storeBytes(of: head, as: UInt64.self)
      to.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
    } else if n >= 4 {
      let head = from.loadUnaligned(as: UInt32.self)
      let tail = from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
      to.storeBytes(of: head, as: UInt32.self)
      to.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
    } else if n > 0 {
      // 1 to 3 bytes: the first, the middle and the last (some the same).
      destination[0] = source[0]
      destination[n >> 1] = source[n >> 1]
      destination[n &- 1] = source[n &- 1]
    }
  }
}

/// Writes JSON text into space of an ``OutputBuffer`` reserved for it (``OutputBuffer/cursor(reserving:)``):
/// plain stores through a pointer kept in a register, with no test of the free space. Its writer has
/// reserved as much as the text can take.
struct RecordCursor: JSONOutput {
  /// Where the next byte goes.
  private(set) var position: UnsafeMutablePointer<UInt8>
  /// The end of the reserved space.
  let limit: UnsafeMutablePointer<UInt8>

  fileprivate init(_ position: UnsafeMutablePointer<UInt8>, limit: UnsafeMutablePointer<UInt8>) {
    self.position = position
    self.limit = limit
  }

  @inline(__always)
  mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    OutputBuffer.copy(position, source, bytes.count)
    position += bytes.count
  }

  @inline(__always)
  mutating func quotedVerbatim(_ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8>) {
    raw(prefix)
    position.pointee = 0x22
    position += 1
    raw(utf8)
    position.pointee = 0x22
    position += 1
  }

  /// Copies the string and checks the copy, sixteen bytes at a time (up to fifteen past it: inside the
  /// reservation); writes it again escaped, from its source, when it holds a byte to escape.
  @inline(__always)
  mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8>) {
    raw(prefix)
    position.pointee = 0x22
    position += 1
    let start = position
    raw(utf8)
    if Scan.hasJSONEscapable(start, utf8.count) { rewriteEscaped(utf8, at: start) }
    position.pointee = 0x22
    position += 1
  }

  /// Writes `utf8` escaped at `start`, over its unescaped copy. Out of line: rare, and inlined it made every
  /// string's writer too large to be inlined in turn.
  @inline(never)
  private mutating func rewriteEscaped(_ utf8: UnsafeBufferPointer<UInt8>, at start: UnsafeMutablePointer<UInt8>) {
    position = start
    JSONText.forEachEscapedPiece(utf8) { raw($0) }
  }

  mutating func integer(_ value: Int) { DecimalDigits.with(value) { raw($0) } }

  mutating func null() { raw(StaticString("null").bytes) }

  mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { quoted($0, after: .empty) }
  }
}
