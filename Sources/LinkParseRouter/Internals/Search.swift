// One depth-first search through the trie (see CompiledRouter.swift for the order it follows).
//
// The hot path of `Router.match`: it reads the trie from `TrieTables` and the URL's bytes in place (through
// the fenced `Table` and `Bytes`, Unsafe/), holds no strong reference, and allocates nothing.

import LinkParseCore

/// One depth-first search through the trie. It holds no strong reference (it runs inside
/// `CompiledRouter.search`, which keeps the router and the URL alive), so walking the trie touches no
/// reference count.
struct Search {
  /// Why a search stopped before its end.
  enum Stop: Error {
    /// A constraint of this component hit the PCRE2 limits.
    case limit(Int32)
    /// A route that requires query parameters was reached, and the search has no `query`.
    case queryNeeded
  }

  let tables: TrieTables
  /// For the query requirements of the routes that have some.
  let router: Unmanaged<CompiledRouter>
  /// The URL's serialization, and the same as a view by offset.
  let buf: UnsafeBufferPointer<UInt8>
  let bytes: Bytes
  let view: URLView
  /// The URL's query parameters, when a route that requires some has been reached (see `Stop.queryNeeded`).
  let query: QueryView?
  /// The captures of the branch being explored.
  var stack: CaptureStack
  /// The captures of the best route found so far.
  let best: UnsafeMutablePointer<CaptureSlot>
  var bestRoute: Int32 = -1
  var bestCount = 0
  let statistics: SearchCounters

  init(
    router: Unmanaged<CompiledRouter>, buf: UnsafeBufferPointer<UInt8>, view: URLView,
    query: QueryView?,
    stack: CaptureStack, best: UnsafeMutablePointer<CaptureSlot>,
    statistics: SearchCounters
  ) {
    self.tables = router._withUnsafeGuaranteedRef { $0.tables }
    self.router = router
    self.buf = buf
    self.bytes = Bytes(buf)
    self.view = view
    self.query = query
    self.stack = stack
    self.best = best
    self.statistics = statistics
  }

  /// Explores the children of `node`, which match the component at `level` (0 scheme, 1 host, 2+ segments;
  /// for segments `cursor` is the offset of the '/' before the next one, or the path's end).
  mutating func explore(_ node: Int32, level: Int, cursor: Int) throws(Stop) -> Bool {
    statistics.nodeVisited()
    let start: Int
    let end: Int
    let nextLevel: Int
    let nextCursor: Int
    /// The component's first eight bytes (`prefixWord`), for the literal children.
    let prefix: UInt64
    switch level {
    case 0, 1:
      if level == 0 {
        start = 0
        end = view.schemeEnd
        nextCursor = 0
      } else {
        guard let host = view.host else {
          let child = tables.nodes[node].noHost
          return child >= 0 ? try descend(child, level: 2, cursor: view.pathStart) : false
        }
        start = host.lowerBound
        end = host.upperBound
        nextCursor = view.pathStart
      }
      nextLevel = level &+ 1
      prefix = bytes.prefixWord(at: start, count: end &- start)
    default:
      if view.isPathEnd(buf, cursor) {
        // No segment left: routes ending here (rank literal), then `{rest...}` with an empty rest.
        if try offer(tables.nodes[node].endRoutes, restStart: -1, restEnd: -1) { return true }
        return try offer(tables.nodes[node].restRoutes, restStart: cursor, restEnd: cursor)
      }
      start = cursor &+ 1
      (end, prefix) = bytes.scanSegment(from: start)
      nextLevel = level &+ 1
      nextCursor = end
    }

    // Literal children, case-sensitive ones first.
    var found = false
    if tables.nodes[node].hashed {
      found = try tryHashedLiterals(node, start, end, nextLevel, nextCursor)
    } else {
      if tables.nodes[node].exact.count > 0 {
        found = try tryLiterals(tables.nodes[node].exact, prefix, caseless: false, start, end, nextLevel, nextCursor)
      }
      if tables.nodes[node].folded.count > 0 {
        let folded = asciiLowercasedWord(prefix)
        if try tryLiterals(tables.nodes[node].folded, folded, caseless: true, start, end, nextLevel, nextCursor) { found = true }
      }
    }
    if found { return true }

    // Non-literal children, one rank class at a time.
    var k = Int(tables.nodes[node].ordered.start)
    let orderedEnd = tables.nodes[node].ordered.end
    while k < orderedEnd {
      let rank = tables.ordered[k].rank
      repeat {
        if try tryChild(tables.ordered[k].child, start, end, nextLevel, nextCursor) { found = true }
        k &+= 1
      } while k < orderedEnd && tables.ordered[k].rank == rank
      if found { return true }
    }
    if level >= 2 && tables.nodes[node].restRoutes.count > 0 {
      return try offer(tables.nodes[node].restRoutes, restStart: cursor &+ 1, restEnd: view.pathEnd(buf, from: cursor))
    }
    return false
  }

