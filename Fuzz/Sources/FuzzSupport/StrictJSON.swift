// A strict JSON validator (RFC 8259) over bytes, for the fuzz targets: no Foundation, no allocation.
// Deliberately independent of the package's JSONReader: a test oracle must not share the code it checks.
//
// Strict means: UTF-8 must be valid (no overlong forms, no surrogates, nothing above U+10FFFF), control
// characters must be escaped inside strings, `\u` escapes must pair surrogates, numbers follow the grammar
// exactly, and nothing but whitespace may follow the value. Nesting deeper than `maxDepth` is rejected so the
// validator itself cannot overflow the stack.

/// Validates JSON text.
public enum StrictJSON {
  /// The deepest nesting accepted.
  public static let maxDepth = 512

  /// Why a text is not valid JSON: the byte offset and a short reason.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    public var offset: Int
    public var reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
  }

  /// Checks that `bytes` are exactly one JSON value (with optional surrounding whitespace).
  /// Returns the deepest nesting seen (0 for a scalar).
  @discardableResult
  public static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> Int {
    var parser = Parser(bytes: bytes)
    parser.skipWhitespace()
    try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.index == bytes.count else { throw parser.fail("trailing bytes after the value") }
    return parser.deepest
  }

  /// Checks `bytes`; see ``validate(_:)-(UnsafeBufferPointer<UInt8>)``.
  @discardableResult
  public static func validate(_ bytes: [UInt8]) throws(Failure) -> Int {
    try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) -> Int in try validate(buffer) }
  }

  /// Whether `bytes` are valid JSON.
  public static func isValid(_ bytes: [UInt8]) -> Bool {
    do { try validate(bytes); return true } catch { return false }
  }

  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var deepest = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    mutating func skipWhitespace() {
      while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(Failure) {
      guard let byte = peek else { throw fail("expected a value, found the end") }
      switch byte {
      case UInt8(ascii: "{"): try object(depth: depth + 1)
      case UInt8(ascii: "["): try array(depth: depth + 1)
      case UInt8(ascii: "\""): try string()
      case UInt8(ascii: "t"): try literal("true")
      case UInt8(ascii: "f"): try literal("false")
      case UInt8(ascii: "n"): try literal("null")
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
      default: throw fail("unexpected byte 0x\(String(byte, radix: 16)) where a value starts")
      }
    }

    mutating func enter(_ depth: Int) throws(Failure) {
      guard depth <= StrictJSON.maxDepth else { throw fail("nested deeper than \(StrictJSON.maxDepth)") }
      deepest = max(deepest, depth)
    }

    mutating func object(depth: Int) throws(Failure) {
      try enter(depth)
      index += 1  // {
      skipWhitespace()
      if peek == UInt8(ascii: "}") { index += 1; return }
      while true {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw fail("expected a key string") }
        try string()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
        index += 1
        skipWhitespace()
        try value(depth: depth)
        skipWhitespace()
        guard let separator = peek else { throw fail("unterminated object") }
        index += 1
        if separator == UInt8(ascii: "}") { return }
        guard separator == UInt8(ascii: ",") else { index -= 1; throw fail("expected ',' or '}'") }
      }
    }

    mutating func array(depth: Int) throws(Failure) {
      try enter(depth)
      index += 1  // [
      skipWhitespace()
      if peek == UInt8(ascii: "]") { index += 1; return }
      while true {
        skipWhitespace()
        try value(depth: depth)
        skipWhitespace()
        guard let separator = peek else { throw fail("unterminated array") }
        index += 1
        if separator == UInt8(ascii: "]") { return }
        guard separator == UInt8(ascii: ",") else { index -= 1; throw fail("expected ',' or ']'") }
      }
    }

    mutating func literal(_ word: StaticString) throws(Failure) {
      let count = word.utf8CodeUnitCount
      guard bytes.count - index >= count else { throw fail("truncated literal") }
      for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw fail("bad literal") }
      index += count
    }

    mutating func digits() -> Int {
      let start = index
      while let byte = peek, byte >= 0x30 && byte <= 0x39 { index += 1 }
      return index - start
    }

    mutating func number() throws(Failure) {
      if peek == UInt8(ascii: "-") { index += 1 }
      if peek == UInt8(ascii: "0") {
        index += 1
      } else {
        guard digits() > 0 else { throw fail("expected digits") }
      }
      if peek == UInt8(ascii: ".") {
        index += 1
        guard digits() > 0 else { throw fail("expected digits after '.'") }
      }
      if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
        index += 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { throw fail("expected exponent digits") }
      }
    }

    mutating func hex4() throws(Failure) -> UInt32 {
      guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x41...0x46: digit = byte - 0x41 + 10
        case 0x61...0x66: digit = byte - 0x61 + 10
        default: throw fail("bad hex digit in \\u escape")
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }

    mutating func string() throws(Failure) {
      index += 1  // opening quote
      while true {
        guard let byte = peek else { throw fail("unterminated string") }
        switch byte {
        case UInt8(ascii: "\""):
          index += 1
          return
        case UInt8(ascii: "\\"):
          index += 1
          guard let escape = peek else { throw fail("unterminated escape") }
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            break
          case UInt8(ascii: "u"):
            let unit = try hex4()
            if unit >= 0xDC00 && unit <= 0xDFFF { throw fail("lone low surrogate escape") }
            if unit >= 0xD800 && unit <= 0xDBFF {
              guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
              else { throw fail("high surrogate escape without a low one") }
              index += 2
              let low = try hex4()
              guard low >= 0xDC00 && low <= 0xDFFF else { throw fail("high surrogate escape without a low one") }
            }
          default:
            index -= 1
            throw fail("bad escape")
          }
        case 0x00..<0x20:
          throw fail("unescaped control character")
        case 0x20..<0x80:
          index += 1
        default:
          try scalar()
        }
      }
    }

    /// One multi-byte UTF-8 sequence, strictly (Unicode Table 3-7).
    mutating func scalar() throws(Failure) {
      let lead = bytes[index]
      let count: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: count = 2
      case 0xE0: count = 3; low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: count = 3
      case 0xED: count = 3; high = 0x9F
      case 0xF0: count = 4; low = 0x90
      case 0xF1...0xF3: count = 4
      case 0xF4: count = 4; high = 0x8F
      default: throw fail("invalid UTF-8 lead byte 0x\(String(lead, radix: 16))")
      }
      guard bytes.count - index >= count else { throw fail("truncated UTF-8 sequence") }
      let second = bytes[index + 1]
      guard second >= low && second <= high else { throw fail("invalid UTF-8 continuation") }
      for k in 2..<max(count, 2) where bytes[index + k] & 0xC0 != 0x80 {
        throw fail("invalid UTF-8 continuation")
      }
      index += count
    }
  }
}

/// Whether `bytes` are valid UTF-8 (strictly; the same rules as ``StrictJSON``).
public func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  var iterator = bytes.makeIterator()
  var decoder = UTF8()
  while true {
    switch decoder.decode(&iterator) {
    case .scalarValue: continue
    case .emptyInput: return true
    case .error: return false
    }
  }
}
