// Small route tables, matched route by route in priority order instead of by a walk down the trie.
//
// Why the answer is the trie's: the trie's search finds, among the routes that match a URL, the one that
// outranks the others (CompiledRouter.swift), which is the first that matches when the routes are tried in
// priority order. Both read the same compiled components (`ComponentCode`) and the same URL view, so a route
// matches here exactly when the trie reaches it. The one way they could differ is a constraint that hits the
// PCRE2 limits: the trie may run a constraint of a lower-ranked route before it settles, and throws, where this
// loop would stop at a better route first. So only tables whose constraints cannot hit a limit (none, or
// `[0-9]+`, matched natively) are matched this way.
//
// What it saves: the trie's search pays a recursive call, its setup and its bookkeeping at every level, where
// this loop turns most routes down by the length and first word of their scheme or host. On the benchmark's
// ten routes, a URL of a three-capture route costs about 1,330 instructions to route instead of 1,657 (after
// parsing); over the benchmark corpus, routing with parsing costs 2,411 instructions per URL instead of 2,533.

import LinkParseCore

/// The routes of a small table in priority order, each as its components' indices into the trie's
/// `components` (flat memory, like `TrieTables`).
///
/// Allocated by `init`, freed by `deallocate()` (the compiled router's `deinit`); only read in between.
struct LinearRoutes: @unchecked Sendable {
  // @unchecked: the memory is written once in `init` and only read afterwards, from any thread.

  /// A literal scheme or host, as the trie's literal children hold it: its length and first and last eight
  /// bytes (folded when caseless), so that most routes are turned down by two compares.
  struct Literal {
    /// -1 when the component is not a literal.
    var count: Int32 = -1
    var caseless = false
    var prefix: UInt64 = 0
    /// The last eight bytes, when longer than eight.
    var suffix: UInt64 = 0

    init() {}

    /// Whether comparing the words decides equality: a literal of at most sixteen bytes.
    var isDecidedByWords: Bool { count >= 0 && count <= 16 }

    init(_ pattern: ComponentPattern) {
      guard let text = pattern.literal else { return }
      count = Int32(text.count)
      caseless = pattern.caseless
      (prefix, suffix) = text.withUnsafeBufferPointer { t in
        let p = t.baseAddress ?? UnsafePointer(bitPattern: 1)!
        return (prefixWord(p, count: t.count, readable: t.count), t.count > 8 ? loadWord(p + (t.count - 8)) : 0)
      }
    }
  }

  /// A URL's scheme or host as ``Literal``s are compared with it: read once per search.
  struct Words {
    let count: Int
    let prefix: UInt64
    let foldedPrefix: UInt64
    let suffix: UInt64
    let foldedSuffix: UInt64

    @inline(__always)
    init(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, readable: Int) {
      count = end &- start
      prefix = prefixWord(base + start, count: count, readable: readable &- start)
      foldedPrefix = asciiLowercasedWord(prefix)
      suffix = count > 8 ? loadWord(base + (end &- 8)) : 0
      foldedSuffix = asciiLowercasedWord(suffix)
    }

    /// Whether the component cannot equal `literal` (false for a component that is not a literal, and for
    /// literals longer than sixteen bytes whose middle is still to compare).
    @inline(__always)
    func rules(out literal: Literal) -> Bool {
      guard literal.count >= 0 else { return false }
      guard Int(literal.count) == count else { return true }
      if (literal.caseless ? foldedPrefix : prefix) != literal.prefix { return true }
      return count > 8 && (literal.caseless ? foldedSuffix : suffix) != literal.suffix
    }
  }

  /// One route.
  struct Entry {
    /// The route's index.
    var route: Int32
    /// The scheme's and the host's patterns (indices into the router's `patterns`); `host` -1 for a route
    /// without a host, which matches only URLs without one.
    var scheme: Int32
    var host: Int32
    var schemeLiteral: Literal
    var hostLiteral: Literal
    /// The path segments' patterns: a run of `segments`.
    var segmentStart: Int32
    var segmentCount: Int32
    /// The `{name...}` capture's name index, or -1.
    var rest: Int32
    /// Whether the route requires query parameters.
    var hasQuery: Bool
  }

  /// The largest table matched this way: past it, the trie's search (whose cost does not grow with the number
  /// of routes) is the faster.
  static let maxRoutes = 16

  /// What `find` answers instead of a route index when it reaches a route that requires query parameters
  /// and was given none: the caller asks again with the URL's parameters.
  static let queryNeeded: Int32 = -2

  /// A path segment's pattern, and its text when a literal.
  struct Segment {
    var pattern: Int32
    var literal: Literal
  }

  let entries: UnsafeMutablePointer<Entry>
  let count: Int
  let segments: UnsafeMutablePointer<Segment>

