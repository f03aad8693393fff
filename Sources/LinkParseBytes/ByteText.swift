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

/// JSON text the package writes by hand (problem answers, client-secret headers, the command's output).
package enum JSONText {
  /// `text` as a JSON string literal: `"` and `\\` escaped, control characters as `\\n`, `\\r`, `\\t` or
  /// `\\u00XX`, everything else as it is (the result is UTF-8 JSON).
  @inlinable
  package static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
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
