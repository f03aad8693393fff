import Foundation
import Testing
import _LinkParseCLI

/// `--pipeline` (exit statuses, flushing before a read that could wait) and `--fields` (a projection of the
/// record), run in process. Examples/spark/test_spark.py checks the same through the binary and under Spark.
@Suite struct PipelineTests {

  static let invalid = "https://exa mple.com/\nhttp://h:99999/\n\n"

  @Test func pipelineAnswersEveryLineAndExitsZero() {
    let result = runInProcess(["--pipeline"], input: Self.invalid)
    #expect(result.status == 0)
    #expect(result.lines.count == 3)
    #expect(result.lines.allSatisfy { $0.contains("\"ok\":false") })
    // The default mode's statuses are unchanged.
    #expect(runInProcess([], input: Self.invalid).status == 1)
    #expect(runInProcess([], input: Self.invalid).stdoutBytes == result.stdoutBytes)
  }

  @Test(arguments: [["--pipeline", "--fields", "nope"], ["--pipeline", "--fields", "callback.error.nope"],
    ["--pipeline", "--fields", "route.name"], ["--pipeline", "--fields", "host,"]])
  func badFieldsAreAUsageError(arguments: [String]) {
    let result = runInProcess(arguments, input: "https://a.ru/\n")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("--fields"))
  }

  @Test func pipelineFlushesBeforeEveryReadThatCouldWait() {
    let output = MemoryByteSink()
    let input = ObservedSource(Array("https://a.ru/cb?code=1\nhttps://a.ru/cb?code=2\n".utf8), chunkSize: 23, output: output)
    let status = LinkParseCommand.run(
      arguments: ["--pipeline", "--fields", "line"], standardInput: input, standardOutput: output,
      standardError: MemoryByteSink())
    #expect(status == 0)
    // Reads: the first line, the second line, the end of the input: before each, every answer so far is out.
    #expect(input.outputBeforeRead == [0, 11, 22])
    #expect(output.text == "{\"line\":1}\n{\"line\":2}\n")
    // Without --pipeline the output waits for the end (or a full buffer).
    let batched = MemoryByteSink()
    let again = ObservedSource(Array("https://a.ru/cb?code=1\nhttps://a.ru/cb?code=2\n".utf8), chunkSize: 23, output: batched)
    _ = LinkParseCommand.run(
      arguments: ["--fields", "line"], standardInput: again, standardOutput: batched, standardError: MemoryByteSink())
    #expect(again.outputBeforeRead == [0, 0, 0])
  }

  @Test func everyKeyIsTheDefaultRecord() throws {
    let path = packageRoot.appendingPathComponent("samples/callbacks.txt").path
    let all = FieldSelection.Keys.named.map(\.name).joined(separator: ",")
    for options in [[], ["--redact"], ["--provider", "oauth2", "--state", "Qk7x2LmN9pRtVw3a"]] {
      let full = runInProcess(options + [path])
      let projected = runInProcess(options + ["--fields", all, path])
      #expect(!full.stdoutBytes.isEmpty)
      #expect(projected.stdoutBytes == full.stdoutBytes, "\(options)")
    }
  }

  @Test(arguments: [
    ("line,callback.provider", "myapp://authorized?cancelled\nhttp://h:99999/\nhttps://a.ru/\n",
     "{\"line\":1,\"callback\":{\"provider\":\"tid\"}}\n{\"line\":2}\n{\"line\":3,\"callback\":null}\n"),
    ("compact", "https://a.ru/cb?code=c&state=s&state=t\nhttp://h:99999/\n",
     "{\"line\":1,\"ok\":true,\"host\":\"a.ru\",\"callback\":{\"provider\":\"oauth2\",\"outcome\":\"rejected\","
       + "\"error\":{\"code\":\"duplicate-parameter\",\"parameter\":\"state\"}}}\n"
       + "{\"line\":2,\"ok\":false,\"error\":{\"code\":\"invalid-port\"}}\n"),
    ("error.offset,ok", "http://h:99999/\n", "{\"ok\":false,\"error\":{\"offset\":9}}\n"),
    ("callback.error.code,callback.outcome", "https://a.ru/cb?error=access_denied\n",
     "{\"callback\":{\"outcome\":\"error\",\"error\":{\"code\":\"access_denied\"}}}\n"),
    ("host", "vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d&expires_in=0600\n", "{\"host\":\"vk.ru\"}\n"),
    ("callback.expires_in,callback,callback.code", "vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d&expires_in=0600\n",
     "{\"callback\":{\"provider\":\"vk\",\"outcome\":\"success\",\"code\":\"c\",\"state\":\"s\",\"device_id\":\"d\","
       + "\"expires_in\":600}}\n"),
    ("port", "https://a.ru:8443/\n", "{\"port\":8443}\n"),
    ("params", "https://a.ru/\n", "{\"params\":[]}\n"),
    ("route", "https://a.ru/\n", "{}\n"),  // no --routes: no "route" key, so an empty record
  ])
  func projections(fields: String, input: String, expected: String) {
    let result = runInProcess(["--pipeline", "--fields", fields], input: input)
    #expect(result.status == 0)
    #expect(result.stdout == expected)
  }

  @Test func selectionParsing() throws {
    let compact = try FieldSelection(parsing: "compact")
    #expect(compact.keys == [.line, .ok, .host, .callback, .route, .error])
    #expect(compact.callbackKeys == ["provider", "outcome", "code", "state", "error"])
    #expect(compact.callbackErrorKeys == ["code", "parameter"])
    #expect(compact.errorKeys == ["code"])
    let whole = try FieldSelection(parsing: " callback.code , callback ,callback.error.raw")
    #expect(whole.callbackKeys == nil)
    #expect(whole.callbackErrorKeys == nil)
    #expect(throws: FieldSelectionError.self) { try FieldSelection(parsing: "") }
    #expect(throws: FieldSelectionError.self) { try FieldSelection(parsing: "params.0") }
    #expect(throws: FieldSelectionError.self) { try FieldSelection(parsing: "Host") }
  }

  @Test func nextBufferedNeverReads() throws {
    let splitter = LineSplitter(source: MemoryByteSource(Array("a\nb".utf8), chunkSize: 2))
    #expect(noLine(splitter.nextBuffered()))  // nothing read yet
    guard case .line(let a) = try splitter.next() else { Issue.record("no line"); return }
    #expect(Array(a) == Array("a".utf8))
    #expect(noLine(splitter.nextBuffered()))  // "b" is not read yet
    guard case .line(let b) = try splitter.next() else { Issue.record("no line"); return }
    #expect(Array(b) == Array("b".utf8))
    #expect(noLine(try splitter.next()))
    #expect(noLine(splitter.nextBuffered()))
  }
}

/// Serves bytes like ``MemoryByteSource`` and notes how much output had been written before each read.
final class ObservedSource: ByteSource {
  private let source: MemoryByteSource
  private let output: MemoryByteSink
  private(set) var outputBeforeRead: [Int] = []

  init(_ bytes: [UInt8], chunkSize: Int, output: MemoryByteSink) {
    source = MemoryByteSource(bytes, chunkSize: chunkSize)
    self.output = output
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> Int {
    outputBeforeRead.append(output.bytes.count)
    return try source.read(into: buffer)
  }
}

/// Whether the splitter returned no line (`LineEvent` is not `Equatable`).
func noLine(_ event: LineEvent?) -> Bool {
  if case .none = event { return true }
  return false
}
