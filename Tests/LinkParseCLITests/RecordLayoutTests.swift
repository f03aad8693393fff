import Testing
@testable import _LinkParseCLI

/// The record writer's fixed text (``RecordLayout``) and its two ways of writing a record's URL members: through
/// a cursor over space reserved in the output buffer (the usual record) and through the checked writer (a line
/// too long for that space), which must write the same bytes, escapes included.
@Suite struct RecordLayoutTests {

  static let members: [RecordLayout.Member] = [
    .value(.line, "\"line\":"), .constant(.ok, "\"ok\":true"), .value(.host, "\"host\":"),
    .value(.params, "\"params\":["),
  ]

  /// The run before each selected value, the end's run, and `nil` for the values left out.
  @Test func runsPerSelection() {
    func text(_ bytes: UnsafeBufferPointer<UInt8>?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
    let all = RecordLayout(Self.members, selecting: [.line, .ok, .host, .params])
    #expect(text(all.before(.line)) == "{\"line\":")
    #expect(text(all.before(.host)) == ",\"ok\":true,\"host\":")
    #expect(text(all.before(.params)) == ",\"params\":[")
    #expect(text(all.end) == "}\n")
    #expect(all.byteCount == "{\"line\":,\"ok\":true,\"host\":,\"params\":[}\n".utf8.count)

    let okAndHost = RecordLayout(Self.members, selecting: [.ok, .host])
    #expect(text(okAndHost.before(.line)) == nil)
    #expect(text(okAndHost.before(.host)) == "{\"ok\":true,\"host\":")
    #expect(text(okAndHost.before(.params)) == nil)

    // A constant member last goes out with the end. (Each layout is bound first: its runs point into its own
    // storage, which a temporary frees before the bytes are read.)
    let lineAndOK = RecordLayout(Self.members, selecting: [.line, .ok])
    #expect(text(lineAndOK.end) == ",\"ok\":true}\n")
    let ok = RecordLayout(Self.members, selecting: [.ok])
    #expect(text(ok.end) == "{\"ok\":true}\n")
    let none = RecordLayout(Self.members, selecting: [])
    #expect(text(none.end) == "{}\n")
  }

  /// Decoded values that need escaping, with the escape at every offset around the sixteen-byte blocks of the
  /// cursor's check: `"`, `\`, a control byte, an invalid byte (U+FFFD), U+2028 (written as it is), `+`.
  @Test func decodedValuesAreEscapedAtEveryOffset() {
    let escapes: [(encoded: String, json: String)] = [
      ("%22", #"\""#), ("%5C", #"\\"#), ("%0A", #"\n"#), ("%01", #"\u0001"#), ("%FF", "\u{FFFD}"),
      ("%E2%80%A8", "\u{2028}"), ("+", " "), ("%C3%A9", "é"),
    ]
    for (encoded, json) in escapes {
      for n in 0..<40 {
        let a = String(repeating: "a", count: n), b = String(repeating: "b", count: n % 17)
        let line = "https://a.example/cb?k\(encoded)=\(a)\(encoded)\(b)\n"
        let result = runInProcess(["--fields", "params"], input: line)
        #expect(result.stdout == "{\"params\":[[\"k\(json)\",\"\(a)\(json)\(b)\"]]}\n", "\(encoded) after \(n) bytes")
      }
    }
  }

  /// A line too long for the space a record reserves in the output buffer (about 14 times its length) is
  /// written by the checked writer, byte for byte as the cursor writes a short one.
  @Test func aLongLineIsWrittenAsAShortOne() {
    let tail = "%22%5C%0A%FF+%C3%A9&bare&&x="
    for filler in [10, 40_000] {
      let value = String(repeating: "v", count: filler)
      let result = runInProcess(
        ["--fields", "line,ok,host,port,query,params"], input: "https://a.example/cb?k=\(value)\(tail)\n")
      let expected =
        "{\"line\":1,\"ok\":true,\"host\":\"a.example\",\"port\":null,\"query\":\"k=\(value)\(tail)\","
        + "\"params\":[[\"k\",\"\(value)\\\"\\\\\\n\u{FFFD} é\"],[\"bare\",\"\"],[\"x\",\"\"]]}\n"
      #expect(result.stdout == expected, "\(filler) bytes")
    }
  }
}
