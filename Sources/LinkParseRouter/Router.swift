@_spi(Bytes) public import LinkParseCore

/// A compiled, immutable route table: says which route a URL belongs to, with its captures.
///
/// ```swift
/// let router = try Router([
///   Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
///   Route("sber", "myapp://sberidauth?code&state", provider: .sber),
///   Route("web", "https://{tenant}.example.ru/auth/{provider}/callback"),
///   Route("native", "com.example.app:/oauth2redirect/{provider}"),
///   Route("open", "myapp://open/{rest...}"),
/// ])
/// let match = try router.match(ParsedURL("vk7915193://vk.ru/blank.html?code=1"))
/// match?.name        // "vk"
/// match?.provider    // .vk
/// match?["app"]      // "7915193"
/// ```
///
/// ## Patterns
///
/// A pattern is a URL template: `scheme://host/segment/…?required&parameters`, or `scheme:/segment/…` for
/// URLs without a host.
/// - The scheme, the host (with its port, if any) and each path segment mix literal text and captures:
///   `vk{app}`, `{tenant}.example.ru`, `img_{id}.png`. Two captures need literal text between them.
/// - `{name}` captures one or more bytes within its component; it never spans a `/`, and a component of a
///   URL is cut into segments *before* percent-decoding, so `%2F` never creates a segment.
/// - `{name:regex}` adds a constraint, anchored to the whole capture (`{id:[0-9]+}` matches `42`, not `42a`).
///   It sees the text as it is in the URL, percent-encoded, byte by byte. On Linux with the default `PCRE2`
///   package trait, PCRE2 runs it under ``RegexLimits`` (JIT when available); elsewhere, the package's
///   linear-time matcher does, and refuses syntax only PCRE2 has (backreferences, look-around, `\b`…) at
///   compile time with ``RouteError/Code/unsupportedRegex``.
/// - `*` (a whole segment) matches any one non-empty segment, without capturing it.
/// - `{name...}` (the last segment) captures the rest of the path, possibly empty, slashes included.
/// - `?code&state`: query parameters that must be present (with any value, or none).
/// - Fragments are ignored. User info is ignored. Path literals are compared in their serialized form
///   (`/привет` in a pattern matches `/%D0%BF…`); host literals are ASCII (Punycode).
///
/// Scheme and host compare ASCII-case-insensitively (their constraints run caseless). Paths compare
/// case-sensitively unless the route has ``Route/Options/caseInsensitivePath``.
///
/// ## Priority
///
/// When several routes match a URL, the router picks by comparing, component by component from the scheme
/// to the end of the path, the kind of pattern each route has there:
///
///     literal  >  constrained capture  >  capture  >  *  >  {rest...}
///
/// A *constrained capture* is a component with a regex constraint or with literal text around its captures
/// (`img_{id}.png`); a *capture* is a bare `{name}`. The end of a path ranks as a literal. The first
/// component where two routes differ decides. Matching backtracks: when the most specific branch fails
/// further down, the next one is tried (`/users/me/edit` and `/users/{id}/photos` both work).
/// When the path patterns tie, the route requiring more query parameters wins. Two routes that could still tie
/// on some URL are rejected at compile time (``RouteError/Code/ambiguousRoutes``) with an example URL.
///
/// ## Cost
///
/// The compiled form is a trie with one level per component; literal children are found by hash. Matching
/// against 1,000 routes visits about as many nodes as against one. Before the trie, a URL whose scheme, host
/// and path equal a route made of literals only is answered by one hash of those bytes (routes that could tie
/// with such a route — the same literals with query requirements, or caseless — are left to the trie).
/// The search reads the trie from flat memory without reference counting, and a match allocates nothing (its
/// captures are byte ranges, up to six kept in place; see ``RouteMatch``). A `Router` is `Sendable`: match
/// from any number of tasks at once.
public struct Router: Sendable {
  let compiled: CompiledRouter

  /// Compiles a route table.
  ///
  /// ```swift
  /// do {
  ///   let router = try Router([Route("a", "myapp://x/{id}"), Route("b", "myapp://x/{key}")])
  /// } catch {
  ///   print(error.errors[0].code)        // ambiguous-routes
  ///   print(error.errors[0].exampleURL!) // myapp://x/x
  /// }
  /// ```
  ///
  /// - Throws: ``RouterCompileError`` listing every problem: `invalid-regex` (PCRE2's message, the position
  ///   in the pattern), `unsupported-regex` (the linear matcher's refusal, the position), `unknown-syntax` and `adjacent-captures` (the position), `duplicate-route-name`,
  ///   `invalid-route-name`, `duplicate-capture-name`, `ambiguous-routes` (an example URL).
  public init(_ routes: [Route], limits: RegexLimits = .default) throws(RouterCompileError) {
    var compiler = RouterCompiler(limits: limits)
    compiled = try compiler.compile(routes)
  }

  /// Every problem of a route table, or `[]` when it compiles.
  ///
  /// ```swift
  /// for problem in Router.check(routes) { print(problem) }
  /// ```
  public static func check(_ routes: [Route], limits: RegexLimits = .default) -> [RouteError] {
    do {
      _ = try Router(routes, limits: limits)
      return []
    } catch {
      return error.errors
    }
  }

  /// The routes, in declaration order.
  public var routes: [Route] { compiled.programs.map(\.route) }

  /// The limits the constraints run under.
  public var limits: RegexLimits { compiled.limits }

  /// The route called `name`, or `nil`.
  public func route(named name: String) -> Route? {
    compiled.byName[name].map { compiled.programs[$0].route }
  }

