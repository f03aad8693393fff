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
// The routes left possible by the URL's scheme and host lengths (two masks, one AND) are the only ones
// visited: 2,422 -> 2,234.

import LinkParseCore

/// The routes of a small table in priority order, each as its components' indices into the trie's
/// `components` (tables, like `TrieTables`).
///
/// Allocated by `init` in the compiled router's arena (freed with the router); only read afterwards.
struct LinearRoutes: Sendable {

  /// A component of a route: its pattern (an index into the router's `patterns`; -1 for the host of a route
  /// without one) and, when the pattern is a literal, its words as the trie's literal children hold them, so
  /// that most routes are turned down by two compares.
  struct Component {
    var pattern: Int32 = -1
    var literal = Literal()

    init() {}

    init(_ pattern: ComponentPattern, index: Int32) {
      self.pattern = index
      literal = Literal(pattern)
    }
  }

  /// A literal's length and first and last eight bytes (folded when caseless).
  struct Literal {
    /// -1 when the component is not a literal.
    var count: Int32 = -1
    var caseless = false
    var prefix: UInt64 = 0
    /// The last eight bytes, when longer than eight.
    var suffix: UInt64 = 0

    init() {}

    init(_ pattern: ComponentPattern) {
      guard let text = pattern.literal else { return }
      count = Int32(text.count)
      caseless = pattern.caseless
      (prefix, suffix) = literalWords(text)
    }

    /// Whether comparing the words decides equality: a literal of at most sixteen bytes.
    var isDecidedByWords: Bool { count >= 0 && count <= 16 }

    /// Whether the bytes `end - count..<end` of `bytes`, whose first eight are `prefix` (as `prefixWord`
    /// reads them), cannot be this literal: false for a component that is not a literal, and for a literal
    /// longer than sixteen bytes whose middle is still to compare.
    @inline(__always)
    func rulesOut(_ bytes: Bytes, count: Int, end: Int, prefix: UInt64) -> Bool {
      guard self.count >= 0 else { return false }
      guard Int(self.count) == count else { return true }
      if (caseless ? asciiLowercasedWord(prefix) : prefix) != self.prefix { return true }
      guard count > 8 else { return false }
      let last = bytes.word(endingAt: end)
      return (caseless ? asciiLowercasedWord(last) : last) != suffix
    }
  }

  /// One route.
  struct Entry {
    /// The route's index.
    var route: Int32
    var scheme: Component
    /// `pattern` -1 for a route without a host, which matches only URLs without one.
    var host: Component
    /// The path segments: a run of `segments`.
    var segments: TrieTables.Run
    /// The `{name...}` capture's name index, or -1.
    var rest: Int32
    /// Whether the route requires query parameters.
    var hasQuery: Bool
  }

  /// The largest table matched this way: past it, the trie's search (whose cost does not grow with the number
  /// of routes) is the faster. Also the width of the length masks (`UInt16`, a bit per route).
  static let maxRoutes = UInt16.bitWidth

  /// What `find` answers instead of a route index when it reaches a route that requires query parameters
  /// and was given none: the caller asks again with the URL's parameters.
  static let queryNeeded: Int32 = -2

  let entries: Table<Entry>
  let count: Int
  let segments: Table<Component>
  /// The routes (bit k for `entries[k]`) that a URL's scheme and host lengths leave possible: `schemeLengths`
  /// by the scheme's length (the last slot for every length from `lengthSlots - 1` on), `hostLengths` by the
  /// host's (slot 0 for a URL without a host, slot 1 + length for one with). A literal allows its own
  /// length only, any other pattern every length. Most routes of a table differ from a URL in the length of
  /// their scheme or host, so one AND turns them down before their words are read.
  let schemeLengths: Table<UInt16>
  let hostLengths: Table<UInt16>
  static let lengthSlots = 32

