#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import _LinkParseCLI

/// The output written from a thread of its own (`JSONWriter(background: true)`, ``BackgroundWriter``) and the widened
/// pipes of `linkparse`'s own streams: the same bytes in the same order as written in one thread, errors kept.
@Suite struct ThreadedOutputTests {

  /// A sink that is slow now and then, so that the writer's blocks queue up and the filler waits for a spare.
  final class SlowSink: ByteSink, @unchecked Sendable {
    private(set) var bytes: [UInt8] = []
    private var calls = 0
    func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
      calls += 1
      if calls % 7 == 0 { usleep(200) }
      self.bytes.append(contentsOf: bytes)
    }
  }

  /// Writes the same varied text (strings to escape, integers, raw runs, explicit flushes) into `json`.
  static func fill(_ json: inout JSONWriter) {
    for i in 0..<3_000 {
      json.raw("{\"i\":")
      json.integer(i * 7919)
      json.raw(",\"s\":")
      json.string(String(repeating: "ab\"c\n", count: i % 23) + "é\(i)")
      json.raw("}\n")
      if i % 401 == 0 { json.flush() }
    }
  }

  @Test(arguments: [16, 100, 4096])
  func backgroundWritingKeepsEveryByteInOrder(capacity: Int) {
    let direct = MemoryByteSink()
    var one = JSONWriter(sink: direct, capacity: capacity)
    Self.fill(&one)
    one.finish()
    let slow = SlowSink()
    var threaded = JSONWriter(sink: slow, capacity: capacity, background: true)
    Self.fill(&threaded)
    threaded.finish()
    #expect(threaded.error == nil)
    #expect(!direct.bytes.isEmpty)
    #expect(slow.bytes == direct.bytes)
  }

  @Test func backgroundWritingKeepsTheFirstErrorAndStopsWriting() {
    final class FailingSink: ByteSink, @unchecked Sendable {
      var calls = 0
      func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
        calls += 1
        throw IOError(operation: "write", path: "standard output", errno: calls == 1 ? EPIPE : EIO)
      }
    }
    let sink = FailingSink()
    var json = JSONWriter(sink: sink, capacity: 16, background: true)
    for _ in 0..<200 { json.string(String(repeating: "z", count: 40)) }
    json.finish()
    #expect(json.error == IOError(operation: "write", path: "standard output", errno: EPIPE))
    #expect(sink.calls == 1)
    json.finish()  // a second finish changes nothing
    #expect(sink.calls == 1)
  }

  @Test func aWriterWithOneSpareBlockWritesEveryBlock() {
    let sink = SlowSink()
    let writer = BackgroundWriter(sink: sink, capacity: 16, spares: 1)
    var buffer = OutputBuffer(capacity: 16)
    var expected: [UInt8] = []
    for i in 0..<500 {
      let piece = Array("\(i),".utf8)
      expected += piece
      #expect(piece.withUnsafeBufferPointer { buffer.append($0) })
      #expect(writer.handOver(&buffer) == nil)
      #expect(buffer.count == 0)
    }
    #expect(writer.finish() == nil)
    #expect(sink.bytes == expected)
  }

  /// The command with threads (as the process runs it) writes what it writes without, in both modes.
  @Test(arguments: [[], ["--pipeline"], ["--pipeline", "--fields", "line,ok,href,params"], ["--input-format", "json"]])
  func theCommandWritesTheSameWithThreads(options: [String]) throws {
    let sample = try String(contentsOfFile: packageRoot.appendingPathComponent("samples/callbacks.txt").path, encoding: .utf8)
    let lines = sample.split(separator: "\n", omittingEmptySubsequences: false)
    let input: String
    if options.contains("json") {
      input = lines.map { "{\"input\":\"\($0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"}" }
        .joined(separator: "\n")
    } else {
      input = sample
    }
    // More than one 1 MiB block of output.
    let bytes = Array(String(repeating: input + "\n", count: 400).utf8)
    func run(threads: Bool) -> (Int32, [UInt8]) {
      let output = MemoryByteSink()
      let status = LinkParseCommand.run(
        arguments: options,
        streams: Streams(
          input: MemoryByteSource(bytes, chunkSize: 65_536), output: output, error: MemoryByteSink(),
          usesThreads: threads))
      return (status, output.bytes)
    }
    let (plainStatus, plain) = run(threads: false)
    let (threadedStatus, threaded) = run(threads: true)
    #expect(plain.count > ParseCommand.threadedCapacity)
    #expect(threadedStatus == plainStatus)
    #expect(threaded == plain)
  }

  #if os(Linux)
  @Test func linkparseWidensItsPipes() throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]); close(ends[1]) }
    let getPipeSize: Int32 = 1032  // F_GETPIPE_SZ
    let before = fcntl(ends[0], getPipeSize)
    widenPipe(ends[1])
    let after = fcntl(ends[0], getPipeSize)
    let limit = Int32((try? String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8))
      .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0)
    #expect(after >= before)
    if getuid() == 0 || limit >= 1 << 20 { #expect(after == 1 << 20) }
    // A larger pipe is not made smaller.
    var wide: [Int32] = [0, 0]
    #expect(pipe(&wide) == 0)
    defer { close(wide[0]); close(wide[1]) }
    let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
    if fcntl(wide[1], setPipeSize, Int32(1 << 21)) == 1 << 21 {
      widenPipe(wide[0])
      #expect(fcntl(wide[1], getPipeSize) == 1 << 21)
    }
    // Not a pipe: nothing happens.
    let file = open("/dev/null", O_WRONLY)
    defer { close(file) }
    widenPipe(file)
    #expect(fcntl(file, getPipeSize) == -1)
  }
  #endif
}

/// Records of the URL's members alone are written from the line's bytes when the line is a canonical URL
/// (`CanonicalURLBytes`, no `ParsedURL`): the same records as through a parsed URL. `--base` turns that way off (a
/// base is never used for an absolute URL), so the two runs must agree on absolute URLs of every kind.
@Suite struct MembersOnlyRecordTests {
  @Test(arguments: ["line,ok,href,scheme,username,password,host,port,path,query,fragment,params", "href,port",
    "params", "ok,query,fragment", "line"])
  func recordsFromTheLinesBytesAreTheParsedURLs(fields: String) throws {
    let sample = try String(contentsOfFile: packageRoot.appendingPathComponent("samples/callbacks.txt").path, encoding: .utf8)
    let edges = [
      "https://a.ru/\u{FF}", "https://A.ru/x", "https://a.ru:443/", "https://a.ru:8443/p?q=1#f", "myapp://?code=1",
      "com.example.app:/cb?code=2", "https://a.ru/cb?x=%41&y=+&z=%zz", "https://é.ru/", "  https://a.ru/  ",
      "https://user:pw@a.ru/", "https://a.ru/a\\\"b", "myapp:/a\"b?c=\"", "https://a.ru/?a=%22%5C%00", "myapp:x",
      "vk123://vk.ru/blank.html#code=1&state=2", "https://a.ru:65535/?#",
    ].joined(separator: "\n")
    // (No empty line: a base makes the empty input a URL.)
    let input = (sample.hasSuffix("\n") ? sample : sample + "\n") + edges + "\n"
    let direct = runInProcess(["--fields", fields], input: input)
    let parsed = runInProcess(["--fields", fields, "--base", "https://unused.example/"], input: input)
    #expect(!direct.stdoutBytes.isEmpty)
    #expect(direct.stdout == parsed.stdout)
    #expect(direct.status == parsed.status)
  }
}
