import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: priority and backtracking")
struct RouterPriorityTests {
  @Test func literalBeatsConstrainedBeatsCaptureBeatsWildcardBeatsRest() throws {
    let r = try router([
      Route("rest", "myapp://h/{rest...}"),
      Route("wild", "myapp://h/*"),
      Route("capture", "myapp://h/{any}"),
      Route("constrained", "myapp://h/{n:[0-9]+}"),
      Route("literal", "myapp://h/42"),
    ])
    #expect(try matched(r, "myapp://h/42")?.0 == "literal")
    #expect(try matched(r, "myapp://h/43")?.0 == "constrained")
    #expect(try matched(r, "myapp://h/abc")?.0 == "capture")
    #expect(try matched(r, "myapp://h/a/b")?.0 == "rest")
    #expect(try matched(r, "myapp://h")?.0 == "rest")
  }

  @Test func wildcardBeatsRest() throws {
    let r = try router([Route("rest", "myapp://h/{rest...}"), Route("wild", "myapp://h/*")])
    #expect(try matched(r, "myapp://h/x")?.0 == "wild")
    #expect(try matched(r, "myapp://h/x/y")?.0 == "rest")
  }

  @Test func literalTextAroundACaptureMakesItConstrained() throws {
    let r = try router([Route("any", "myapp://h/{file}"), Route("png", "myapp://h/img_{id}.png")])
    #expect(try matched(r, "myapp://h/img_1.png")?.0 == "png")
    #expect(try matched(r, "myapp://h/img_1.gif")?.0 == "any")
  }

  @Test func earlierComponentsDecideFirst() throws {
    // Scheme before host before path: a literal host wins even over a more literal path.
    let r = try router([
      Route("literal-host", "https://a.example.ru/{x}/{y}"),
      Route("capture-host", "https://{sub}.example.ru/p/q"),
    ])
    #expect(try matched(r, "https://a.example.ru/p/q")?.0 == "literal-host")
    #expect(try matched(r, "https://b.example.ru/p/q")?.0 == "capture-host")
  }

  @Test func backtracksWhenTheSpecificBranchFailsDeeper() throws {
    let r = try router([
      Route("me-edit", "https://a.ru/users/me/edit"),
      Route("photos", "https://a.ru/users/{id}/photos"),
      Route("numeric", "https://a.ru/users/{id:[0-9]+}/{tab}"),
      Route("files", "https://a.ru/users/{rest...}"),
    ])
    #expect(try matched(r, "https://a.ru/users/me/edit")?.0 == "me-edit")
    #expect(try matched(r, "https://a.ru/users/me/photos")?.1 == ["id": "me"])
    #expect(try matched(r, "https://a.ru/users/me/photos")?.0 == "photos")
    #expect(try matched(r, "https://a.ru/users/7/photos")?.0 == "numeric")  // constrained beats capture at segment 2
    #expect(try matched(r, "https://a.ru/users/7/likes")?.0 == "numeric")
    #expect(try matched(r, "https://a.ru/users/me/likes")?.0 == "files")
    #expect(try matched(r, "https://a.ru/users/me/edit/now")?.1 == ["rest": "me/edit/now"])
  }

  @Test func backtrackingAcrossTheHost() throws {
    let r = try router([
      Route("api", "https://api.example.ru/v1/{x}"),
      Route("any", "https://{sub}.example.ru/v2/{x}"),
    ])
    #expect(try matched(r, "https://api.example.ru/v2/z")?.0 == "any")
  }

  @Test func moreQueryRequirementsWinOnEqualPaths() throws {
    let r = try router([
      Route("plain", "myapp://cb"),
      Route("code", "myapp://cb?code"),
      Route("error", "myapp://cb?error&state"),
    ])
    #expect(try matched(r, "myapp://cb?code=1")?.0 == "code")
    #expect(try matched(r, "myapp://cb?error=x&state=1")?.0 == "error")
    #expect(try matched(r, "myapp://cb?error=x&state=1&code=2")?.0 == "error")
    #expect(try matched(r, "myapp://cb?state=1")?.0 == "plain")
  }

  @Test func sameRankSiblingsAreComparedByTheirFullPriority() throws {
    // Both first segments are constrained captures that match "12"; the second segment decides.
    let r = try router([
      Route("hex", "myapp://h/{a:[0-9a-f]+}/{b}"),
      Route("dec", "myapp://h/{a:[0-9]+}/fixed"),
    ])
    #expect(try matched(r, "myapp://h/12/fixed")?.0 == "dec")
    #expect(try matched(r, "myapp://h/12/other")?.0 == "hex")
    #expect(try matched(r, "myapp://h/ff/fixed")?.0 == "hex")
  }

  @Test func matchingIsDeterministicWhateverTheDeclarationOrder() throws {
    let routes = [
      Route("a", "https://a.ru/x/{id}"),
      Route("b", "https://a.ru/x/new"),
      Route("c", "https://a.ru/{rest...}"),
      Route("d", "https://a.ru/*/edit"),
      Route("e", "https://a.ru/x/{id:[0-9]+}"),
    ]
    let urls = ["https://a.ru/x/new", "https://a.ru/x/5", "https://a.ru/x/y", "https://a.ru/q/edit", "https://a.ru/q/r/s"]
    let expected = try urls.map { try matched(router(routes), $0)?.0 }
    #expect(expected == ["b", "e", "a", "d", "c"])
    for shift in 1..<routes.count {
      let rotated = Array(routes[shift...] + routes[..<shift])
      #expect(try urls.map { try matched(router(rotated), $0)?.0 } == expected)
    }
  }
}
