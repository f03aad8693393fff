import LinkParseCore
import LinkParseTestSupport
import Testing

@testable import LinkParseRouter
import LinkParseBytes

/// The ambiguity check compares only routes whose priority, query count and folded literals are equal
/// (Ambiguity.swift), and the literal-only table looks up rivals by key (StaticRoutes.swift). These check
/// that both find exactly what comparing every pair finds.
@Suite("Router: ambiguity buckets")
struct AmbiguityBucketTests {
  /// The compiled routes of `routes` (those that compile) and their names.
  static func programs(_ routes: [Route]) -> (programs: [RouteProgram], names: [String]) {
    var compiler = RouterCompiler(limits: .default)
    let programs = compiler.compilePrograms(routes).programs
    return (programs, compiler.names)
  }

  /// In one order whatever order the check found them in: by route, then by message.
  static func sorted(_ errors: [RouteError]) -> [RouteError] {
    errors.sorted { ($0.routeIndex ?? -1, $0.message) < ($1.routeIndex ?? -1, $1.message) }
  }

  // MARK: - Against every pair

  /// A table of 4 to 16 routes drawn from these parts: a scheme, a host or none, segments (`#` in one is its
  /// position, so that capture names differ within a route), a `{rest...}` on a fifth of them when `rest`,
  /// query requirements, and the caseless path option on a third. Routes that do not compile are left out
  /// by `programs`.
  static func randomTable(
    _ rng: inout SplitMix64, schemes: [String], hosts: [String?], segments: [String], segmentCounts: ClosedRange<Int>,
    rest: Bool, queries: [String]
  ) -> [Route] {
    (0..<Int.random(in: 4...16, using: &rng)).map { k in
      let host = hosts.randomElement(using: &rng)!
      var pattern = schemes.randomElement(using: &rng)! + (host.map { "://" + $0 } ?? ":")
      for position in 0..<Int.random(in: segmentCounts, using: &rng) {
        pattern += "/" + segments.randomElement(using: &rng)!.replacing("#", with: "\(position)")
      }
      if rest && Int.random(in: 0..<5, using: &rng) == 0 { pattern += "/{rest...}" }
      pattern += queries.randomElement(using: &rng)!
      let caseless = Int.random(in: 0..<3, using: &rng) == 0
      return Route("r\(k)", pattern, options: caseless ? .caseInsensitivePath : [])
    }
  }

  /// Tables with every kind of component, of few enough kinds that many routes tie.
  static func randomTable(_ rng: inout SplitMix64) -> [Route] {
    let segments = [
      "a", "A", "b", "{c#}", "{c#:[0-9]+}", "{c#:[a-z]+}", #"{c#:\d{2,}}"#, "v{c#}", "V{c#:[0-9]+}", "*",
      "img_{c#}.png",
    ]
    return randomTable(
      &rng, schemes: ["myapp", "MyApp"], hosts: ["x", "X", "{t}", nil], segments: segments, segmentCounts: 1...2,
      rest: true, queries: ["", "", "?code", "?state", "?code&state"])
  }

  @Test func bucketsFindWhatEveryPairFinds() {
    var rng = SplitMix64(state: 0x5EED_A3B1)
    var (found, skipped) = (0, 0)
    for _ in 0..<500 {
      let routes = Self.randomTable(&rng)
      let (programs, names) = Self.programs(routes)
      let check = AmbiguityCheck(programs: programs, names: names)
      // Every pair that ties on priority and query count: what the check compared before it had buckets.
      var everyPair: [RouteError] = []
      for b in programs.indices {
        for a in 0..<b where programs[a].priority == programs[b].priority
          && programs[a].query.count == programs[b].query.count
        {
          if AmbiguityCheck.BucketKey(programs[a]) != AmbiguityCheck.BucketKey(programs[b]) { skipped += 1 }
          if let error = check.check(programs[a], programs[b]) { everyPair.append(error) }
        }
      }
      let bucketed = check.run()
      #expect(Self.sorted(bucketed) == Self.sorted(everyPair), "\(routes.map(\.pattern))")
      found += everyPair.count
    }
    // The tables have ambiguities, and pairs that the buckets keep apart.
    #expect(found > 50, "\(found)")
    #expect(skipped > 200, "\(skipped)")
  }

  @Test func compileReportsAmbiguitiesInRouteOrder() {
    var rng = SplitMix64(state: 42)
    for _ in 0..<100 {
      let routes = Self.randomTable(&rng)
      let (programs, names) = Self.programs(routes)
      let expected = Self.sorted(AmbiguityCheck(programs: programs, names: names).run())
      let reported = compileErrors(routes).filter { $0.code == .ambiguousRoutes }
      #expect(reported.map(\.routeIndex) == expected.map(\.routeIndex))
      #expect(Set(reported) == Set(expected))
    }
  }

  // MARK: - Explicit tables

