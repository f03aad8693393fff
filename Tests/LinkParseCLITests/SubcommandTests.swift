import Foundation
import Testing
@testable import _LinkParseCLI

/// The command tree: `linkparse` with the subcommands `parse` (the default), `routes` and `token-request`.
@Suite struct SubcommandTests {

  static let input = """
    https://example.ru/cb?code=abc&state=s1
    vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d&type=code_v2
    myapp://authorized?cancelled
    cb?code=1
    http://host:99999/

    """

  @Test(arguments: [
    [String](),
    ["--provider", "auto", "--stats"],
    ["--base", "https://example.com/app/", "--redact"],
    ["--provider", "vk", "--state", "s", "--redirect-uri", "vk7915193://vk.ru/blank.html", "-"],
  ])
  func parseSpelledOutIsTheDefault(arguments: [String]) {
    let implicit = runInProcess(arguments, input: Self.input)
    let explicit = runInProcess(["parse"] + arguments, input: Self.input)
    #expect(explicit.stdoutBytes == implicit.stdoutBytes)
    #expect(explicit.status == implicit.status)
    #expect(explicit.status == 1, "the bad port fails")
    #expect(!explicit.stdoutBytes.isEmpty)
    let stats = { (text: String) in text.split(separator: " ").filter { !$0.hasPrefix("seconds=") && !$0.contains("_per_second=") } }
    #expect(stats(explicit.stderr) == stats(implicit.stderr))
  }

  /// The usage lines are written out (computing them cost a fifth of every start-up): they must stay what the
  /// commands' declarations give.
  @Test func writtenUsageIsTheComputedOne() {
    #expect(LinkParseCommand.usage == LinkParseCommand.computedUsage())
  }

  @Test func parseSpelledOutOnTheSampleFile() throws {
    let path = packageRoot.appendingPathComponent("samples/callbacks.txt").path
    let implicit = runInProcess(["--provider", "auto", path])
    let explicit = runInProcess(["parse", "--provider", "auto", path])
    #expect(explicit.stdoutBytes == implicit.stdoutBytes)
    #expect(explicit.status == implicit.status)
    #expect(implicit.lines.count > 10)
  }

  /// After `parse`, `routes` is a file name (the binary runs in a directory holding such a file).
  @Test func parseReadsFilesNamedLikeSubcommands() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    _ = try directory.file("routes", "https://example.com/\n")
    func run(_ arguments: [String]) throws -> (status: Int32, output: Data) {
      let output = try directory.file("stdout-\(arguments.count)", [])
      let process = Process()
      process.executableURL = URL(fileURLWithPath: linkparseBinary)
      process.arguments = arguments
      process.currentDirectoryURL = directory.url
      process.standardOutput = FileHandle(forWritingAtPath: output)
      try process.run()
      process.waitUntilExit()
      return (process.terminationStatus, try Data(contentsOf: URL(fileURLWithPath: output)))
    }
    let named = try run(["parse", "routes"])
    let dotted = try run(["./routes"])
    #expect(named.status == 0)
    #expect(String(decoding: named.output, as: UTF8.self).hasPrefix(#"{"line":1,"ok":true,"href":"https://example.com/""#))
    #expect(named.output == dotted.output)
  }

  @Test(arguments: [["--help"], ["-h"], ["help"]])
  func rootHelpListsTheSubcommands(arguments: [String]) {
    let result = runInProcess(arguments)
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    for text in [
      "SUBCOMMANDS:", "parse (default)", "routes", "token-request", "See 'linkparse help <subcommand>'",
      "linkparse parse [<options>] [<file> ...]", "linkparse routes check <file>",
      "linkparse routes explain <file> <url>", "linkparse token-request [<options>] --provider <provider>",
    ] {
      #expect(result.stdout.contains(text), "help lacks \(text)")
    }
    // The default subcommand's options are described, not only named in the usage.
    for text in ["ARGUMENTS:", "OPTIONS:", "Base URL to resolve relative inputs against.", "-h, --help"] {
      #expect(result.stdout.contains(text), "help lacks \(text)")
    }
    #expect(!result.stdout.contains("max-line-length"), "the test-only option stays hidden")
  }

  @Test func rootHelpIsTheSameWhicheverWayItIsAsked() {
    let help = runInProcess(["--help"]).stdout
    #expect(runInProcess(["-h"]).stdout == help)
    #expect(runInProcess(["help"]).stdout == help)
  }

  @Test(arguments: [["parse", "--help"], ["help", "parse"], ["--stats", "--help"]])
  func parseHelpExitsZero(arguments: [String]) {
    let result = runInProcess(arguments)
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.contains("USAGE: linkparse parse [--input-format <input-format>] [--base <url>]"))
    for text in ["OVERVIEW:", "Exit status", "--routes <file>", "Routes: --routes"] {
      #expect(result.stdout.contains(text), "help lacks \(text)")
    }
  }

  @Test(arguments: [
    (["--no-such-option"], "Usage: linkparse parse"),
    (["parse", "--no-such-option"], "Usage: linkparse parse"),
    (["routes", "check", "--no-such-option", "routes.txt"], "Usage: linkparse routes check <file>"),
    (["token-request", "--provider", "vk", "--client-id", "1", "--code", "c", "--no-such-option"], "Usage: linkparse token-request"),
  ])
  func unknownOptionExitsTwo(arguments: [String], usage: String) {
    let result = runInProcess(arguments, input: "https://example.com/\n")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("Error: Unknown option '--no-such-option'"), "\(result.stderr)")
    #expect(result.stderr.contains(usage), "\(result.stderr)")
  }

  @Test(arguments: [["routes"], ["routes", "--help"], ["help", "routes"]])
  func routesWithoutASubcommandPrintsItsUsage(arguments: [String]) {
    let result = runInProcess(arguments)
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.contains("USAGE: linkparse routes <subcommand>"))
    #expect(result.stdout.contains("SUBCOMMANDS:"))
    #expect(result.stdout.contains("check"))
    #expect(result.stdout.contains("explain"))
  }

  @Test func leafHelp() {
    let check = runInProcess(["routes", "check", "--help"])
    #expect(check.status == 0)
    #expect(check.stdout.contains("USAGE: linkparse routes check <file>"))
    let tokens = runInProcess(["token-request", "--help"])
    #expect(tokens.status == 0)
    #expect(tokens.stdout.contains("USAGE: linkparse token-request [<options>] --provider <provider> --client-id <id>"))
  }

  @Test func unknownSubcommandOfRoutesIsAUsageError() {
    let result = runInProcess(["routes", "lint", "routes.txt"])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("Error:"))
  }

  @Test func binaryUsesTheTree() throws {
    let help = try runBinary(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("SUBCOMMANDS:"))
    let parseHelp = try runBinary(["parse", "--help"])
    #expect(parseHelp.status == 0)
    #expect(parseHelp.stdout.contains("USAGE: linkparse parse "))
    let parsed = try runBinary(["parse"], input: "https://example.com/\n")
    #expect(parsed.stdoutBytes == (try runBinary([], input: "https://example.com/\n")).stdoutBytes)
    #expect(parsed.status == 0)
    let bogus = try runBinary(["parse", "--bogus"])
    #expect(bogus.status == 2)
    #expect(bogus.stderr.contains("Unknown option '--bogus'"))
  }
}
