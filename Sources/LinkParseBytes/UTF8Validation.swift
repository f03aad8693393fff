// UTF-8 well-formedness, the one definition every module uses (the parser's input check, form bodies,
// JSON strings, the command line's decoded values).
//
// Safe because: every read is `buf[j]` with `j < buf.count` checked first; the one wide read (eight bytes
// at `i`) happens only when `i + 8 <= count`.

/// Well-formed UTF-8 by Unicode's Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF.
@usableFromInline package enum UTF8Validation {

  /// Whether `bytes` is well-formed UTF-8. An ASCII prefix is skipped sixteen bytes at a time, later ASCII
  /// eight at a time.
  ///
  /// ```swift
  /// Array("jörg".utf8).withUnsafeBufferPointer(UTF8Validation.isValid)  // true
  /// [0xC0, 0x80].withUnsafeBufferPointer(UTF8Validation.isValid)       // false (overlong)
  /// ```
  @inlinable
  package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let n = bytes.count
    guard let base = bytes.baseAddress else { return true }
    var i = Scan.nonASCII(base, 0, n)
    let p = UnsafeRawPointer(base)
    while i < n {
      if i &+ 8 <= n {
        let word = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        if word & 0x8080_8080_8080_8080 == 0 {
          i &+= 8
          continue
        }
      }
      if bytes[i] < 0x80 {
        i &+= 1
        continue
      }
      let length = sequenceLength(bytes, at: i)
      if length == 0 { return false }
      i &+= length
    }
    return true
  }

  /// The length (1 to 4) of the well-formed sequence that starts at `buf[i]`, or 0 when the byte there
  /// does not start one (a continuation byte, C0/C1/F5–FF, a truncated or ill-formed sequence). `i < count`.
  ///
  /// ```swift
  /// Array("é!".utf8).withUnsafeBufferPointer { UTF8Validation.sequenceLength($0, at: 0) }  // 2
  /// ```
  @inlinable
  @inline(__always)
  package static func sequenceLength(_ buf: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
    let count = buf.count
    @inline(__always) func continuation(_ j: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
      j < count && buf[j] >= low && buf[j] <= high
    }
    switch buf[i] {
    case 0x00...0x7F:
      return 1
    case 0xC2...0xDF:
      return continuation(i &+ 1) ? 2 : 0
    case 0xE0:
      return continuation(i &+ 1, 0xA0) && continuation(i &+ 2) ? 3 : 0
    case 0xE1...0xEC, 0xEE...0xEF:
      return continuation(i &+ 1) && continuation(i &+ 2) ? 3 : 0
    case 0xED:
      return continuation(i &+ 1, 0x80, 0x9F) && continuation(i &+ 2) ? 3 : 0
    case 0xF0:
      return continuation(i &+ 1, 0x90) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    case 0xF1...0xF3:
      return continuation(i &+ 1) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    case 0xF4:
      return continuation(i &+ 1, 0x80, 0x8F) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    default:
      return 0
    }
  }
}