  /// The table for `programs`, or nil when it is too large or a constraint may hit the PCRE2 limits.
  init?(_ programs: [RouteProgram], patterns: [ComponentPattern]) {
    guard programs.count <= Self.maxRoutes, patterns.allSatisfy(\.cannotHitLimits) else { return nil }
    var index: [ObjectIdentifier: Int32] = [:]
    for (k, p) in patterns.enumerated() { index[ObjectIdentifier(p)] = Int32(k) }
    var entries: [Entry] = []
    var segments: [Segment] = []
    for program in programs.sorted(by: { $0.outranks($1) }) {
      entries.append(Entry(
        route: Int32(program.index), scheme: index[ObjectIdentifier(program.scheme)]!,
        host: program.host.map { index[ObjectIdentifier($0)]! } ?? -1,
        schemeLiteral: Literal(program.scheme), hostLiteral: program.host.map(Literal.init) ?? Literal(),
        segmentStart: Int32(segments.count), segmentCount: Int32(program.segments.count),
        rest: program.rest ?? -1, hasQuery: !program.query.isEmpty))
      segments += program.segments.map { Segment(pattern: index[ObjectIdentifier($0)]!, literal: Literal($0)) }
    }
    count = entries.count
    self.entries = .allocate(capacity: max(entries.count, 1))
    self.entries.initialize(from: entries, count: entries.count)
    self.segments = .allocate(capacity: max(segments.count, 1))
    self.segments.initialize(from: segments, count: segments.count)
  }

  func deallocate() {
    entries.deallocate()
    segments.deallocate()
  }

  /// The first route, in priority order, that matches the URL `view` describes (`buf` its serialization),
  /// its captures left on `stack`; -1 when none does, ``queryNeeded`` when a route that requires query
  /// parameters is reached and `query` is nil. `components` are the trie's (one per pattern); `router`
  /// gives the routes' query requirements.
  func find(
    _ buf: UnsafeBufferPointer<UInt8>, _ view: URLView, components: UnsafeMutablePointer<ComponentCode>,
    router: Unmanaged<CompiledRouter>, query: UnsafePointer<FormParameters>?, stack: inout CaptureStack
  ) -> Int32 {
    let base = buf.baseAddress!
    let count = buf.count
    let scheme = Words(base, 0, view.schemeEnd, readable: count)
    let host = view.host
    let hostWords = host.map { Words(base, $0.lowerBound, $0.upperBound, readable: count) }
    var e = entries
    let last = entries + self.count
    next: while e < last {
      defer { e += 1 }
      // Literal schemes and hosts first, by their words (most routes end here).
      if scheme.rules(out: e.pointee.schemeLiteral) { continue }
      if e.pointee.host >= 0 {
        guard let hostWords, !hostWords.rules(out: e.pointee.hostLiteral) else { continue }
      } else if host != nil {
        continue
      }
      stack.count = 0
      @inline(__always) func matches(_ pattern: Int32, _ start: Int, _ end: Int) -> Bool {
        let result = components[Int(pattern)].match(buf, start, end, &stack)
        assert(result != .limitExceeded, "a linear table holds no constraint that can hit a limit")
        return result == .match
      }
      // Then each component in full, but literals of sixteen bytes or fewer, which their words decided.
      if !e.pointee.schemeLiteral.isDecidedByWords {
        guard matches(e.pointee.scheme, 0, view.schemeEnd) else { continue }
      }
      if let host, e.pointee.host >= 0, !e.pointee.hostLiteral.isDecidedByWords {
        guard matches(e.pointee.host, host.lowerBound, host.upperBound) else { continue }
      }
      // The segments, as the trie's levels read them: each starts after the '/' at `cursor`.
      var cursor = view.pathStart
      var k = Int(e.pointee.segmentStart)
      let segmentsEnd = k &+ Int(e.pointee.segmentCount)
      while k < segmentsEnd {
        if view.isPathEnd(buf, cursor) { continue next }
        let start = cursor &+ 1
        let (end, prefix) = scanSegment(base, from: start, to: count)
        let literal = segments[k].literal
        if literal.count >= 0 {
          // As the scheme and host above: length, first and last words, then any bytes between.
          guard Int(literal.count) == end &- start,
            (literal.caseless ? asciiLowercasedWord(prefix) : prefix) == literal.prefix
          else { continue next }
          if literal.count > 8 {
            let last = loadWord(base + (end &- 8))
            guard (literal.caseless ? asciiLowercasedWord(last) : last) == literal.suffix else { continue next }
            if literal.count > 16 && !matches(segments[k].pattern, start, end) { continue next }
          }
        } else if !matches(segments[k].pattern, start, end) {
          continue next
        }
        cursor = end
        k &+= 1
      }
      let rest = e.pointee.rest
      if rest >= 0 {
        if view.isPathEnd(buf, cursor) {
          stack.push(rest, cursor, cursor)
        } else {
          stack.push(rest, cursor &+ 1, view.pathEnd(buf, from: cursor))
        }
      } else if !view.isPathEnd(buf, cursor) {
        continue
      }
      if e.pointee.hasQuery {
        guard let query else { return Self.queryNeeded }
        let route = Int(e.pointee.route)
        let names = router._withUnsafeGuaranteedRef { $0.programs[route].query }
        if !names.allSatisfy({ query.pointee.contains(named: $0) }) { continue }
      }
      return e.pointee.route
    }
    return -1
  }
}
