import LinkParseCore
@_spi(Testing) import LinkParseRouter
import LinkParseTestSupport
import Testing

/// Small tables are matched route by route (LinearRoutes.swift); the answer must be the trie's, route and
/// captures, for every URL.
extension SplitMix64 {
  mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
  mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
}

@Suite("Router: route-by-route match of small tables")
struct LinearRoutesTests {
  /// The same tables and URLs on every run (Tests/Shared/SplitMix64.swift).
  typealias Generator = SplitMix64

  // Long literals (from 31 bytes, which share the last slot of the length masks) as well as short ones.
  static let schemes = ["https", "http", "myapp", "vk{app:[0-9]+}", "x{s}", "com.example.averylongappname.one"]
  static let hosts = [
    "a.ru", "b.ru", "{t}.a.ru", "{h}", "x{n:[0-9]+}.ru", "a.ru:8080", "averyveryverylonghostname-one.example.ru",
    "averyveryverylonghostname-two.example.ru.x",
  ]
  static let segments = ["x", "y", "{p}", "{n:[0-9]+}", "*", "a{q}b", "X", "cb"]
  static let queries = ["", "", "", "?code", "?code&state"]

  static func pattern(_ g: inout Generator) -> String {
    var p = g.pick(schemes)
    p += g.chance(15) ? ":" : "://" + g.pick(hosts)
    let count = Int(g.next() % 4)
    for _ in 0..<count { p += "/" + g.pick(segments) }
    if g.chance(20) { p += "/{rest...}" }
    if count == 0 && p.hasSuffix(":") { p += "/cb" }
    return p + g.pick(queries)
  }

  static let urlSchemes = [
    "https", "http", "myapp", "vk123", "vkx", "xs", "HTTPS", "com.example.averylongappname.one",
    "com.example.averylongappname.two",
  ]
  static let urlHosts = [
    "a.ru", "b.ru", "q.a.ru", "x12.ru", "x1a.ru", "A.RU", "a.ru:8080", "x.ru",
    "averyveryverylonghostname-one.example.ru", "averyveryverylonghostname-two.example.ru.x",
    "averyveryverylonghostname-one.example.ru.x",
  ]
  static let urlSegments = ["x", "y", "12", "a", "ab", "aqb", "X", "", "cb", "a%2Fb"]
  static let urlTails = ["", "?code=1", "?code=1&state=2", "?state", "#f", "?code#f"]

  static func url(_ g: inout Generator) -> String {
    var u = g.pick(urlSchemes)
    u += g.chance(15) ? ":" : "://" + g.pick(urlHosts)
    let count = Int(g.next() % 5)
    for _ in 0..<count { u += "/" + g.pick(urlSegments) }
    if u.hasSuffix(":") { u += "/" + g.pick(urlSegments) }
    return u + g.pick(urlTails)
  }

  /// A URL shaped by `pattern`: its captures, `*` and rest replaced by sample text that may or may not fit.
  static func instance(of pattern: String, _ g: inout Generator) -> String {
    var out = ""
    var rest = Substring(pattern)
    while let open = rest.firstIndex(of: "{") {
      out += rest[..<open]
      let close = rest[open...].firstIndex(of: "}")!
      let inside = rest[rest.index(after: open)..<close]
      out += inside.hasSuffix("...") ? g.pick(["", "m", "m/n", "m/"]) : g.pick(["12", "a", "aq", "7", ""])
      rest = rest[rest.index(after: close)...]
    }
    out += rest
    out = out.replacingOccurrences(of: "*", with: g.pick(["w", ""]))
    if let q = out.firstIndex(of: "?") { out = String(out[..<q]) + g.pick(["?code=1&state=2", "?error=e&state=s", "?code", ""]) }
    return g.chance(20) ? out.uppercased() : out
  }

  @Test func smallTablesAnswerAsTheTrie() throws {
    var g = Generator(state: 20261122)
    var tables = 0
    var matches = 0
    for t in 0..<400 {
      let routes = (0..<(1 + Int(g.next() % 16))).map { k in
        Route("r\(k)", Self.pattern(&g), options: g.chance(20) ? .caseInsensitivePath : [])
      }
      guard let router = try? Router(routes) else { continue }
      tables += 1
      #expect(router.matchesRouteByRoute)
      for _ in 0..<60 {
        let string = g.chance(50) ? Self.url(&g) : Self.instance(of: g.pick(routes).pattern, &g)
        guard let url = try? ParsedURL(string) else { continue }
        let match = try router.match(url)
        let trie = router.trieMatch(url)
        #expect(match?.routeIndex == trie?.routeIndex, "table \(t) \(routes.map(\.pattern)) url \(string)")
        if let match, let trie {
          matches += 1
          #expect(match.captures.map(\.utf8Range) == trie.captures, "table \(t) \(routes.map(\.pattern)) url \(string)")
        }
      }
    }
    #expect(tables > 200)
    #expect(matches > 1000)
  }

  @Test func largeOrRegexTablesUseTheTrie() throws {
    let many = (0..<17).map { Route("r\($0)", "myapp://x/p\($0)") }
    #expect(try !router(many).matchesRouteByRoute)
    #expect(try router(Array(many.prefix(16))).matchesRouteByRoute)
    let regex = [Route("a", "myapp://x/{id:[a-z]+}"), Route("b", "myapp://x/{n:[0-9]+}")]
    // PCRE2 constraints may hit limits, so the trie decides; the linear matcher's never do.
    #expect(try router(regex).matchesRouteByRoute == (Router.constraintEngine == .linear))
    #expect(try router([regex[1]]).matchesRouteByRoute)
  }

  @Test func queryRequirementsAreCheckedWithTheQuery() throws {
    let r = try router([
      Route("code", "myapp://cb/{x}?code"), Route("error", "myapp://cb/{y}?error&state"), Route("any", "myapp://cb/{z}"),
    ])
    #expect(r.matchesRouteByRoute)
    #expect(try match(r, "myapp://cb/1?code=a")?.name == "code")
    #expect(try match(r, "myapp://cb/1?error=a&state=s")?.name == "error")
    #expect(try match(r, "myapp://cb/1?error=a")?.name == "any")
    #expect(try match(r, "myapp://cb/1")?["z"] == "1")
  }
}
