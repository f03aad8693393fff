// A strict RFC 8259 parser: one pass over a contiguous buffer, errors with the byte offset where the text stops
// being JSON.
//
// Rejected, each at the offending byte: anything but one value between optional whitespace (no BOM, no
// trailing text), invalid UTF-8 (overlong forms, surrogates, beyond U+10FFFF, stray continuation bytes,
// truncated sequences), control characters in strings, unknown escapes, lone or mis-paired surrogate escapes,
// numbers outside the grammar (`01`, `1.`, `.5`, `+1`, `1e`), duplicate object keys (compared as UTF-8 bytes
// after unescaping, so `"a"` and `"\u0061"` are the same key), and nesting deeper than
// ``JSONValue/maximumDepth``. Every step is linear in the input: duplicate keys are found with a hash set once an
// object has more than a few members. The grammar is LinkParseBytes' `JSONReader`; this file builds values and
// words the errors. LinkParseOAuth's `JSONValue.parse(_:)` throws these as `OAuthResponseError` (`invalid-json`).
//
// The module's own decoders (`JSONSupport`) read through ``JSONValue/object(in:keeping:)``: the
// same grammar, but the way Foundation's JSONDecoder read objects before it: a repeated key is not an error
// (the first one counts), nesting may go to 512, and only the members asked for are built.

import LinkParseBytes

/// Where and why a text is not JSON, for ``JSONValue/parse(utf8:)``: the byte offset and the words for it.
///
/// ```swift
/// do { _ = try JSONValue.parse(utf8: Array(#"{"a" 1}"#.utf8)) } catch {
///   error.offset   // 5
///   error.message  // "expected ':' after an object key, found '1'"
/// }
/// ```
package struct JSONParseError: Error, Sendable, Hashable {
  /// The byte offset where the text stops being JSON.
  package var offset: Int
  /// What was expected or found there.
  package var message: String
}

extension JSONValue {
  /// How deep arrays and objects may nest (the 129th open bracket is an error, not a stack overflow).
  ///
  /// ```swift
  /// JSONValue.maximumDepth  // 128
  /// ```
  public static let maximumDepth = 128

  /// Parses JSON text (RFC 8259) strictly (LinkParseOAuth's `JSONValue.parse(_:)` words the error as an
  /// `OAuthResponseError`).
  ///
  /// The input is read once, in place when the collection has contiguous storage (an `Array`, `Data`,
  /// `String.UTF8View` of a native string) and from one copy otherwise. Numbers keep their text.
  ///
  /// ```swift
  /// let value = try JSONValue.parse(utf8: Array(#"{"access_token":"vk2.a.x","expires_in":600}"#.utf8))
  /// value["expires_in"]?.integer  // 600
  /// ```
  ///
  /// - Throws: ``JSONParseError``: the byte offset and a message naming what was expected or found.
  package static func parse(utf8 bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
    let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(JSONParseError) -> JSONValue in try parseBuffer(buffer) }
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    let copied: Result<JSONValue, JSONParseError> = copy.withUnsafeBufferPointer { buffer in
      Result { () throws(JSONParseError) -> JSONValue in try parseBuffer(buffer) }
    }
    return try copied.get()
  }

  static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
    var builder = JSONValueBuilder(reader: JSONReader(buffer, maximumDepth: maximumDepth), rejectsDuplicateKeys: true)
    do throws(JSONSyntaxError) {
      builder.reader.skipWhitespace()
      let value = try builder.value()
      try builder.reader.expectEnd()
      return value
    } catch {
      throw JSONParseError(offset: error.offset, message: message(error, in: buffer))
    }
  }

  /// How deep ``object(in:keeping:)`` lets arrays and objects nest (as JSONDecoder did).
  static let decoderDepth = 512

  /// The JSON object that `buffer` holds, with only its members named in `names` (every other member's value
  /// is checked and skipped), for the module's decoders: `nil` when `buffer` is not JSON or not an object.
  ///
  /// A repeated key is no error, each occurrence is kept, and ``subscript(_:)`` reads the first one (what
  /// JSONDecoder did). Nesting may go ``decoderDepth`` deep.
  static func object(in buffer: UnsafeBufferPointer<UInt8>, keeping names: [StaticString]) -> JSONValue? {
    var builder = JSONValueBuilder(
      reader: JSONReader(buffer, maximumDepth: decoderDepth), rejectsDuplicateKeys: false)
    do throws(JSONSyntaxError) {
      builder.reader.skipWhitespace()
      guard builder.reader.peek == UInt8(ascii: "{") else { return nil }
      let value = try builder.object(keeping: names)
      try builder.reader.expectEnd()
      return value
    } catch {
      return nil
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

/// Builds `JSONValue`s from the package's JSON reader, refusing duplicate keys when asked to.
private struct JSONValueBuilder {
  var reader: JSONReader
  /// Whether a key given twice in one object is ``JSONSyntaxError/Kind/duplicateKey``.
  let rejectsDuplicateKeys: Bool
  /// Where strings with escapes are decoded.
  var scratch: [UInt8] = []

  init(reader: JSONReader, rejectsDuplicateKeys: Bool) {
    self.reader = reader
    self.rejectsDuplicateKeys = rejectsDuplicateKeys
  }

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

  /// The object at the read position; with `names`, only the members with those keys are built (the other
  /// values are checked and skipped).
  mutating func object(keeping names: [StaticString]? = nil) throws(JSONSyntaxError) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = []
    var seen: Set<UTF8Key>? = nil
    guard try reader.enter(.object) else { return .object(members) }
    repeat {
      let keyOffset = reader.index
      let keyString = try reader.key()
      if let names {
        try reader.colon()
        if let key = wanted(keyString, names) {
          members.append((key, try value()))
        } else {
          try reader.skipValue()
        }
        continue
      }
      let key = reader.text(keyString, scratch: &scratch)
      if rejectsDuplicateKeys {
        // Duplicates: a scan while the object is small, a hash set once it is not (linear overall).
        if members.count < 8 {
          if members.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
            throw JSONSyntaxError(.duplicateKey, at: keyOffset)
          }
        } else {
          if seen == nil { seen = Set(members.map { UTF8Key($0.key) }) }
          guard seen!.insert(UTF8Key(key)).inserted else { throw JSONSyntaxError(.duplicateKey, at: keyOffset) }
        }
      }
      try reader.colon()
      members.append((key, try value()))
    } while try reader.next(.object)
    return .object(members)
  }

  /// `key` as a `String` when it is one of `names` (compared as bytes, after unescaping), else `nil`.
  private mutating func wanted(_ key: JSONString, _ names: [StaticString]) -> String? {
    if !key.hasEscapes {
      let bytes = UnsafeBufferPointer(rebasing: reader.bytes[key.range])
      for name in names where bytesEqual(bytes, name) { return name.description }
      return nil
    }
    scratch.removeAll(keepingCapacity: true)
    reader.unescape(key, into: &scratch)
    let found = scratch.withUnsafeBufferPointer { bytes in names.contains { bytesEqual(bytes, $0) } }
    return found ? String(decoding: scratch, as: UTF8.self) : nil
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
