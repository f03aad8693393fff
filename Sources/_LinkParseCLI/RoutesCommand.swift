import ArgumentParser
import LinkParse

/// `linkparse routes check FILE` and `linkparse routes explain FILE URL`.
///
/// ```text
/// $ linkparse routes check routes.txt
/// routes.txt:3: ambiguous-routes in route "b" …
/// $ linkparse routes explain routes.txt 'myapp://open/item/42'
/// ```
public struct RoutesCommand: ParsableCommand {
  /// The command's name and subcommands.
  public static let configuration = CommandConfiguration(
    commandName: "linkparse routes",
    abstract: "Check a routes file, or explain how its routes match a URL.",
    discussion: """
      A routes file has one route per line: name, pattern, and optionally a
      provider (sber, vk, tid, apple or oauth2; any other name is a problem),
      separated by spaces; '#' starts a comment. See 'linkparse --help' for
      --routes.
      """,
    subcommands: [Check.self, Explain.self]
  )

  /// Creates the command (ArgumentParser fills it in).
  public init() {}

  /// `linkparse routes check FILE`: prints every problem with its line number; exit 1 if any, 0 if none.
  public struct Check: ParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Print every problem of a routes file (FILE:LINE: …); exit 1 if there is any, 0 if none.")

    /// The routes file.
    @Argument(help: ArgumentHelp("The routes file.", valueName: "file"))
    public var file: String

    /// Creates the subcommand (ArgumentParser fills it in).
    public init() {}
  }

  /// `linkparse routes explain FILE URL`: prints, for every route, whether it matches and where it stopped.
  public struct Explain: ParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
      commandName: "explain",
      abstract: "Explain, for every route of a routes file, whether it matches a URL and where it stopped.")

    /// The routes file.
    @Argument(help: ArgumentHelp("The routes file.", valueName: "file"))
    public var file: String

    /// The URL to explain.
    @Argument(help: ArgumentHelp("The URL.", valueName: "url"))
    public var url: String

    /// Creates the subcommand (ArgumentParser fills it in).
    public init() {}
  }

  /// Parses `arguments` (after `routes`) and runs; returns the exit status: 0, 1 (problems found), or 2
  /// (usage or I/O error, an invalid URL, or a routes file that does not compile for `explain`).
  static func run(arguments: [String], standardOutput: any ByteSink, standardError: any ByteSink) -> Int32 {
    let command: any ParsableCommand
    do {
      command = try parseAsRoot(arguments)
    } catch {
      let isHelp = exitCode(for: error) == .success
      try? (isHelp ? standardOutput : standardError).write(text: fullMessage(for: error) + "\n")
      return isHelp ? ExitStatus.success : ExitStatus.usageOrIOError
    }
    switch command {
    case let check as Check:
      let file: RoutesFile
      do throws(IOError) { file = try RoutesFile(path: check.file) } catch {
        try? standardError.write(text: "linkparse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      switch file.compile() {
      case .success(let router):
        try? standardOutput.write(text: "\(check.file): \(router.routes.count) routes, no problems\n")
        return ExitStatus.success
      case .failure(let problems):
        let text = problems.map { "\(check.file):\($0.line): \($0.message)\n" }.joined()
        try? standardOutput.write(text: text)
        return ExitStatus.recordsFailed
      }
    case let explain as Explain:
      let router: Router
      do throws(IOError) {
        switch try RoutesFile(path: explain.file).compile() {
        case .success(let r): router = r
        case .failure(let problems):
          let text = problems.map { "linkparse: \(explain.file):\($0.line): \($0.message)\n" }.joined()
          try? standardError.write(text: text)
          return ExitStatus.usageOrIOError
        }
      } catch {
        try? standardError.write(text: "linkparse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      let url: ParsedURL
      do throws(URLParseError) { url = try ParsedURL(explain.url) } catch {
        try? standardError.write(text: "linkparse: the URL does not parse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      try? standardOutput.write(text: router.explain(url).description + "\n")
      return ExitStatus.success
    default:
      // `linkparse routes` alone: its help.
      try? standardOutput.write(text: helpMessage() + "\n")
      return ExitStatus.success
    }
  }
}
