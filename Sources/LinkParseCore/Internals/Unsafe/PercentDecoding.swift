// Percent-decoding eight bytes at a time into a caller's buffer, and the byte views' constructor from a
// scanned buffer's offsets.
//
// Safe because: `decode` writes at most `buf.count` bytes into `out`, which the caller sizes to at least that
// (decoding never lengthens: an escape turns three bytes into one); its eight-byte loads and stores happen
// only when eight bytes remain in both (`o <= i` and `i + 8 <= buf.count <= out.count`). `withDecoded`'s
// buffer lives for the closure only. The views' constructor makes a buffer of `start..<end` of a scanned
// text, which the scanner found inside it.

extension FormParameters {
  /// Decodes `buf` into `out` (at least `buf.count` bytes), returning the number of bytes written.
  ///
  /// Eight bytes at a time while eight remain: the bytes before the word's first `%` (or `+` in form
  /// encoding) are copied with one eight-byte store, then that byte is decoded alone. The store is in bounds:
  /// decoding never lengthens, so `o <= i` and `o + 8 <= i + 8 <= buf.count <= out.count`; the bytes it writes
  /// past the copied ones are overwritten by later ones or lie past the count returned.
  @usableFromInline
  internal static func decode(
    _ buf: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, form: Bool
  ) -> Int {
    let count = buf.count
    guard let src = buf.baseAddress, let dst = out.baseAddress else { return 0 }
    var i = 0
    var o = 0
    while i < count {
      if i &+ 8 <= count {
        let word = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
        let stop = firstEscapeByte(UInt64(littleEndian: word), form: form)
        UnsafeMutableRawPointer(dst + o).storeBytes(of: word, as: UInt64.self)
        i &+= stop
        o &+= stop
        if stop == 8 { continue }
      }
      dst[o] = decodedByte(buf, at: &i, end: count, form: form)
      o &+= 1
    }
    return o
  }

  /// The index (0...7, lowest byte first) of the first `%` (or `+` when `form`) among the eight bytes of
  /// `word`, or 8 when there is none.
  ///
  /// `(x &- 0x01…) & ~x & 0x80…` sets the high bit of each zero byte of `x`, and may also set it in bytes
  /// above a zero byte (a borrow), never below one: so its lowest set bit is exact, for each of the two
  /// tests and for their union.
  @inline(__always)
  internal static func firstEscapeByte(_ word: UInt64, form: Bool) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    let percent = word ^ (ones &* UInt64(percentSign))
    var found = (percent &- ones) & ~percent & highBits
    if form {
      let plus = word ^ (ones &* UInt64(plusSign))
      found |= (plus &- ones) & ~plus & highBits
    }
    return found.trailingZeroBitCount &>> 3
  }

  /// Calls `body` with `raw` decoded into a temporary buffer (on the stack when small).
  @inlinable
  static func withDecoded<R>(
    _ raw: UnsafeBufferPointer<UInt8>, form: Bool, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
  ) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: raw.count) { out in
      let n = decode(raw, into: out, form: form)
      return try body(UnsafeBufferPointer(rebasing: out[..<n]))
    }
  }
}

extension FormParameters.UnsafeDecodedBytes {
  /// The form-encoded bytes `start..<end` of `base`, flagged as ``FormPairScanner`` found them
  /// (``FormPair/percent``, ``FormPair/plus``).
  @inlinable
  package init(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: UInt8, encoding: FormParameters.Encoding = .form) {
    self.init(
      raw: UnsafeBufferPointer(start: base + start, count: end &- start), encoding: encoding,
      mayContainEscapes: flags & FormPair.percent != 0, mayContainPlus: flags & FormPair.plus != 0)
  }
}