  /// The table for `programs`, or nil when it is too large or a constraint may hit the PCRE2 limits.
  init?(_ programs: [RouteProgram], patterns: [ComponentPattern], arena: Arena) {
    guard programs.count <= Self.maxRoutes, patterns.allSatisfy(\.cannotHitLimits) else { return nil }
    var index: [ObjectIdentifier: Int32] = [:]
    for (k, p) in patterns.enumerated() { index[ObjectIdentifier(p)] = Int32(k) }
    var entries: [Entry] = []
    var segments: [Component] = []
    func component(_ pattern: ComponentPattern) -> Component {
      Component(pattern, index: index[ObjectIdentifier(pattern)]!)
    }
    for program in programs.sorted(by: { $0.outranks($1) }) {
      entries.append(Entry(
        route: Int32(program.index), scheme: component(program.scheme),
        host: program.host.map(component) ?? Component(),
        segments: TrieTables.Run(start: Int32(segments.count), count: Int32(program.segments.count)),
        rest: program.rest ?? -1, hasQuery: !program.query.isEmpty))
      segments += program.segments.map(component)
    }
    count = entries.count
    self.entries = arena.table(entries)
    self.segments = arena.table(segments)
    let slots = Self.lengthSlots
    var schemeLengths = [UInt16](repeating: 0, count: slots)
    var hostLengths = [UInt16](repeating: 0, count: slots &+ 1)
    /// The slots of `lengths` (1 + slot for hosts) a component allows.
    func allow(_ c: Component, _ bit: UInt16, in lengths: inout [UInt16], from first: Int) {
      for slot in 0..<slots where c.literal.count < 0 || Self.slot(Int(c.literal.count)) == slot {
        lengths[first &+ slot] |= bit
      }
    }
    for (k, entry) in entries.enumerated() {
      let bit: UInt16 = 1 << k
      allow(entry.scheme, bit, in: &schemeLengths, from: 0)
      if entry.host.pattern >= 0 {
        allow(entry.host, bit, in: &hostLengths, from: 1)
      } else {
        hostLengths[0] |= bit
      }
    }
    self.schemeLengths = arena.table(schemeLengths)
    self.hostLengths = arena.table(hostLengths)
  }

  /// The slot of a component of `length` bytes in the length masks.
  @inline(__always)
  static func slot(_ length: Int) -> Int { min(length, lengthSlots &- 1) }

  /// The first route, in priority order, that matches the URL `view` describes (`buf` its serialization),
  /// its captures left on `stack`; -1 when none does, ``queryNeeded`` when a route that requires query
  /// parameters is reached and `query` is nil. `components` are the trie's (one per pattern); `router`
  /// gives the routes' query requirements.
  func find(
    _ buf: UnsafeBufferPointer<UInt8>, _ view: URLView, components: Table<ComponentCode>,
    router: Unmanaged<CompiledRouter>, query: QueryView?, stack: inout CaptureStack
  ) -> Int32 {
    let bytes = Bytes(buf)
    let schemePrefix = bytes.prefixWord(at: 0, count: view.schemeEnd)
    let host = view.host
    let hostPrefix = host.map { h in bytes.prefixWord(at: h.lowerBound, count: h.count) } ?? 0
    var candidates =
      schemeLengths[Self.slot(view.schemeEnd)] & hostLengths[host.map { 1 &+ Self.slot($0.count) } ?? 0]
    next: while candidates != 0 {
      let e = candidates.trailingZeroBitCount
      candidates &= candidates &- 1
      stack.count = 0
      /// Whether `buf[start..<end]` (its first eight bytes `prefix`) matches `c`, its captures pushed on
      /// `stack`: literals by their words (most routes end here), then the rest in full (for literals, the
      /// bytes between the words).
      @inline(__always) func matches(_ c: Component, _ start: Int, _ end: Int, prefix: UInt64) -> Bool {
        if c.literal.rulesOut(bytes, count: end &- start, end: end, prefix: prefix) { return false }
        if c.literal.isDecidedByWords { return true }
        let result = components[Int(c.pattern)].match(buf, start, end, &stack)
        assert(result != .limitExceeded, "a linear table holds no constraint that can hit a limit")
        return result == .match
      }
      guard matches(entries[e].scheme, 0, view.schemeEnd, prefix: schemePrefix) else { continue }
      // A candidate has a host pattern exactly when the URL has a host (the host mask's slot 0 holds the
      // routes without one, its other slots only routes with one).
      if let host {
        guard matches(entries[e].host, host.lowerBound, host.upperBound, prefix: hostPrefix) else { continue }
      }
      // The segments, as the trie's levels read them: each starts after the '/' at `cursor`.
      var cursor = view.pathStart
      for k in entries[e].segments.range {
        if view.isPathEnd(buf, cursor) { continue next }
        let start = cursor &+ 1
        let (end, prefix) = bytes.scanSegment(from: start)
        guard matches(segments[k], start, end, prefix: prefix) else { continue next }
        cursor = end
      }
      let rest = entries[e].rest
      if rest >= 0 {
        if view.isPathEnd(buf, cursor) {
          stack.push(rest, cursor, cursor)
        } else {
          stack.push(rest, cursor &+ 1, view.pathEnd(buf, from: cursor))
        }
      } else if !view.isPathEnd(buf, cursor) {
        continue
      }
      if entries[e].hasQuery {
        guard let query else { return Self.queryNeeded }
        let route = Int(entries[e].route)
        let names = router._withUnsafeGuaranteedRef { $0.programs[route].query }
        if !query.containsAll(names) { continue }
      }
      return entries[e].route
    }
    return -1
  }
}
