// The byte-level parts of reading a compact JWS: base64url without padding, and strict JSON (RFC 8259) into a
// JSONValue with byte offsets. Internal.
//
// The JSON reader is the id_token's own, so this module's tests do not depend on JSONValue.parse (a
// placeholder on this branch). It is strict where a token needs it: duplicate member names are refused (two
// `aud` or `iss` members read differently by two libraries are the classic JWT confusion), nesting is capped,
// strings must be valid UTF-8. TODO(merge): once JSONValue.parse is the strict parser, it can replace
// `TokenJSON.parse` (keep the duplicate-name refusal).

enum TokenBase64URL {
  struct Failure: Error {
    var offset: Int
  }

  /// 6-bit values of the base64url alphabet; 0xFF for every other byte.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (i, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
      table[Int(byte)] = UInt8(i)
    }
    return table
  }()

  /// Decodes base64url without padding (RFC 7515 §2). A trailing `=` is refused, as is a length of 4n+1.
  /// On failure returns the offending byte offset.
  static func decode(_ text: some Collection<UInt8>) -> Result<[UInt8], Failure> {
    if let result = text.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return result }
    return Array(text).withUnsafeBufferPointer { decode(buffer: $0) }
  }

  private static func decode(buffer: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Failure> {
    let count = buffer.count
    let outCount = count / 4 * 3 + max(count % 4 - 1, 0)
    return values.withUnsafeBufferPointer { table in
      var failure: Int? = nil
      let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
        var i = 0
        var o = 0
        while i + 4 <= count {
          let a = table[Int(buffer[i])], b = table[Int(buffer[i + 1])]
          let c = table[Int(buffer[i + 2])], d = table[Int(buffer[i + 3])]
          if (a | b | c | d) & 0xC0 != 0 {
            failure = i + [a, b, c, d].firstIndex { $0 == 0xFF }!
            initialized = 0
            return
          }
          let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
          out[o] = UInt8(truncatingIfNeeded: n >> 16)
          out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
          out[o + 2] = UInt8(truncatingIfNeeded: n)
          i += 4
          o += 3
        }
        var n: UInt32 = 0
        let rest = count - i
        for k in 0..<rest {
          let v = table[Int(buffer[i + k])]
          if v == 0xFF {
            failure = i + k
            initialized = 0
            return
          }
          n = n << 6 | UInt32(v)
        }
        if rest == 1 {
          // 4n+1 characters: the last one carries 6 bits, not a whole byte.
          failure = count - 1
          initialized = 0
          return
        } else if rest == 2 {
          out[o] = UInt8(truncatingIfNeeded: n >> 4)
          o += 1
        } else if rest == 3 {
          out[o] = UInt8(truncatingIfNeeded: n >> 10)
          out[o + 1] = UInt8(truncatingIfNeeded: n >> 2)
          o += 2
        }
        initialized = o
      }
      if let failure { return .failure(Failure(offset: failure)) }
      return .success(out)
    }
  }

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Encodes without padding.
  static func encode(_ bytes: some Collection<UInt8>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count * 4 + 2) / 3)
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in bytes {
      accumulator = accumulator << 8 | UInt32(byte)
      bits += 8
      while bits >= 6 {
        bits -= 6
        out.append(alphabet[Int(accumulator >> UInt32(bits) & 63)])
      }
      accumulator &= (1 << UInt32(bits)) - 1
    }
    if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(6 - bits) & 63)]) }
    return String(decoding: out, as: UTF8.self)
  }
}

/// Strict JSON into ``JSONValue``, with the byte offset of the first error.
struct TokenJSON {
  struct Failure: Error {
    var offset: Int
    var message: String
  }

  static let maxDepth = 32

