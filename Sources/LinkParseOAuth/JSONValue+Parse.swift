// A strict RFC 8259 parser for providers' answers: one pass over a contiguous buffer, errors with the byte
// offset where the text stops being JSON.
//
// Rejected, each as `invalid-json` at the offending byte: anything but one value between optional
// whitespace (no BOM, no trailing text), invalid UTF-8 (overlong forms, surrogates, beyond U+10FFFF, stray
// continuation bytes, truncated sequences), control characters in strings, unknown escapes, lone or
// mis-paired surrogate escapes, numbers outside the grammar (`01`, `1.`, `.5`, `+1`, `1e`), duplicate object
// keys (compared as UTF-8 bytes after unescaping, so `"a"` and `"\u0061"` are the same key), and nesting
// deeper than ``JSONValue/maximumDepth``. Every step is linear in the input: duplicate keys are found with a
// hash set once an object has more than a few members.

extension JSONValue {
  /// How deep arrays and objects may nest (the 129th open bracket is an error, not a stack overflow).
  ///
  /// ```swift
  /// JSONValue.maximumDepth  // 128
  /// ```
  public static let maximumDepth = 128

  /// Parses JSON text (RFC 8259) strictly.
  ///
  /// The input is read once, in place when the collection has contiguous storage (an `Array`, `Data`,
  /// `String.UTF8View` of a native string) and from one copy otherwise. Numbers keep their text.
  ///
  /// ```swift
  /// let value = try JSONValue.parse(Array(#"{"access_token":"vk2.a.x","expires_in":600}"#.utf8))
  /// value["expires_in"]?.integer  // 600
  ///
  /// do { _ = try JSONValue.parse(Array(#"{"a" 1}"#.utf8)) } catch {
  ///   error.offset   // 5
  ///   error.message  // "expected ':' after an object key"
  /// }
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` with code ``OAuthResponseError/Code/invalidJSON``, the byte
  ///   ``OAuthResponseError/offset`` and a message naming what was expected or found.
  public static func parse(_ bytes: some Collection<UInt8>) throws(OAuthResponseError) -> JSONValue {
    let result: Result<JSONValue, OAuthResponseError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(OAuthResponseError) -> JSONValue in try parseBuffer(buffer) }
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    let copied: Result<JSONValue, OAuthResponseError> = copy.withUnsafeBufferPointer { buffer in
      Result { () throws(OAuthResponseError) -> JSONValue in try parseBuffer(buffer) }
    }
    return try copied.get()
  }

  static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) throws(OAuthResponseError) -> JSONValue {
    var parser = JSONParser(buffer)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    if parser.index < buffer.count {
      throw parser.error("unexpected \(parser.describe(parser.index)) after the JSON value", at: parser.index)
    }
    return value
  }
}

/// The parser's state: the buffer and the read position.
struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func error(_ message: String, at offset: Int) -> OAuthResponseError {
    OAuthResponseError(.invalidJSON, offset: offset, message: message)
  }

  /// `'x'` for a printable ASCII byte, `byte 0xNN` otherwise, `end of input` past the end.
  func describe(_ offset: Int) -> String {
    guard offset < bytes.count else { return "end of input" }
    let b = bytes[offset]
    if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
    let hex = String(b, radix: 16, uppercase: true)
    return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func parseValue(depth: Int) throws(OAuthResponseError) -> JSONValue {
    guard index < bytes.count else { throw error("expected a JSON value, found end of input", at: index) }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw error("expected a JSON value, found \(describe(index))", at: index)
    }
  }

  mutating func literal(_ word: StaticString) throws(OAuthResponseError) {
    let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    for (i, expected) in text.enumerated() {
      guard index + i < bytes.count, bytes[index + i] == expected else {
        throw error("invalid literal: expected '\(word)'", at: index + i)
      }
    }
    index += text.count
  }

  mutating func parseArray(depth: Int) throws(OAuthResponseError) -> JSONValue {
    if depth > JSONValue.maximumDepth {
      throw error("nesting deeper than \(JSONValue.maximumDepth)", at: index)
    }
    index += 1  // [
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth))
      skipWhitespace()
      guard index < bytes.count else {
        throw error("expected ',' or ']' after an array element, found end of input", at: index)
      }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"): index += 1; return .array(elements)
      default: throw error("expected ',' or ']' after an array element, found \(describe(index))", at: index)
      }
    }
  }

  mutating func parseObject(depth: Int) throws(OAuthResponseError) -> JSONValue {
    if depth > JSONValue.maximumDepth {
      throw error("nesting deeper than \(JSONValue.maximumDepth)", at: index)
    }
    index += 1  // {
    var members: [(key: String, value: JSONValue)] = []
    var seen: Set<UTF8Key>? = nil
    skipWhitespace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a string key in an object, found \(describe(index))", at: index)
      }
      let keyOffset = index
      let key = try parseString()
      // Duplicates: a scan while the object is small, a hash set once it is not (linear overall).
      if members.count < 8 {
        if members.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
          throw error("duplicate object key \"\(key)\"", at: keyOffset)
        }
      } else {
        if seen == nil { seen = Set(members.map { UTF8Key($0.key) }) }
        guard seen!.insert(UTF8Key(key)).inserted else {
          throw error("duplicate object key \"\(key)\"", at: keyOffset)
        }
      }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw error("expected ':' after an object key, found \(describe(index))", at: index)
      }
      index += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      members.append((key, value))
      skipWhitespace()
      guard index < bytes.count else {
        throw error("expected ',' or '}' after an object member, found end of input", at: index)
      }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"): index += 1; return .object(members)
      default: throw error("expected ',' or '}' after an object member, found \(describe(index))", at: index)
      }
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as text.
  mutating func parseNumber() throws(OAuthResponseError) -> String {
    let start = index
    func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard isDigit(index) else { throw error("expected a digit in a number, found \(describe(index))", at: index) }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if isDigit(index) { throw error("leading zero in a number", at: index - 1) }
    } else {
      while isDigit(index) { index += 1 }
    }
    if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard isDigit(index) else {
        throw error("expected a digit after the decimal point, found \(describe(index))", at: index)
      }
      while isDigit(index) { index += 1 }
    }
    if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
      index += 1
      if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
        index += 1
      }
      guard isDigit(index) else {
        throw error("expected a digit in the exponent, found \(describe(index))", at: index)
      }
      while isDigit(index) { index += 1 }
    }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
  }

  /// A string, from its opening quote: validated UTF-8, escapes decoded. A string without escapes is made
  /// from its bytes in place; one with escapes is built in a buffer.
  mutating func parseString() throws(OAuthResponseError) -> String {
    index += 1  // "
    let start = index
    var decoded: [UInt8]? = nil
    var runStart = index
    while true {
      guard index < bytes.count else { throw error("unterminated string", at: index) }
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        let end = index
        index += 1
        if var out = decoded {
          out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end]))
          return String(decoding: out, as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
      }
      if b == UInt8(ascii: "\\") {
        if decoded == nil { decoded = [] }
        decoded!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        try parseEscape(into: &decoded!)
        runStart = index
        continue
      }
      if b < 0x20 {
        throw error("unescaped control character (byte 0x\(b < 0x10 ? "0" : "")\(String(b, radix: 16, uppercase: true))) in a string", at: index)
      }
      if b < 0x80 {
        index += 1
        continue
      }
      try skipUTF8Sequence()
    }
  }

  /// One multi-byte UTF-8 sequence at `index` (Unicode Table 3-7), or an error at its first bad byte.
  mutating func skipUTF8Sequence() throws(OAuthResponseError) {
    let b0 = bytes[index]
    let count: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch b0 {
    case 0xC2...0xDF: count = 2
    case 0xE0: count = 3; low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: count = 3
    case 0xED: count = 3; high = 0x9F  // no UTF-16 surrogates
    case 0xF0: count = 4; low = 0x90
    case 0xF1...0xF3: count = 4
    case 0xF4: count = 4; high = 0x8F  // nothing beyond U+10FFFF
    default: throw error("invalid UTF-8 (byte 0x\(String(b0, radix: 16, uppercase: true)) cannot start a character)", at: index)
    }
    for i in 1..<count {
      let at = index + i
      guard at < bytes.count else { throw error("invalid UTF-8 (truncated sequence)", at: at) }
      let b = bytes[at]
      let (lo, hi) = i == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
      guard b >= lo && b <= hi else {
        throw error("invalid UTF-8 (byte 0x\(String(b, radix: 16, uppercase: true)) in a sequence)", at: at)
      }
    }
    index += count
  }

  /// One escape at `index` (the backslash), appended as UTF-8.
  mutating func parseEscape(into out: inout [UInt8]) throws(OAuthResponseError) {
    let at = index
    index += 1
    guard index < bytes.count else { throw error("unterminated string", at: index) }
    let e = bytes[index]
    index += 1
    switch e {
    case UInt8(ascii: "\""): out.append(0x22)
    case UInt8(ascii: "\\"): out.append(0x5C)
    case UInt8(ascii: "/"): out.append(0x2F)
    case UInt8(ascii: "b"): out.append(0x08)
    case UInt8(ascii: "f"): out.append(0x0C)
    case UInt8(ascii: "n"): out.append(0x0A)
    case UInt8(ascii: "r"): out.append(0x0D)
    case UInt8(ascii: "t"): out.append(0x09)
    case UInt8(ascii: "u"):
      let first = try hex4()
      var scalar: UInt32 = first
      if first >= 0xDC00 && first <= 0xDFFF {
        throw error("lone low surrogate escape \\u\(String(first, radix: 16, uppercase: true))", at: at)
      }
      if first >= 0xD800 && first <= 0xDBFF {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
          throw error("lone high surrogate escape \\u\(String(first, radix: 16, uppercase: true))", at: at)
        }
        let secondAt = index
        index += 2
        let second = try hex4()
        guard second >= 0xDC00 && second <= 0xDFFF else {
          throw error("high surrogate escape not followed by a low surrogate", at: secondAt)
        }
        scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
      }
      // UTF-8 by hand: the scalar is valid (surrogates were paired above), and a `String` per escape would
      // allocate.
      switch scalar {
      case 0..<0x80:
        out.append(UInt8(scalar))
      case 0x80..<0x800:
        out.append(UInt8(0xC0 | scalar >> 6))
        out.append(UInt8(0x80 | scalar & 0x3F))
      case 0x800..<0x10000:
        out.append(UInt8(0xE0 | scalar >> 12))
        out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        out.append(UInt8(0x80 | scalar & 0x3F))
      default:
        out.append(UInt8(0xF0 | scalar >> 18))
        out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
        out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        out.append(UInt8(0x80 | scalar & 0x3F))
      }
    default:
      throw error("invalid escape '\\\(e >= 0x21 && e < 0x7F ? String(Character(Unicode.Scalar(e))) : "?")'", at: at)
    }
  }

  mutating func hex4() throws(OAuthResponseError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard index < bytes.count else { throw error("expected four hex digits after \\u, found end of input", at: index) }
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case 0x30...0x39: digit = UInt32(b - 0x30)
      case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
      default: throw error("expected four hex digits after \\u, found \(describe(index))", at: index)
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }
}

/// A key compared and hashed as UTF-8 bytes (`String ==` would equate canonically equivalent spellings,
/// which are different keys).
struct UTF8Key: Hashable {
  let string: String
  init(_ string: String) { self.string = string }
  static func == (a: UTF8Key, b: UTF8Key) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }
  func hash(into hasher: inout Hasher) {
    let done: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    if done == nil {
      for byte in string.utf8 { hasher.combine(byte) }
    }
  }
}
