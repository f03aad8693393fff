import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: patterns and matching")
struct RouterPatternTests {
  static let table = [
    Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
    Route("sber", "myapp://sberidauth", provider: .sber),
    Route("web", "https://{tenant}.example.ru/auth/{provider}/callback"),
    Route("native", "com.example.app:/oauth2redirect/{provider}"),
    Route("open", "myapp://open/{rest...}"),
    Route("image", "https://cdn.example.ru/img_{id}.png"),
  ]

  @Test func issueExamples() throws {
    let r = try router(Self.table)
    let vk = try #require(try match(r, "vk7915193://vk.ru/blank.html?code=abc&state=xyz"))
    #expect(vk.name == "vk" && vk.provider == .vk)
    #expect(vk["app"] == "7915193")
    #expect(vk.captures.map(\.rawValue) == ["7915193"])
    #expect(vk.captures[0].utf8Range == 2..<9)

    #expect(try matched(r, "myapp://sberidauth?code=1")?.0 == "sber")
    #expect(try match(r, "myapp://sberidauth?code=1")?.provider == .sber)

    let web = try #require(try matched(r, "https://acme.example.ru/auth/vk/callback?code=1"))
    #expect(web.0 == "web" && web.1 == ["tenant": "acme", "provider": "vk"])
    #expect(try match(r, "https://acme.example.ru/auth/vk/callback")?.provider == nil)

    #expect(try matched(r, "com.example.app:/oauth2redirect/sber")?.1 == ["provider": "sber"])
    #expect(try matched(r, "myapp://open/a/b/c")?.1 == ["rest": "a/b/c"])
    #expect(try matched(r, "myapp://open/")?.1 == ["rest": ""])
    #expect(try matched(r, "myapp://open")?.1 == ["rest": ""])
    #expect(try matched(r, "https://cdn.example.ru/img_42.png")?.1 == ["id": "42"])
  }

  @Test(arguments: [
    "vkabc://vk.ru/blank.html",  // constraint on the scheme
    "vk1://vk.ru/blank.htm",
    "vk1://vk.ru/blank.html/",
    "myapp://sberidauth/",
    "myapp://other",
    "https://example.ru/auth/vk/callback",  // `{tenant}.` needs a non-empty capture
    "https://a.example.ru/auth//callback",  // captures are never empty
    "https://a.example.ru:8443/auth/vk/callback",  // the port is part of the host
    "com.example.app://host/oauth2redirect/x",  // the pattern has no host
    "com.example.app:/oauth2redirect/a/b",
    "mailto:someone@example.ru",  // opaque paths never match
    "https://cdn.example.ru/img_.png",
  ])
  func nonMatches(url: String) throws {
    let r = try router(Self.table)
    #expect(try match(r, url) == nil)
  }

