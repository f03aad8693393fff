import LinkParseCore
import LinkParseRouter
import LinkParseProviders
import LinkParseAuthorization
import LinkParseOAuth
import LinkParseBytes

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

/// A small, strict JSON reader for one `--input-format json` line (RFC 8259 syntax), on the package's one
/// JSON reader (LinkParseProviders' `JSONReader`): this type reads the record's keys and words the errors.
///
/// It accepts a JSON string, or an object with `input` (a string, required), `base` (a string or `null`)
/// and `body` (a string or `null`); other keys are checked for syntax and ignored; `input`, `base` or `body`
/// given twice is an error. Escapes include `\uXXXX` with surrogate pairs (a lone surrogate is an error in
/// the strings that are read; in ignored values only the escape's syntax is checked). Bytes that are not
/// valid UTF-8 inside a string are replaced with U+FFFD. Syntax errors win over shape errors, so a record
/// error is only reported for a line that is valid JSON.
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
    // Invalid UTF-8 is repaired, not refused; `01` is the number 0 and then a stray byte.
    var reader = JSONReader(line, maximumDepth: Self.maxDepth, validatesUTF8: false, diagnosesLeadingZeros: false)
    let record: Result<JSONInputRecord, JSONRecordError>
    do throws(JSONSyntaxError) {
      record = try self.record(&reader)
    } catch {
      throw Self.syntaxError(error)
    }
    return try record.get()
  }

  /// The record, or its shape error (syntax errors are thrown).
  private mutating func record(
    _ reader: inout JSONReader
  ) throws(JSONSyntaxError) -> Result<JSONInputRecord, JSONRecordError> {
    reader.skipWhitespace()
    switch reader.peek {
    case nil:
      return .failure(.syntax(reader.index, "empty line: expected a JSON string or object"))
    case UInt8(ascii: "\""):
      let input = try string(&reader)
      try reader.expectEnd()
      return .success(JSONInputRecord(input: input))
    case UInt8(ascii: "{"):
      return try object(&reader)  // checks the end itself, before reporting a shape error
    default:
      let valueStart = reader.index
      try reader.skipValue(pairingSurrogates: false)
      try reader.expectEnd()
      return .failure(.shape(valueStart, "expected a JSON string or an object with an \"input\" key"))
    }
  }

  private mutating func object(
    _ reader: inout JSONReader
  ) throws(JSONSyntaxError) -> Result<JSONInputRecord, JSONRecordError> {
    let objectStart = reader.index
    var input: String?
    var base: JSONInputRecord.Base = .inherited
    var sawBase = false
    var body: String?
    var sawBody = false
    var shapeError: JSONRecordError?  // reported once the whole line is known to be valid JSON

    if try reader.enter(.object) {
      repeat {
        let keyStart = reader.index
        let keyString = try reader.key()
        let key = reader.text(keyString, scratch: &scratch)
        try reader.colon()
        let valueStart = reader.index
        switch key {
        case "input":
          if input != nil {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"input\"")
          }
          if reader.peek == UInt8(ascii: "\"") {
            input = try string(&reader)
          } else {
            try reader.skipValue(pairingSurrogates: false)
            input = input ?? ""
            shapeError = shapeError ?? .shape(valueStart, "\"input\" must be a string")
          }
        case "base":
          if sawBase {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"base\"")
          }
          sawBase = true
          if reader.peek == UInt8(ascii: "\"") {
            base = .url(try string(&reader))
          } else if reader.peek == UInt8(ascii: "n") {
            try reader.literal(.null)
            base = .none
          } else {
            try reader.skipValue(pairingSurrogates: false)
            shapeError = shapeError ?? .shape(valueStart, "\"base\" must be a string or null")
          }
        case "body":
          if sawBody {
            shapeError = shapeError ?? .shape(keyStart, "duplicate key \"body\"")
          }
          sawBody = true
          if reader.peek == UInt8(ascii: "\"") {
            body = try string(&reader)
          } else if reader.peek == UInt8(ascii: "n") {
            try reader.literal(.null)
          } else {
            try reader.skipValue(pairingSurrogates: false)
            shapeError = shapeError ?? .shape(valueStart, "\"body\" must be a string or null")
          }
        default:
          try reader.skipValue(pairingSurrogates: false)
        }
      } while try reader.next(.object)
    }
    try reader.expectEnd()
    if let shapeError { return .failure(shapeError) }
    guard let input else { return .failure(.shape(objectStart, "missing key \"input\"")) }
    return .success(JSONInputRecord(input: input, base: base, body: body))
  }

  /// The string at the reader (on its opening quote), escapes decoded, invalid UTF-8 repaired.
  private mutating func string(_ reader: inout JSONReader) throws(JSONSyntaxError) -> String {
    let string = try reader.string()
    return reader.text(string, scratch: &scratch)
  }

  /// A syntax error in this command's words, at the offset it has always reported.
  private static func syntaxError(_ error: JSONSyntaxError) -> JSONRecordError {
    func hex(_ value: UInt16) -> String {
      let digits = String(value, radix: 16, uppercase: true)
      return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
    switch error.kind {
    case .expectedValue: return .syntax(error.offset, "expected a value")
    case .invalidLiteral: return .syntax(error.start, "expected a value")
    case .expectedDigit, .leadingZero: return .syntax(error.offset, "invalid number")
    case .unterminatedString: return .syntax(error.offset, "unterminated string")
    case .controlCharacter: return .syntax(error.offset, "control character in a string: escape it")
    case .invalidEscape: return .syntax(error.offset, "invalid escape sequence")
    case .expectedHexDigit: return .syntax(error.offset, "expected four hex digits after \\u")
    case .loneHighSurrogate(let value): return .syntax(error.offset, "lone high surrogate \\u\(hex(value))")
    case .loneLowSurrogate(let value): return .syntax(error.offset, "lone low surrogate \\u\(hex(value))")
    case .unpairedHighSurrogate(let value):
      return .syntax(error.start, "high surrogate \\u\(hex(value)) not followed by a low surrogate")
    case .invalidUTF8: return .syntax(error.offset, "invalid UTF-8")  // not checked here: repaired instead
    case .expectedKey: return .syntax(error.offset, "expected a key in quotes")
    case .expectedColon: return .syntax(error.offset, "expected ':' after a key")
    case .expectedCommaOrEnd(.object): return .syntax(error.offset, "expected ',' or '}' in an object")
    case .expectedCommaOrEnd(.array): return .syntax(error.offset, "expected ',' or ']' in an array")
    case .tooDeep: return .syntax(error.offset, "arrays and objects nested too deeply")
    case .trailingData: return .syntax(error.offset, "unexpected data after the JSON value")
    case .duplicateKey: return .syntax(error.offset, "duplicate key")  // not checked here: a shape error
    }
  }
}
