/// What ``LineSplitter/next()`` found: a line, or a line too long to hold that was skipped.
package enum LineEvent {
  /// The line's bytes, without its `LF` or `CRLF`. The pointer is valid only until the next call to
  /// ``LineSplitter/next()``; do not let it escape.
  case line(UnsafeBufferPointer<UInt8>)
  /// A line longer than ``LineSplitter/maxLineLength``, skipped up to its newline without buffering it.
  /// `byteCount` is its length without the `LF` or `CRLF`.
  case tooLong(byteCount: Int)
}

/// Splits a byte stream into lines, reading it in large blocks, with memory bounded whatever the input.
///
/// - Lines end in `LF`; a `CR` just before the `LF` is removed too (CRLF). A last line without a newline is
///   a line; a newline at the very end does not start another one. Every other byte, `NUL` and invalid
///   UTF-8 included, is part of the line.
/// - A line longer than ``maxLineLength`` bytes gives ``LineEvent/tooLong(byteCount:)``: once the pending
///   bytes exceed the limit they are dropped and the rest of the line is skipped block by block, so the
///   buffer never grows past about `maxLineLength + 2 × blockSize`.
/// - ``lineNumber`` is the 1-based number of the line just returned.
///
/// ```swift
/// let splitter = LineSplitter(source: MemoryByteSource(Array("a\r\nb".utf8)))
/// while let event = try splitter.next() {
///   if case .line(let bytes) = event { print(splitter.lineNumber, String(decoding: bytes, as: UTF8.self)) }
/// }
/// // 1 a
/// // 2 b
/// ```
package final class LineSplitter {
  /// The default read size: 256 KiB.
  package static let defaultBlockSize = 256 * 1024
  /// The default longest line: 8 MiB.
  package static let defaultMaxLineLength = 8 * 1024 * 1024

  /// The number of bytes asked of the source per read (at least; more when the buffer has room).
  package let blockSize: Int
  /// The longest line returned, in bytes without its terminator.
  package let maxLineLength: Int
  /// The 1-based number of the line last returned; 0 before the first.
  package private(set) var lineNumber = 0
  /// The number of bytes read from the source so far.
  package private(set) var bytesRead = 0

  private let source: any ByteSource
  private var storage: ReadBuffer
  /// `storage[start..<end]` holds bytes read and not yet returned.
  private var start = 0
  private var end = 0
  /// `storage[start..<scanFrom]` is known to contain no `LF`, so a partial line is not scanned twice.
  private var scanFrom = 0
  private var atEndOfInput = false

  /// Splits what `source` yields, reading `blockSize` bytes at a time and skipping lines longer than
  /// `maxLineLength`.
  package init(
    source: any ByteSource,
    blockSize: Int = LineSplitter.defaultBlockSize,
    maxLineLength: Int = LineSplitter.defaultMaxLineLength
  ) {
    precondition(blockSize > 0, "blockSize must be positive")
    precondition(maxLineLength >= 0, "maxLineLength must not be negative")
    self.source = source
    self.blockSize = blockSize
    self.maxLineLength = maxLineLength
    self.storage = ReadBuffer(capacity: blockSize)
  }

  deinit { storage.release() }

  /// Returns the next line, or `nil` at the end of the input.
  ///
  /// - Throws: ``IOError`` when the source fails.
  package func next() throws(IOError) -> LineEvent? {
    while true {
      if let event = nextBuffered() { return event }
      if atEndOfInput { return nil }
      // No newline yet. Once the pending bytes cannot be a line within the limit even if the next byte is
      // the LF of a CRLF, stop buffering them.
      if end - start - 1 > maxLineLength {  // not `maxLineLength + 1`, which overflows for `.max`
        return try skipRestOfLongLine()
      }
      try fill()
    }
  }

  /// Returns the next line when the bytes already read hold it (or, at the end of the input, the last line),
  /// without reading; `nil` when ``next()`` would have to read first, or at the end of the input. A caller
  /// that must not hold output while it waits for input (`linkparse --pipeline`) flushes on `nil`, then calls
  /// ``next()``.
  @inline(__always)
  package func nextBuffered() -> LineEvent? {
    if scanFrom < end, let newline = storage.firstIndex(of: 0x0A, from: scanFrom, to: end) {
      let event = takeLine(upTo: newline)
      start = newline + 1
      scanFrom = start
      return event
    }
    scanFrom = end
    if atEndOfInput && start < end {
      let event = takeLine(upTo: end)
      start = end
      return event
    }
    return nil
  }

  /// Makes `storage[start..<lineEnd]` (minus a final CR) the current line.
  @inline(__always)
  private func takeLine(upTo lineEnd: Int) -> LineEvent {
    var lineEnd = lineEnd
    if lineEnd > start && storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
    lineNumber += 1
    let count = lineEnd - start
    if count > maxLineLength { return .tooLong(byteCount: count) }
    return .line(storage.bytes(from: start, count: count))
  }

  /// Moves pending bytes to the front, grows the buffer if less than a block is free, and reads.
  private func fill() throws(IOError) {
    if start > 0 {
      let pending = end - start
      storage.moveToFront(from: start, count: pending)
      end = pending
      scanFrom -= start
      start = 0
    }
    if storage.capacity - end < blockSize {
      // Bounded: `end` is at most `maxLineLength + 1` here (see `next()`).
      storage = storage.grown(to: max(storage.capacity * 2, end + blockSize), keeping: end)
    }
    let count = try storage.read(from: source, at: end)
    if count == 0 {
      atEndOfInput = true
    } else {
      end += count
      bytesRead += count
    }
  }

  /// Drops the pending bytes of an over-long line and reads on to its `LF` (or the end of the input), keeping
  /// whatever follows the `LF`.
  private func skipRestOfLongLine() throws(IOError) -> LineEvent {
    var count = end - start
    var lastByte = storage[end - 1]
    start = 0
    end = 0
    scanFrom = 0
    while true {
      let read = try storage.read(from: source, at: 0)
      guard read > 0 else {
        atEndOfInput = true
        break
      }
      bytesRead += read
      if let newline = storage.firstIndex(of: 0x0A, from: 0, to: read) {
        count += newline
        if newline > 0 { lastByte = storage[newline - 1] }
        start = newline + 1
        end = read
        scanFrom = start
        break
      }
      count += read
      lastByte = storage[read - 1]
    }
    if lastByte == 0x0D { count -= 1 }
    lineNumber += 1
    return .tooLong(byteCount: count)
  }
}
