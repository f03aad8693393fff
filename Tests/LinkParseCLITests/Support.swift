import Foundation
import _LinkParseCLI

/// What a run of the command produced.
struct RunResult {
  var status: Int32
  /// Standard output's bytes, as written.
  var stdoutBytes: [UInt8]
  var stderr: String

  /// Standard output, decoded (with repair) as UTF-8.
  var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

  /// Standard output split into lines (without the final empty piece).
  var lines: [String] {
    var lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}

/// Runs the command in process, on in-memory streams.
func runInProcess(_ arguments: [String], stdin: [UInt8] = []) -> RunResult {
  let output = MemoryByteSink()
  let errors = MemoryByteSink()
  let status = LinkParseCommand.run(
    arguments: arguments, standardInput: MemoryByteSource(stdin, chunkSize: 7),
    standardOutput: output, standardError: errors)
  return RunResult(status: status, stdoutBytes: output.bytes, stderr: errors.text)
}

/// Runs the command in process with `text` on standard input.
func runInProcess(_ arguments: [String], input text: String) -> RunResult {
  runInProcess(arguments, stdin: Array(text.utf8))
}

/// A temporary directory for one test, removed by `cleanUp()`.
struct TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("linkparse-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// Writes `bytes` to `name` inside the directory and returns its path.
  func file(_ name: String, _ bytes: [UInt8]) throws -> String {
    let fileURL = url.appendingPathComponent(name)
    try Data(bytes).write(to: fileURL)
    return fileURL.path
  }

  /// Writes `text` to `name` inside the directory and returns its path.
  func file(_ name: String, _ text: String) throws -> String { try file(name, Array(text.utf8)) }

  func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// The `linkparse` binary built beside the test bundle (`swift build --build-tests` builds it).
let linkparseBinary: String = {
  let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    ?? CommandLine.arguments[0]
  return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("linkparse").path
}()

/// The package's root directory, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// Runs the built binary with `arguments` and `stdin`, collecting its output through temporary files.
func runBinary(_ arguments: [String], stdin: [UInt8] = []) throws -> RunResult {
  let directory = try TemporaryDirectory()
  defer { directory.cleanUp() }
  let inputPath = try directory.file("stdin", stdin)
  let outputPath = try directory.file("stdout", [])
  let errorPath = try directory.file("stderr", [])

  let process = Process()
  process.executableURL = URL(fileURLWithPath: linkparseBinary)
  process.arguments = arguments
  process.standardInput = FileHandle(forReadingAtPath: inputPath)
  process.standardOutput = FileHandle(forWritingAtPath: outputPath)
  process.standardError = FileHandle(forWritingAtPath: errorPath)
  try process.run()
  process.waitUntilExit()
  return RunResult(
    status: process.terminationStatus,
    stdoutBytes: Array(try Data(contentsOf: URL(fileURLWithPath: outputPath))),
    stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorPath)), as: UTF8.self))
}

/// Runs the built binary with `text` on standard input.
func runBinary(_ arguments: [String], input text: String) throws -> RunResult {
  try runBinary(arguments, stdin: Array(text.utf8))
}
