import ArgumentParser
import LinkParseCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `linkparse` command: the root of the command tree.
///
/// ```text
/// linkparse [options] [files]              the same as `linkparse parse` (the default subcommand)
/// linkparse parse [options] [files]        callback URLs, one per line, into JSON lines (``ParseCommand``)
/// linkparse routes check FILE              a routes file's problems (``RoutesCommand``)
/// linkparse routes explain FILE URL        how the routes match a URL
/// linkparse token-request …                the request that follows a callback (``TokenRequestCommand``)
/// ```
///
/// The executable calls ``main()``; tests call
/// ``run(arguments:standardInput:standardOutput:standardError:)`` with in-memory streams:
///
/// ```swift
/// let output = MemoryByteSink(), errors = MemoryByteSink()
/// let status = LinkParseCommand.run(
///   arguments: ["--base", "https://example.com/"],
///   standardInput: MemoryByteSource(Array("cb?code=1\n".utf8)),
///   standardOutput: output, standardError: errors)
/// // status == 0; output.text is one JSON line
/// ```
///
/// Both go through ``run(arguments:streams:)``, the one place that parses the arguments and reports help and
/// usage errors: `--help` on standard output with status 0, a usage error on standard error with status 2
/// (ArgumentParser's own usage status, 64, is not used). Every leaf command is a ``StreamCommand``.
public struct LinkParseCommand: ParsableCommand {
  /// The command's name, help (the default subcommand's long help) and subcommands.
  public static let configuration = CommandConfiguration(
    commandName: "linkparse",
    abstract: ParseCommand.abstract,
    usage: usage,
    discussion: ParseCommand.discussion,
    version: LinkParseVersion.string,
    subcommands: [ParseCommand.self, RoutesCommand.self, TokenRequestCommand.self],
    defaultSubcommand: ParseCommand.self)

  /// The usage lines of `linkparse --help`: the default subcommand without its name first (as it was before
  /// `parse` had one), then every subcommand.
  ///
  /// Written out, not computed: computing it with ArgumentParser's `usageString()` at every start cost 8.7 M of
  /// the start-up's 42.8 M instructions (callgrind, `linkparse --pipeline < /dev/null`; a `--pipeline` stage
  /// starts once per file, a Spark task once per partition). A test checks that it equals ``computedUsage()``,
  /// what the commands' declarations give.
  static let usage = """
    linkparse [--input-format <input-format>] [--base <url>] [--provider <provider>] [--state <state>] \
    [--redirect-uri <uri>] [--issuer <issuer>] [--redact] [--stats] [--pipeline] [--fields <list>] \
    [--routes <file>] [<file> ...]
    linkparse parse [<options>] [<file> ...]
    linkparse routes check <file>
    linkparse routes explain <file> <url>
    linkparse token-request [<options>] --provider <provider> --client-id <id>
    """

  /// ``usage`` as the commands' declarations give it.
  static func computedUsage() -> String {
    [
      "linkparse" + ParseCommand.usageString().drop(while: { $0 != " " }),
      "linkparse parse [<options>] [<file> ...]",
      "linkparse routes " + RoutesCommand.Check.usageString(),
      "linkparse routes " + RoutesCommand.Explain.usageString(),
      "linkparse " + TokenRequestCommand.usageString(),
    ].joined(separator: "\n")
  }

  /// Creates the command (ArgumentParser fills it in).
  public init() {}

  /// Parses the process's arguments, runs the chosen command on the process's standard streams, and exits
  /// with the contract's status: 0, 1, or 2 (usage and I/O errors).
  public static func main() {
    systemExit(run(arguments: Array(CommandLine.arguments.dropFirst()), streams: .process))
  }

  /// Parses `arguments` (without the program name) and runs the chosen command on the given streams;
  /// returns the exit status.
  ///
  /// `--help` goes to `standardOutput` with status 0; a usage error goes to `standardError` with status 2.
  /// Files named in `arguments` are read from disk; `-` (or no file) reads `standardInput`.
  package static func run(
    arguments: [String],
    standardInput: any ByteSource,
    standardOutput: any ByteSink,
    standardError: any ByteSink
  ) -> Int32 {
    run(arguments: arguments, streams: Streams(input: standardInput, output: standardOutput, error: standardError))
  }

