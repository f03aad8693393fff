import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: compile errors")
struct RouterCompileErrorTests {
  /// The same error from either engine (PCRE2's message, or the linear matcher's in the same words).
  @Test func invalidRegexCarriesTheEngineMessageAndOffset() throws {
    let errors = compileErrors([Route("bad", "myapp://a/{id:[0-9]+(}")])
    #expect(errors.count == 1)
    let e = try #require(errors.first)
    #expect(e.code == .invalidRegex)
    #expect(e.code.rawValue == "invalid-regex")
    #expect(e.route == "bad")
    #expect(e.pattern == "myapp://a/{id:[0-9]+(}")
    #expect(e.message.contains("missing closing parenthesis"), "\(e.message)")
    // PCRE2 reports the end of the regex "[0-9]+(" (offset 7), which starts at byte 14 of the pattern.
    #expect(e.position == 21)
    let engine = Router.constraintEngine == .pcre2 ? "PCRE2: " : ""
    #expect(e.description.hasPrefix("invalid-regex in route \"bad\" at byte 21: \(engine)missing closing parenthesis"))
  }

  @Test func invalidRegexPositionPointsIntoThePattern() throws {
    let e = try #require(compileErrors([Route("bad", "myapp://a/{x:a)b}")]).first)
    #expect(e.code == .invalidRegex)
    #expect(e.position == 14)  // the ')'
    #expect(Array("myapp://a/{x:a)b}".utf8)[e.position!] == UInt8(ascii: ")"))
  }

  @Test(arguments: [
    ("myapp", 5, "missing ':'"),
    ("myapp://a/{id", 10, "not closed"),
    ("myapp://a/id}", 12, "without"),
    ("myapp://a/{1d}", 11, "capture name"),
    ("myapp://a/{rest...}/x", 19, "last"),
    ("myapp://a/x{rest...}", 16, "whole path segment"),
    ("myapp://a/x#frag", 11, "fragment"),
    ("myapp:opaque", 6, "opaque"),
    ("my app://a", 2, "0x20"),
    ("myapp://a/{x:}", 13, "empty constraint"),
    ("myapp://a?code=1", 14, "query"),
    ("myapp://a?code&&state", 15, "empty query"),
    ("myapp://a/./b", 10, "dot segment"),
    (":/x", 0, "scheme is empty"),
  ])
  func unknownSyntax(pattern: String, position: Int, message: String) throws {
    let errors = compileErrors([Route("r", pattern)])
    let e = try #require(errors.first)
    #expect(errors.count == 1)
    #expect(e.code == .unknownSyntax)
    #expect(e.pattern == pattern)
    #expect(e.position == position)
    #expect(e.message.contains(message), "\(e.message)")
  }

  @Test func adjacentCaptures() throws {
    let e = try #require(compileErrors([Route("r", "myapp://a/{x}{y}")]).first)
    #expect(e.code == .adjacentCaptures)
    #expect(e.position == 13)
  }

  @Test func duplicateRouteNames() throws {
    let errors = compileErrors([Route("a", "myapp://x"), Route("b", "myapp://y"), Route("a", "myapp://z")])
    #expect(errors.count == 1)
    #expect(errors[0].code == .duplicateRouteName)
    #expect(errors[0].routeIndex == 2)
    #expect(errors[0].code.rawValue == "duplicate-route-name")
  }

  @Test func invalidRouteNameAndDuplicateCaptureName() throws {
    #expect(compileErrors([Route("", "myapp://x")]).map(\.code) == [.invalidRouteName])
    #expect(compileErrors([Route("a b", "myapp://x")]).map(\.code) == [.invalidRouteName])
    let e = try #require(compileErrors([Route("r", "myapp://{id}.x/{id}")]).first)
    #expect(e.code == .duplicateCaptureName)
    #expect(e.position == 15)
  }

