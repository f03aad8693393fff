// A strict RFC 8259 parser for providers' answers: one pass over a contiguous buffer, errors with the byte
// offset where the text stops being JSON.
//
// Rejected, each as `invalid-json` at the offending byte: anything but one value between optional
// whitespace (no BOM, no trailing text), invalid UTF-8 (overlong forms, surrogates, beyond U+10FFFF, stray
// continuation bytes, truncated sequences), control characters in strings, unknown escapes, lone or
// mis-paired surrogate escapes, numbers outside the grammar (`01`, `1.`, `.5`, `+1`, `1e`), duplicate object
// keys (compared as UTF-8 bytes after unescaping, so `"a"` and `"\u0061"` are the same key), and nesting
// deeper than ``JSONValue/maximumDepth``. Every step is linear in the input: duplicate keys are found with a
// hash set once an object has more than a few members. The grammar is LinkParseProviders' `JSONReader`; this
// file builds values and words the errors.

internal import LinkParseProviders
import LinkParseBytes

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
    var builder = JSONValueBuilder(reader: JSONReader(buffer, maximumDepth: maximumDepth))
    do throws(JSONSyntaxError) {
      builder.reader.skipWhitespace()
      let value = try builder.value()
      try builder.reader.expectEnd()
      return value
    } catch {
      throw OAuthResponseError(.invalidJSON, offset: error.offset, message: message(error, in: buffer))
    }
  }

  /// The words for `error`, naming the byte at its offset where that helps.
  private static func message(_ error: JSONSyntaxError, in bytes: UnsafeBufferPointer<UInt8>) -> String {
    /// `'x'` for a printable ASCII byte, `byte 0xNN` otherwise, `end of input` past the end.
    func found() -> String {
      guard error.offset < bytes.count else { return "end of input" }
      let b = bytes[error.offset]
      if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
      let hex = String(b, radix: 16, uppercase: true)
      return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
    }
    func hex(_ b: some BinaryInteger) -> String { String(b, radix: 16, uppercase: true) }
    switch error.kind {
    case .expectedValue: return "expected a JSON value, found \(found())"
    case .invalidLiteral(let literal): return "invalid literal: expected '\(literal.rawValue)'"
    case .expectedDigit(.integer): return "expected a digit in a number, found \(found())"
    case .expectedDigit(.fraction): return "expected a digit after the decimal point, found \(found())"
    case .expectedDigit(.exponent): return "expected a digit in the exponent, found \(found())"
    case .leadingZero: return "leading zero in a number"
    case .unterminatedString: return "unterminated string"
    case .controlCharacter:
      let b = bytes[error.offset]
      return "unescaped control character (byte 0x\(b < 0x10 ? "0" : "")\(hex(b))) in a string"
    case .invalidEscape:
      let e = bytes[error.offset + 1]
      return "invalid escape '\\\(e >= 0x21 && e < 0x7F ? String(Character(Unicode.Scalar(e))) : "?")'"
    case .expectedHexDigit: return "expected four hex digits after \\u, found \(found())"
    case .loneLowSurrogate(let value): return "lone low surrogate escape \\u\(hex(value))"
    case .loneHighSurrogate(let value): return "lone high surrogate escape \\u\(hex(value))"
    case .unpairedHighSurrogate: return "high surrogate escape not followed by a low surrogate"
    case .invalidUTF8(.cannotStart(let b)): return "invalid UTF-8 (byte 0x\(hex(b)) cannot start a character)"
    case .invalidUTF8(.inSequence(let b)): return "invalid UTF-8 (byte 0x\(hex(b)) in a sequence)"
    case .invalidUTF8(.truncated): return "invalid UTF-8 (truncated sequence)"
    case .expectedKey: return "expected a string key in an object, found \(found())"
    case .expectedColon: return "expected ':' after an object key, found \(found())"
    case .expectedCommaOrEnd(.array): return "expected ',' or ']' after an array element, found \(found())"
    case .expectedCommaOrEnd(.object): return "expected ',' or '}' after an object member, found \(found())"
    case .tooDeep: return "nesting deeper than \(maximumDepth)"
    case .trailingData: return "unexpected \(found()) after the JSON value"
    case .duplicateKey:
      var reader = JSONReader(bytes, maximumDepth: 0)
      reader.index = error.offset
      var scratch: [UInt8] = []
      let key = (try? reader.string()).map { reader.text($0, scratch: &scratch) } ?? ""
      return "duplicate object key \"\(key)\""
    }
  }
}

/// Builds `JSONValue`s from the package's JSON reader, refusing duplicate keys.
private struct JSONValueBuilder {
  var reader: JSONReader
  /// Where strings with escapes are decoded.
  var scratch: [UInt8] = []

  mutating func value() throws(JSONSyntaxError) -> JSONValue {
    switch try reader.value() {
    case .object: return try object()
    case .array:
      var elements: [JSONValue] = []
      guard try reader.enter(.array) else { return .array(elements) }
      repeat { elements.append(try value()) } while try reader.next(.array)
      return .array(elements)
    case .string:
      let string = try reader.string()
      return .string(reader.text(string, scratch: &scratch))
    case .number:
      let range = try reader.number()
      return .number(String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[range]), as: UTF8.self))
    case .true: try reader.literal(.true); return .bool(true)
    case .false: try reader.literal(.false); return .bool(false)
    case .null: try reader.literal(.null); return .null
    }
  }

  mutating func object() throws(JSONSyntaxError) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = []
    var seen: Set<UTF8Key>? = nil
    guard try reader.enter(.object) else { return .object(members) }
    repeat {
      let keyOffset = reader.index
      let keyString = try reader.key()
      let key = reader.text(keyString, scratch: &scratch)
      // Duplicates: a scan while the object is small, a hash set once it is not (linear overall).
      if members.count < 8 {
        if members.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
          throw JSONSyntaxError(.duplicateKey, at: keyOffset)
        }
      } else {
        if seen == nil { seen = Set(members.map { UTF8Key($0.key) }) }
        guard seen!.insert(UTF8Key(key)).inserted else { throw JSONSyntaxError(.duplicateKey, at: keyOffset) }
      }
      try reader.colon()
      members.append((key, try value()))
    } while try reader.next(.object)
    return .object(members)
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
