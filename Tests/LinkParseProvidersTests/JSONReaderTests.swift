import Testing

@testable import LinkParseProviders
import LinkParseBytes

/// Checks `text` as one JSON value with the package's reader (whitespace around it allowed): `nil` when it
/// is valid, else the error.
private func readError(
  _ bytes: [UInt8], maximumDepth: Int = 128, validatesUTF8: Bool = true, diagnosesLeadingZeros: Bool = true,
  pairingSurrogates: Bool = true
) -> JSONSyntaxError? {
  bytes.withUnsafeBufferPointer { buffer -> JSONSyntaxError? in
    var reader = JSONReader(
      buffer, maximumDepth: maximumDepth, validatesUTF8: validatesUTF8, diagnosesLeadingZeros: diagnosesLeadingZeros)
    do throws(JSONSyntaxError) {
      reader.skipWhitespace()
      try reader.skipValue(pairingSurrogates: pairingSurrogates)
      try reader.expectEnd()
      return nil
    } catch {
      return error
    }
  }
}

private func readError(_ text: String) -> JSONSyntaxError? { readError(Array(text.utf8)) }

/// The decoded contents of the one string in `text`.
private func decodedString(_ text: String) throws -> String {
  try Array(text.utf8).withUnsafeBufferPointer { buffer throws -> String in
    var reader = JSONReader(buffer, maximumDepth: 1)
    var scratch: [UInt8] = []
    let string = try reader.string()
    try reader.expectEnd()
    return reader.text(string, scratch: &scratch)
  }
}

@Suite struct JSONReaderTests {
  @Test(arguments: [
    "0", "-0", "1", "-12", "0.5", "-0.5e+3", "1E9", "1e-0", "123.456E-7", #""""#, #""a\"\\\/\b\f\n\r\t""#,
    #""\u0041\u00e9\uD83D\uDE00""#, "true", "false", "null", "[]", "{}", " [1, [2, [3]], {\"a\": {}}] ",
    #"{"a":1,"a":2}"#,  // duplicates are the caller's business
    "\"Иван 😀 €\"", "\t\r\n\"x\"\n",
  ])
  func acceptsValidJSON(text: String) {
    #expect(readError(text) == nil, "\(text)")
  }