  @Test func everyProblemIsReported() throws {
    let errors = compileErrors([
      Route("a", "myapp://x/{id:(}"),
      Route("b", "myapp://x/{"),
      Route("a", "myapp://y"),
      Route("c", "myapp://z"),
    ])
    #expect(errors.map(\.code) == [.invalidRegex, .unknownSyntax, .duplicateRouteName])
    #expect(errors.map(\.routeIndex) == [0, 1, 2])
  }

  @Test(arguments: [
    // Same shape, different capture names.
    (Route("a", "myapp://x/{id}"), Route("b", "myapp://x/{key}"), "myapp://x/x"),
    // Identical patterns.
    (Route("a", "https://a.ru/cb"), Route("b", "https://a.ru/cb"), "https://a.ru/cb"),
    // Literals equal when case does not matter.
    (Route("a", "myapp://x/Cb"), Route("b", "myapp://x/cb", options: .caseInsensitivePath), "myapp://x/Cb"),
    (Route("a", "MyApp://X/cb"), Route("b", "myapp://x/cb"), "myapp://x/cb"),
    // Overlapping constraints.
    (Route("a", "myapp://x/{id:[0-9]+}"), Route("b", "myapp://x/{id:\\d{2,}}"), "myapp://x/00"),
    (Route("a", "myapp://x/{id:[0-9]{4}}"), Route("b", "myapp://x/{id:20[0-9]+}"), "myapp://x/2024"),
    (Route("a", "myapp://x/img_{id}.png"), Route("b", "myapp://x/{f:[a-z_0-9.]+}"), "myapp://x/img_x.png"),
    (Route("a", "https://{t}.a.ru/"), Route("b", "https://{u}.a.ru/"), "https://x.a.ru/"),
    // Rests and wildcards.
    (Route("a", "myapp://x/{r...}"), Route("b", "myapp://x/{s...}"), "myapp://x"),
    (Route("a", "myapp://x/*/y"), Route("b", "myapp://x/*/y"), "myapp://x/x/y"),
    // Different query requirements of the same number: a URL with both ties.
    (Route("a", "myapp://cb?code"), Route("b", "myapp://cb?error"), "myapp://cb?code&error"),
    (Route("a", "myapp://cb/{x:[a-z]+}?code"), Route("b", "myapp://cb/{y:[a-c]}?state"), "myapp://cb/a?code&state"),
  ])
  func ambiguousRoutesShowAnExampleBothMatch(a: Route, b: Route, example: String) throws {
    let errors = compileErrors([a, b])
    #expect(errors.count == 1)
    let e = try #require(errors.first)
    #expect(e.code == .ambiguousRoutes)
    #expect(e.route == b.name && e.otherRoute == a.name)
    #expect(e.exampleURL == example)
    // The example really matches both routes on their own.
    let url = try ParsedURL(#require(e.exampleURL))
    for route in [a, b] {
      let single = try router([route])
      #expect(try single.match(url) != nil)
    }
  }

  @Test(arguments: [
    (Route("a", "myapp://x/{id:[0-9]+}"), Route("b", "myapp://x/{id:[a-z]+}")),
    (Route("a", "myapp://x/{id}"), Route("b", "myapp://x/{id:[0-9]+}")),  // different ranks
    (Route("a", "myapp://x/Cb"), Route("b", "myapp://x/cb")),  // case-sensitive path literals
    (Route("a", "myapp://cb?code"), Route("b", "myapp://cb?code&state")),  // more requirements win
    (Route("a", "myapp://x/{r...}"), Route("b", "myapp://x/*")),
    (Route("a", "myapp://x/a/{r...}"), Route("b", "myapp://x/{r...}")),
    (Route("a", "myapp:/x"), Route("b", "myapp:///x")),  // no host versus an empty host
    (Route("a", "myapp://x/v{n:[0-9]+}"), Route("b", "myapp://x/w{n:[0-9]+}")),
  ])
  func distinctRoutesCompile(a: Route, b: Route) throws {
    let errors = compileErrors([a, b])
    #expect(errors.isEmpty, "\(errors)")
  }
}