  /// The route `url` belongs to, with its captures, or `nil` when no route matches.
  ///
  /// ```swift
  /// let match = try router.match(ParsedURL("https://acme.example.ru/auth/vk/callback?code=1&state=2"))
  /// match?.name         // "web"
  /// match?["tenant"]    // "acme"
  /// ```
  ///
  /// The match keeps `url` (``RouteMatch/url``): passing a URL that is not used afterwards, as above, moves it
  /// into the match without a copy.
  ///
  /// - Throws: ``RouteError`` with code ``RouteError/Code/constraintLimitExceeded`` when a constraint the
  ///   search had to run hit the PCRE2 limits: the router cannot tell whether that route matches, so it does
  ///   not fall back to a lower-priority one.
  public func match(_ url: consuming ParsedURL) throws(RouteError) -> RouteMatch? {
    var captures = CaptureList()
    let route: Int32
    do throws(LimitHit) {
      route = try compiled.search(url, captures: &captures, statistics: nil)
    } catch {
      throw limitError(error)
    }
    guard route >= 0 else { return nil }
    return RouteMatch(router: compiled, url: url, index: route, captures: captures)
  }

  private func limitError(_ hit: LimitHit) -> RouteError {
    let pattern = compiled.patterns[Int(hit.component)]
    let owner = compiled.programs.first { p in
      p.scheme === pattern || p.host === pattern || p.segments.contains { $0 === pattern }
    }
    return RouteError(
      code: .constraintLimitExceeded, route: owner?.route.name, pattern: owner?.route.pattern,
      message: "the constraint in \"\(pattern.display)\" hit the PCRE2 match limits; no route was chosen")
  }

  /// For every route, whether it matches `url` on its own and, if not, where and why it stopped; and which
  /// route ``match(_:)`` picks.
  ///
  /// ```swift
  /// print(router.explain(try ParsedURL("myapp://sberidauth?code=1")))
  /// // url: myapp://sberidauth?code=1
  /// // selected: none
  /// //   no        sber  myapp://sberidauth?code&state  stopped at query (missing-query-parameter): …
  /// ```
  public func explain(_ url: ParsedURL) -> RouteExplanation {
    var selected: String?
    var error: RouteError?
    do {
      selected = try match(url)?.name
    } catch let e {
      error = e
    }
    let entries = compiled.programs.map { program in
      RouteExplanation.Entry(
        route: program.route, outcome: program.trace(url, names: compiled.names),
        isSelected: program.route.name == selected)
    }
    return RouteExplanation(url: url.href, selected: selected, error: error, entries: entries)
  }

  /// How much of the trie one match visits: for tests and benchmarks of the compiled form.
  @_spi(Testing)
  public func searchStatistics(_ url: ParsedURL) -> (nodesVisited: Int, componentsTried: Int) {
    var statistics = CompiledRouter.SearchStatistics()
    var captures = CaptureList()
    _ = try? compiled.search(url, captures: &captures, statistics: &statistics)
    return (statistics.nodesVisited, statistics.componentsTried)
  }

  /// The route the trie's search picks for `url` (``trieMatch(_:)``'s route): for tests that check
  /// ``match(_:)`` agrees with it.
  @_spi(Testing)
  public func trieRouteIndex(_ url: ParsedURL) -> Int? { trieMatch(url)?.routeIndex }

  /// The route and capture ranges (UTF-8 offsets into the href) the trie's search picks for `url`, without
  /// the literal-only table and the route-by-route match of small tables that ``match(_:)`` uses: for tests
  /// and fuzzing that check they agree. Nil when no route matches or a constraint hits a limit.
  @_spi(Testing)
  public func trieMatch(_ url: ParsedURL) -> (routeIndex: Int, captures: [Range<Int>])? {
    var statistics = CompiledRouter.SearchStatistics()
    var captures = CaptureList()
    guard let r = try? compiled.search(url, captures: &captures, statistics: &statistics), r >= 0 else { return nil }
    return (Int(r), (0..<captures.count).map { Int(captures[$0].start)..<Int(captures[$0].end) })
  }

  /// Whether ``match(_:)`` matches small tables route by route rather than through the trie (tables of at
  /// most 16 routes whose constraints are all matched natively).
  @_spi(Testing)
  public var matchesRouteByRoute: Bool { compiled.linearRoutes != nil }

  /// Whether ``match(_:)`` answers `url` from the table of literal-only routes (without the trie).
  @_spi(Testing)
  public func isStaticMatch(_ url: ParsedURL) -> Bool {
    compiled.staticRoute(url) >= 0
  }

  /// Where the matcher finds the scheme, the host (with its port) and the path of `url`, as UTF-8 offsets
  /// into its href (the path's end found in the serialization, as the search finds it): for tests that
  /// compare them with ``ParsedURL/utf8Ranges``. Meaningless for an opaque path.
  @_spi(Testing)
  public static func componentOffsets(
    of url: ParsedURL
  ) -> (schemeEnd: Int, host: Range<Int>?, pathStart: Int, pathEnd: Int) {
    let view = URLView(url)
    return withHrefBytes(url) { buf in
      (view.schemeEnd, view.host, view.pathStart, view.pathEnd(buf, from: view.pathStart))
    }
  }

  /// Whether the constraints were compiled by PCRE2's JIT (false when the library has no JIT, or there is no
  /// constraint).
  @_spi(Testing)
  public var usesJIT: Bool {
    compiled.patterns.contains { p in
      p.parts.contains { if case .capture(_, let c?) = $0 { c.usesJIT } else { false } }
    }
  }
}
