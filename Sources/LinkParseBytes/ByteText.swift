// Byte-level helpers every module of the package shares: constant-time comparison, in-place UTF-8 access,
// decimal parsing, JSON string literals. No Foundation.

/// Compares two strings' UTF-8 bytes in time that depends only on their lengths, not on where they differ.
///
/// ```swift
/// constantTimeEquals("abc", "abd")  // false
/// ```
/// (Package: the id_token verifier compares `nonce`, `c_hash` and `at_hash` with it.)
@inline(never)
package func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
  withUTF8Bytes(a) { x in withUTF8Bytes(b) { y in constantTimeEquals(x, y) } }
}

/// Whether `bytes` are exactly the literal's UTF-8 bytes.
@inlinable @inline(__always)
package func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
  guard bytes.count == literal.utf8CodeUnitCount else { return false }
  let l = literal.utf8Start
  for i in 0..<bytes.count where bytes[i] != l[i] { return false }
  return true
}

/// Calls `body` with the UTF-8 bytes of `string`, in place for native `String`s and `Substring`s (a
/// `String` through the overload for it, in `CallbackText.swift`).
@inlinable @inline(__always)
package func withUTF8Bytes<R>(_ string: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  if let s = string as? String { return withUTF8Bytes(s, body) }
  if var s = string as? Substring { return s.withUTF8(body) }
  var copy = String(string)
  return copy.withUTF8(body)
}

/// Compares two byte sequences in time that depends only on their lengths, not on where they differ: every
/// byte of the shorter length is compared, without early exit, and a length difference is folded in.
@inline(never)
package func constantTimeEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
  var difference: UInt8 = x.count == y.count ? 0 : 1
  let n = min(x.count, y.count)
  if n > 0, let xp = x.baseAddress, let yp = y.baseAddress {
    for i in 0..<n { difference |= xp[i] ^ yp[i] }
  }
  return difference == 0
}

/// `Int(text)` over UTF-8 bytes: an optional `+` or `-`, then one or more ASCII digits; `nil` for anything
/// else or on overflow.
///
/// ```swift
/// "600".utf8.withContiguousStorageIfAvailable(parseDecimalInt)  // 600
/// ```
@inlinable
package func parseDecimalInt(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
  var i = 0
  var negative = false
  if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
    negative = first == UInt8(ascii: "-")
    i = 1
  }
  guard i < bytes.count else { return nil }
  var value = 0
  while i < bytes.count {
    let digit = bytes[i] &- 0x30
    guard digit < 10 else { return nil }
    // Accumulated with the sign, so that Int.min is reached without overflowing.
    let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
    let (next, o2) =
      negative ? shifted.subtractingReportingOverflow(Int(digit)) : shifted.addingReportingOverflow(Int(digit))
    guard !o1 && !o2 else { return nil }
    value = next
    i &+= 1
  }
  return value
}

/// JSON text the package writes: the one spelling of a JSON string's escapes (problem answers, client-secret
/// headers, JSON values, and the command's streaming writer all use it).
@usableFromInline package enum JSONText {
  /// The escape of `byte` (`"`, `\\` or a control character below 0x20) as `JSON.stringify` spells it: `\"`,
  /// `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, else `\u00xx` in lower-case hex; passed to `body` (2 or 6 bytes).
  ///
  /// ```swift
  /// JSONText.withEscape(0x0A) { Array($0) }  // Array("\\n".utf8)
  /// ```
  @inlinable
  package static func withEscape<R>(_ byte: UInt8, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    @inline(__always) func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 &+ digit : 0x57 &+ digit }
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
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { out in
        out[0] = 0x5C
        out[1] = 0x75  // u
        out[2] = 0x30
        out[3] = 0x30
        out[4] = hex(byte >> 4)
        out[5] = hex(byte & 0x0F)
        return body(UnsafeBufferPointer(out))
      }
    }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2) { out in
      out[0] = 0x5C
      out[1] = short
      return body(UnsafeBufferPointer(out))
    }
  }

  /// Passes the inside of a JSON string for the UTF-8 bytes `utf8` to `body`, piece by piece: runs without an
  /// escapable byte (found sixteen bytes at a time, copied whole) and each escape (``withEscape(_:_:)``).
  ///
  /// ```swift
  /// JSONText.forEachEscapedPiece(bytes) { out.append(contentsOf: $0) }
  /// ```
  @inlinable
  package static func forEachEscapedPiece(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    guard let base = utf8.baseAddress else { return }
    let length = utf8.count
    var runStart = 0
    var index = Scan.jsonEscapable(base, 0, length)
    while index < length {
      if index > runStart { body(UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
      withEscape(utf8[index], body)
      runStart = index &+ 1
      index = Scan.jsonEscapable(base, runStart, length)
    }
    if length > runStart { body(UnsafeBufferPointer(rebasing: utf8[runStart..<length])) }
  }

  /// `text` as a JSON string literal, escaped as ``withEscape(_:_:)`` spells it (the result is UTF-8 JSON).
  ///
  /// ```swift
  /// JSONText.quoted("a\"b\n")  // "\"a\\\"b\\n\""
  /// ```
  package static func quoted(_ text: String) -> String {
    var out: [UInt8] = [0x22]
    withUTF8Bytes(text) { utf8 in
      out.reserveCapacity(utf8.count + 2)
      forEachEscapedPiece(utf8) { out.append(contentsOf: $0) }
    }
    out.append(0x22)
    return String(decoding: out, as: UTF8.self)
  }

}

/// Calls `body` with the UTF-8 bytes of `string` in place, without retaining it (a copy only for a string
/// that is not stored as contiguous UTF-8, such as a bridged one).
@inline(__always)
@inlinable
package func withUTF8Bytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
  var copy = string
  return copy.withUTF8(body)
}
