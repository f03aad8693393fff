import Testing
import LinkParse
@testable import _LinkParseCLI
import LinkParseBytes

/// Writes with a fresh writer (tiny buffer, so flushes happen mid-string) and returns the text.
func written(capacity: Int = 16, _ body: (inout JSONWriter) -> Void) -> String {
  let sink = MemoryByteSink()
  var json = JSONWriter(sink: sink, capacity: capacity)
  body(&json)
  json.flush()
  return sink.text
}

@Suite struct JSONWriterTests {

  static let escapes: [(String, String)] = [
    ("", #""""#),
    ("plain", #""plain""#),
    ("a\"b", #""a\"b""#),
    ("a\\b", #""a\\b""#),
    ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
    ("\u{00}\u{01}\u{1F}", #""\u0000\u0001\u001f""#),
    ("\u{7F}/", "\"\u{7F}/\""),  // DEL and slash need no escape
    ("пример.рф ✓ 😀", "\"пример.рф ✓ 😀\""),
    ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
    ("\u{FFFD}", "\"\u{FFFD}\""),
    ("\"\\\"\\", #""\"\\\"\\""#),
    (String(repeating: "x", count: 40) + "\n" + String(repeating: "y", count: 40),
     "\"" + String(repeating: "x", count: 40) + "\\n" + String(repeating: "y", count: 40) + "\""),
  ]

  @Test(arguments: escapes)
  func escapesStrings(input: String, expected: String) {
    for capacity in [16, 17, 1024] {
      #expect(written(capacity: capacity) { $0.string(input) } == expected)
      #expect(written(capacity: capacity) { $0.string(input[...]) } == expected)
    }
  }

  /// Every control character has an escape, and nothing else below 0x80 but `"` and `\` is changed.
  @Test func everyASCIIByte() {
    for byte in UInt8(0)...0x7F {
      let text = written { $0.string(String(UnicodeScalar(byte))) }
      switch byte {
      case 0x08: #expect(text == #""\b""#)
      case 0x09: #expect(text == #""\t""#)
      case 0x0A: #expect(text == #""\n""#)
      case 0x0C: #expect(text == #""\f""#)
      case 0x0D: #expect(text == #""\r""#)
      case ..<0x20:
        let hex = String(byte, radix: 16)
        #expect(text == "\"\\u00" + (hex.count == 1 ? "0" : "") + hex + "\"")
      case 0x22: #expect(text == #""\"""#)
      case 0x5C: #expect(text == #""\\""#)
      default: #expect(text == "\"" + String(UnicodeScalar(byte)) + "\"")
      }
    }
  }

  /// The wide scan for escapable bytes agrees with the byte predicate, for every byte value at every position
  /// of buffers long enough to have pairs of sixteen-byte blocks, a single block and a tail.
  @Test(arguments: [40, 70])
  func wideScanMatchesBytePredicate(_ n: Int) {
    func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }
    for special in UInt8.min...UInt8.max {
      for position in 0..<n {
        for filler: UInt8 in [0x20, 0x41, 0x7F, 0x80, 0xD0, 0xFF] {
          var bytes = [UInt8](repeating: filler, count: n)
          bytes[position] = special
          let expected = needsEscape(special) ? position : n
          for start in [0, position] {
            let found = bytes.withUnsafeBufferPointer { Scan.jsonEscapable($0.baseAddress!, start, n) }
            #expect(found == (start <= expected ? expected : n), "\(bytes) from \(start)")
          }
        }
      }
    }
  }

  /// `quoted` copies a string and then checks the copy in whole blocks, reading past its end into the
  /// buffer: what earlier output left there (escapable bytes) must not matter, and an escapable byte at any
  /// position of the string must be found.
  @Test func quotedChecksOnlyTheStringsOwnBytes() {
    for length in 0..<40 {
      let clean = String(repeating: "a", count: length)
      // Fill the buffer with quotes, flush, then write the clean string where the quotes were.
      let text = written(capacity: 256) { json in
        [UInt8](repeating: 0x22, count: 200).withUnsafeBufferPointer { json.raw($0) }
        json.flush()
        json.string(clean)
      }
      #expect(text == String(repeating: "\"", count: 200) + "\"" + clean + "\"")
      for position in 0..<length {
        var bytes = Array(clean.utf8)
        bytes[position] = 0x5C
        let expected = "\"" + String(repeating: "a", count: position) + "\\\\"
          + String(repeating: "a", count: length - position - 1) + "\""
        #expect(written(capacity: 256) { json in bytes.withUnsafeBufferPointer { json.quoted($0) } } == expected)
      }
    }
  }

  @Test(arguments: [0, 7, -7, 9, 10, 99, 100, 101, -100, 999, 1000, 12345, 65535, 1_000_000, Int.max, Int.min])
  func integers(value: Int) {
    #expect(written { $0.integer(value) } == String(value))
  }

  @Test func mixedOutputAcrossFlushes() {
    let text = written(capacity: 16) { json in
      for line in 1...50 {
        json.raw("{\"line\":")
        json.integer(line)
        json.raw(",\"v\":")
        json.string(orNull: line.isMultiple(of: 2) ? nil : "a\tb")
        json.raw("}\n")
      }
    }
    let expected = (1...50).map { "{\"line\":\($0),\"v\":\($0.isMultiple(of: 2) ? "null" : #""a\tb""#)}\n" }.joined()
    #expect(text == expected)
  }

  @Test func keepsTheFirstSinkError() {
    final class FailingSink: ByteSink {
      var calls = 0
      func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
        calls += 1
        throw IOError(operation: "write", path: "standard output", errno: 32)
      }
    }
    let sink = FailingSink()
    var json = JSONWriter(sink: sink, capacity: 16)
    json.string(String(repeating: "z", count: 100))
    json.flush()
    #expect(json.error == IOError(operation: "write", path: "standard output", errno: 32))
    #expect(sink.calls == 1)
  }
}

@Suite struct JSONRecordReaderTests {

  static let valid: [(String, JSONInputRecord)] = [
    (#""https://example.com/cb?code=1""#, .init(input: "https://example.com/cb?code=1")),
    (#"  "a:b"  "#, .init(input: "a:b")),
    (#""""#, .init(input: "")),
    (#"{"input":"a:b"}"#, .init(input: "a:b")),
    (#"{"input":"cb","base":"https://example.com/"}"#, .init(input: "cb", base: .url("https://example.com/"))),
    (#"{ "base" : null , "input" : "a:b" }"#, .init(input: "a:b", base: .none)),
    (#"{"input":"a:b","other":{"x":[1,-2.5e3,true,false,null,"\u00e9"]},"n":0}"#, .init(input: "a:b")),
    (#""\"\\\/\b\f\n\r\t""#, .init(input: "\"\\/\u{08}\u{0C}\n\r\t")),
    (#""\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444""#, .init(input: "пример.рф")),
    (#""\uD83D\uDE00 \ud83d\ude00""#, .init(input: "😀 😀")),
    (#""\u0000x""#, .init(input: "\u{0}x")),
    ("\"пример.рф\"", .init(input: "пример.рф")),
    (#"{"input":"x","future":"code=1"}"#, .init(input: "x")),  // unknown (future) keys are ignored
    (#"{"input":"x","body":"code=1"}"#, .init(input: "x", body: "code=1")),
    (#"{"body":"a%3D1&b","input":"x","base":null}"#, .init(input: "x", base: .none, body: "a%3D1&b")),
    (#"{"input":"x","body":null}"#, .init(input: "x")),
  ]

  @Test(arguments: valid)
  func readsValidRecords(line: String, expected: JSONInputRecord) throws {
    var reader = JSONRecordReader()
    #expect(try reader.read(Array(line.utf8)) == expected)
  }

  @Test func repairsInvalidUTF8() throws {
    var reader = JSONRecordReader()
    let record = try reader.read([0x22, 0x61, 0xFF, 0x62, 0x22])
    #expect(record.input == "a\u{FFFD}b")
  }

  /// Line, error code and offset.
  static let invalid: [(String, String, Int?)] = [
    ("", "invalid-json", 0),
    ("   ", "invalid-json", 3),
    ("not json", "invalid-json", 0),
    (#""unterminated"#, "invalid-json", 13),
    (#""a" "b""#, "invalid-json", 4),
    (#""a\x""#, "invalid-json", 2),
    (#""\u12G4""#, "invalid-json", 5),
    (#""\uD83D""#, "invalid-json", 1),
    (#""\uD83Dx""#, "invalid-json", 1),
    (#""\uDE00""#, "invalid-json", 1),
    (#""\uD83D\u0041""#, "invalid-json", 1),
    ("\"a\tb\"", "invalid-json", 2),
    (#"{"input":"a:b",}"#, "invalid-json", 15),
    (#"{"input":"a:b""#, "invalid-json", 14),
    (#"{"input" "a:b"}"#, "invalid-json", 9),
    (#"{input:"a:b"}"#, "invalid-json", 1),
    (#"{"input":"a:b","x":01}"#, "invalid-json", 20),
    (#"{"input":"a:b","x":[1,]}"#, "invalid-json", 22),
    (#"{"input":"a:b","x":tru}"#, "invalid-json", 19),
    (#"{"input":"a:b"} x"#, "invalid-json", 16),
    (#"{"input":5,"x":}"#, "invalid-json", 15),  // syntax errors win over shape errors
    (String(repeating: "[", count: 200), "invalid-json", 128),
    (#"{"input":"a:b","x":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}",
     "invalid-json", 146),
    ("5", "invalid-record", 0),
    ("[\"a:b\"]", "invalid-record", 0),
    ("null", "invalid-record", 0),
    ("{}", "invalid-record", 0),
    (#"{"base":"https://a/"}"#, "invalid-record", 0),
    (#"{"input":5}"#, "invalid-record", 9),
    (#"{"input":null}"#, "invalid-record", 9),
    (#"{"input":"a:b","base":1}"#, "invalid-record", 22),
    (#"{"input":"a:b","base":{}}"#, "invalid-record", 22),
    (#"{"input":"a:b","input":"c:d"}"#, "invalid-record", 15),
    (#"{"input":"a:b","base":null,"base":null}"#, "invalid-record", 27),
    (#"{"input":"a:b","body":5}"#, "invalid-record", 22),
    (#"{"input":"a:b","body":"x","body":"y"}"#, "invalid-record", 26),
  ]

  @Test(arguments: invalid)
  func rejectsInvalidRecords(line: String, code: String, offset: Int?) {
    var reader = JSONRecordReader()
    #expect(throws: JSONRecordError.self) { _ = try reader.read(Array(line.utf8)) }
    do {
      _ = try reader.read(Array(line.utf8))
    } catch {
      #expect(error.code == code, "\(line): \(error.message)")
      #expect(error.offset == offset, "\(line): \(error.message)")
      #expect(!error.message.isEmpty)
    }
  }

  /// The reader reuses its scratch buffer; a record with escapes must not leak into the next.
  @Test func reusesScratchSafely() throws {
    var reader = JSONRecordReader()
    #expect(try reader.read(Array(#""a\nlonger string""#.utf8)).input == "a\nlonger string")
    #expect(try reader.read(Array(#""b\t""#.utf8)).input == "b\t")
  }
}
