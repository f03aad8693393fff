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

/// A routes file: one route per line, `name pattern [provider]`, fields separated by spaces or tabs; `#`
/// starts a comment (a whole line, or a field starting with `#`); empty lines are skipped. The provider,
/// when given, is one of ``Provider``'s raw values (`sber`, `vk`, `tid`, `apple`, `oauth2`).
///
/// ```text
/// # name      pattern                                         provider
/// vk          vk{app:[0-9]+}://{host:vk\.(?:ru|com)}/blank.html  vk
/// vk-app      vk{app:[0-9]+}://                                vk   # the VK app's host-less return
/// sber        myapp://sberidauth?code&state                   sber
/// open        myapp://open/{rest...}
/// ```
package struct RoutesFile: Sendable {
  /// One problem of the file, at a 1-based line.
  package struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number.
    package var line: Int
    /// A stable kebab-case code: `invalid-route-line`, `unknown-provider`, or a ``RouteError/Code`` of the
    /// router.
    package var code: String
    /// What is wrong, as a sentence (for router errors, ``RouteError/description``).
    package var message: String

    /// `LINE: message`.
    package var description: String { "\(line): \(message)" }
  }

  /// The routes, in file order.
  package var routes: [Route] = []
  /// The line each route is on.
  package var lines: [Int] = []
  /// Lines that are not `name pattern [provider]`, or whose provider is unknown.
  package var problems: [Problem] = []

  /// The providers a route may name, in the order the messages list them.
  static let providerNames = Provider.allCases.map(\.rawValue)

  /// Parses the text of a routes file (syntax only; ``compile()`` checks the routes).
  package init(text: String) {
    var number = 0
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      var fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      if let comment = fields.firstIndex(where: { $0.hasPrefix("#") }) { fields.removeSubrange(comment...) }
      if fields.isEmpty { continue }
      guard fields.count == 2 || fields.count == 3 else {
        problems.append(Problem(
          line: number, code: "invalid-route-line",
          message: "expected 'name pattern [provider]', found \(fields.count) field\(fields.count == 1 ? "" : "s")"))
        continue
      }
      let provider = fields.count == 3 ? String(fields[2]) : nil
      if let provider, Provider(rawValue: provider) == nil {
        // The route is still compiled, so that its other problems are reported too.
        problems.append(Problem(
          line: number, code: "unknown-provider",
          message: "unknown provider \"\(provider)\" in route \"\(fields[0])\": expected one of "
            + Self.providerNames.joined(separator: ", ") + " (or no third field)"))
      }
      routes.append(Route(String(fields[0]), String(fields[1]), provider: provider.flatMap(Provider.init(rawValue:))))
      lines.append(number)
    }
  }

  /// Reads and parses the file at `path`.
  package init(path: String) throws(IOError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw IOError(operation: "open", path: path, errno: errno) }
    defer { close(descriptor) }
    let source = FileDescriptorSource(fileDescriptor: descriptor, path: path)
    self.init(text: String(decoding: try source.readAll(), as: UTF8.self))
  }

  /// What ``compile()`` gives.
  package enum Compilation: Sendable {
    /// The file has no problem.
    case success(Router)
    /// Every problem, by line.
    case failure([Problem])
  }

  /// The compiled router, or every problem of the file (syntax and compile errors, by line).
  package func compile() -> Compilation {
    var all = problems
    do throws(RouterCompileError) {
      let router = try Router(routes)
      if all.isEmpty { return .success(router) }
    } catch {
      for e in error.errors {
        let line = e.routeIndex.map { lines[$0] } ?? 0
        all.append(Problem(line: line, code: e.code.rawValue, message: e.description))
      }
    }
    // By line; on one line, the file's own problems first (a stable sort).
    return .failure(all.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element))
  }
}
