import Testing

@testable import LinkParseCore

/// The parser's domain-to-ASCII mapping (``IDNA/mapping``) keeps the package's own UTS #46 answers for recent
/// domains (``IDNACache``): a hit must answer as the uncached mapping does, for valid and invalid domains, when
/// slots are replaced, and from many tasks at once.
@Suite("Core: the IDNA answers cache")
struct IDNACacheTests {
  static func same(_ a: Result<[UInt8], HostMessage>, _ b: Result<[UInt8], HostMessage>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): return x == y
    case (.failure(let x), .failure(let y)): return x.text == y.text
    default: return false
    }
  }

  /// More distinct domains than slots (replacements), each asked twice (the second a hit when it stayed).
  static let domains: [[UInt8]] = (0..<200).map { k in
    Array("пример\(k).рф".utf8)
  } + [Array("bücher.example".utf8), Array("xn--a.рф".utf8), Array("a\u{200D}b.рф".utf8), Array("ﬁ.example".utf8)]

  static let own = UTS46DomainToASCII()

  @Test func hitsAnswerAsTheTables() {
    for _ in 0..<2 {
      for domain in Self.domains {
        #expect(Self.same(IDNA.mapping.toASCII(domain), Self.own.toASCII(domain)), "\(String(decoding: domain, as: UTF8.self))")
      }
    }
    // A domain longer than the kept limit is answered, not kept.
    let long = Array(String(repeating: "ж", count: 200).utf8) + Array(".рф".utf8)
    #expect(Self.same(IDNA.mapping.toASCII(long), Self.own.toASCII(long)))
  }

  /// The parser's mapping is the cache in front of the package's tables wherever `Mutex` is available
  /// (everywhere but Apple OSes before macOS 15 / iOS 18); the cache answers a long domain without keeping it.
  @Test func mappingIsCachedTables() {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
    #expect(IDNA.mapping is IDNACache)
    let cache = IDNACache(Self.own)
    let long = Array(String(repeating: "ж", count: 200).utf8) + Array(".рф".utf8)
    #expect(Self.same(cache.toASCII(long), Self.own.toASCII(long)) && !cache.holds(long))
    let short = Array("пример.рф".utf8)
    #expect(Self.same(cache.toASCII(short), Self.own.toASCII(short)) && cache.holds(short))
  }

  /// Two domains whose hashes choose the same set, asked in turn, both stay kept (with one slot per set they
  /// replaced each other, and every ask missed).
  @Test func collidingDomainsAreBothKept() {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
    let cache = IDNACache(Self.own)  // not the parser's, which other tests fill meanwhile
    let a = Array("магазин.рф".utf8)
    let b = Array("bücher.example".utf8)
    for domain in [a, b, a, b] where cache.answer(for: domain) == nil {
      cache.keep(Self.own.toASCII(domain), for: domain)
    }
    #expect(cache.holds(a) && cache.holds(b))
    #expect(cache.answer(for: a).map { Self.same($0, Self.own.toASCII(a)) } == true)
    #expect(cache.answer(for: b).map { Self.same($0, Self.own.toASCII(b)) } == true)
    // A third domain of the same set replaces the less recently used of the two.
    var third: [UInt8] = []
    for k in 0..<10_000 {
      let candidate = Array("x\(k).рф".utf8)
      if cache.sameSet(candidate, a) {
        third = candidate
        break
      }
    }
    #expect(!third.isEmpty)
    _ = cache.answer(for: a)  // a is now the more recent
    cache.keep(Self.own.toASCII(third), for: third)
    #expect(cache.holds(a) && cache.holds(third) && !cache.holds(b))
  }

  @Test func parsesFromManyTasksAlike() async throws {
    let inputs = (0..<100).map { "https://пример\($0 % 70).рф/cb?code=\($0)" }
    let expected = try inputs.map { try ParsedURL($0).href }
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask { try inputs.map { try ParsedURL($0).href } == expected }
      }
      for try await same in group { #expect(same) }
    }
  }
}
