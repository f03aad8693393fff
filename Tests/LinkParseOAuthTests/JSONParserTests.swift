import Testing
import LinkParseOAuth
import LinkParseProviders

/// The parser's error for `bytes`, or nil when it parses.
func parseError(_ bytes: [UInt8]) -> OAuthResponseError? {
  do {
    _ = try JSONValue.parse(bytes)
    return nil
  } catch {
    return error
  }
}

func parseError(_ text: String) -> OAuthResponseError? { parseError(Array(text.utf8)) }

@Suite struct JSONParserTests {
  @Test func valuesAndNumbersKeepTheirText() throws {
    let value = try JSONValue.parse(Array(#" {"a": [1, -0.5, 1.10, 9007199254740993, 2E+3, true, false, null], "b": {"c": "d"}} "#.utf8))
    #expect(
      value
        == .object([
          (
            "a",
            .array([
              .number("1"), .number("-0.5"), .number("1.10"), .number("9007199254740993"), .number("2E+3"), .bool(true),
              .bool(false), .null,
            ])
          ),
          ("b", .object([("c", .string("d"))])),
        ]))
    #expect(try JSONValue.parse(Array("0".utf8)) == .number("0"))
    #expect(try JSONValue.parse(Array("-0".utf8)) == .number("-0"))
    #expect(try JSONValue.parse(Array(#""""#.utf8)) == .string(""))
    #expect(try JSONValue.parse(Array("[]".utf8)) == .array([]))
    #expect(try JSONValue.parse(Array("{}".utf8)) == .object([]))
    #expect(try JSONValue.parse(Array("\t\r\n 7 \n".utf8)) == .number("7"))
  }

  @Test func membersKeepDocumentOrder() throws {
    let value = try JSONValue.parse(Array(#"{"z":1,"a":2,"m":3}"#.utf8))
    guard case .object(let members) = value else { Issue.record("not an object"); return }
    #expect(members.map(\.key) == ["z", "a", "m"])
  }

  @Test func escapesDecode() throws {
    let value = try JSONValue.parse(Array(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\uD83D\uDE00""#.utf8))
    #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\tAé€😀"))
    #expect(try JSONValue.parse(Array(#""\u0000\u007F\u0080\u07FF\u0800\uFFFF\uDBFF\uDFFF""#.utf8)) == .string("\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10FFFF}"))
    // Raw UTF-8 passes through unchanged, including four-byte characters.
    #expect(try JSONValue.parse(Array(#""Иван 😀 €""#.utf8)) == .string("Иван 😀 €"))
  }

  @Test func nonContiguousInputIsCopiedOnce() throws {
    let bytes = Array(#"{"a":[1,2]}"#.utf8).lazy.map { $0 }
    #expect(try JSONValue.parse(bytes)["a"] == .array([.number("1"), .number("2")]))
  }

  @Test(arguments: [
    ("", 0, "expected a JSON value, found end of input"),
    ("   ", 3, "expected a JSON value, found end of input"),
    (#"{"a" 1}"#, 5, "expected ':' after an object key, found '1'"),
    (#"{"a":1,}"#, 7, "expected a string key in an object, found '}'"),
    (#"{a:1}"#, 1, "expected a string key in an object, found 'a'"),
    ("[1,]", 3, "expected a JSON value, found ']'"),
    ("[1 2]", 3, "expected ',' or ']' after an array element, found '2'"),
    ("[1", 2, "expected ',' or ']' after an array element, found end of input"),
    (#"{"a":1 "b":2}"#, 7, "expected ',' or '}' after an object member, found '\"'"),
    (#"{"a":1"#, 6, "expected ',' or '}' after an object member, found end of input"),
    (#"{"access_token":"abc"#, 20, "unterminated string"),
    ("tru", 3, "invalid literal: expected 'true'"),
    ("trUe", 2, "invalid literal: expected 'true'"),
    ("nul", 3, "invalid literal: expected 'null'"),
    ("fals", 4, "invalid literal: expected 'false'"),
    ("01", 0, "leading zero in a number"),
    ("-01", 1, "leading zero in a number"),
    ("-", 1, "expected a digit in a number, found end of input"),
    ("-a", 1, "expected a digit in a number, found 'a'"),
    ("1.", 2, "expected a digit after the decimal point, found end of input"),
    ("1.e3", 2, "expected a digit after the decimal point, found 'e'"),
    (".5", 0, "expected a JSON value, found '.'"),
    ("+1", 0, "expected a JSON value, found '+'"),
    ("1e", 2, "expected a digit in the exponent, found end of input"),
    ("1e+", 3, "expected a digit in the exponent, found end of input"),
    ("{} x", 3, "unexpected 'x' after the JSON value"),
    ("{}{}", 2, "unexpected '{' after the JSON value"),
    ("1 2", 2, "unexpected '2' after the JSON value"),
    ("\"a\nb\"", 2, "unescaped control character (byte 0x0A) in a string"),
    ("\"a\u{01}\"", 2, "unescaped control character (byte 0x01) in a string"),
    (#""\x""#, 1, "invalid escape '\\x'"),
    (#""\uDC00""#, 1, "lone low surrogate escape \\uDC00"),
    (#""\uD800""#, 1, "lone high surrogate escape \\uD800"),
    (#""\uD800x""#, 1, "lone high surrogate escape \\uD800"),
    (#""\uD800\u0041""#, 7, "high surrogate escape not followed by a low surrogate"),
    (#""\u12G4""#, 5, "expected four hex digits after \\u, found 'G'"),
    (#""\u12"#, 5, "expected four hex digits after \\u, found end of input"),
    (#"{"a":1,"a":2}"#, 7, "duplicate object key \"a\""),
    (#"{"a":1,"\u0061":2}"#, 7, "duplicate object key \"a\""),
    ("'a'", 0, "expected a JSON value, found '''"),
  ])
  func syntaxErrorsHaveOffsetAndMessage(text: String, offset: Int, message: String) throws {
    let error = try #require(parseError(text))
    #expect(error.code == .invalidJSON)
    #expect(error.offset == offset)
    #expect(error.message == message)
  }

  @Test(arguments: [
    ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 0, "expected a JSON value, found byte 0xEF"),  // BOM
    ([0x22, 0x61, 0xFF, 0x22], 2, "invalid UTF-8 (byte 0xFF cannot start a character)"),
    ([0x22, 0x80, 0x22], 1, "invalid UTF-8 (byte 0x80 cannot start a character)"),  // stray continuation
    ([0x22, 0xC0, 0xAF, 0x22], 1, "invalid UTF-8 (byte 0xC0 cannot start a character)"),  // overlong '/'
    ([0x22, 0xE0, 0x80, 0xAF, 0x22], 2, "invalid UTF-8 (byte 0x80 in a sequence)"),  // overlong
    ([0x22, 0xED, 0xA0, 0x80, 0x22], 2, "invalid UTF-8 (byte 0xA0 in a sequence)"),  // UTF-16 surrogate
    ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2, "invalid UTF-8 (byte 0x90 in a sequence)"),  // > U+10FFFF
    ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "invalid UTF-8 (byte 0xF5 cannot start a character)"),
    ([0x22, 0xE2, 0x82, 0x22], 3, "invalid UTF-8 (byte 0x22 in a sequence)"),  // truncated before the quote
    ([0x22, 0xE2, 0x82], 3, "invalid UTF-8 (truncated sequence)"),  // truncated at the end
    ([0x7B, 0xC3, 0xA9], 1, "expected a string key in an object, found byte 0xC3"),
  ] as [([UInt8], Int, String)])
  func invalidUTF8IsRejectedWhereItStarts(bytes: [UInt8], offset: Int, message: String) throws {
    let error = try #require(parseError(bytes))
    #expect(error.code == .invalidJSON)
    #expect(error.offset == offset)
    #expect(error.message == message)
  }

  @Test func nestingStopsAt128() throws {
    let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
    #expect(parseError(ok) == nil)
    let tooDeep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
    let error = try #require(parseError(tooDeep))
    #expect(error.offset == 128)
    #expect(error.message == "nesting deeper than 128")
    // Objects count too: 128 levels of {"a": …} and one more.
    let objects = String(repeating: #"{"a":"#, count: 129) + "1" + String(repeating: "}", count: 129)
    let objectError = try #require(parseError(objects))
    #expect(objectError.offset == 128 * 5)
    #expect(objectError.message == "nesting deeper than 128")
  }

  @Test func tenThousandOpenBracketsAreAnErrorNotACrash() throws {
    let error = try #require(parseError(String(repeating: "[", count: 10_000)))
    #expect(error.code == .invalidJSON)
    #expect(error.offset == 128)
    #expect(error.message == "nesting deeper than 128")
  }

  @Test func aOneMegabyteStringParses() throws {
    let big = String(repeating: "abcdefgh", count: 131_072)  // 1 MiB
    #expect(try JSONValue.parse(Array(("\"" + big + "\"").utf8)) == .string(big))
    // With an escape at the end, the decoded buffer path.
    #expect(try JSONValue.parse(Array(("\"" + big + "\\n\"").utf8)) == .string(big + "\n"))
  }

  @Test func aHundredThousandElementArrayParses() throws {
    let text = "[" + (0..<100_000).map(String.init).joined(separator: ",") + "]"
    let value = try JSONValue.parse(Array(text.utf8))
    guard case .array(let items) = value else { Issue.record("not an array"); return }
    #expect(items.count == 100_000)
    #expect(items[99_999] == .number("99999"))
  }

  @Test func duplicateKeysInLargeObjectsAreFound() throws {
    let members = (0..<20_000).map { #""k\#($0)":\#($0)"# }
    let ok = "{" + members.joined(separator: ",") + "}"
    let value = try JSONValue.parse(Array(ok.utf8))
    #expect(value["k19999"]?.integer == 19_999)
    let prefix = "{" + members.joined(separator: ",") + ","
    let error = try #require(parseError(prefix + #""k3":0}"#))
    #expect(error.offset == prefix.utf8.count)
    #expect(error.message == "duplicate object key \"k3\"")
    // Canonically equivalent but differently spelled keys are different keys.
    #expect(parseError(#"{"\u00e9":1,"e\u0301":2}"#) == nil)
  }

  @Test func tolerantAccessors() {
    #expect(JSONValue.number("600").integer == 600)
    #expect(JSONValue.string("600").integer == 600)
    #expect(JSONValue.number("6e2").integer == nil)
    #expect(JSONValue.string("true").boolean == true)
  }
}