  @Test func duplicatesAmongTenThousandLiteralRoutes() throws {
    var routes = (0..<10_000).map { Route("r\($0)", "https://example.com/x/\($0)") }
    routes += [
      Route("same", "https://example.com/x/4321"),
      Route("upper", "https://example.com/X/17"),  // case-sensitive: another path
      Route("caseless", "https://EXAMPLE.com/X/99", options: .caseInsensitivePath),
      Route("code", "https://example.com/x/5?code"),  // more requirements than r5
      Route("state", "https://example.com/x/5?state"),
      Route("two", "https://example.com/x/5?code&state"),
    ]
    let errors = compileErrors(routes)
    #expect(errors.map(\.code) == [.ambiguousRoutes, .ambiguousRoutes, .ambiguousRoutes])
    #expect(errors.map(\.route) == ["same", "caseless", "state"])
    #expect(errors.map(\.otherRoute) == ["r4321", "r99", "code"])
    #expect(errors.map(\.exampleURL) == [
      "https://example.com/x/4321", "https://example.com/x/99", "https://example.com/x/5?code&state",
    ])
    #expect(errors.map(\.routeIndex) == [10_000, 10_002, 10_004])
  }

  @Test func caseOfPathLiterals() {
    let sensitive = (0..<500).map { Route("s\($0)", "myapp://x/Item/\($0)") }
    #expect(compileErrors(sensitive + [Route("lower", "myapp://x/item/7")]).isEmpty)
    let errors = compileErrors(sensitive + [Route("any", "myapp://x/ITEM/7", options: .caseInsensitivePath)])
    #expect(errors.map(\.route) == ["any"])
    #expect(errors.map(\.otherRoute) == ["s7"])
    #expect(errors.map(\.exampleURL) == ["myapp://x/Item/7"])
  }

  @Test func wildcardsAndLiterals() {
    let starred = (0..<500).map { Route("w\($0)", "myapp://x/*/\($0)") }
    // A literal outranks `*`: no tie.
    #expect(compileErrors(starred + [Route("lit", "myapp://x/a/7")]).isEmpty)
    #expect(compileErrors(starred + [Route("upper", "myapp://x/*/7", options: .caseInsensitivePath)]).map(\.otherRoute) == ["w7"])
    #expect(compileErrors([Route("a", "myapp://x/*/a"), Route("b", "myapp://x/*/A")]).isEmpty)
    let errors = compileErrors([Route("a", "myapp://x/*/a"), Route("b", "myapp://x/*/A", options: .caseInsensitivePath)])
    #expect(errors.map(\.exampleURL) == ["myapp://x/x/a"])
  }

  @Test func constraintsWithinABucket() throws {
    let routes = (0..<500).map { Route("u\($0)", "myapp://u/{id:[0-9]+}/p\($0)") }
    #expect(compileErrors(routes + [Route("letters", "myapp://u/{n:[a-z]+}/p7")]).isEmpty)
    let errors = compileErrors(routes + [Route("two", #"myapp://u/{n:\d{2,}}/p7"#)])
    #expect(errors.map(\.route) == ["two"])
    #expect(errors.map(\.otherRoute) == ["u7"])
    let url = try ParsedURL(#require(errors.first?.exampleURL))
    for route in [routes[7], Route("two", #"myapp://u/{n:\d{2,}}/p7"#)] {
      #expect(try router([route]).match(url) != nil)
    }
  }

  // MARK: - The literal-only table

  /// Tables of literal-only routes, some of them alike but for case or query requirements.
  static func randomLiteralTable(_ rng: inout SplitMix64) -> [Route] {
    randomTable(
      &rng, schemes: ["myapp", "MyApp", "ab"], hosts: ["x", "X", "h.example", nil],
      segments: ["a", "A", "b", "ab", "AB", "callback"], segmentCounts: 0...2, rest: false, queries: ["", "", "", "?code"])
  }

  @Test func theLiteralTableLeavesTheSameRoutesToTheTrie() {
    var rng = SplitMix64(state: 7)
    var (inTable, rivals) = (0, 0)
    for _ in 0..<400 {
      let (programs, _) = Self.programs(Self.randomLiteralTable(&rng))
      let arena = Arena()
      defer { withExtendedLifetime(arena) {} }
      let table = StaticRoutes(programs, arena: arena)
      let all = programs.map(StaticRoutes.literals)
      for (k, program) in programs.enumerated() {
        guard let mine = all[k] else { continue }
        // The rule as every pair applies it.
        let qualifies = program.query.isEmpty && !mine.caseless.contains(true)
        let rival = all.indices.contains { j in
          guard j != k, let other = all[j], other.scheme == mine.scheme, other.host == mine.host,
            other.segments.count == mine.segments.count
          else { return false }
          return zip(zip(other.segments, mine.segments), other.caseless).allSatisfy { pair, caseless in
            caseless ? pair.0 == pair.1.map(asciiLowercased) : pair.0 == pair.1
          }
        }
        let head = mine.scheme + (mine.host.map { Array("://".utf8) + $0 } ?? Array(":".utf8))
        let key = head + mine.segments.flatMap { [UInt8(ascii: "/")] + $0 }
        let expected = qualifies && !rival && key.count >= 8
        let found = key.withUnsafeBufferPointer { buf in
          table.find(
            buf, scheme: mine.scheme.count,
            host: mine.host.map { (mine.scheme.count + 3)..<(mine.scheme.count + 3 + $0.count) },
            path: (head.count)..<key.count)
        }
        #expect(found == (expected ? Int32(k) : -1), "\(programs.map(\.route.pattern)) route \(k)")
        if expected { inTable += 1 }
        if qualifies && rival { rivals += 1 }
      }
    }
    #expect(inTable > 100, "\(inTable)")
    #expect(rivals > 50, "\(rivals)")
  }
}
