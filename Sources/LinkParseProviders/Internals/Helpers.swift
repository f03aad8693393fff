// Small helpers shared by the decoders: RFC 6749 parameter reading, duplicate detection, constant-time
// comparison. No Foundation. (Base64url is in `Unsafe/Base64URL.swift`.)

import LinkParseCore

extension FormParameters {
  /// The decoded value of the first parameter named `name`, or `nil` when it is absent, bare or empty
  /// (RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted").
  func nonEmptyValue(_ name: String) -> String? {
    guard let raw = first(named: name)?.rawValue, !raw.isEmpty else { return nil }
    return FormParameters.decode(raw)
  }

  /// The first of `names` that occurs more than once, if any.
  func firstDuplicate(among names: [String]) -> String? {
    var counts = [Int](repeating: 0, count: names.count)
    for parameter in self {
      for (i, name) in names.enumerated() where parameter.hasName(name) {
        counts[i] += 1
        if counts[i] > 1 { return name }
      }
    }
    return nil
  }

  /// The first parameter whose decoded name equals `name` ignoring ASCII case.
  func firstCaseInsensitive(_ name: String) -> Parameter? {
    let lowered = name.lowercased()
    for parameter in self where parameter.rawName.utf8.count >= name.utf8.count {
      if parameter.name().lowercased() == lowered { return parameter }
    }
    return nil
  }
}

/// The critical parameters that must not occur twice (RFC 6749 §3.1). The decoders read duplicates from
/// `CallbackFields`; this list and the `FormParameters` helpers above remain the reference semantics (tests).
let criticalParameters = ["code", "state", "error", "iss", "device_id"]

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
@inline(__always)
func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
  guard bytes.count == literal.utf8CodeUnitCount else { return false }
  let l = literal.utf8Start
  for i in 0..<bytes.count where bytes[i] != l[i] { return false }
  return true
}

/// Calls `body` with the UTF-8 bytes of `string`, in place for native `String`s and `Substring`s (a
/// `String` through the overload for it, in `CallbackText.swift`).
@inline(__always)
func withUTF8Bytes<R>(_ string: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  if let s = string as? String { return withUTF8Bytes(s, body) }
  if var s = string as? Substring { return s.withUTF8(body) }
  var copy = String(string)
  return copy.withUTF8(body)
}

/// Compares two byte sequences in time that depends only on their lengths, not on where they differ: every
/// byte of the shorter length is compared, without early exit, and a length difference is folded in.
@inline(never)
func constantTimeEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
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
func parseDecimalInt(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
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
