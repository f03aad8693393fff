// The compiled form of a route table: a trie with one level per URL component (scheme, host, then each path
// segment). Routes that share a component pattern share a node, so matching a URL against 1,000 routes visits
// about as many nodes as against one: literal children are found by their length and first bytes (by hash
// when a node has many), and only the non-literal children of the nodes on the URL's way are tried.
//
// Search order at every node: literal children, then constrained captures, captures, `*`, and finally
// `{rest...}` routes. The first class that yields a match wins; within a class every matching child is
// explored and the routes found are compared by their full priority, so the result is the same as sorting all
// matching routes by priority, without visiting them all.
//
// The search (Search.swift) reads the trie from `TrieTables` (TrieTables.swift), in flat memory. Two shortcuts
// come before it in `search`, each giving the trie's answer: literal-only routes found by one hash
// (StaticRoutes.swift), and small tables matched route by route in priority order (LinearRoutes.swift).

@_spi(Bytes) import LinkParseCore
import LinkParseBytes

/// A trie node while the trie is built (`TrieTables` holds the form the search reads).
struct TrieNode {
  /// The component this node matches (index into `patterns`), -1 for the root and the "no host" node.
  var component: Int32 = -1
  /// Literal children keyed by `ByteHash.fnv1a` of their exact bytes (case-sensitive path literals).
  var exact: [UInt64: Int32] = [:]
  /// Literal children keyed by `ByteHash.fnv1a` of their folded bytes (scheme, host, caseless path literals).
  var folded: [UInt64: Int32] = [:]
  /// The same children in creation order.
  var exactChildren: [Int32] = []
  var foldedChildren: [Int32] = []
  /// The next literal child of the same parent whose hash collides with this one.
  var nextSameHash: Int32 = -1
  /// Non-literal children, by rank then creation order.
  var ordered: [Int32] = []
  /// The child for URLs without a host (only below scheme nodes).
  var noHost: Int32 = -1
  /// Routes whose path ends here, by priority.
  var endRoutes: [Int32] = []
  /// Routes whose `{rest...}` starts here, by priority.
  var restRoutes: [Int32] = []
}

/// Thrown through the search when a constraint hits a PCRE2 limit.
struct LimitHit: Error {
  var component: Int32
}

final class CompiledRouter: Sendable {
  let programs: [RouteProgram]
  let patterns: [ComponentPattern]
  let names: [String]
  let byName: [String: Int]
  let maxCaptures: Int
  let limits: RegexLimits
  let tables: TrieTables
  /// The literal-only routes found by hash before any walk of the trie (see StaticRoutes.swift).
  let staticRoutes: StaticRoutes
  /// Small tables, matched route by route (see LinearRoutes.swift); nil for the others.
  let linearRoutes: LinearRoutes?
  /// Owns the memory of `tables`, `staticRoutes` and `linearRoutes`.
  private let arena: Arena

  init(programs: [RouteProgram], patterns: [ComponentPattern], names: [String], limits: RegexLimits) {
    self.programs = programs
    self.patterns = patterns
    self.names = names
    self.limits = limits
    maxCaptures = max(1, programs.map(\.captureCount).max() ?? 0)
    var byName: [String: Int] = [:]
    for p in programs { byName[p.route.name] = p.index }
    self.byName = byName
    let arena = Arena()
    self.arena = arena
    tables = TrieTables(
      CompiledRouter.buildTrie(programs, patterns: patterns), patterns: patterns, programs: programs, arena: arena)
    staticRoutes = StaticRoutes(programs, arena: arena)
    linearRoutes = LinearRoutes(programs, patterns: patterns, arena: arena)
  }

  private static func buildTrie(_ programs: [RouteProgram], patterns: [ComponentPattern]) -> [TrieNode] {
    var nodes = [TrieNode()]
    var patternIndex: [ObjectIdentifier: Int32] = [:]
    for (k, p) in patterns.enumerated() { patternIndex[ObjectIdentifier(p)] = Int32(k) }
    // Components are shared between routes when they are equal (see RouterCompiler), so the pattern index
    // identifies a child.
    var childOf: [Int64: Int32] = [:]  // (parent << 32 | pattern) -> child
    func child(_ parent: Int32, _ pattern: ComponentPattern) -> Int32 {
      let pi = patternIndex[ObjectIdentifier(pattern)]!
      let key = Int64(parent) << 32 | Int64(pi)
      if let c = childOf[key] { return c }
      let c = Int32(nodes.count)
      var node = TrieNode()
      node.component = pi
      nodes.append(node)
      childOf[key] = c
      if let literal = pattern.literal {
        let h = literal.withUnsafeBufferPointer { ByteHash.fnv1a($0) }
        if pattern.caseless {
          nodes[Int(c)].nextSameHash = nodes[Int(parent)].folded[h] ?? -1
          nodes[Int(parent)].folded[h] = c
          nodes[Int(parent)].foldedChildren.append(c)
        } else {
          nodes[Int(c)].nextSameHash = nodes[Int(parent)].exact[h] ?? -1
          nodes[Int(parent)].exact[h] = c
          nodes[Int(parent)].exactChildren.append(c)
        }
      } else {
        nodes[Int(parent)].ordered.append(c)
      }
      return c
    }
    for program in programs {
      var node = child(0, program.scheme)
      if let host = program.host {
        node = child(node, host)
      } else {
        if nodes[Int(node)].noHost < 0 {
          nodes[Int(node)].noHost = Int32(nodes.count)
          nodes.append(TrieNode())
        }
        node = nodes[Int(node)].noHost
      }
      for segment in program.segments { node = child(node, segment) }
      if program.rest != nil {
        nodes[Int(node)].restRoutes.append(Int32(program.index))
      } else {
        nodes[Int(node)].endRoutes.append(Int32(program.index))
      }
    }
    for k in nodes.indices {
      // Stable: equal ranks keep creation (declaration) order.
      nodes[k].ordered = nodes[k].ordered.enumerated().sorted {
        let (a, b) = (patterns[Int(nodes[Int($0.element)].component)].rank, patterns[Int(nodes[Int($1.element)].component)].rank)
        return a != b ? a < b : $0.offset < $1.offset
      }.map(\.element)
      nodes[k].endRoutes.sort { programs[Int($0)].outranks(programs[Int($1)]) }
      nodes[k].restRoutes.sort { programs[Int($0)].outranks(programs[Int($1)]) }
    }
    return nodes
  }

