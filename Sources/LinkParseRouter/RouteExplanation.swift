/// Why each route of a router does or does not match one URL: what ``Router/explain(_:)`` returns, for people
/// debugging "why does my deep link open the wrong screen".
///
/// ```swift
/// let explanation = router.explain(try ParsedURL("myapp://open/settings"))
/// print(explanation)
/// // url: myapp://open/settings
/// // selected: open
/// //   selected   open  myapp://open/{rest...}  matched: rest=settings
/// //   no         sber  myapp://sberidauth?code&state  stopped at host (no-match): "open" does not match "sberidauth"
/// ```
public struct RouteExplanation: Sendable, CustomStringConvertible {

  /// A part of the URL a route can stop at.
  public enum Component: Sendable, Hashable, CustomStringConvertible {
    /// The scheme.
    case scheme
    /// The host (with the port, if any).
    case host
    /// The path as a whole (e.g. an opaque path).
    case path
    /// The path segment with this 1-based number.
    case pathSegment(Int)
    /// The query's required parameters.
    case query

    /// `scheme`, `host`, `path`, `path segment 2`, `query`.
    public var description: String {
      switch self {
      case .scheme: "scheme"
      case .host: "host"
      case .path: "path"
      case .pathSegment(let n): "path segment \(n)"
      case .query: "query"
      }
    }
  }

  /// What happened when one route was tried alone.
  public enum Outcome: Sendable {
    /// The route matches, with its captures (percent-decoded) in pattern order.
    case matched(captures: [(name: String, value: String)])
    /// The route stopped at `component`: `code` is a stable kebab-case reason (`no-match`, `missing-host`,
    /// `unexpected-host`, `opaque-path`, `path-too-short`, `path-too-long`, `missing-query-parameter`,
    /// `constraint-limit-exceeded`), `reason` a sentence.
    case stopped(at: Component, code: String, reason: String)
  }

  /// One route's result.
  public struct Entry: Sendable {
    /// The route.
    public let route: Route
    /// Whether and how it matched.
    public let outcome: Outcome
    /// Whether this is the route ``Router/match(_:)`` returns.
    public let isSelected: Bool

    /// Whether the route matches the URL on its own (it may still lose to a route of higher priority).
    public var matched: Bool {
      if case .matched = outcome { return true }
      return false
    }
  }

  /// The URL explained (its serialization).
  public let url: String
  /// The name of the route ``Router/match(_:)`` returns, or `nil`.
  public let selected: String?
  /// The error ``Router/match(_:)`` throws for this URL, if any.
  public let error: RouteError?
  /// One entry per route, in declaration order.
  public let entries: [Entry]

  /// A multi-line report: the URL, the selected route, then one line per route.
  public var description: String {
    var lines = ["url: \(url)"]
    if let error { lines.append("error: \(error)") }
    lines.append("selected: \(selected ?? "none")")
    for entry in entries {
      let label = entry.isSelected ? "selected" : entry.matched ? "shadowed" : "no"
      var line = "  \(label.padding(to: 9)) \(entry.route.name)  \(entry.route.pattern)"
      switch entry.outcome {
      case .matched(let captures):
        line += captures.isEmpty ? "  matched" : "  matched: " + captures.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
        if !entry.isSelected, let selected { line += " (route \"\(selected)\" has priority)" }
      case .stopped(let at, let code, let reason):
        line += "  stopped at \(at) (\(code)): \(reason)"
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  fileprivate func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