  private let bytes: [UInt8]
  private var index = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Parses one JSON value filling the whole input (whitespace around it allowed).
  static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
    var reader = TokenJSON(bytes)
    do {
      reader.skipWhitespace()
      let value = try reader.value(depth: 0)
      reader.skipWhitespace()
      if reader.index != bytes.count { throw Failure(offset: reader.index, message: "text after the JSON value") }
      return .success(value)
    } catch let failure as Failure {
      return .failure(failure)
    } catch {
      return .failure(Failure(offset: reader.index, message: "invalid JSON"))
    }
  }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
  }

  private func fail(_ message: String, at offset: Int? = nil) -> Failure {
    Failure(offset: offset ?? index, message: message)
  }

  private mutating func value(depth: Int) throws -> JSONValue {
    guard let byte = peek else { throw fail("unexpected end of the JSON text") }
    switch byte {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw fail("unexpected character")
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let start = index
    let count = word.utf8CodeUnitCount
    guard bytes.count - index >= count else { throw fail("unexpected end of the JSON text", at: bytes.count) }
    for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw fail("invalid literal", at: start) }
    index += count
  }

  private mutating func object(depth: Int) throws -> JSONValue {
    guard depth <= Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
    index += 1
    var members: [(key: String, value: JSONValue)] = []
    var seen = Set<String>()  // only past 16 members; below, a scan is cheaper than hashing
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key in an object") }
      let keyOffset = index
      let key = try string()
      let duplicate: Bool
      if members.count < 16 {
        duplicate = members.contains { $0.key == key }
      } else {
        if seen.isEmpty { seen = Set(members.map(\.key)) }
        duplicate = !seen.insert(key).inserted
      }
      guard !duplicate else { throw fail("duplicate member name \"\(key.prefix(40))\"", at: keyOffset) }
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
      index += 1
      skipWhitespace()
      let member = try value(depth: depth)
      members.append((key, member))
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"): index += 1; return .object(members)
      default: throw fail("expected ',' or '}' in an object")
      }
    }
  }

  private mutating func array(depth: Int) throws -> JSONValue {
    guard depth <= Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try value(depth: depth))
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"): index += 1; return .array(elements)
      default: throw fail("expected ',' or ']' in an array")
      }
    }
  }

  private mutating func number() throws -> String {
    let start = index
    if peek == UInt8(ascii: "-") { index += 1 }
    guard let first = peek, first >= 0x30, first <= 0x39 else { throw fail("expected a digit") }
    index += 1
    if first != 0x30 { while let b = peek, b >= 0x30, b <= 0x39 { index += 1 } }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard let b = peek, b >= 0x30, b <= 0x39 else { throw fail("expected a digit after '.'") }
      while let b = peek, b >= 0x30, b <= 0x39 { index += 1 }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard let b = peek, b >= 0x30, b <= 0x39 else { throw fail("expected a digit in the exponent") }
      while let b = peek, b >= 0x30, b <= 0x39 { index += 1 }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  private mutating func hex4() throws -> UInt32 {
    guard bytes.count - index >= 4 else { throw fail("unexpected end in a \\u escape", at: bytes.count) }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - 0x30)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - 0x61 + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - 0x41 + 10)
      default: throw fail("invalid hex digit in a \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  private mutating func string() throws -> String {
    let start = index
    index += 1
    // Fast path: printable ASCII without escapes, the usual claim.
    var end = index
    while end < bytes.count, bytes[end] >= 0x20, bytes[end] < 0x80, bytes[end] != 0x22, bytes[end] != 0x5C { end += 1 }
    if end < bytes.count, bytes[end] == 0x22 {
      index = end + 1
      return String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
    }
    var out: [UInt8] = []
    while true {
      guard let byte = peek else { throw fail("unterminated string", at: start) }
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        // Invalid UTF-8 decodes with replacement characters, so the round trip differs.
        let text = String(decoding: out, as: UTF8.self)
        guard text.utf8.elementsEqual(out) else { throw fail("invalid UTF-8 in a string", at: start) }
        return text
      case UInt8(ascii: "\\"):
        index += 1
        guard let escape = peek else { throw fail("unterminated escape") }
        index += 1
        switch escape {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          let escapeStart = index - 2
          var scalar = try hex4()
          if scalar >= 0xD800 && scalar <= 0xDBFF {
            guard bytes.count - index >= 2, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u") else {
              throw fail("unpaired surrogate in a \\u escape", at: escapeStart)
            }
            index += 2
            let low = try hex4()
            guard low >= 0xDC00 && low <= 0xDFFF else { throw fail("unpaired surrogate in a \\u escape", at: escapeStart) }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
            throw fail("unpaired surrogate in a \\u escape", at: escapeStart)
          }
          guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: escapeStart) }
          out.append(contentsOf: String(Character(unicode)).utf8)
        default: throw fail("invalid escape", at: index - 1)
        }
      case 0x00..<0x20:
        throw fail("control character in a string")
      default:
        out.append(byte)
        index += 1
      }
    }
  }
}
