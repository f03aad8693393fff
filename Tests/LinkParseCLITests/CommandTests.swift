import Foundation
import Testing
import _LinkParseCLI
import LinkParse

/// The command run in process. These tests do not depend on what the URL parser returns, only on the
/// contract's framing: records, line numbers, error records of the CLI's own, statuses, help, stats.
@Suite struct CommandTests {

  @Test func exitStatusLogic() {
    #expect(ExitStatus.of(failures: 0, ioFailed: false) == 0)
    #expect(ExitStatus.of(failures: 1, ioFailed: false) == 1)
    #expect(ExitStatus.of(failures: 1000, ioFailed: false) == 1)
    #expect(ExitStatus.of(failures: 0, ioFailed: true) == 2)
    #expect(ExitStatus.of(failures: 5, ioFailed: true) == 2)
  }

  @Test func statisticsLine() {
    #expect(
      Statistics(records: 10, failures: 1, bytes: 2_000_000, seconds: 0.5).line
        == "stats records=10 failures=1 bytes=2000000 seconds=0.500000 records_per_second=20.0 mb_per_second=4.000")
    #expect(
      Statistics(records: 0, failures: 0, bytes: 0, seconds: 0).line
        == "stats records=0 failures=0 bytes=0 seconds=0.000000 records_per_second=0.0 mb_per_second=0.000")
    #expect(
      Statistics(records: 400_000, failures: 0, bytes: 100_000_000, seconds: 0.8).line
        == "stats records=400000 failures=0 bytes=100000000 seconds=0.800000 records_per_second=500000.0 mb_per_second=125.000")
  }

  @Test func helpGoesToStandardOutput() {
    let result = runInProcess(["--help"])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.contains("USAGE: linkparse [--input-format <input-format>] [--base <url>] [--provider <provider>] [--state <state>] [--redirect-uri <uri>] [--issuer <issuer>] [--redact] [--stats] [--pipeline] [--fields <list>] [--routes <file>] [<file> ...]"))
    for text in ["OVERVIEW:", "--input-format", "--base <url>", "--stats", "Exit status", "line-too-long",
      "form-decoded", "bare key", "Checking callbacks: --state", "--pipeline keeps them as records"]
    {
      #expect(result.stdout.contains(text), "help lacks \(text)")
    }
    #expect(!result.stdout.contains("max-line-length"), "the test-only option stays hidden")
  }

  /// The help's first example shows exactly what the command prints for its input.
  @Test func helpExampleIsWhatTheCommandPrints() throws {
    let help = runInProcess(["--help"]).stdout
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    // `$ printf '%s\n' 'URL' 'URL' | linkparse`, then its output lines.
    // (A command may go on over lines ending in a backslash.)
    var command = try #require(lines.firstIndex { $0.hasPrefix("$ printf '%s\\n' '") })
    var text = lines[command]
    while text.hasSuffix("\\") {
      command += 1
      text = text.dropLast().trimmingCharacters(in: .whitespaces) + " " + lines[command]
    }
    #expect(text.hasSuffix("' | linkparse"), "\(text)")
    let arguments = text.dropFirst("$ printf '%s\\n' '".count).dropLast("' | linkparse".count)
    let input = arguments.components(separatedBy: "' '").map { $0 + "\n" }.joined()
    // The records, each folded over lines that go on without a line break.
    let shown = lines[(command + 1)...].drop { $0.isEmpty }.prefix { !$0.isEmpty }
      .map { $0.hasPrefix("{\"line\"") ? "\n" + $0 : $0 }.joined().dropFirst() + "\n"
    #expect(shown.contains(#""line":2"#))
    #expect(shown == runInProcess([], input: input).stdout)
  }

  @Test(arguments: [["--bogus"], ["--input-format", "xml"], ["--base"], ["--max-line-length", "-1"]])
  func usageErrorsExitTwo(arguments: [String]) {
    let result = runInProcess(arguments, input: "https://example.com/\n")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("Error:"))
    #expect(result.stderr.contains("Usage: linkparse"))
  }

  @Test func invalidBaseIsAUsageError() {
    let result = runInProcess(["--base", "not a url"], input: "cb\n")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("--base is not a valid URL"))
  }

  @Test func emptyInputIsNoRecordsAndSuccess() {
    let result = runInProcess([], input: "")
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
  }

  @Test func everyLineIsARecordWithItsNumber() {
    let result = runInProcess([], input: "https://example.com/\n\nhttp://host:99999/\r\nlast")
    #expect(result.lines.count == 4)
    for (index, line) in result.lines.enumerated() {
      #expect(line.hasPrefix("{\"line\":\(index + 1),\"ok\":"), "\(line)")
    }
    #expect(result.status == 1, "the empty line and the bad port fail")
  }

  @Test func unreadableFilesAreReportedAndSkipped() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let good = try directory.file("good.txt", "\n")
    let missing = directory.url.appendingPathComponent("missing.txt").path
    let result = runInProcess([missing, good, directory.url.path])
    #expect(result.status == 2)
    #expect(result.lines.count == 1, "the readable file is still processed")
    #expect(result.stderr.contains("linkparse: \(missing): No such file or directory"))
    #expect(result.stderr.contains("linkparse: \(directory.url.path): Is a directory"))
  }

  /// Several inputs are one stream: `line` counts on across them (one output line per input line).
  @Test func lineNumbersRunOnAcrossInputsAndDashIsStandardInput() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let first = try directory.file("a.txt", "a:1\na:2\na:3\n")
    let second = try directory.file("b.txt", "b:1\r\nb:2")
    let result = runInProcess([first, "-", second], input: "s:1\n")
    let numbers = result.lines.map { $0.prefix(while: { $0 != "," }) }
    #expect(numbers == ["{\"line\":1", "{\"line\":2", "{\"line\":3", "{\"line\":4", "{\"line\":5", "{\"line\":6"])
  }

  @Test func tooLongLinesAreErrorRecords() {
    let long = String(repeating: "x", count: 100)
    let result = runInProcess(["--max-line-length", "20"], input: "\(long)\nhttps://example.com/\n\(long)")
    #expect(result.status == 1)
    #expect(result.lines.count == 3)
    let expected = #"{"line":1,"ok":false,"error":{"code":"line-too-long","offset":null,"message":"the line is 100 bytes long, more than the limit of 20 bytes; skipped"}}"#
    #expect(result.lines.first == expected)
    #expect(result.lines.dropFirst().first?.hasPrefix(#"{"line":2,"ok":"#) == true)
    #expect(result.lines.last == expected.replacingOccurrences(of: #""line":1"#, with: #""line":3"#))
  }

  @Test func jsonFormatErrorRecords() {
    let input = "not json\n{\"base\":\"https://example.com/\"}\n{\"input\":5}\n\"unterminated\n\n"
    let result = runInProcess(["--input-format", "json"], input: input)
    #expect(result.status == 1)
    #expect(result.lines == [
      #"{"line":1,"ok":false,"error":{"code":"invalid-json","offset":0,"message":"expected a value"}}"#,
      #"{"line":2,"ok":false,"error":{"code":"invalid-record","offset":0,"message":"missing key \"input\""}}"#,
      #"{"line":3,"ok":false,"error":{"code":"invalid-record","offset":9,"message":"\"input\" must be a string"}}"#,
      #"{"line":4,"ok":false,"error":{"code":"invalid-json","offset":13,"message":"unterminated string"}}"#,
      #"{"line":5,"ok":false,"error":{"code":"invalid-json","offset":0,"message":"empty line: expected a JSON string or object"}}"#,
    ])
  }

  @Test func statsGoToStandardError() {
    let result = runInProcess(["--stats"], input: "a\nb\n")
    let line = result.stderr.trimmingCharacters(in: .newlines)
    let keys = line.split(separator: " ").map { $0.split(separator: "=").first.map(String.init) ?? "" }
    #expect(keys == ["stats", "records", "failures", "bytes", "seconds", "records_per_second", "mb_per_second"])
    #expect(line.hasPrefix("stats records=2 failures="))
    #expect(line.contains(" bytes=4 "))
  }

  /// Whatever the bytes, every output line is valid UTF-8 and valid JSON.
  @Test func outputIsValidJSONWhateverTheInput() throws {
    var input: [UInt8] = []
    for byte in UInt8.min...UInt8.max where byte != 0x0A {
      input += Array("http://h/".utf8) + [byte] + Array("?q=".utf8) + [byte, 0x0A]
    }
    input += [0xFF, 0xFE, 0x0A, 0xC3, 0x0A, 0xED, 0xA0, 0x80, 0x0A]  // stray bytes, a truncated sequence, a surrogate
    for format in ["lines", "json"] {
      let result = runInProcess(["--input-format", format], stdin: input)
      #expect(result.lines.count == 258)
      #expect(String(validating: result.stdoutBytes, as: UTF8.self) != nil)
      for line in result.lines {
        let data = Data(line.utf8)
        #expect((try? JSONSerialization.jsonObject(with: data)) is [String: Any], "\(line)")
      }
    }
  }
}

