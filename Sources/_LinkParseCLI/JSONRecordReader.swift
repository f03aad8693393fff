/// One `--input-format json` record: a URL and, optionally, the base URL to resolve it against and a form
/// body posted to it.
///
/// A line is either a JSON string (the URL) or an object:
///
/// ```json
/// "https://example.com/cb?code=1"
/// {"input": "cb?code=1", "base": "https://example.com/"}
/// {"input": "myapp://cb?code=1", "base": null}
/// {"input": "https://example.com/auth/apple/callback", "body": "state=8f3c&code=c1"}
/// ```
///
/// `body` is a form body posted to `input` (Apple's `form_post`); it is decoded as the callback's parameters.
/// To add a key: add a stored property here and a `case` beside `"input"`, `"base"` and `"body"` in
/// ``JSONRecordReader``'s object reader (with its duplicate check); unknown keys are already skipped.
public struct JSONInputRecord: Sendable, Hashable {
  /// What the record says about the base URL.
  public enum Base: Sendable, Hashable {
    /// No `base` key (or a bare JSON string line): use the `--base` option, if any.
    case inherited
    /// `"base": null`: resolve without a base, whatever `--base` says.
    case none
    /// `"base": "…"`: resolve against this URL instead of `--base`.
    case url(String)
  }

  /// The URL to parse (`input`).
  public var input: String
  /// The base URL (`base`).
  public var base: Base
  /// A form body (`body`) posted to `input` (Apple's `form_post`): decoded as the callback's parameters.
  public var body: String?

  /// Creates a record.
  public init(input: String, base: Base = .inherited, body: String? = nil) {
    self.input = input
    self.base = base
    self.body = body
  }
}

/// Why a line is not a valid `--input-format json` record. Reported as an error record, never a crash.
public struct JSONRecordError: Error, Sendable, Hashable {
  /// `invalid-json` (the line is not valid JSON) or `invalid-record` (valid JSON of the wrong shape).
  public var code: String
  /// The byte offset in the line where the problem was found, or `nil` for the record as a whole.
  public var offset: Int?
  /// A sentence a person can act on.
  public var message: String

  /// Creates an error.
  public init(code: String, offset: Int?, message: String) {
    self.code = code
    self.offset = offset
    self.message = message
  }

  static func syntax(_ offset: Int, _ message: String) -> JSONRecordError {
    JSONRecordError(code: "invalid-json", offset: offset, message: message)
  }

  static func shape(_ offset: Int?, _ message: String) -> JSONRecordError {
    JSONRecordError(code: "invalid-record", offset: offset, message: message)
  }
}

/// A small, strict JSON reader for one `--input-format json` line (RFC 8259 syntax).
///
/// It accepts a JSON string, or an object with `input` (a string, required), `base` (a string or `null`)
/// and `body` (a string or `null`); other keys are checked for syntax and ignored; `input`, `base` or `body`
/// given twice is an error. Escapes include `\uXXXX` with surrogate pairs (a lone surrogate is an error). Bytes that are not valid UTF-8 inside a
/// string are replaced with U+FFFD. Syntax errors win over shape errors, so a record error is only reported
/// for a line that is valid JSON.
///
/// ```swift
/// var reader = JSONRecordReader()
/// let record = try reader.read(Array(#"{"input":"a:b","base":null}"#.utf8))
/// record.input  // "a:b"
/// record.base   // .none
/// ```
public struct JSONRecordReader {
  /// How deep arrays and objects may nest inside an ignored value.
  public static let maxDepth = 128

  /// Scratch space for strings with escapes, reused from line to line.
  private var scratch: [UInt8] = []

  /// Creates a reader.
  public init() {}

  /// Reads one record from `line`.
  public mutating func read(_ line: [UInt8]) throws(JSONRecordError) -> JSONInputRecord {
    try line.withUnsafeBufferPointer { (buffer) throws(JSONRecordError) in try read(buffer) }
  }

  /// Reads one record from `line` (without its newline).
  public mutating func read(_ line: UnsafeBufferPointer<UInt8>) throws(JSONRecordError) -> JSONInputRecord {
    var cursor = Cursor(bytes: line)
    cursor.skipWhitespace()
    let record: JSONInputRecord
    switch cursor.peek {
    case nil:
      throw .syntax(cursor.index, "empty line: expected a JSON string or object")
    case UInt8(ascii: "\""):
      record = JSONInputRecord(input: try string(&cursor))
      try cursor.expectEnd()
    case UInt8(ascii: "{"):
      record = try object(&cursor)  // checks the end itself, before reporting a shape error
    default:
      let valueStart = cursor.index
      try cursor.skipValue(depth: 0)
      try cursor.expectEnd()
      throw .shape(valueStart, "expected a JSON string or an object with an \"input\" key")
    }
    return record
  }

