// Small helpers shared by the decoders: RFC 6749 parameter reading, duplicate detection, constant-time
// comparison and base64url. No Foundation.

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
@inline(never)
func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
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

package enum Base64URL {
  /// 256 bits from `generator`, base64url without padding (43 characters): a PKCE verifier, a `state`, a
  /// `nonce`.
  package static func randomToken(using generator: inout some RandomNumberGenerator) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for _ in 0..<4 {
      var word = generator.next()
      for _ in 0..<8 {
        bytes.append(UInt8(truncatingIfNeeded: word))
        word >>= 8
      }
    }
    return encode(bytes)
  }

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Encodes without padding.
  package static func encode(_ bytes: some Sequence<UInt8>) -> String {
    let input = Array(bytes)
    var out: [UInt8] = []
    out.reserveCapacity((input.count * 4 + 2) / 3)
    var i = 0
    while i + 3 <= input.count {
      let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
      out.append(alphabet[Int(n & 63)])
      i += 3
    }
    let rest = input.count - i
    if rest == 1 {
      let n = UInt32(input[i]) << 16
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
    } else if rest == 2 {
      let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes like ``decode(_:)`` into `out` (at least `input.count * 3 / 4 + 1` bytes), returning the
  /// number of bytes written; `nil` on any byte outside the alphabets.
  static func decode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
    guard let p = input.baseAddress, let q = out.baseAddress else { return input.isEmpty ? 0 : nil }
    let n = input.count
    var i = 0
    var o = 0
    // Whole groups of four alphabet characters, three bytes at a time, through the table (its pointer read
    // once per call): each character's sextet already in place, so a group is four loads and `|`s, one test
    // and one four-byte store (its fourth byte is overwritten by the next group, or lies past the bytes
    // returned; `o + 4 <= out.count` holds for every group of a buffer of the documented size, and is tested
    // anyway). The first group holding `=` or any other byte goes to the general loop below (which starts,
    // like this one ends, on a group boundary).
    placedSextets.withUnsafeBufferPointer { table in
      let t = table.baseAddress!
      while i &+ 4 <= n && o &+ 4 <= out.count {
        let v =
          t[Int(p[i])] | t[256 &+ Int(p[i &+ 1])] | t[512 &+ Int(p[i &+ 2])] | t[768 &+ Int(p[i &+ 3])]
        if v & Self.notInGroup != 0 { break }
        // The three bytes are bits 23...0 of `v`: shifted to the top, big-endian puts them first in memory.
        UnsafeMutableRawPointer(q + o).storeBytes(of: (v &<< 8).bigEndian, as: UInt32.self)
        o &+= 3
        i &+= 4
      }
    }
    var buffer: UInt32 = 0
    var bits = 0
    for byte in UnsafeBufferPointer(rebasing: input[i...]) {
      let value = sextet(byte)
      if value >= 64 {
        if value == 64 { continue }  // `=`
        return nil
      }
      buffer = buffer << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out[o] = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
        o += 1
      }
    }
    return o
  }

  /// ``sextet(_:)`` of every byte at each position of a group of four, for the group loop of
  /// ``decode(_:into:)``: entry `256 * k + byte` is the sextet shifted to its place in the group's 24 bits
  /// (`18 - 6 * k`), or ``notInGroup`` for `=` and the bytes outside the alphabets. Read through one pointer
  /// per call (so the lazily initialised global is touched once per token, not per byte).
  private static let placedSextets: [UInt32] = (0..<1024).map { entry in
    let value = sextet(UInt8(truncatingIfNeeded: entry))
    return value < 64 ? UInt32(value) &<< UInt32(18 &- 6 &* (entry >> 8)) : notInGroup
  }

  /// The bit of ``placedSextets`` that marks a byte the group loop leaves to the general one.
  private static let notInGroup: UInt32 = 1 << 31

  /// The 6-bit value of a base64 or base64url character; 64 for `=`, 255 for anything else.
  @inline(__always)
  static func sextet(_ byte: UInt8) -> UInt8 {
    let upper = byte &- 0x41  // A-Z → 0…25
    if upper < 26 { return upper }
    let lower = byte &- 0x61  // a-z → 26…51
    if lower < 26 { return lower &+ 26 }
    let digit = byte &- 0x30  // 0-9 → 52…61
    if digit < 10 { return digit &+ 52 }
    switch byte {
    case 0x2D, 0x2B: return 62  // - +
    case 0x5F, 0x2F: return 63  // _ /
    case 0x3D: return 64  // =
    default: return 255
    }
  }

  /// Decodes base64url or standard base64, with or without padding; `nil` on any other byte.
  static func decode(_ string: some StringProtocol) -> [UInt8]? {
    var out: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for byte in string.utf8 {
      let value: UInt8
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
      case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
      case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
      case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
      case UInt8(ascii: "="): continue
      default: return nil
      }
      buffer = buffer << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
      }
    }
    return out
  }
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