/// Components are written verbatim only when the whole href needs no JSON escape; a serialization can keep
/// '"' in an opaque host and '\' in a non-special path or a query, and then every string is escaped.
@Suite struct ComponentEscapingTests {
  @Test(arguments: ["foo://a\"b/x\\y?q=\\#f\\", "https://a.ru/cb?x=\\", "https://a.ru/cb?code=1"])
  func componentsAreValidJSON(_ input: String) throws {
    let result = runInProcess(["--provider", "none"], input: input + "\n")
    let line = try #require(result.stdout.split(separator: "\n").first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let url = try ParsedURL(input)
    #expect(object["href"] as? String == url.href)
    #expect(object["host"] as? String == url.host.map(String.init))
    #expect(object["path"] as? String == String(url.path))
    #expect(object["query"] as? String == url.query.map(String.init))
    #expect(object["fragment"] as? String == url.fragment.map(String.init))
  }
}

/// Parameter and callback values that are slices of a clean href are copied without an escape check; any
/// other (decoded, or from an href that keeps a '\') is checked and escaped. Either way the JSON holds the
/// library's decoded values.
@Suite struct ValueEscapingTests {
  @Test(arguments: [
    "https://a.ru/cb?code=a\\b&state=s%22t",
    "https://a.ru/cb?code=c&state=%5C%22%0A",
    "vk7915193://vk.ru/blank.html?code=x\\y&state=s&device_id=d",
    "myapp://sberidauth?status=fail&error=access_denied&error_description=%22q%22&state=s\\",
    "https://a.ru/cb?error=access_denied&error_description=a%5Cb&state=s",
  ])
  func valuesAreTheLibrarysDecodedValues(_ input: String) throws {
    let result = runInProcess([], input: input + "\n")
    let line = try #require(result.stdout.split(separator: "\n").first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let url = try ParsedURL(input)
    let params = try #require(object["params"] as? [[String]])
    #expect(params == url.queryParameters.map { [$0.name(), $0.value() ?? ""] }, "\(input)")
    let callback = try #require(object["callback"] as? [String: Any])
    guard case .success(let decoded)? = ProviderDetector.decode(url: url)?.result else {
      Issue.record("no callback decoded from \(input)")
      return
    }
    for (name, value) in decoded.values { #expect(callback[name] as? String == value, "\(input): \(name)") }
  }
}