  @Test func capturesAreSlicesOfHrefDecodedOnDemand() throws {
    let r = try router([Route("p", "myapp://x/{a}/{b}")])
    let url = try ParsedURL("myapp://x/a%20b/%D0%BF")
    let m = try #require(try r.match(url))
    #expect(m.captures.map(\.rawValue) == ["a%20b", "%D0%BF"])
    #expect(m.captures.map(\.value) == ["a b", "п"])
    #expect(m.captures.allSatisfy { $0.rawValue.base == url.href })
    let utf8 = Array(url.href.utf8)
    for c in m.captures { #expect(Array(utf8[c.utf8Range]) == Array(c.rawValue.utf8)) }
    #expect(m.url == url)
  }

  @Test func encodedSlashNeverSplitsASegment() throws {
    let r = try router([
      Route("one", "myapp://x/{id}"),
      Route("two", "myapp://x/{a}/{b}"),
    ])
    #expect(try matched(r, "myapp://x/a%2Fb")?.0 == "one")
    #expect(try matched(r, "myapp://x/a%2Fb")?.1 == ["id": "a/b"])
    #expect(try matched(r, "myapp://x/a/b")?.0 == "two")
    #expect(try matched(r, "myapp://x/a%2fb%3Fc")?.1 == ["id": "a/b?c"])
  }

  @Test func mixedComponentsAndConstraints() throws {
    let r = try router([
      Route("pair", "myapp://h/{a}-{b:[0-9]+}"),
      Route("file", "myapp://h/f/{name}.{ext:png|jpe?g}"),
      Route("sub", "https://{env:dev|prod}-{tenant}.example.ru/"),
    ])
    #expect(try matched(r, "myapp://h/x-y-12")?.1 == ["a": "x-y", "b": "12"])
    #expect(try match(r, "myapp://h/x-y") == nil)
    #expect(try matched(r, "myapp://h/f/a.b.jpeg")?.1 == ["name": "a.b", "ext": "jpeg"])
    #expect(try match(r, "myapp://h/f/a.gif") == nil)
    #expect(try matched(r, "https://prod-acme.example.ru/")?.1 == ["env": "prod", "tenant": "acme"])
    #expect(try matched(r, "https://PROD-acme.Example.RU")?.1 == ["env": "prod", "tenant": "acme"])
  }

  @Test func constraintsAreAnchoredToTheWholeCapture() throws {
    let r = try router([Route("n", "myapp://h/{id:[0-9]+}"), Route("a", "myapp://h/x/{id:a|ab}")])
    #expect(try matched(r, "myapp://h/42")?.1 == ["id": "42"])
    #expect(try match(r, "myapp://h/42a") == nil)
    #expect(try match(r, "myapp://h/a42") == nil)
    #expect(try matched(r, "myapp://h/x/ab")?.1 == ["id": "ab"])
  }

  @Test func wildcardMatchesOneSegmentWithoutCapturing() throws {
    let r = try router([Route("w", "myapp://h/*/end")])
    let m = try #require(try match(r, "myapp://h/anything/end"))
    #expect(m.captures.isEmpty)
    #expect(try match(r, "myapp://h/a/b/end") == nil)
    #expect(try match(r, "myapp://h//end") == nil)
  }

  @Test func queryRequirements() throws {
    let r = try router([
      Route("full", "myapp://cb?code&state"),
      Route("any", "myapp://cb"),
    ])
    #expect(try matched(r, "myapp://cb?state=1&code=2")?.0 == "full")
    #expect(try matched(r, "myapp://cb?code&state")?.0 == "full")  // present without a value
    #expect(try matched(r, "myapp://cb?c%6Fde=1&state=")?.0 == "full")  // names are decoded
    #expect(try matched(r, "myapp://cb?code=1")?.0 == "any")
    #expect(try matched(r, "myapp://cb")?.0 == "any")
    #expect(try matched(r, "myapp://cb#code&state")?.0 == "any")  // the fragment is not the query
  }

  @Test func specialSchemeWithoutPathMeansSlash() throws {
    let r = try router([Route("root", "https://example.ru")])
    #expect(try match(r, "https://example.ru") != nil)
    #expect(try match(r, "https://example.ru/") != nil)
    #expect(try match(r, "https://example.ru/x") == nil)
  }

  @Test func nonASCIIPathLiteralsCompareInTheirSerializedForm() throws {
    let r = try router([Route("ru", "https://example.ru/привет/{x}")])
    #expect(try matched(r, "https://example.ru/привет/мир")?.1 == ["x": "мир"])
    #expect(try matched(r, "https://example.ru/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82/1")?.1 == ["x": "1"])
  }

  @Test func literalPathMatchCapturesNothing() throws {
    let r = try router([Route("a", "https://example.ru/a/b"), Route("c", "https://example.ru/{x}/b")])
    let m = try #require(try match(r, "https://example.ru/a/b"))
    #expect(m.name == "a" && m.captures.isEmpty)
  }
}

@Suite("Router: case rules")
struct RouterCaseTests {
  @Test func schemeAndHostAreCaseInsensitive() throws {
    let r = try router([
      Route("vk", "VK{app:[0-9]+}://VK.ru/blank.html"),
      Route("h", "myapp://Host.Example/{x:[a-z]+}"),
      Route("t", "myapp://{tenant:[a-z]+}.example/"),
    ])
    #expect(try matched(r, "vk1://vk.ru/blank.html")?.0 == "vk")
    #expect(try matched(r, "Vk1://Vk.RU/blank.html")?.0 == "vk")  // an opaque host keeps its case
    #expect(try matched(r, "MYAPP://HOST.EXAMPLE/abc")?.0 == "h")
    #expect(try matched(r, "myapp://ACME.example/")?.1 == ["tenant": "ACME"])  // host constraints run caseless
  }

  @Test func pathIsCaseSensitiveByDefault() throws {
    let r = try router([Route("p", "myapp://h/Callback/{x:[a-z]+}")])
    #expect(try match(r, "myapp://h/Callback/abc") != nil)
    #expect(try match(r, "myapp://h/callback/abc") == nil)
    #expect(try match(r, "myapp://h/Callback/ABC") == nil)
  }

  @Test func caseInsensitivePathOption() throws {
    let r = try router([Route("p", "myapp://h/Callback/{x:[a-z]+}", options: .caseInsensitivePath)])
    #expect(try match(r, "myapp://h/CALLBACK/abc") != nil)
    #expect(try matched(r, "myapp://h/callback/ABC")?.1 == ["x": "ABC"])
  }

  @Test func sensitiveAndInsensitiveLiteralsCoexist() throws {
    let r = try router([
      Route("exact", "myapp://h/Foo/{x}"),
      Route("loose", "myapp://h/foo/bar", options: .caseInsensitivePath),
    ])
    // Both literal at segment 1; at segment 2 `bar` (literal) beats `{x}` (capture).
    #expect(try matched(r, "myapp://h/Foo/bar")?.0 == "loose")
    #expect(try matched(r, "myapp://h/Foo/baz")?.0 == "exact")
    #expect(try matched(r, "myapp://h/FOO/BAR")?.0 == "loose")
    #expect(try match(r, "myapp://h/FOO/baz") == nil)
  }
}