  /// The literal-only route whose literals equal `url`'s scheme, host and path (see StaticRoutes.swift), or -1.
  func staticRoute(_ url: ParsedURL) -> Int32 {
    if staticRoutes.isEmpty || url.hasOpaquePath { return -1 }
    return staticRoute(url, URLView(url))
  }

  /// ``staticRoute(_:)`` given the URL's view (its path is not opaque).
  @inline(__always)
  private func staticRoute(_ url: ParsedURL, _ view: URLView) -> Int32 {
    let staticRoutes = self.staticRoutes
    return withHrefBytes(url) { buf in staticRoutes.find(buf, view) }
  }

  /// Statistics of one search, for tests of the trie's cost.
  struct SearchStatistics {
    var nodesVisited = 0
    var componentsTried = 0
  }

  /// The best route for `url` (its index, or -1 when none matches), its captures written to `captures`.
  func search(
    _ url: ParsedURL, captures: inout CaptureList, statistics: UnsafeMutablePointer<SearchStatistics>?
  ) throws(LimitHit) -> Int32 {
    if url.hasOpaquePath { return -1 }
    let view = URLView(url)
    // A literal-only route equal to the URL's components is the answer (not for statistics, which describe
    // the trie). Looked up here, before the walk's setup, which `run` keeps out of line.
    if statistics == nil && !staticRoutes.isEmpty {
      let r = staticRoute(url, view)
      if r >= 0 { return r }
    }
    // Small tables: route by route (not for statistics either).
    if statistics == nil, let linear = linearRoutes {
      let r = runLinear(url, view, linear, query: nil, captures: &captures)
      guard r == LinearRoutes.queryNeeded else { return r }
      let parameters = url.queryParameters
      return withQuery(parameters) { query in
        runLinear(url, view, linear, query: query, captures: &captures)
      }
    }
    // The closures below capture nothing that needs reference counting: capturing `url` would retain it.
    // The routes that require query parameters need it, so a search that reaches one starts again with the
    // URL's parameters at hand (the rare, slower path).
    let first = run(url, view, query: nil, captures: &captures, statistics: statistics)
    if case .stopped(.queryNeeded) = first {
      SearchCounters(target: statistics).reset()
      let parameters = url.queryParameters
      return try withQuery(parameters) { (query) throws(LimitHit) -> Int32 in
        try run(url, view, query: query, captures: &captures, statistics: statistics).route()
      }
    }
    return try first.route()
  }

  /// How one search ended.
  enum SearchOutcome {
    /// The best route (-1 for none).
    case route(Int32)
    case stopped(Search.Stop)

    func route() throws(LimitHit) -> Int32 {
      switch self {
      case .route(let r): return r
      case .stopped(.limit(let component)): throw LimitHit(component: component)
      case .stopped(.queryNeeded): preconditionFailure("a search with the query at hand asked for it")
      }
    }
  }

  /// The route-by-route match of a small table (see LinearRoutes.swift), `view` describing `url`: a route
  /// index, -1, or `LinearRoutes.queryNeeded` when `query` is nil and a route needs it.
  @inline(never)
  private func runLinear(
    _ url: ParsedURL, _ view: URLView, _ linear: LinearRoutes, query: QueryView?,
    captures: inout CaptureList
  ) -> Int32 {
    let capacity = maxCaptures + 1
    let components = tables.components
    let router = Unmanaged.passUnretained(self)  // captured below without a retain
    return withHrefBytes(url) { buf -> Int32 in
      withCaptureSlots(capacity: capacity) { stack -> Int32 in
        let r = linear.find(buf, view, components: components, router: router, query: query, stack: &stack)
        if r >= 0 { captures.assign(stack.base, count: stack.count) }
        return r
      }
    }
  }

  /// The walk down the trie, `view` describing `url`.
  @inline(never)
  private func run(
    _ url: ParsedURL, _ view: URLView, query: QueryView?, captures: inout CaptureList,
    statistics: UnsafeMutablePointer<SearchStatistics>?
  ) -> SearchOutcome {
    let maxCaptures = self.maxCaptures
    let router = Unmanaged.passUnretained(self)  // captured below without a retain
    return withHrefBytes(url) { buf -> SearchOutcome in
      // The explored branch's captures (`stack`), then the best route's so far (`best`, with its rest).
      return withCaptureSlots(capacity: maxCaptures + 1) { stack, best -> SearchOutcome in
        var search = Search(
          router: router, buf: buf, view: view, query: query, stack: stack, best: best,
          statistics: SearchCounters(target: statistics))
        do throws(Search.Stop) {
          _ = try search.explore(0, level: 0, cursor: 0)
        } catch {
          return .stopped(error)
        }
        if search.bestRoute >= 0 {
          assert(
            (0..<search.bestCount).map { search.best[$0].name }
              == router.takeUnretainedValue().programs[Int(search.bestRoute)].captureNames,
            "a route's captures are its pattern's, in order")
          captures.assign(search.best, count: search.bestCount)
        }
        return .route(search.bestRoute)
      }
    }
  }
}