  private mutating func object(_ cursor: inout Cursor) throws(JSONRecordError) -> JSONInputRecord {
    let objectStart = cursor.index
    cursor.index += 1  // {
    var input: String?
    var base: JSONInputRecord.Base = .inherited
    var sawBase = false
    var body: String?
    var sawBody = false
    var shapeError: JSONRecordError?  // reported once the whole line is known to be valid JSON

    cursor.skipWhitespace()
    if cursor.peek == UInt8(ascii: "}") {
      cursor.index += 1
    } else {
      while true {
        cursor.skipWhitespace()
        guard cursor.peek == UInt8(ascii: "\"") else { throw .syntax(cursor.index, "expected a key in quotes") }
        let keyStart = cursor.index
        let key = try string(&cursor)
        cursor.skipWhitespace()
        guard cursor.peek == UInt8(ascii: ":") else { throw .syntax(cursor.index, "expected ':' after a key") }
        cursor.index += 1
        cursor.skipWhitespace()
        let valueStart = cursor.index
        switch key {
        case "input":
          if input != nil {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"input\"")
          }
          if cursor.peek == UInt8(ascii: "\"") {
            input = try string(&cursor)
          } else {
            try cursor.skipValue(depth: 1)
            input = input ?? ""
            shapeError = shapeError ?? .shape(valueStart, "\"input\" must be a string")
          }
        case "base":
          if sawBase {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"base\"")
          }
          sawBase = true
          if cursor.peek == UInt8(ascii: "\"") {
            base = .url(try string(&cursor))
          } else if cursor.peek == UInt8(ascii: "n") {
            try cursor.skipValue(depth: 1)  // validates `null`
            base = .none
          } else {
            try cursor.skipValue(depth: 1)
            shapeError = shapeError ?? .shape(valueStart, "\"base\" must be a string or null")
          }
        case "body":
          if sawBody {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"body\"")
          }
          sawBody = true
          if cursor.peek == UInt8(ascii: "\"") {
            body = try string(&cursor)
          } else if cursor.peek == UInt8(ascii: "n") {
            try cursor.skipValue(depth: 1)  // validates `null`
          } else {
            try cursor.skipValue(depth: 1)
            shapeError = shapeError ?? .shape(valueStart, "\"body\" must be a string or null")
          }
        default:
          try cursor.skipValue(depth: 1)
        }
        cursor.skipWhitespace()
        guard let separator = cursor.peek, separator == UInt8(ascii: ",") || separator == UInt8(ascii: "}") else {
          throw .syntax(cursor.index, "expected ',' or '}' in an object")
        }
        cursor.index += 1
        if separator == UInt8(ascii: "}") { break }
      }
    }
    try cursor.expectEnd()
    if let shapeError { throw shapeError }
    guard let input else { throw .shape(objectStart, "missing key \"input\"") }
    return JSONInputRecord(input: input, base: base, body: body)
  }

  /// Reads the string at the cursor (which is on its opening quote).
  private mutating func string(_ cursor: inout Cursor) throws(JSONRecordError) -> String {
    cursor.index += 1
    let contentStart = cursor.index
    let bytes = cursor.bytes
    // Fast path: no escapes.
    while cursor.index < bytes.count {
      let byte = bytes[cursor.index]
      if byte == UInt8(ascii: "\"") {
        let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<cursor.index])
        cursor.index += 1
        return String(decoding: content, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw .syntax(cursor.index, "control character in a string: escape it") }
      cursor.index += 1
    }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: bytes[contentStart..<cursor.index])
    while cursor.index < bytes.count {
      let byte = bytes[cursor.index]
      switch byte {
      case UInt8(ascii: "\""):
        cursor.index += 1
        return String(decoding: scratch, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try escape(&cursor)
      case ..<0x20:
        throw .syntax(cursor.index, "control character in a string: escape it")
      default:
        scratch.append(byte)
        cursor.index += 1
      }
    }
    throw .syntax(cursor.index, "unterminated string")
  }

  /// Decodes the escape at the cursor (on its backslash) into `scratch`.
  private mutating func escape(_ cursor: inout Cursor) throws(JSONRecordError) {
    let escapeStart = cursor.index
    cursor.index += 1
    guard let letter = cursor.peek else { throw .syntax(cursor.index, "unterminated string") }
    cursor.index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try cursor.hex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard cursor.peek == UInt8(ascii: "\\"), cursor.peek(at: 1) == UInt8(ascii: "u") else {
          throw .syntax(escapeStart, "lone high surrogate \\u\(hex(scalar))")
        }
        cursor.index += 2
        let low = try cursor.hex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw .syntax(escapeStart, "high surrogate \\u\(hex(scalar)) not followed by a low surrogate")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw .syntax(escapeStart, "lone low surrogate \\u\(hex(scalar))")
      }
      // Not a surrogate now, so always a valid scalar.
      scratch.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!)
    default:
      throw .syntax(escapeStart, "invalid escape sequence")
    }
  }

  private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}

