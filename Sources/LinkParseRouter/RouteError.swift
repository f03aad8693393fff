/// A problem with a route table, a match, or a reverse-routing request.
///
/// Every error carries a stable kebab-case ``code`` (safe to match on and to log), the route it concerns,
/// the byte ``position`` in the route's pattern when there is one, and a ``message`` fit for a log line.
///
/// ```swift
/// do {
///   _ = try Router([Route("bad", "myapp://a/{id:[0-9}")])
/// } catch {
///   let problem = error.errors[0]
///   print(problem.code, problem.position ?? -1)  // invalid-regex 15
/// }
/// ```
public struct RouteError: Error, Sendable, Hashable, CustomStringConvertible {

  /// A stable, machine-readable error code. New codes may be added; existing ones never change meaning.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The kebab-case spelling, e.g. `invalid-regex`.
    public let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    /// The kebab-case spelling.
    public var description: String { rawValue }

    // Compile errors.

    /// A `{name:regex}` constraint is not a valid pattern; the message is PCRE2's where PCRE2 compiles it.
    public static let invalidRegex = Code("invalid-regex")
    /// A `{name:regex}` constraint needs syntax that only PCRE2 runs (backreferences, look-around, `\b`,
    /// possessive quantifiers, inline options…) or is too large (counted repetition above 1,000), and this
    /// build runs constraints with the linear-time matcher (without the `PCRE2` trait, or off Linux). The
    /// position is the byte where that syntax starts.
    public static let unsupportedRegex = Code("unsupported-regex")
    /// The pattern has syntax the router does not understand (an unclosed `{`, a `#`, `{rest...}` before
    /// the end of the path…).
    public static let unknownSyntax = Code("unknown-syntax")
    /// Two routes have the same name.
    public static let duplicateRouteName = Code("duplicate-route-name")
    /// A route's name is empty or contains white space.
    public static let invalidRouteName = Code("invalid-route-name")
    /// One pattern uses the same capture name twice.
    public static let duplicateCaptureName = Code("duplicate-capture-name")
    /// Two captures follow each other with no literal text between them (`{a}{b}`), so the split is
    /// undefined.
    public static let adjacentCaptures = Code("adjacent-captures")
    /// Two routes can match the same URL with the same priority; ``RouteError/exampleURL`` is one.
    public static let ambiguousRoutes = Code("ambiguous-routes")

    // Match errors.

    /// A constraint hit PCRE2's match, depth or heap limit (or the JIT stack limit), so the router cannot
    /// tell whether it matches. Matching stops rather than pick a lower-priority route.
    public static let constraintLimitExceeded = Code("constraint-limit-exceeded")

    // Reverse-routing errors.

    /// No route has that name.
    public static let unknownRoute = Code("unknown-route")
    /// A capture the pattern needs was not given.
    public static let missingCaptureValue = Code("missing-capture-value")
    /// A capture value was given for a name the pattern does not have.
    public static let unknownCaptureName = Code("unknown-capture-name")
    /// A capture value cannot be written into that part of a URL, or does not satisfy its constraint.
    public static let invalidCaptureValue = Code("invalid-capture-value")
    /// A query parameter the route requires was not given.
    public static let missingQueryParameter = Code("missing-query-parameter")
    /// The built URL would be matched by another route (or would not match this one).
    public static let reverseRouteMismatch = Code("reverse-route-mismatch")
  }

  /// What went wrong.
  public var code: Code
  /// The route concerned, when there is one.
  public var route: String?
  /// The route's pattern, for compile errors.
  public var pattern: String?
  /// The byte offset into ``pattern`` where the problem is, when there is one.
  public var position: Int?
  /// A sentence a person can act on.
  public var message: String
  /// For ``Code/ambiguousRoutes``: the other route.
  public var otherRoute: String?
  /// For ``Code/ambiguousRoutes``: a URL both routes match with the same priority.
  public var exampleURL: String?
  /// The index of the route in the list given to ``Router/init(_:limits:)``, for compile errors.
  public var routeIndex: Int?

  /// Creates an error.
  public init(
    code: Code, route: String? = nil, pattern: String? = nil, position: Int? = nil, message: String,
    otherRoute: String? = nil, exampleURL: String? = nil, routeIndex: Int? = nil
  ) {
    self.code = code
    self.route = route
    self.pattern = pattern
    self.position = position
    self.message = message
    self.otherRoute = otherRoute
    self.exampleURL = exampleURL
    self.routeIndex = routeIndex
  }

  /// `code [route "name"] [at byte N]: message`.
  public var description: String {
    var text = code.rawValue
    if let route { text += " in route \"\(route)\"" }
    if let position { text += " at byte \(position)" }
    return text + ": " + message
  }
}

/// Every problem found while compiling a route table. ``Router/init(_:limits:)`` reports them all at once, in
/// route order, so a routes file can be fixed in one pass.
///
/// ```swift
/// do {
///   _ = try Router([Route("a", "myapp://x/{id}"), Route("a", "myapp://y")])
/// } catch {
///   for problem in error.errors { print(problem) }  // duplicate-route-name in route "a": …
/// }
/// ```
public struct RouterCompileError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The problems, at least one, ordered by route index.
  public var errors: [RouteError]

  /// Creates a compile error from its problems.
  public init(errors: [RouteError]) { self.errors = errors }

  /// One problem per line.
  public var description: String { errors.map(\.description).joined(separator: "\n") }
}