  /// Tries the literal children listed in `run`, whose texts are compared with `buf[start..<end]` (its first
  /// eight bytes are `prefix`, folded when `caseless`); whether one of them led to a route.
  @inline(__always)
  private mutating func tryLiterals(
    _ run: TrieTables.Run, _ prefix: UInt64, caseless: Bool, _ start: Int, _ end: Int, _ nextLevel: Int,
    _ nextCursor: Int
  ) throws(Stop) -> Bool {
    var found = false
    let length = end &- start
    var entry = Int(run.start)
    let entriesEnd = run.end
    while entry < entriesEnd {
      defer { entry &+= 1 }
      guard tables.literals[entry].prefix == prefix && Int(tables.literals[entry].count) == length else { continue }
      // Length and first eight bytes are equal: compare the rest, then go down.
      let child = tables.literals[entry].child
      statistics.componentTried()
      if length > 8 {
        // The last eight bytes (within the component: `length` > 8), then any between.
        let last = bytes.word(endingAt: end)
        guard (caseless ? asciiLowercasedWord(last) : last) == tables.literals[entry].suffix else { continue }
        if length > 16 && !middleMatches(child, start, length, caseless: caseless) { continue }
      }
      if try descend(child, level: nextLevel, cursor: nextCursor) { found = true }
    }
    return found
  }

  /// Whether bytes 8..<length-8 of `child`'s literal equal those of the component at `start`. Out of line:
  /// inlined, its setup would run at every literal compared, for the few literals longer than sixteen.
  @inline(never)
  private func middleMatches(_ child: Int32, _ start: Int, _ length: Int, caseless: Bool) -> Bool {
    let literal = tables.components[tables.nodes[child].component].literal
    return bytes.equals(at: start &+ 8, literal, from: 8, count: length &- 16, caseless: caseless)
  }

  /// The literal children of a node with many, found by the hash of `buf[start..<end]`: the exact table,
  /// then the folded one. Whether one matched.
  @inline(never)
  private mutating func tryHashedLiterals(
    _ node: Int32, _ start: Int, _ end: Int, _ nextLevel: Int, _ nextCursor: Int
  ) throws(Stop) -> Bool {
    var found = false
    for pass in 0..<2 {
      let folded = pass == 1
      let run = folded ? tables.nodes[node].folded : tables.nodes[node].exact
      guard run.count > 0 else { continue }
      let hash = bytes.fnv1a(start, end, folded: folded)
      var child = tables.lookup(run, hash)
      while child >= 0 {
        if try tryChild(child, start, end, nextLevel, nextCursor) { found = true }
        child = tables.nodes[Int(child)].nextSameHash
      }
    }
    return found
  }

  /// Whether `child`'s component matches `buf[start..<end]` and the search finds a route below it.
  private mutating func tryChild(_ child: Int32, _ start: Int, _ end: Int, _ nextLevel: Int, _ nextCursor: Int) throws(Stop) -> Bool {
    statistics.componentTried()
    let component = tables.nodes[Int(child)].component
    let mark = stack.count
    defer { stack.count = mark }
    switch tables.components[Int(component)].match(buf, start, end, &stack) {
    case .noMatch: return false
    case .limitExceeded: throw .limit(component)
    case .match: return try descend(child, level: nextLevel, cursor: nextCursor)
    }
  }

  /// Explores `child`, or when its level is past the end of the path offers its routes right away (the
  /// last step of most searches, spared a call).
  @inline(__always)
  private mutating func descend(_ child: Int32, level: Int, cursor: Int) throws(Stop) -> Bool {
    guard level >= 2 && view.isPathEnd(buf, cursor) else { return try explore(child, level: level, cursor: cursor) }
    statistics.nodeVisited()
    if try offer(tables.nodes[child].endRoutes, restStart: -1, restEnd: -1) { return true }
    return try offer(tables.nodes[child].restRoutes, restStart: cursor, restEnd: cursor)
  }

  /// Offers the first route of `routes` (sorted by priority) whose query requirements hold; a `{rest...}`
  /// route captures `restStart..<restEnd` (-1 for routes that end here).
  private mutating func offer(_ routes: TrieTables.Run, restStart: Int, restEnd: Int) throws(Stop) -> Bool {
    var k = Int(routes.start)
    let routesEnd = routes.end
    while k < routesEnd {
      let r = tables.routeIndices[k]
      k &+= 1
      let route = tables.routes[Int(r)]
      if route.hasQuery {
        guard let query else { throw .queryNeeded }
        let names = router._withUnsafeGuaranteedRef { $0.programs[Int(r)].query }
        if !query.containsAll(names) { continue }
      }
      if bestRoute < 0 || route.order < tables.routes[Int(bestRoute)].order {
        bestRoute = r
        // A loop rather than `update(from:count:)`: a call to `memcpy` costs more than the few slots.
        for k in 0..<stack.count { best[k] = stack.base[k] }
        bestCount = stack.count
        if restStart >= 0 && route.rest >= 0 {
          best[bestCount] = CaptureSlot(
            name: route.rest, start: Int32(truncatingIfNeeded: restStart), end: Int32(truncatingIfNeeded: restEnd))
          bestCount += 1
        }
      }
      return true
    }
    return false
  }
}
