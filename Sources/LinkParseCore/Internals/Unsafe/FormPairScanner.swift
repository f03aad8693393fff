// Splitting form-encoded text (`name=value&name&…`) into its pairs: the one scanner behind every reader of
// parameters — `FormParameters`' iteration and lookups, the byte views of `forEachDecoded`, the providers'
// field recorder (`CallbackFields`) and the command line's parameter list.
//
// One pass over sixteen-byte blocks: each block yields a bit mask of its special bytes (`&`, `=`, `%`, `+`;
// `Scan.mask16(any4:)`), and only those bytes are looked at, in order. A block without special bytes — most
// of a long value — costs one load and a few vector instructions. The last partial block is read as the
// sixteen bytes that end the text, with the lanes already read dropped; only texts shorter than sixteen
// bytes are classified byte by byte. That is `next()`'s way; `forEach` (every pair, the usual reader) has the
// special bytes of up to 1 KiB marked in a bitmap by one call into CByteScan on x86-64 (`Scan.formBitmap`,
// 32 bytes a step with AVX2) and walks its bits.
//
// Safe because: `base` is valid for `0..<end` (the caller's whole buffer, with absolute offsets, even when
// the scan starts later: the final block may begin before `start`). Blocks are read at `i` with
// `0 <= i` and `i + 16 <= end`; single bytes at `p < end`.
public import LinkParseBytes

/// One non-empty `name[=value]` sequence of form-encoded text, as byte offsets into the scanned buffer.
@_spi(Bytes) public struct FormPair {
  /// ``nameFlags``/``valueFlags`` bit: the bytes contain a `%`.
  @inlinable public static var percent: UInt8 { 1 }
  /// ``nameFlags``/``valueFlags`` bit: the bytes contain a `+`.
  @inlinable public static var plus: UInt8 { 2 }

  /// The name's first byte.
  public var nameStart: Int
  /// The end of the name: the sequence's first `=`, or ``end`` when it has none.
  public var nameEnd: Int
  /// The end of the sequence: the `&` after it, or the end of the text.
  public var end: Int
  /// Whether the sequence has a `=` (its value is then `nameEnd + 1 ..< end`, possibly empty).
  public var hasValue: Bool
  /// ``percent`` and ``plus`` bits for the name's bytes.
  public var nameFlags: UInt8
  /// ``percent`` and ``plus`` bits for the value's bytes (0 for a bare name).
  public var valueFlags: UInt8

  /// The value's first byte (meaningful when ``hasValue``).
  @inlinable public var valueStart: Int { nameEnd &+ 1 }

  /// The name's bytes in `base` (the buffer the scanner read).
  @inlinable @inline(__always)
  public func nameBytes(in base: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + nameStart, count: nameEnd &- nameStart)
  }

  @inlinable
  init(nameStart: Int, nameEnd: Int, end: Int, hasValue: Bool, nameFlags: UInt8, valueFlags: UInt8) {
    self.nameStart = nameStart
    self.nameEnd = nameEnd
    self.end = end
    self.hasValue = hasValue
    self.nameFlags = nameFlags
    self.valueFlags = valueFlags
  }
}

/// The pairs of form-encoded text, one at a time, in order; empty sequences (`&&`) are skipped.
///
/// ```swift
/// Array("a=1&&b".utf8).withUnsafeBufferPointer { buf in
///   var pairs = FormPairScanner(buf)
///   pairs.forEach { pair in print(pair.nameStart..<pair.nameEnd, pair.hasValue ? pair.valueStart..<pair.end : nil) }
///   // 0..<1 Optional(2..<3), then 5..<6 nil
/// }
/// ```
///
/// Inlined into its callers (each loop over it specializes to a tight block loop), hence `@inlinable`.
@_spi(Bytes) public struct FormPairScanner {
  @usableFromInline let base: UnsafePointer<UInt8>
  @usableFromInline let end: Int
  /// The first byte not yet classified into a mask.
  @usableFromInline var cursor: Int
  /// The first byte of the block whose pending special bytes ``mask`` holds (bit k: byte `block + k`).
  @usableFromInline var block = 0
  @usableFromInline var mask: UInt32 = 0
  /// The sequence being read: its first byte, its first `=` (or -1), and its flags so far.
  @usableFromInline var start: Int
  @usableFromInline var equals = -1
  @usableFromInline var nameFlags: UInt8 = 0
  @usableFromInline var valueFlags: UInt8 = 0
  @usableFromInline var finished = false

  /// A scanner of `start..<end` of `base`, which must be valid for `0..<end`.
  @inlinable
  public init(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) {
    self.base = base
    self.end = end
    self.cursor = start
    self.start = start
  }

  /// A scanner of `buffer` from `start` (offsets are `buffer`'s).
  @inlinable
  public init(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int = 0) {
    guard let base = buffer.baseAddress else {
      // Empty: nothing is ever read through this pointer.
      self.init(UnsafePointer(bitPattern: MemoryLayout<UInt64>.alignment)!, from: 0, to: 0)
      return
    }
    self.init(base, from: start, to: buffer.count)
  }

  /// Where the sequence after the last pair returned starts (the byte after its `&`): a new scanner started
  /// there continues this one.
  @inlinable public var position: Int { start }