  /// Parses `arguments` as the root command's and runs the chosen command on `streams`: the one path of
  /// every command, and the one place that reports help requests and usage errors.
  static func run(arguments: [String], streams: Streams) -> Int32 {
    do {
      let command = try parseAsRoot(arguments)
      if let leaf = command as? any StreamCommand { return leaf.execute(streams) }
      // A command group without a default (`linkparse routes`) or ArgumentParser's `help` subcommand: their
      // `run()` throws the help request, reported below.
      var other = command
      try other.run()
      return ExitStatus.success
    } catch {
      let isHelp = exitCode(for: error) == .success
      var message = fullMessage(for: error)
      if isHelp && message == helpMessage() { message = rootHelp() }
      try? (isHelp ? streams.output : streams.error).write(text: message + "\n")
      return isHelp ? ExitStatus.success : ExitStatus.usageOrIOError
    }
  }

  /// `linkparse --help`: ArgumentParser's help of the root (overview, usage, subcommands), with the default
  /// subcommand's arguments and options in place of the root's own options section (which has only
  /// `--help`), so that the options of `linkparse [options] [files]` are described where they are used.
  static func rootHelp(columns: Int? = nil) -> String {
    let root = helpMessage(columns: columns)
    let parse = helpMessage(for: ParseCommand.self, columns: columns)
    guard let usage = root.utf8.firstRange(of: "USAGE: "),
      let ownOptions = root.utf8[usage.upperBound...].firstRange(of: "\nOPTIONS:\n"),
      let subcommands = root.utf8[ownOptions.upperBound...].firstRange(of: "\nSUBCOMMANDS:\n"),
      let parseUsage = parse.utf8.firstRange(of: "USAGE: "),
      let parseSections = parse.utf8[parseUsage.upperBound...].firstRange(of: "\nARGUMENTS:\n")
    else { return root }
    return String(root[..<ownOptions.lowerBound]) + parse[parseSections.lowerBound...] + root[subcommands.lowerBound...]
  }
}

/// The streams a command reads and writes: the process's standard streams, or memory in tests.
package struct Streams {
  /// Standard input (read for `-`, or when no file is named).
  package var input: any ByteSource
  /// Standard output.
  package var output: any ByteSink
  /// Standard error.
  package var error: any ByteSink

  /// The command may write its output from a second thread while it makes the next block (``JSONWriter``'s
  /// `background`). The process's streams do; tests choose.
  package var usesThreads: Bool

  /// Streams for a run.
  package init(input: any ByteSource, output: any ByteSink, error: any ByteSink, usesThreads: Bool = false) {
    self.input = input
    self.output = output
    self.error = error
    self.usesThreads = usesThreads
  }

  /// The process's standard input, output and error.
  static var process: Streams {
    widenPipe(STDIN_FILENO)
    widenPipe(STDOUT_FILENO)
    return Streams(
      input: FileDescriptorSource(fileDescriptor: STDIN_FILENO, path: "-"),
      output: FileDescriptorSink(fileDescriptor: STDOUT_FILENO, path: "standard output"),
      error: FileDescriptorSink(fileDescriptor: STDERR_FILENO, path: "standard error"),
      usesThreads: true)
  }
}

/// A command that does the work (a leaf of `linkparse`'s tree): it runs on the streams it is given and
/// returns its exit status (``ExitStatus``) instead of throwing.
package protocol StreamCommand: ParsableCommand {
  /// Runs on `streams`; returns 0, 1 or 2.
  func execute(_ streams: Streams) -> Int32
}

extension StreamCommand {
  /// ArgumentParser's entry point, on the process's streams, throwing `ExitCode` for a non-zero status.
  /// (`linkparse` starts at ``LinkParseCommand/main()``, which calls ``execute(_:)`` itself.)
  package func run() throws {
    let status = execute(.process)
    if status != ExitStatus.success { throw ExitCode(status) }
  }
}

extension Collection<UInt8> {
  /// Where `needle`'s UTF-8 first occurs (a plain scan: help texts are a few KB). Not the standard library's
  /// `firstRange(of:)`, whose module (_StringProcessing, with the regex parser) adds 1.2 MB to a static
  /// `linkparse`.
  fileprivate func firstRange(of needle: String) -> Range<Index>? {
    let pattern = Array(needle.utf8)
    guard let first = pattern.first else { return nil }
    var start = startIndex
    while let candidate = self[start...].firstIndex(of: first) {
      var cursor = candidate
      var matched = 0
      while matched < pattern.count, cursor != endIndex, self[cursor] == pattern[matched] {
        formIndex(after: &cursor)
        matched += 1
      }
      if matched == pattern.count { return candidate..<cursor }
      start = index(after: candidate)
    }
    return nil
  }
}
