import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LinkParseCore
import LinkParseRouter
import LinkParseProviders
import LinkParseAuthorization
import LinkParseOAuth

/// `linkparse parse`, the default subcommand: parses callback URLs, one per line, into JSON lines.
/// `linkparse [options] [files]` is the same command with its name left out.
///
/// Tests run it through ``LinkParseCommand/run(arguments:standardInput:standardOutput:standardError:)``; the
/// `cli` fuzz target parses it once per configuration and calls ``execute(_:)`` on memory streams:
///
/// ```swift
/// let output = MemoryByteSink(), errors = MemoryByteSink()
/// let command = try ParseCommand.parse(["--base", "https://example.com/"])
/// let status = command.execute(Streams(
///   input: MemoryByteSource(Array("cb?code=1\n".utf8)), output: output, error: errors))
/// // status == 0; output.text is one JSON line
/// ```
package struct ParseCommand: StreamCommand {

  /// How input lines are read.
  package enum InputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// One URL per line.
    case lines
    /// One JSON string, or `{"input": …, "base": …}` object, per line.
    case json
  }

  /// The command's name, summary and long help (which `linkparse --help` shows too).
  package static let configuration = CommandConfiguration(
    commandName: "parse",
    abstract: abstract,
    discussion: discussion)

  /// The one-line summary, shared with the root command.
  static let abstract = "Parse callback URLs by the WHATWG URL Standard and print one JSON object per line."

  /// The long help, shared with the root command: `linkparse --help` and `linkparse parse --help` both print
  /// the DocC article *Using the linkparse command* (``HelpText``, generated from it).
  static let discussion = HelpText.parse

  /// `--input-format`.
  @Option(help: "How to read each line: 'lines' (a URL) or 'json' (a JSON string or {\"input\",\"base\"} object).")
  package var inputFormat: InputFormat = .lines

  /// `--base`.
  @Option(help: ArgumentHelp("Base URL to resolve relative inputs against.", valueName: "url"))
  package var base: String?

  /// `--provider`.
  @Option(help: "Callback decoder: auto, sber, vk, tid, apple, oauth2 or none.")
  package var provider: ProviderOption = .auto

  /// `--state`.
  @Option(help: ArgumentHelp("The state every callback must carry (compared in constant time).", valueName: "state"))
  package var state: String?

  /// `--redirect-uri`.
  @Option(help: ArgumentHelp("The redirect URI every callback must match (scheme, host, path).", valueName: "uri"))
  package var redirectURI: String?

  /// `--issuer`.
  @Option(help: ArgumentHelp("The issuer (iss) every callback must carry (RFC 9207).", valueName: "issuer"))
  package var issuer: String?

  /// `--redact`.
  @Flag(help: "Replace secret values (code, state, tokens, client_secret, code_verifier, device_id, user, email, payload) and the URL's userinfo with \"<redacted>\".")
  package var redact = false

  /// `--stats`.
  @Flag(help: "Print record count, failures, bytes, time and throughput to standard error at the end.")
  package var stats = false

  /// `--pipeline`: failed records do not change the exit status; output flushed before every read that could
  /// wait.
  @Flag(help: "Run as a pipeline stage (Spark's RDD.pipe or TRANSFORM): exit 0 unless a usage or I/O error; flush before every read that could wait.")
  package var pipeline = false

  /// `--fields`: the record's keys to write (``FieldSelection``).
  @Option(help: ArgumentHelp("Write only these keys of each record: comma-separated names or paths (callback.KEY, callback.error.KEY, error.KEY), or 'compact'.", valueName: "list"))
  package var fields: String?

  /// `--routes`: a routes file; each successful record then says which route its URL belongs to.
  @Option(help: ArgumentHelp("Routes file: add the matching route to every record (see 'linkparse routes').", valueName: "file"))
  package var routes: String?

  /// `--max-line-length`: the longest line accepted, in bytes. Hidden; it exists for tests.
  @Option(help: .hidden)
  package var maxLineLength: Int = LineSplitter.defaultMaxLineLength

  /// The input files.
  @Argument(help: ArgumentHelp("Files to read; standard input when none is given, or for '-'.", valueName: "file"))
  package var files: [String] = []

  /// Creates the command with default options (ArgumentParser fills them in).
  package init() {}

  /// Checks `--base`, `--redirect-uri` and `--max-line-length`.
  package func validate() throws {
    if let base {
      do throws(URLParseError) {
        _ = try ParsedURL(base)
      } catch {
        throw ValidationError("--base is not a valid URL: \(error.description)")
      }
    }
    if let redirectURI {
      do throws(URLParseError) {
        _ = try ParsedURL(redirectURI)
      } catch {
        throw ValidationError("--redirect-uri is not a valid URL: \(error.description)")
      }
    }
    guard maxLineLength >= 0 else { throw ValidationError("--max-line-length must not be negative") }
    if let fields {
      do throws(FieldSelectionError) {
        _ = try FieldSelection(parsing: fields)
      } catch {
        throw ValidationError("--fields: \(error.description)")
      }
    }
  }

  /// Processes every input and returns the exit status.
  package func execute(_ streams: Streams) -> Int32 {
    let standardInput = streams.input, standardOutput = streams.output, standardError = streams.error
    let started = monotonicSeconds()
    // `validate()` has checked it.
    let defaultBase = base.flatMap { try? ParsedURL($0) }
    var router: Router?
    if let routes {
      do throws(IOError) {
        switch try RoutesFile(path: routes).compile() {
        case .success(let compiled): router = compiled
        case .failure(let problems):
          let text = problems.map { "linkparse: \(routes):\($0.line): \($0.message)\n" }.joined()
          try? standardError.write(text: text)
          return ExitStatus.usageOrIOError
        }
      } catch {
        try? standardError.write(text: "linkparse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
    }
    let callbackOptions = CallbackOptions(
      provider: provider, state: state, redirectURI: redirectURI.flatMap { try? ParsedURL($0) }, issuer: issuer,
      redact: redact)
    var records = RecordWriter(
      json: JSONWriter(
        sink: standardOutput, capacity: streams.usesThreads ? Self.threadedCapacity : JSONWriter.defaultCapacity,
        background: streams.usesThreads),
      defaultBase: defaultBase, maxLineLength: maxLineLength,
      callbackOptions: callbackOptions, router: router, fields: fields.flatMap { try? FieldSelection(parsing: $0) })
    var ioFailed = false
    var bytes = 0
    // Read once: an ArgumentParser property's getter is not free (about 150 instructions a call).
    let pipeline = self.pipeline

    func report(_ message: String) {
      ioFailed = true
      try? standardError.write(text: "linkparse: \(message)\n")
    }

    // Several files are one stream, in the order given: `line` counts on across them (one output line per input
    // line, numbered as in the files' concatenation).
    var linesBefore = 0
    for path in files.isEmpty ? ["-"] : files {
      let source: any ByteSource
      var descriptor: Int32 = -1
      if path == "-" {
        source = standardInput
      } else {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
          report(IOError(operation: "open", path: path, errno: errno).description)
          continue
        }
        source = FileDescriptorSource(fileDescriptor: descriptor, path: path)
      }
      defer { if descriptor >= 0 { close(descriptor) } }

      let splitter = LineSplitter(source: source, maxLineLength: maxLineLength)
      do throws(IOError) {
        switch inputFormat {
        case .lines where pipeline:
          while let event = try Self.next(splitter, flushing: &records.json), records.json.error == nil {
            records.line(event, number: linesBefore + splitter.lineNumber)
          }
        case .lines:
          while let event = try splitter.next(), records.json.error == nil {
            records.line(event, number: linesBefore + splitter.lineNumber)
          }
        case .json where pipeline:
          while let event = try Self.next(splitter, flushing: &records.json), records.json.error == nil {
            records.jsonLine(event, number: linesBefore + splitter.lineNumber)
          }
        case .json:
          while let event = try splitter.next(), records.json.error == nil {
            records.jsonLine(event, number: linesBefore + splitter.lineNumber)
          }
        }
      } catch {
        report(error.description)
      }
      bytes += splitter.bytesRead
      linesBefore += splitter.lineNumber
      if records.json.error != nil { break }
    }
    records.json.finish()
    if let error = records.json.error { report("cannot write: \(error.description)") }

    if stats {
      let seconds = monotonicSeconds() - started
      let summary = Statistics(records: records.records, failures: records.failures, bytes: bytes, seconds: seconds)
      try? standardError.write(text: summary.line + "\n")
    }
    return ExitStatus.of(failures: pipeline ? 0 : records.failures, ioFailed: ioFailed)
  }

  /// The output's blocks when a thread writes them: 1 MiB, what a pipe holds once `linkparse` widened it.
  static let threadedCapacity = 1024 * 1024

  /// `--pipeline`'s read: the next line already read, else the output written so far is handed on before
  /// reading (which may wait), so that no answer is held back while the caller waits for it.
  private static func next(_ splitter: LineSplitter, flushing json: inout JSONWriter) throws(IOError) -> LineEvent? {
    if let event = splitter.nextBuffered() { return event }
    json.flush()
    return try splitter.next()
  }
}