  /// The next non-empty pair, or `nil` after the last. (For callers that stop early or keep a position:
  /// iterators and lookups. A caller that reads every pair uses ``forEach(_:)``, which marks the special bytes
  /// of up to 1 KiB at a time in one call.)
  @inlinable
  public mutating func next() -> FormPair? {
    while true {
      while mask == 0 {
        guard loadBlock() else { return finish() }
      }
      let p = block &+ mask.trailingZeroBitCount
      mask &= mask &- 1
      if let pair = step(at: p) { return pair }
    }
  }

  /// Calls `body` with every remaining pair, in order: the scanner's visitor form, specialised into the
  /// caller (no closure call per pair or per special byte).
  @inlinable @inline(__always)
  public mutating func forEach(_ body: (FormPair) throws -> Void) rethrows {
    #if arch(x86_64)
    // The text as bitmaps of up to 1 KiB, each made by one call (`Scan.formBitmap`, 32 bytes a step with AVX2):
    // a mask and a branch every sixteen bytes cost more, in a query of a few hundred. One loop with one call of
    // `body`, whatever the bits' source.
    try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.bitmapWords) { buffer in
      let words = buffer.baseAddress!
      // The special bytes still to read: `bits` (bit k: byte `bitsStart + k`), first those of a block that
      // `next()` left unread; then the bitmap's words `nextWord..<wordCount` (word j: the 64 bytes from
      // `wordsStart + 64 j`); then the text from `cursor` on.
      var bits = UInt64(mask)
      var bitsStart = block
      mask = 0
      var nextWord = 0
      var wordCount = 0
      var wordsStart = 0
      while true {
        if bits == 0 {
          if nextWord < wordCount {
            bits = words[nextWord]
            bitsStart = wordsStart &+ nextWord &* 64
            nextWord &+= 1
            continue
          }
          guard cursor < end else { break }
          let chunkEnd = end &- cursor > Self.bitmapWords &* 64 ? cursor &+ Self.bitmapWords &* 64 : end
          Scan.formBitmap(base, cursor, chunkEnd, into: words)
          wordsStart = cursor
          nextWord = 0
          wordCount = (chunkEnd &- cursor &+ 63) &>> 6
          cursor = chunkEnd
          continue
        }
        let p = bitsStart &+ bits.trailingZeroBitCount
        bits &= bits &- 1
        if let pair = step(at: p) { try body(pair) }
      }
    }
    #else
    // Block by block, as `next()` reads (a loaded block's mask may be empty).
    scan: while true {
      while mask == 0 {
        guard loadBlock() else { break scan }
      }
      let p = block &+ mask.trailingZeroBitCount
      mask &= mask &- 1
      if let pair = step(at: p) { try body(pair) }
    }
    #endif
    if let pair = finish() { try body(pair) }
  }

  /// The words of ``forEach(_:)``'s bitmap (on the stack): 1 KiB of text a call.
  @inlinable static var bitmapWords: Int { 16 }

  /// Reads the special byte at `p`; returns the pair it ends, if it is an `&` after a non-empty sequence.
  @inlinable @inline(__always)
  mutating func step(at p: Int) -> FormPair? {
    switch base[p] {
    case 0x26:  // '&'
      let pair = pair(endingAt: p)
      start = p &+ 1
      equals = -1
      nameFlags = 0
      valueFlags = 0
      return pair
    case 0x3D:  // '=': the first ends the name; later ones are part of the value
      if equals < 0 { equals = p }
    case 0x25:  // '%'
      if equals < 0 { nameFlags |= FormPair.percent } else { valueFlags |= FormPair.percent }
    default:  // '+'
      if equals < 0 { nameFlags |= FormPair.plus } else { valueFlags |= FormPair.plus }
    }
    return nil
  }

  /// The last sequence, once: the text's end ends it.
  @inlinable
  mutating func finish() -> FormPair? {
    if finished { return nil }
    finished = true
    let pair = pair(endingAt: end)
    start = end
    return pair
  }

  /// The sequence from ``start`` to `stop`, unless it is empty.
  @inlinable @inline(__always)
  func pair(endingAt stop: Int) -> FormPair? {
    guard stop > start else { return nil }
    return equals < 0
      ? FormPair(nameStart: start, nameEnd: stop, end: stop, hasValue: false, nameFlags: nameFlags, valueFlags: 0)
      : FormPair(
        nameStart: start, nameEnd: equals, end: stop, hasValue: true, nameFlags: nameFlags, valueFlags: valueFlags)
  }

  /// Classifies the next block into ``mask``; false when the text is all read.
  @inlinable @inline(__always)
  mutating func loadBlock() -> Bool {
    let i = cursor
    if i &+ 16 <= end {
      block = i
      mask = Scan.formSpecialMask(base, i)
      cursor = i &+ 16
      return true
    }
    guard i < end else { return false }
    cursor = end
    if end >= 16 {
      // The sixteen bytes ending at `end`, without the lanes before `i` (read already, or before the start).
      block = end &- 16
      mask = Scan.formSpecialMask(base, block) & (~0 &<< UInt32(truncatingIfNeeded: i &- block))
    } else {
      block = i
      var m: UInt32 = 0
      var k = i
      while k < end {
        if Scan.isFormSpecial(base[k]) { m |= 1 &<< UInt32(truncatingIfNeeded: k &- i) }
        k &+= 1
      }
      mask = m
    }
    return true
  }
}
