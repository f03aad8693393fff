// The compiled form of a route table: a trie with one level per URL component (scheme, host, then each path
// segment). Routes that share a component pattern share a node, so matching a URL against 1,000 routes visits
// about as many nodes as against one: literal children are found by hash, and only the non-literal children
// of the nodes on the URL's way are tried.
//
// Search order at every node: literal children, then constrained captures, captures, `*`, and finally
// `{rest...}` routes. The first class that yields a match wins; within a class every matching child is
// explored and the routes found are compared by their full priority, so the result is the same as sorting all
// matching routes by priority, without visiting them all.

import LinkParseCore

struct TrieNode: Sendable {
  /// The component this node matches (index into `patterns`), -1 for the root and the "no host" node.
  var component: Int32 = -1
  /// Literal children keyed by `literalHash` of their exact bytes (case-sensitive path literals).
  var exact: [UInt64: Int32] = [:]
  /// Literal children keyed by `literalHash` of their folded bytes (scheme, host, caseless path literals).
  var folded: [UInt64: Int32] = [:]
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
  let nodes: [TrieNode]
  let names: [String]
  let byName: [String: Int]
  let maxCaptures: Int
  let limits: RegexLimits

  init(programs: [RouteProgram], patterns: [ComponentPattern], names: [String], limits: RegexLimits) {
    self.programs = programs
    self.patterns = patterns
    self.names = names
    self.limits = limits
    maxCaptures = max(1, programs.map(\.captureCount).max() ?? 0)
    var byName: [String: Int] = [:]
    for p in programs { byName[p.route.name] = p.index }
    self.byName = byName
    nodes = CompiledRouter.buildTrie(programs, patterns: patterns)
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
        let h = literal.withUnsafeBufferPointer { literalHash($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count, folded: false) }
        if pattern.caseless {
          nodes[Int(c)].nextSameHash = nodes[Int(parent)].folded[h] ?? -1
          nodes[Int(parent)].folded[h] = c
        } else {
          nodes[Int(c)].nextSameHash = nodes[Int(parent)].exact[h] ?? -1
          nodes[Int(parent)].exact[h] = c
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

  /// Statistics of one search, for tests of the trie's cost.
  struct SearchStatistics {
    var nodesVisited = 0
    var componentsTried = 0
  }

  /// The best route for `url` and its captures, written to `best` (which holds `maxCaptures` slots).
  func search(
    _ url: ParsedURL, best: UnsafeMutableBufferPointer<CaptureSlot>, bestCount: inout Int,
    statistics: UnsafeMutablePointer<SearchStatistics>?
  ) throws(LimitHit) -> Int32 {
    let view = URLView(url)
    if view.opaquePath { return -1 }
    let result: Result<(Int32, Int), LimitHit> = withHrefBytes(url) { buf in
      withUnsafeTemporaryAllocation(of: CaptureSlot.self, capacity: maxCaptures + 1) { slots in
        var search = Search(
          router: self, url: url, view: view, buf: buf.baseAddress!, stack: CaptureStack(slots), best: best,
          statistics: statistics)
        do throws(LimitHit) {
          _ = try search.explore(0, level: 0, cursor: 0)
          return .success((search.bestRoute, search.bestCount))
        } catch {
          return .failure(error)
        }
      }
    }
    let (route, count) = try result.get()
    bestCount = count
    return route
  }
}

/// One depth-first search through the trie.
struct Search {
  let router: CompiledRouter
  let url: ParsedURL
  let view: URLView
  let buf: UnsafePointer<UInt8>
  var stack: CaptureStack
  let best: UnsafeMutableBufferPointer<CaptureSlot>
  var bestRoute: Int32 = -1
  var bestCount = 0
  let statistics: UnsafeMutablePointer<CompiledRouter.SearchStatistics>?

  init(router: CompiledRouter, url: ParsedURL, view: URLView, buf: UnsafePointer<UInt8>, stack: CaptureStack,
       best: UnsafeMutableBufferPointer<CaptureSlot>, statistics: UnsafeMutablePointer<CompiledRouter.SearchStatistics>?) {
    self.router = router
    self.url = url
    self.view = view
    self.buf = buf
    self.stack = stack
    self.best = best
    self.statistics = statistics
  }

  /// Explores the children of `node`, which match the component at `level` (0 scheme, 1 host, 2+ segments;
  /// for segments `cursor` is the offset of the '/' before the next one, or the path's end).
  mutating func explore(_ node: Int32, level: Int, cursor: Int) throws(LimitHit) -> Bool {
    statistics?.pointee.nodesVisited += 1
    let range: Range<Int>
    let nextLevel: Int
    var nextCursor = cursor
    switch level {
    case 0:
      range = 0..<view.schemeEnd
      nextLevel = 1
    case 1:
      guard let host = view.host else {
        let child = router.nodes[Int(node)].noHost
        return child >= 0 ? try explore(child, level: 2, cursor: view.pathStart) : false
      }
      range = host
      nextLevel = 2
      nextCursor = view.pathStart
    default:
      if cursor >= view.pathEnd {
        // No segment left: routes ending here (rank literal), then `{rest...}` with an empty rest.
        if offer(router.nodes[Int(node)].endRoutes, rest: nil) { return true }
        return offer(router.nodes[Int(node)].restRoutes, rest: view.pathEnd..<view.pathEnd)
      }
      let end = view.segmentEnd(buf, after: cursor)
      range = (cursor + 1)..<end
      nextLevel = level + 1
      nextCursor = end
    }

    // Literal children: the exact table, then the folded one.
    var found = false
    let start = buf + range.lowerBound
    let count = range.count
    if !router.nodes[Int(node)].exact.isEmpty {
      var child = router.nodes[Int(node)].exact[literalHash(start, count, folded: false)] ?? -1
      while child >= 0 {
        if try tryChild(child, range, nextLevel, nextCursor) { found = true }
        child = router.nodes[Int(child)].nextSameHash
      }
    }
    if !router.nodes[Int(node)].folded.isEmpty {
      var child = router.nodes[Int(node)].folded[literalHash(start, count, folded: true)] ?? -1
      while child >= 0 {
        if try tryChild(child, range, nextLevel, nextCursor) { found = true }
        child = router.nodes[Int(child)].nextSameHash
      }
    }
    if found { return true }

    // Non-literal children, one rank class at a time.
    let ordered = router.nodes[Int(node)].ordered
    var k = 0
    while k < ordered.count {
      let rank = router.patterns[Int(router.nodes[Int(ordered[k])].component)].rank
      while k < ordered.count && router.patterns[Int(router.nodes[Int(ordered[k])].component)].rank == rank {
        if try tryChild(ordered[k], range, nextLevel, nextCursor) { found = true }
        k += 1
      }
      if found { return true }
    }
    if level >= 2 {
      return offer(router.nodes[Int(node)].restRoutes, rest: (cursor + 1)..<view.pathEnd)
    }
    return false
  }

  private mutating func tryChild(_ child: Int32, _ range: Range<Int>, _ nextLevel: Int, _ nextCursor: Int) throws(LimitHit) -> Bool {
    statistics?.pointee.componentsTried += 1
    let component = router.nodes[Int(child)].component
    let mark = stack.count
    defer { stack.count = mark }
    switch router.patterns[Int(component)].match(buf, range.lowerBound, range.upperBound, &stack) {
    case .noMatch: return false
    case .limitExceeded: throw LimitHit(component: component)
    case .match: return try explore(child, level: nextLevel, cursor: nextCursor)
    }
  }

  /// Offers the first route of `routes` (sorted by priority) whose query requirements hold.
  private mutating func offer(_ routes: [Int32], rest: Range<Int>?) -> Bool {
    for r in routes {
      let program = router.programs[Int(r)]
      if !program.query.isEmpty {
        let params = url.queryParameters
        if !program.query.allSatisfy({ params.contains(named: $0) }) { continue }
      }
      if bestRoute < 0 || program.outranks(router.programs[Int(bestRoute)]) {
        bestRoute = r
        for k in 0..<stack.count { best[k] = stack.base[k] }
        bestCount = stack.count
        if let rest, let name = program.rest {
          best[bestCount] = CaptureSlot(name: name, start: Int32(rest.lowerBound), end: Int32(rest.upperBound))
          bestCount += 1
        }
      }
      return true
    }
    return false
  }
}
