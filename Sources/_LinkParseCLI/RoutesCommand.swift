import ArgumentParser
import LinkParseCore
import LinkParseRouter
import LinkParseProviders
import LinkParseAuthorization
import LinkParseOAuth

/// `linkparse routes check FILE` and `linkparse routes explain FILE URL`.
///
/// ```text
/// $ linkparse routes check routes.txt
/// routes.txt:3: ambiguous-routes in route "b" …
/// $ linkparse routes explain routes.txt 'myapp://open/item/42'
/// ```
package struct RoutesCommand: ParsableCommand {
  /// The command's name and subcommands.
  package static let configuration = CommandConfiguration(
    commandName: "routes",
    abstract: "Check a routes file, or explain how its routes match a URL.",
    discussion: HelpText.routes,
    subcommands: [Check.self, Explain.self]
  )

  /// Creates the command (ArgumentParser fills it in).
  package init() {}

  /// `linkparse routes check FILE`: prints every problem with its line number; exit 1 if any, 0 if none.
  package struct Check: StreamCommand {
    /// The subcommand's name and help.
    package static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Print every problem of a routes file (FILE:LINE: …); exit 1 if there is any, 0 if none.")

    /// The routes file.
    @Argument(help: ArgumentHelp("The routes file.", valueName: "file"))
    package var file: String

    /// Creates the subcommand (ArgumentParser fills it in).
    package init() {}

    /// Checks the file; returns 0 (no problem), 1 (problems, printed) or 2 (the file cannot be read).
    package func execute(_ streams: Streams) -> Int32 {
      let routes: RoutesFile
      do throws(IOError) { routes = try RoutesFile(path: file) } catch {
        try? streams.error.write(text: "linkparse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      switch routes.compile() {
      case .success(let router):
        try? streams.output.write(text: "\(file): \(router.routes.count) routes, no problems\n")
        return ExitStatus.success
      case .failure(let problems):
        let text = problems.map { "\(file):\($0.line): \($0.message)\n" }.joined()
        try? streams.output.write(text: text)
        return ExitStatus.recordsFailed
      }
    }
  }

  /// `linkparse routes explain FILE URL`: prints, for every route, whether it matches and where it stopped.
  package struct Explain: StreamCommand {
    /// The subcommand's name and help.
    package static let configuration = CommandConfiguration(
      commandName: "explain",
      abstract: "Explain, for every route of a routes file, whether it matches a URL and where it stopped.")

    /// The routes file.
    @Argument(help: ArgumentHelp("The routes file.", valueName: "file"))
    package var file: String

    /// The URL to explain.
    @Argument(help: ArgumentHelp("The URL.", valueName: "url"))
    package var url: String

    /// Creates the subcommand (ArgumentParser fills it in).
    package init() {}

    /// Explains the URL; returns 0, or 2 (the file cannot be read or does not compile, or the URL does not
    /// parse).
    package func execute(_ streams: Streams) -> Int32 {
      let router: Router
      do throws(IOError) {
        switch try RoutesFile(path: file).compile() {
        case .success(let compiled): router = compiled
        case .failure(let problems):
          let text = problems.map { "linkparse: \(file):\($0.line): \($0.message)\n" }.joined()
          try? streams.error.write(text: text)
          return ExitStatus.usageOrIOError
        }
      } catch {
        try? streams.error.write(text: "linkparse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      let parsed: ParsedURL
      do throws(URLParseError) { parsed = try ParsedURL(url) } catch {
        try? streams.error.write(text: "linkparse: the URL does not parse: \(error.description)\n")
        return ExitStatus.usageOrIOError
      }
      try? streams.output.write(text: router.explain(parsed).description + "\n")
      return ExitStatus.success
    }
  }
}
