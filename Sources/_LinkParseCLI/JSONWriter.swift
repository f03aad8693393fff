import LinkParse
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes JSON text into a reusable byte buffer and hands it to a ``ByteSink`` in large blocks.
///
/// Strings are escaped so the output is always valid JSON: `"` and `\` get a backslash, control characters
/// below U+0020 become `\b` `\t` `\n` `\f` `\r` or `\u00XX`, and every other byte is copied. The input is a
/// Swift string, so it is valid UTF-8 and so is the output.
///
/// Writing never throws: the first failure of the sink is kept in ``error`` and later output is dropped, so
/// the hot path stays free of error plumbing. Check ``error`` after ``flush()``.
///
/// It is a non-copyable struct rather than a class so that its state is checked for exclusive access at
/// compile time: as a class, every write paid for a dynamic `swift_beginAccess`.
///
/// ```swift
/// let sink = MemoryByteSink()
/// var json = JSONWriter(sink: sink)
/// json.raw("{\"a\":")
/// json.string("x\"y\n")
/// json.raw("}\n")
/// json.flush()
/// sink.text  // {"a":"x\"y\n"}
/// ```
package struct JSONWriter: ~Copyable {
  /// The default buffer size: 256 KiB.
  package static let defaultCapacity = 256 * 1024

  /// The first error the sink reported, if any.
  package private(set) var error: IOError?

  private let sink: any ByteSink
  private let buffer: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  private var count = 0

  /// Writes to `sink`, flushing every `capacity` bytes (at least 16).
  package init(sink: any ByteSink, capacity: Int = JSONWriter.defaultCapacity) {
    precondition(capacity >= 16, "capacity must be at least 16 bytes")
    self.sink = sink
    self.capacity = capacity
    self.buffer = .allocate(capacity: capacity)
    // Initialized once, so that `quoted`'s block reads past a string's end never see uninitialized memory.
    self.buffer.initialize(repeating: 0, count: capacity)
  }

  deinit { buffer.deallocate() }

  /// Hands the buffered bytes to the sink.
  package mutating func flush() {
    defer { count = 0 }
    guard count > 0, error == nil else { return }
    do {
      try sink.write(UnsafeRawBufferPointer(start: buffer, count: count))
    } catch {
      self.error = error
    }
  }

  /// Makes room for `needed` bytes (at most 16).
  @inline(__always)
  private mutating func reserve(_ needed: Int) {
    if capacity &- count < needed { flush() }
  }

  /// Appends bytes as they are, in pieces when they exceed the free space.
  @inline(__always)
  package mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
    if let source = bytes.baseAddress, capacity &- count >= bytes.count {
      Self.copy(buffer + count, source, bytes.count)
      count &+= bytes.count
    } else {
      rawInPieces(bytes)
    }
  }

  /// Copies `n` bytes (non-overlapping). Most pieces of a record are short (keys, components, values), and
  /// for them a libc `memcpy` call costs more than the copy: up to 32 bytes are copied inline as two
  /// possibly overlapping loads and stores that never read or write outside either range.
  @inline(__always)
  static func copy(_ destination: UnsafeMutablePointer<UInt8>, _ source: UnsafePointer<UInt8>, _ n: Int) {
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

  /// The slow path of ``raw(_:)-(UnsafeBufferPointer<UInt8>)``: flushes as often as needed.
  private mutating func rawInPieces(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
      if count == capacity { flush() }
      let piece = min(remaining, capacity &- count)
      (buffer + count).update(from: next, count: piece)
      count &+= piece
      next += piece
      remaining &-= piece
    }
  }

  /// Appends literal JSON text, such as `,"ok":true`.
  @inline(__always)
  package mutating func raw(_ text: StaticString) {
    raw(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends one byte.
  @inline(__always)
  package mutating func byte(_ value: UInt8) {
    reserve(1)
    buffer[count] = value
    count &+= 1
  }

  /// Appends `null`.
  package mutating func null() { raw("null") }

  /// Appends an integer in decimal.
  package mutating func integer(_ value: Int) {
    reserve(20)
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
    withUnsafeMutableBytes(of: &digits) { scratch in
      var index = scratch.count
      // Two digits per division (a line number has five or six).
      while magnitude >= 100 {
        let (rest, pair) = magnitude.quotientAndRemainder(dividingBy: 100)
        index &-= 2
        scratch[index] = UInt8(truncatingIfNeeded: pair / 10) &+ 0x30
        scratch[index &+ 1] = UInt8(truncatingIfNeeded: pair % 10) &+ 0x30
        magnitude = rest
      }
      if magnitude >= 10 {
        index &-= 2
        scratch[index] = UInt8(truncatingIfNeeded: magnitude / 10) &+ 0x30
        scratch[index &+ 1] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
      } else {
        index &-= 1
        scratch[index] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30
      }
      if value < 0 {
        index &-= 1
        scratch[index] = 0x2D
      }
      let length = scratch.count &- index
      // Through `raw`: up to 20 bytes, more than a 16-byte buffer holds (found by Fuzz/ target `cli`).
      raw(UnsafeBufferPointer(start: scratch.baseAddress!.advanced(by: index).assumingMemoryBound(to: UInt8.self), count: length))
    }
  }

  /// Appends `value` as a quoted, escaped JSON string.
  package mutating func string(_ value: String) {
    // In place (a small string's bytes are copied to the stack), without the copy `withUTF8` needs.
    if value.utf8.withContiguousStorageIfAvailable({ quoted($0) }) != nil { return }
    var value = value
    value.withUTF8 { quoted($0) }
  }

  /// Appends `value` as a quoted, escaped JSON string.
  package mutating func string(_ value: Substring) {
    var value = value
    value.withUTF8 { quoted($0) }
  }

  /// Appends `value` as a JSON string, or `null`.
  package mutating func string(orNull value: Substring?) {
    if let value { string(value) } else { null() }
  }

  /// Appends UTF-8 bytes as a quoted, escaped JSON string. The bytes must be valid UTF-8.
  package mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>) { quoted(utf8, checked: true) }

  /// Appends bytes known to need no escape (none below 0x20, no `"` or `\`) as a quoted JSON string: a copy.
  /// The caller has checked them, or a string they are part of (the components of an href checked whole).
  @inline(__always)
  package mutating func quotedVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) { quoted(utf8, checked: false) }

  /// Both of the above: the bytes copied with their quotes into the buffer when they fit, and, when
  /// `checked`, the copy checked for bytes to escape sixteen at a time (the check reads up to fifteen bytes
  /// past the string, inside the buffer: hence the slack of 16); written escaped, or in pieces, otherwise.
  @inline(__always)
  private mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>, checked: Bool) {
    let n = utf8.count
    if let source = utf8.baseAddress, capacity &- count >= n &+ (checked ? 18 : 2) {
      let start = buffer + count
      start.pointee = 0x22
      Self.copy(start + 1, source, n)
      if !checked || !Scan.hasJSONEscapable(start + 1, n) {
        start[n &+ 1] = 0x22
        count &+= n &+ 2
        return
      }
    }
    byte(0x22)
    if checked { escaped(utf8) } else { raw(utf8) }
    byte(0x22)
  }

  /// Appends UTF-8 bytes escaped for the inside of a JSON string, without quotes. The bytes must be valid
  /// UTF-8.
  package mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    guard let base = utf8.baseAddress else { return }
    let length = utf8.count
    // Runs without an escapable byte are found sixteen bytes at a time and copied whole; bytes >= 0x20
    // other than `"` and `\` (UTF-8 lead and continuation bytes included) are copied as they are.
    var runStart = 0
    var index = Scan.jsonEscapable(base, 0, length)
    while index < length {
      if index > runStart { raw(UnsafeBufferPointer(start: base + runStart, count: index &- runStart)) }
      escape(base[index])
      runStart = index &+ 1
      index = Scan.jsonEscapable(base, runStart, length)
    }
    if length > runStart { raw(UnsafeBufferPointer(start: base + runStart, count: length &- runStart)) }
  }

  /// Appends the escape sequence of `"`, `\` or a control character.
  private mutating func escape(_ byte: UInt8) {
    reserve(6)
    buffer[count] = 0x5C  // backslash
    let short: UInt8
    switch byte {
    case 0x22: short = 0x22  // \"
    case 0x5C: short = 0x5C  // \\
    case 0x08: short = 0x62  // \b
    case 0x09: short = 0x74  // \t
    case 0x0A: short = 0x6E  // \n
    case 0x0C: short = 0x66  // \f
    case 0x0D: short = 0x72  // \r
    default:
      // \u00XX, lower-case hex as JSON.stringify writes it.
      let hex: StaticString = "0123456789abcdef"
      buffer[count &+ 1] = 0x75  // u
      buffer[count &+ 2] = 0x30
      buffer[count &+ 3] = 0x30
      buffer[count &+ 4] = hex.utf8Start[Int(byte >> 4)]
      buffer[count &+ 5] = hex.utf8Start[Int(byte & 0x0F)]
      count &+= 6
      return
    }
    buffer[count &+ 1] = short
    count &+= 2
  }
}