/// The command's exit statuses.
package enum ExitStatus {
  /// Every record parsed (or, with `--pipeline`, every line was answered).
  package static let success: Int32 = 0
  /// At least one record failed (and there was no usage or I/O error); never with `--pipeline`.
  package static let recordsFailed: Int32 = 1
  /// A usage error or an I/O error; wins over ``recordsFailed``.
  package static let usageOrIOError: Int32 = 2

  /// The status for a run with `failures` failed records, and an I/O error if `ioFailed`.
  ///
  /// ```swift
  /// ExitStatus.of(failures: 3, ioFailed: false)  // 1
  /// ```
  package static func of(failures: Int, ioFailed: Bool) -> Int32 {
    if ioFailed { return usageOrIOError }
    return failures > 0 ? recordsFailed : success
  }
}

/// What `--stats` prints.
package struct Statistics: Sendable, Hashable {
  /// Records written, failed ones included.
  package var records: Int
  /// Records that failed.
  package var failures: Int
  /// Input bytes read.
  package var bytes: Int
  /// Wall-clock time of the run.
  package var seconds: Double

  /// Creates the statistics of a run.
  package init(records: Int, failures: Int, bytes: Int, seconds: Double) {
    self.records = records
    self.failures = failures
    self.bytes = bytes
    self.seconds = seconds
  }

  /// `stats records=… failures=… bytes=… seconds=… records_per_second=… mb_per_second=…`, where MB is
  /// 10^6 bytes; rates are 0 when no time was measured.
  ///
  /// ```swift
  /// Statistics(records: 10, failures: 1, bytes: 2_000_000, seconds: 0.5).line
  /// // "stats records=10 failures=1 bytes=2000000 seconds=0.500000 records_per_second=20.0 mb_per_second=4.000"
  /// ```
  package var line: String {
    let recordsPerSecond = seconds > 0 ? Double(records) / seconds : 0
    let megabytesPerSecond = seconds > 0 ? Double(bytes) / 1_000_000 / seconds : 0
    return "stats records=\(records) failures=\(failures) bytes=\(bytes) seconds=\(fixed(seconds, 6))"
      + " records_per_second=\(fixed(recordsPerSecond, 1)) mb_per_second=\(fixed(megabytesPerSecond, 3))"
  }
}

/// `value` with exactly `decimals` digits after the point, without Foundation's `String(format:)`.
func fixed(_ value: Double, _ decimals: Int) -> String {
  guard value.isFinite, value >= 0 else { return "0" }
  var scale: Double = 1
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (value * scale).rounded()
  guard scaled < 9e18 else { return String(Int(value)) }
  let units = Int(scaled)
  let whole = units / Int(scale)
  guard decimals > 0 else { return String(whole) }
  let fraction = String(units % Int(scale))
  return "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
