import Foundation
import Testing
import _LinkParseCLI

/// Golden records: what the WHATWG URL Standard says each input parses to. These depend on the real parser in
/// LinkParseCore; with its stub every input fails.
enum Golden {
  /// (input line, expected output line for line 1), without `--base`.
  static let records: [(String, String)] = [
    ("HTTPS://Example.COM:443/a/./b?x=1#f",
     #"{"line":1,"ok":true,"href":"https://example.com/a/b?x=1#f","scheme":"https","username":"","password":"","host":"example.com","port":null,"path":"/a/b","query":"x=1","fragment":"f","params":[["x","1"]],"callback":null}"#),
    ("myapp://authorized?cancelled",
     #"{"line":1,"ok":true,"href":"myapp://authorized?cancelled","scheme":"myapp","username":"","password":"","host":"authorized","port":null,"path":"","query":"cancelled","fragment":null,"params":[["cancelled",""]],"callback":{"provider":"tid","outcome":"cancelled"}}"#),
    ("vk7915193://?code=vk2.a.Q8n_Wt0pL&state=abracadabra",
     #"{"line":1,"ok":true,"href":"vk7915193://?code=vk2.a.Q8n_Wt0pL&state=abracadabra","scheme":"vk7915193","username":"","password":"","host":"","port":null,"path":"","query":"code=vk2.a.Q8n_Wt0pL&state=abracadabra","fragment":null,"params":[["code","vk2.a.Q8n_Wt0pL"],["state","abracadabra"]],"callback":{"provider":"vk","outcome":"rejected","error":{"code":"missing-parameter","raw":null,"parameter":"device_id","description_en":"The callback lacks “device_id” or it is empty.","description_ru":"В обратном вызове нет параметра «device_id» или он пуст."}}}"#),
    ("http://[::1]:8080/cb?code=x",
     #"{"line":1,"ok":true,"href":"http://[::1]:8080/cb?code=x","scheme":"http","username":"","password":"","host":"[::1]","port":8080,"path":"/cb","query":"code=x","fragment":null,"params":[["code","x"]],"callback":{"provider":"oauth2","outcome":"success","code":"x"}}"#),
    ("https://пример.рф/cb?code=1",
     #"{"line":1,"ok":true,"href":"https://xn--e1afmkfd.xn--p1ai/cb?code=1","scheme":"https","username":"","password":"","host":"xn--e1afmkfd.xn--p1ai","port":null,"path":"/cb","query":"code=1","fragment":null,"params":[["code","1"]],"callback":{"provider":"oauth2","outcome":"success","code":"1"}}"#),
    ("https://a.ru/cb?code=A%2BB&state=s+t&x&=v&e=",
     #"{"line":1,"ok":true,"href":"https://a.ru/cb?code=A%2BB&state=s+t&x&=v&e=","scheme":"https","username":"","password":"","host":"a.ru","port":null,"path":"/cb","query":"code=A%2BB&state=s+t&x&=v&e=","fragment":null,"params":[["code","A+B"],["state","s t"],["x",""],["","v"],["e",""]],"callback":{"provider":"oauth2","outcome":"success","code":"A+B","state":"s t"}}"#),
    ("com.example.app:/oauth2redirect/example-provider?code=Wq3k",
     #"{"line":1,"ok":true,"href":"com.example.app:/oauth2redirect/example-provider?code=Wq3k","scheme":"com.example.app","username":"","password":"","host":null,"port":null,"path":"/oauth2redirect/example-provider","query":"code=Wq3k","fragment":null,"params":[["code","Wq3k"]],"callback":{"provider":"oauth2","outcome":"success","code":"Wq3k"}}"#),
    ("https://user:pa%20ss@host.example:8443/p#frag",
     #"{"line":1,"ok":true,"href":"https://user:pa%20ss@host.example:8443/p#frag","scheme":"https","username":"user","password":"pa%20ss","host":"host.example","port":8443,"path":"/p","query":null,"fragment":"frag","params":[],"callback":null}"#),
    (#"foo://h/a\b?#c\d"#,
     #"{"line":1,"ok":true,"href":"foo://h/a\\b?#c\\d","scheme":"foo","username":"","password":"","host":"h","port":null,"path":"/a\\b","query":"","fragment":"c\\d","params":[],"callback":null}"#),
    ("mailto:user@example.com?subject=Hi%20there",
     #"{"line":1,"ok":true,"href":"mailto:user@example.com?subject=Hi%20there","scheme":"mailto","username":"","password":"","host":null,"port":null,"path":"user@example.com","query":"subject=Hi%20there","fragment":null,"params":[["subject","Hi there"]],"callback":null}"#),
    ("  https://a.ru/c\tb?q=%D0%BF  ",
     #"{"line":1,"ok":true,"href":"https://a.ru/cb?q=%D0%BF","scheme":"https","username":"","password":"","host":"a.ru","port":null,"path":"/cb","query":"q=%D0%BF","fragment":null,"params":[["q","п"]],"callback":null}"#),
    ("https://client.example/cb#access_token=SlAV32hkKG&state=x",
     #"{"line":1,"ok":true,"href":"https://client.example/cb#access_token=SlAV32hkKG&state=x","scheme":"https","username":"","password":"","host":"client.example","port":null,"path":"/cb","query":null,"fragment":"access_token=SlAV32hkKG&state=x","params":[],"callback":{"provider":"oauth2","outcome":"implicit-grant","access_token":"SlAV32hkKG","state":"x"}}"#),
  ]

  /// (input line, expected error code): the code only, as offsets and messages are the parser's to choose.
  static let failures: [(String, [String])] = [
    ("", ["missing-scheme-non-relative-url"]),
    ("cb?code=1", ["missing-scheme-non-relative-url"]),
    ("http://host:99999/", ["invalid-port"]),
    ("https://exa mple.com/", ["forbidden-host-code-point", "invalid-host"]),
    ("https://[::1/cb", ["invalid-ipv6"]),
    ("https://", ["host-missing"]),
  ]

  /// (input, expected href) with `--base https://example.com/app/`.
  static let relative: [(String, String)] = [
    ("cb?code=1", "https://example.com/app/cb?code=1"),
    ("../x", "https://example.com/x"),
    ("//other.example/y", "https://other.example/y"),
    ("?q=1", "https://example.com/app/?q=1"),
    ("", "https://example.com/app/"),
    ("myapp://cb?code=1", "myapp://cb?code=1"),
  ]
}

/// The golden records, run in process (fast) — require the real parser.
@Suite struct GoldenRecordTests {

  @Test(arguments: Golden.records)
  func parsesToTheGoldenRecord(input: String, expected: String) {
    let result = runInProcess([], input: input + "\n")
    #expect(result.lines == [expected])
    #expect(result.status == 0)
  }

  @Test(arguments: Golden.failures)
  func failsWithTheParsersCode(input: String, codes: [String]) {
    let result = runInProcess([], input: input + "\n")
    #expect(result.status == 1)
    #expect(result.lines.count == 1)
    let line = result.lines.first ?? ""
    #expect(line.hasPrefix(#"{"line":1,"ok":false,"error":{"code":""#), "\(line)")
    #expect(codes.contains { line.contains(#""code":"\#($0)","#) }, "\(input): \(line)")
  }

  /// A serialization can keep `"` (opaque hosts and paths) and `\` (queries, fragments, non-special paths):
  /// such an href, and every component and parameter cut from it, is written escaped (the writer checks the
  /// href for those two bytes only, since a serialization never holds a control character).
  @Test func quotesAndBackslashesInTheHrefAreEscaped() throws {
    let inputs = [##"mailto:"x y"?q="z"#f"##, ##"foo://a"b/p"q?r"s#t"u"##, ##"foo://h/a\"b?c\"d=\&e#e\""##]
    let result = runInProcess([], input: inputs.joined(separator: "\n") + "\n")
    #expect(result.status == 0)
    #expect(result.lines.count == inputs.count)
    let expected = [
      ##"mailto:"x y"?q=%22z%22#f"##, ##"foo://a"b/p%22q?r%22s#t%22u"##, ##"foo://h/a\%22b?c\%22d=\&e#e\%22"##,
    ]
    for (line, href) in zip(result.lines, expected) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
      #expect(object["href"] as? String == href)
    }
    let third = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[2].utf8)) as? [String: Any])
    #expect(third["path"] as? String == #"/a\%22b"#)
    #expect((third["params"] as? [[String]]) == [[#"c\"d"#, #"\"#], ["e", ""]])
  }

  @Test func resolvesAgainstTheBase() {
    let input = Golden.relative.map(\.0).joined(separator: "\n")
    let result = runInProcess(["--base", "https://example.com/app/"], input: input)
    #expect(result.status == 0)
    #expect(result.lines.count == Golden.relative.count)
    for (line, (_, href)) in zip(result.lines, Golden.relative) {
      #expect(line.contains(#","href":"\#(href)","#), "\(line)")
    }
  }

  @Test func invalidUTF8IsRepaired() {
    let input: [UInt8] = Array("http://h/".utf8) + [0xFF] + Array("?q=".utf8) + [0xFE, 0x0A]
    let result = runInProcess([], stdin: input)
    #expect(result.lines == [
      #"{"line":1,"ok":true,"href":"http://h/%EF%BF%BD?q=%EF%BF%BD","scheme":"http","username":"","password":"","host":"h","port":null,"path":"/%EF%BF%BD","query":"q=%EF%BF%BD","fragment":null,"params":[["q","\#u{FFFD}"]],"callback":null}"#,
    ])
  }

  @Test func jsonInputFormat() {
    let input = #"""
      "https://example.com/cb?code=1"
      {"input": "cb?code=2", "base": "https://example.com/app/"}
      {"input": "cb?code=3"}
      {"input": "cb?code=4", "base": null}
      {"input": "https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/cb", "note": "ignored"}
      {"input": "cb", "base": "https://exa mple.com/"}
      """#
    let result = runInProcess(["--input-format", "json", "--base", "https://other.example/"], input: input)
    #expect(result.status == 1)
    #expect(result.lines.count == 6)
    let hrefs: [String?] = [
      "https://example.com/cb?code=1", "https://example.com/app/cb?code=2", "https://other.example/cb?code=3", nil,
      "https://xn--e1afmkfd.xn--p1ai/cb", nil,
    ]
    for (index, (line, href)) in zip(result.lines, hrefs).enumerated() {
      #expect(line.hasPrefix(#"{"line":\#(index + 1),"ok":\#(href != nil)"#), "\(line)")
      if let href { #expect(line.contains(#""href":"\#(href)""#), "\(line)") }
    }
    #expect(result.lines.dropFirst(3).first?.contains(#""code":"missing-scheme-non-relative-url""#) == true)
    #expect(result.lines.dropFirst(5).first?.contains(#""code":"invalid-base""#) == true)
  }

  @Test func sampleFileHasTheIntendedFailures() throws {
    let path = packageRoot.appendingPathComponent("samples/callbacks.txt").path
    let result = runInProcess([path])
    let failed = result.lines.enumerated().filter { $0.element.contains(#""ok":false"#) }.map { $0.offset + 1 }
    let total = result.lines.count
    #expect((30...50).contains(total))
    #expect(failed == [total - 2, total - 1, total], "only the three deliberately bad last lines fail")
    #expect(result.status == 1)
  }
}

/// The built `linkparse` binary, run as a process.
@Suite struct BinaryTests {

  @Test func binaryExists() {
    #expect(FileManager.default.isExecutableFile(atPath: linkparseBinary), "\(linkparseBinary)")
  }

  @Test func helpShowsUsage() throws {
    let result = try runBinary(["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("USAGE: linkparse [--input-format <input-format>] [--base <url>] [--provider <provider>] [--state <state>] [--redirect-uri <uri>] [--issuer <issuer>] [--redact] [--stats] [--pipeline] [--fields <list>] [--routes <file>] [<file> ...]"))
    #expect(result.stdout.contains("JSON lines"))
  }

  @Test func goldenRecordsThroughStandardInput() throws {
    let input = Golden.records.map(\.0).joined(separator: "\r\n") + "\r\n"
    let result = try runBinary([], input: input)
    let expected = Golden.records.enumerated().map { index, record in
      record.1.replacingOccurrences(of: #"{"line":1,"#, with: #"{"line":\#(index + 1),"#)
    }
    #expect(result.lines == expected)
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
  }

  @Test func exitOneWhenARecordFails() throws {
    let result = try runBinary([], input: "https://example.com/\nhttp://host:99999/\n")
    #expect(result.status == 1)
    #expect(result.lines.count == 2)
    #expect(result.lines.last?.hasPrefix(#"{"line":2,"ok":false,"error":{"code":"#) == true)
  }

  @Test(arguments: [["--bogus"], ["--base", "not a url"], ["/nonexistent/linkparse-input.txt"]])
  func exitTwoForUsageAndIOErrors(arguments: [String]) throws {
    let result = try runBinary(arguments, input: "https://example.com/\n")
    #expect(result.status == 2)
    #expect(!result.stderr.isEmpty)
  }

  @Test func statsAndSampleFile() throws {
    let path = packageRoot.appendingPathComponent("samples/callbacks.txt").path
    let result = try runBinary(["--stats", path])
    #expect(result.status == 1, "the sample ends with deliberately bad lines")
    let stats = result.stderr.trimmingCharacters(in: .newlines)
    #expect(stats.hasPrefix("stats records=\(result.lines.count) failures=3 bytes="), "\(stats)")
    #expect(stats.contains(" records_per_second=") && stats.contains(" mb_per_second="))
  }
}
