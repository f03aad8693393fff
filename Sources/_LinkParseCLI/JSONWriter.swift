import LinkParseCore
import LinkParseRouter
import LinkParseProviders
import LinkParseAuthorization
import LinkParseOAuth
import LinkParseBytes

/// Writes JSON text into a reusable byte buffer and hands it to a ``ByteSink`` in large blocks.
///
/// Strings are escaped so the output is always valid JSON: `"` and `\` get a backslash, control characters
/// below U+0020 become `\b` `\t` `\n` `\f` `\r` or `\u00XX`, and every other byte is copied. The input is a
/// Swift string, so it is valid UTF-8 and so is the output.
///
/// Writing never throws: the first failure of the sink is kept in ``error`` and later output is dropped, so
/// the hot path stays free of error plumbing. Check ``error`` after ``finish()``.
///
/// With `background: true` a thread of its own writes each full block while the next is filled (``BackgroundWriter``:
/// two spare blocks of `capacity` bytes besides the one being filled): ``flush()`` hands the block over and returns,
/// and an error shows in ``error`` at a later flush. ``finish()`` waits until everything is written.
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
/// json.finish()
/// sink.text  // {"a":"x\"y\n"}
/// ```
package struct JSONWriter: ~Copyable {
  /// The default buffer size: 256 KiB.
  package static let defaultCapacity = 256 * 1024

  /// The first error the sink reported, if any.
  package private(set) var error: IOError?

  private let sink: any ByteSink
  private var buffer: OutputBuffer
  /// The thread writing full blocks, with `background: true`.
  private let background: BackgroundWriter?

  /// Writes to `sink`, flushing every `capacity` bytes (at least 16); with `background`, from a thread of its own.
  package init(sink: any ByteSink, capacity: Int = JSONWriter.defaultCapacity, background: Bool = false) {
    self.sink = sink
    self.buffer = OutputBuffer(capacity: capacity)
    self.background = background ? BackgroundWriter(sink: sink, capacity: capacity) : nil
  }

  deinit { _ = background?.finish() }

  /// Hands the buffered bytes to the sink (with `background: true`, to the thread that writes them: they may
  /// still be being written when it returns).
  package mutating func flush() {
    guard buffer.count > 0, error == nil else { return buffer.removeAll() }
    if let background {
      if let failure = background.handOver(&buffer) { error = failure }
      return
    }
    defer { buffer.removeAll() }
    do {
      try sink.write(buffer.written)
    } catch {
      self.error = error
    }
  }

  /// Flushes and waits until every byte is written (with `background: true`, ends the writing thread: nothing
  /// more may be written). Check ``error`` after it.
  package mutating func finish() {
    flush()
    if let failure = background?.finish(), error == nil { error = failure }
  }

  /// A cursor over `bound` bytes of the buffer, flushed first when fewer are free; `nil` when the buffer
  /// cannot hold that many. Nothing else may be written until ``commit(_:)``.
  @inline(__always)
  mutating func cursor(reserving bound: Int) -> RecordCursor? {
    if buffer.free < bound { flush() }
    return buffer.cursor(reserving: bound)
  }

  /// Keeps what was written through `cursor`.
  @inline(__always)
  mutating func commit(_ cursor: RecordCursor) { buffer.commit(cursor) }

  /// Makes room for `needed` bytes (at most 16).
  @inline(__always)
  private mutating func reserve(_ needed: Int) {
    if buffer.free < needed { flush() }
  }

  /// Appends bytes as they are, in pieces when they exceed the free space.
  @inline(__always)
  package mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
    if !buffer.append(bytes) { rawInPieces(bytes) }
  }

  /// The slow path of ``raw(_:)-(UnsafeBufferPointer<UInt8>)``: flushes as often as needed.
  private mutating func rawInPieces(_ bytes: UnsafeBufferPointer<UInt8>) {
    var rest = bytes
    while !rest.isEmpty {
      if buffer.free == 0 { flush() }
      rest = UnsafeBufferPointer(rebasing: rest[buffer.appendPrefix(rest)...])
    }
  }

  /// Appends literal JSON text, such as `,"ok":true`.
  @inline(__always)
  package mutating func raw(_ text: StaticString) { raw(text.bytes) }

  /// Appends one byte.
  @inline(__always)
  package mutating func byte(_ value: UInt8) {
    reserve(1)
    buffer.append(byte: value)
  }

  /// Appends `null`.
  package mutating func null() { raw("null") }

  /// Appends an integer in decimal.
  package mutating func integer(_ value: Int) {
    reserve(20)
    // Through `raw`: up to 20 bytes, more than a 16-byte buffer holds (found by Fuzz/ target `cli`).
    DecimalDigits.with(value) { raw($0) }
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

  /// Appends UTF-8 bytes as a quoted, escaped JSON string, after `prefix` (fixed JSON text such as a
  /// record's key run, `,"host":`, written as it is). The bytes must be valid UTF-8.
  package mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8> = .empty) {
    quoted(utf8, after: prefix, checked: true)
  }

  /// Appends bytes known to need no escape (none below 0x20, no `"` or `\`) as a quoted JSON string after
  /// `prefix`: copies. The caller has checked them, or a string they are part of (the components of an href
  /// checked whole).
  @inline(__always)
  package mutating func quotedVerbatim(
    _ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8> = .empty
  ) {
    quoted(utf8, after: prefix, checked: false)
  }

  /// Both of the above: prefix, quotes and bytes copied into the buffer at once when they fit, and, when
  /// `checked`, the copy checked for bytes to escape sixteen at a time (the check reads up to fifteen bytes
  /// past the string, inside the buffer: hence the slack of 16); written escaped, or in pieces, otherwise.
  @inline(__always)
  private mutating func quoted(
    _ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8>, checked: Bool
  ) {
    if buffer.appendQuoted(utf8, after: prefix, checked: checked) { return }
    raw(prefix)
    byte(0x22)
    if checked { escaped(utf8) } else { raw(utf8) }
    byte(0x22)
  }

  /// Appends UTF-8 bytes escaped for the inside of a JSON string, without quotes (the bytes layer's one
  /// escaping: unescaped runs copied whole, bytes >= 0x20 other than `"` and `\` as they are). The bytes must be
  /// valid UTF-8.
  package mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    JSONText.forEachEscapedPiece(utf8) { raw($0) }
  }
}

