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

/// The critical parameters that must not occur twice (RFC 6749 §3.1).
let criticalParameters = ["code", "state", "error", "iss", "device_id"]

/// Compares two strings' UTF-8 bytes in time that depends only on their lengths, not on where they differ.
///
/// ```swift
/// constantTimeEquals("abc", "abd")  // false
/// ```
@inline(never)
func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
  let x = Array(a.utf8)
  let y = Array(b.utf8)
  var difference = UInt8(truncatingIfNeeded: x.count ^ y.count)
  difference |= x.count == y.count ? 0 : 1
  let n = max(x.count, y.count)
  for i in 0..<n {
    let l = i < x.count ? x[i] : 0
    let r = i < y.count ? y[i] : 0
    difference |= l ^ r
  }
  return difference == 0
}

enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Encodes without padding.
  static func encode(_ bytes: some Sequence<UInt8>) -> String {
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