/// A position in a line, and the syntax checks that need no state.
private struct Cursor {
  let bytes: UnsafeBufferPointer<UInt8>
  var index = 0

  var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  func peek(at distance: Int) -> UInt8? {
    index + distance < bytes.count ? bytes[index + distance] : nil
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  /// Only whitespace may follow the value.
  mutating func expectEnd() throws(JSONRecordError) {
    skipWhitespace()
    if index < bytes.count { throw .syntax(index, "unexpected data after the JSON value") }
  }

  /// Reads four hex digits.
  mutating func hex4() throws(JSONRecordError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = peek else { throw .syntax(index, "expected four hex digits after \\u") }
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw .syntax(index, "expected four hex digits after \\u")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// Checks and skips any JSON value (the cursor is on its first byte).
  mutating func skipValue(depth: Int) throws(JSONRecordError) {
    guard let byte = peek else { throw .syntax(index, "expected a value") }
    switch byte {
    case UInt8(ascii: "\""):
      try skipString()
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      guard depth < JSONRecordReader.maxDepth else { throw .syntax(index, "arrays and objects nested too deeply") }
      let isObject = byte == UInt8(ascii: "{")
      let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
      index += 1
      skipWhitespace()
      if peek == close {
        index += 1
        return
      }
      while true {
        skipWhitespace()
        if isObject {
          guard peek == UInt8(ascii: "\"") else { throw .syntax(index, "expected a key in quotes") }
          try skipString()
          skipWhitespace()
          guard peek == UInt8(ascii: ":") else { throw .syntax(index, "expected ':' after a key") }
          index += 1
          skipWhitespace()
        }
        try skipValue(depth: depth + 1)
        skipWhitespace()
        if peek == UInt8(ascii: ",") {
          index += 1
        } else if peek == close {
          index += 1
          return
        } else {
          throw .syntax(index, isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
        }
      }
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      try skipNumber()
    default:
      throw .syntax(index, "expected a value")
    }
  }

  private mutating func literal(_ word: StaticString) throws(JSONRecordError) {
    let start = index
    for offset in 0..<word.utf8CodeUnitCount {
      guard peek == word.utf8Start[offset] else { throw .syntax(start, "expected a value") }
      index += 1
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  private mutating func skipNumber() throws(JSONRecordError) {
    func isDigit(_ byte: UInt8?) -> Bool { byte.map { (0x30...0x39).contains($0) } ?? false }
    if peek == UInt8(ascii: "-") { index += 1 }
    if peek == UInt8(ascii: "0") {
      index += 1
    } else if isDigit(peek) {
      while isDigit(peek) { index += 1 }
    } else {
      throw .syntax(index, "invalid number")
    }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard isDigit(peek) else { throw .syntax(index, "invalid number") }
      while isDigit(peek) { index += 1 }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard isDigit(peek) else { throw .syntax(index, "invalid number") }
      while isDigit(peek) { index += 1 }
    }
  }

  /// Checks and skips a string, escapes included.
  private mutating func skipString() throws(JSONRecordError) {
    index += 1
    while let byte = peek {
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return
      case UInt8(ascii: "\\"):
        let escapeStart = index
        index += 1
        guard let letter = peek else { break }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          continue
        case UInt8(ascii: "u"):
          // Surrogates are only checked where the string is used; an ignored value is just syntax.
          _ = try hex4()
        default:
          throw .syntax(escapeStart, "invalid escape sequence")
        }
      case ..<0x20:
        throw .syntax(index, "control character in a string: escape it")
      default:
        index += 1
      }
    }
    throw .syntax(index, "unterminated string")
  }
}