  /// Invalid texts: the kind and the offset of the first byte that is not JSON.
  @Test(arguments: [
    ("", JSONSyntaxError.Kind.expectedValue, 0),
    ("   ", .expectedValue, 3),
    ("+1", .expectedValue, 0),
    (".5", .expectedValue, 0),
    ("'a'", .expectedValue, 0),
    ("[1,]", .expectedValue, 3),
    ("tru", .invalidLiteral(.true), 3),
    ("trUe", .invalidLiteral(.true), 2),
    ("nul", .invalidLiteral(.null), 3),
    ("fals", .invalidLiteral(.false), 4),
    ("-", .expectedDigit(.integer), 1),
    ("-a", .expectedDigit(.integer), 1),
    ("1.", .expectedDigit(.fraction), 2),
    ("1.e3", .expectedDigit(.fraction), 2),
    ("1e", .expectedDigit(.exponent), 2),
    ("1e+", .expectedDigit(.exponent), 3),
    ("01", .leadingZero, 0),
    ("-01", .leadingZero, 1),
    (#""abc"#, .unterminatedString, 4),
    (#""abc\"#, .unterminatedString, 5),
    ("\"a\nb\"", .controlCharacter, 2),
    (#""\x""#, .invalidEscape, 1),
    (#""\u12G4""#, .expectedHexDigit, 5),
    (#""\u12"#, .expectedHexDigit, 5),
    (#""\uDC00""#, .loneLowSurrogate(0xDC00), 1),
    (#""\uD800""#, .loneHighSurrogate(0xD800), 1),
    (#""\uD800x""#, .loneHighSurrogate(0xD800), 1),
    (#""\uD800\u0041""#, .unpairedHighSurrogate(0xD800), 7),
    (#"{"a" 1}"#, .expectedColon, 5),
    (#"{a:1}"#, .expectedKey, 1),
    (#"{"a":1,}"#, .expectedKey, 7),
    ("[1 2]", .expectedCommaOrEnd(.array), 3),
    ("[1", .expectedCommaOrEnd(.array), 2),
    (#"{"a":1 "b":2}"#, .expectedCommaOrEnd(.object), 7),
    (#"{"a":1"#, .expectedCommaOrEnd(.object), 6),
    ("{} x", .trailingData, 3),
    ("1 2", .trailingData, 2),
  ] as [(String, JSONSyntaxError.Kind, Int)])
  func rejectsInvalidJSONAtTheOffendingByte(text: String, kind: JSONSyntaxError.Kind, offset: Int) throws {
    let error = try #require(readError(text), "\(text)")
    #expect(error.kind == kind, "\(text)")
    #expect(error.offset == offset, "\(text)")
  }

  /// Where the token that failed starts, for the callers that report that instead.
  @Test func startsOfLiteralsAndSurrogatePairs() throws {
    #expect(try #require(readError("[1, trUe]")).start == 4)
    let pair = try #require(readError(#"["\uD83D\u0041"]"#))
    #expect(pair.offset == 8)
    #expect(pair.start == 2)
    #expect(try #require(readError("[1, x]")).start == 4)  // `offset` elsewhere
  }

  @Test(arguments: [
    ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], JSONSyntaxError.Kind.expectedValue, 0),  // BOM
    ([0x22, 0x61, 0xFF, 0x22], .invalidUTF8(.cannotStart(0xFF)), 2),
    ([0x22, 0x80, 0x22], .invalidUTF8(.cannotStart(0x80)), 1),  // stray continuation
    ([0x22, 0xC0, 0xAF, 0x22], .invalidUTF8(.cannotStart(0xC0)), 1),  // overlong '/'
    ([0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8(.inSequence(0x80)), 2),  // overlong
    ([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8(.inSequence(0xA0)), 2),  // UTF-16 surrogate
    ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8(.inSequence(0x90)), 2),  // > U+10FFFF
    ([0x22, 0xF0, 0x9F, 0x98, 0x22], .invalidUTF8(.inSequence(0x22)), 4),  // three of four bytes
    ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8(.cannotStart(0xF5)), 1),
    ([0x22, 0xE2, 0x82, 0x22], .invalidUTF8(.inSequence(0x22)), 3),  // truncated before the quote
    ([0x22, 0xE2, 0x82], .invalidUTF8(.truncated), 3),  // truncated at the end
    ([0x7B, 0xC3, 0xA9], .expectedKey, 1),
  ] as [([UInt8], JSONSyntaxError.Kind, Int)])
  func invalidUTF8IsRejectedWhereItGoesWrong(bytes: [UInt8], kind: JSONSyntaxError.Kind, offset: Int) throws {
    let error = try #require(readError(bytes))
    #expect(error.kind == kind)
    #expect(error.offset == offset)
  }

  /// Sixteen-byte blocks: an invalid byte at every position of strings around the block size.
  @Test func invalidUTF8IsFoundAtEveryPosition() throws {
    for length in 0..<40 {
      for position in 0..<length {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        bytes[position] = 0xFF
        let error = try #require(readError([0x22] + bytes + [0x22]))
        #expect(error.kind == .invalidUTF8(.cannotStart(0xFF)))
        #expect(error.offset == position + 1)
      }
    }
  }

  @Test func withoutValidationUTF8PassesAndIsRepaired() throws {
    #expect(readError([0x22, 0x61, 0xFF, 0x62, 0x22], validatesUTF8: false) == nil)
    let repaired = try [UInt8]([0x22, 0x61, 0xFF, 0x5C, 0x6E, 0x22]).withUnsafeBufferPointer { buffer in
      var reader = JSONReader(buffer, maximumDepth: 1, validatesUTF8: false)
      var scratch: [UInt8] = []
      let string = try reader.string()
      return reader.text(string, scratch: &scratch)
    }
    #expect(repaired == "a\u{FFFD}\n")
  }

  @Test func leadingZerosCanBeLeftToTheCaller() throws {
    let error = try #require(readError(Array("[01]".utf8), diagnosesLeadingZeros: false))
    #expect(error.kind == .expectedCommaOrEnd(.array))
    #expect(error.offset == 2)
  }

  @Test func surrogatesCanBeLeftUnpaired() {
    #expect(readError(Array(#"["\uD800", "\uDC00x", "\uD800\u0041"]"#.utf8), pairingSurrogates: false) == nil)
    #expect(readError(Array(#""\uD80G""#.utf8), pairingSurrogates: false)?.kind == .expectedHexDigit)
  }

  @Test func depthIsLimitedAtTheBracketPastIt() throws {
    let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
    #expect(readError(ok) == nil)
    let tooDeep = try #require(readError(String(repeating: "[", count: 129) + String(repeating: "]", count: 129)))
    #expect(tooDeep.kind == .tooDeep)
    #expect(tooDeep.offset == 128)
    let objects = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
    let error = try #require(readError(Array(objects.utf8), maximumDepth: 32))
    #expect(error.kind == .tooDeep)
    #expect(error.offset == 32 * 5)
    // Levels are left on the way out: siblings do not add up.
    let siblings = "[" + Array(repeating: "[[]]", count: 200).joined(separator: ",") + "]"
    #expect(readError(Array(siblings.utf8), maximumDepth: 3) == nil)
    // Ten thousand open brackets are an error, not a stack overflow.
    #expect(readError(String(repeating: "[", count: 10_000))?.kind == .tooDeep)
  }

  @Test func stringsDecode() throws {
    #expect(try decodedString(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\uD83D\uDE00""#) == "\"\\/\u{08}\u{0C}\n\r\tAé€😀")
    #expect(
      try decodedString(#""\u0000\u007F\u0080\u07FF\u0800\uFFFF\uDBFF\uDFFF""#)
        == "\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10FFFF}")
    #expect(try decodedString("\"Иван 😀 €\"") == "Иван 😀 €")
    let long = String(repeating: "abcdefgh", count: 10)
    #expect(try decodedString("\"" + long + "\\n" + long + "\"") == long + "\n" + long)
  }

  @Test func sawUnicodeEscapeIsSticky() throws {
    try Array(#"["\u0041", "b"]"#.utf8).withUnsafeBufferPointer { buffer in
      var reader = JSONReader(buffer, maximumDepth: 2)
      #expect(!reader.sawUnicodeEscape)
      try reader.skipValue()
      #expect(reader.sawUnicodeEscape)
    }
  }
}

@Suite struct Base64URLModeTests {
  @Test func strictRefusesWhatLenientSkips() throws {
    #expect(try Base64URL.decode("-_8".utf8, mode: .strict).get() == [0xFB, 0xFF])
    #expect(try Base64URL.decode("+/8=".utf8, mode: .lenient).get() == [0xFB, 0xFF])
    #expect(Base64URL.decode("YW55IGNhcm5hbCBwbGVhcw==".utf8, mode: .strict) == .failure(.init(offset: 22)))
    #expect(try Base64URL.decode("YW55IGNhcm5hbCBwbGVhcw==".utf8, mode: .lenient).get() == Array("any carnal pleas".utf8))
    #expect(Base64URL.decode("abcde".utf8, mode: .strict) == .failure(.init(offset: 4)))
    #expect(try Base64URL.decode("abcde".utf8, mode: .lenient).get() == [0x69, 0xB7, 0x1D])
    #expect(Base64URL.decode("abcd+efg".utf8, mode: .strict) == .failure(.init(offset: 4)))
    #expect(Base64URL.decode("ab!d".utf8, mode: .lenient) == .failure(.init(offset: 2)))
  }

  /// Both modes agree on every text strict accepts, at every length (the group loop and the tail).
  @Test func modesAgreeOnStrictText() throws {
    var generator = SystemRandomNumberGenerator()
    for length in 0..<70 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let encoded = Base64URL.encode(bytes)
      #expect(try Base64URL.decode(encoded.utf8, mode: .strict).get() == bytes)
      #expect(try Base64URL.decode(encoded.utf8, mode: .lenient).get() == bytes)
      #expect(Base64URL.decode(encoded) == bytes)
    }
  }
}