/// What a record's members are written to: the ``JSONWriter`` itself, which tests its free space at every
/// step, or a ``RecordCursor`` over space reserved for the whole of them, which does not. The record's
/// writer is generic over it, so that its one text serves both.
protocol JSONOutput: ~Copyable {
  /// Appends bytes as they are.
  mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>)
  /// Appends `prefix` as it is, then `utf8` (valid UTF-8) as a quoted, escaped JSON string.
  mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8>)
  /// Appends `prefix`, then `utf8`, which needs no escape, between quotes.
  mutating func quotedVerbatim(_ utf8: UnsafeBufferPointer<UInt8>, after prefix: UnsafeBufferPointer<UInt8>)
  /// Appends an integer in decimal.
  mutating func integer(_ value: Int)
  /// Appends `null`.
  mutating func null()
  /// Appends `value` as a quoted, escaped JSON string.
  mutating func string(_ value: String)
}

extension JSONWriter: JSONOutput {}

extension JSONOutput where Self: ~Copyable {
  /// `prefix`, then `null`.
  @inline(__always)
  mutating func null(after prefix: UnsafeBufferPointer<UInt8>) {
    raw(prefix)
    null()
  }

  /// `prefix`, then the text that `--redact` writes for a secret.
  @inline(__always)
  mutating func redacted(after prefix: UnsafeBufferPointer<UInt8>) {
    raw(prefix)
    string(CallbackOptions.redacted)
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// No bytes: the prefix of a string written on its own.
  static var empty: Self { Self(start: nil, count: 0) }
}

extension StaticString {
  /// The literal's UTF-8 bytes (static memory: valid for the whole run).
  var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}
