import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: reverse routing")
struct RouterReverseTests {
  static let routes = [
    Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
    Route("web", "https://{tenant}.example.ru/auth/{provider}/callback?code&state"),
    Route("native", "com.example.app:/oauth2redirect/{provider}"),
    Route("open", "myapp://open/{rest...}"),
    Route("file", "myapp://h/f/{name}.{ext:png|jpg}"),
    Route("wild", "myapp://h/w/*/{id}"),
    Route("literal", "myapp://h/w/new/{id}"),
  ]

  @Test(arguments: [
    ("vk", ["app": "7915193"], [String](), [(String, String)](), "vk7915193://vk.ru/blank.html"),
    ("web", ["tenant": "acme", "provider": "vk id"], [], [("code", "a b"), ("state", "s&t")],
     "https://acme.example.ru/auth/vk%20id/callback?code=a+b&state=s%26t"),
    ("native", ["provider": "a/b?c#d%e"], [], [], "com.example.app:/oauth2redirect/a%2Fb%3Fc%23d%25e"),
    ("native", ["provider": "привет"], [], [], "com.example.app:/oauth2redirect/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82"),
    ("open", ["rest": "a/b c/d"], [], [], "myapp://open/a/b%20c/d"),
    ("open", ["rest": ""], [], [], "myapp://open/"),
    ("file", ["name": "x.y", "ext": "png"], [], [], "myapp://h/f/x.y.png"),
    ("wild", ["id": "7"], ["any"], [], "myapp://h/w/any/7"),
  ])
  func roundTrip(name: String, captures: [String: String], wildcards: [String], query: [(String, String)], expected: String) throws {
    let r = try router(Self.routes)
    let url = try r.url(for: name, captures: captures, wildcards: wildcards, query: query)
    #expect(url == expected)
    let m = try #require(try r.match(ParsedURL(url)))
    #expect(m.name == name)
    var back: [String: String] = [:]
    for c in m.captures { back[c.name] = c.value }
    #expect(back == captures)
  }

  @Test func roundTripOfManyValues() throws {
    let r = try router([Route("p", "myapp://h/{a}/x-{b}/{rest...}")])
    let values = ["a", "A b", "%", "%41", "+", "&=", "?#", "ü", "日本", "~!*'()", "a/b", ";:@$,", "\"<>`{}|\\^"]
    for a in values {
      for b in values {
        let url = try r.url(for: "p", captures: ["a": a, "b": b, "rest": a + "/" + b])
        let m = try #require(try r.match(ParsedURL(url)), "\(url)")
        #expect(m["a"] == a && m["b"] == b && m["rest"] == a + "/" + b, "\(url)")
      }
    }
  }

  @Test func errors() throws {
    let r = try router(Self.routes)
    func code(_ body: () throws(RouteError) -> String) -> RouteError.Code? {
      do { _ = try body(); return nil } catch { return error.code }
    }
    #expect(code { () throws(RouteError) in try r.url(for: "nope") } == .unknownRoute)
    #expect(code { () throws(RouteError) in try r.url(for: "vk") } == .missingCaptureValue)
    #expect(code { () throws(RouteError) in try r.url(for: "vk", captures: ["app": "1", "x": "2"]) } == .unknownCaptureName)
    #expect(code { () throws(RouteError) in try r.url(for: "vk", captures: ["app": "12a"]) } == .invalidCaptureValue)
    #expect(code { () throws(RouteError) in try r.url(for: "vk", captures: ["app": ""]) } == .invalidCaptureValue)
    #expect(code { () throws(RouteError) in
      try r.url(for: "web", captures: ["tenant": "a/b", "provider": "vk"], query: [("code", "1"), ("state", "2")])
    } == .invalidCaptureValue)
    #expect(code { () throws(RouteError) in
      try r.url(for: "web", captures: ["tenant": "a", "provider": "vk"], query: [("code", "1")])
    } == .missingQueryParameter)
    #expect(code { () throws(RouteError) in try r.url(for: "native", captures: ["provider": ".."]) } == .invalidCaptureValue)
    #expect(code { () throws(RouteError) in try r.url(for: "wild", captures: ["id": "1"]) } == .missingCaptureValue)
    // `new` as the wildcard makes the URL match the more specific literal route.
    #expect(code { () throws(RouteError) in try r.url(for: "wild", captures: ["id": "1"], wildcards: ["new"]) } == .reverseRouteMismatch)
  }
}

@Suite("Router: concurrency")
struct RouterConcurrencyTests {
  @Test func matchFromManyTasks() async throws {
    let r = try router([
      Route("num", "myapp://h/{id:[0-9]+}/{name:[a-z]+}"),
      Route("lit", "myapp://h/static/page"),
      Route("rest", "myapp://h/{rest...}"),
    ])
    let results = try await withThrowingTaskGroup(of: Int.self) { group in
      for t in 0..<8 {
        group.addTask {
          var ok = 0
          for i in 0..<2_000 {
            let n = t * 10_000 + i
            let m = try r.match(ParsedURL("myapp://h/\(n)/abc"))
            if m?.name == "num" && m?["id"] == "\(n)" && m?["name"] == "abc" { ok += 1 }
            if try r.match(ParsedURL("myapp://h/static/page"))?.name == "lit" { ok += 1 }
            if try r.match(ParsedURL("myapp://h/x\(n)/1"))?["rest"] == "x\(n)/1" { ok += 1 }
          }
          return ok
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(results == Array(repeating: 6_000, count: 8))
  }
}

@Suite("Router: explain")
struct RouterExplainTests {
  @Test func explainsEveryRoute() throws {
    let r = try router([
      Route("sber", "myapp://sberidauth?code&state", provider: .sber),
      Route("item", "myapp://open/item/{id:[0-9]+}"),
      Route("open", "myapp://open/{rest...}"),
      Route("web", "https://{t}.a.ru/"),
      Route("native", "myapp:/x"),
      Route("short", "myapp://open/item/{id}/more"),
    ])
    let e = r.explain(try ParsedURL("myapp://open/item/42"))
    #expect(e.selected == "item")
    #expect(e.entries.map(\.route.name) == ["sber", "item", "open", "web", "native", "short"])
    #expect(e.entries.map(\.matched) == [false, true, true, false, false, false])
    #expect(e.entries.map(\.isSelected) == [false, true, false, false, false, false])
    func stop(_ k: Int) -> (RouteExplanation.Component, String)? {
      if case .stopped(let at, let code, _) = e.entries[k].outcome { return (at, code) }
      return nil
    }
    #expect(stop(0)! == (.host, "no-match"))
    #expect(stop(3)! == (.scheme, "no-match"))
    #expect(stop(4)! == (.host, "unexpected-host"))
    #expect(stop(5)! == (.pathSegment(3), "path-too-short"))
    if case .matched(let captures) = e.entries[2].outcome {
      #expect(captures.map(\.name) == ["rest"] && captures.map(\.value) == ["item/42"])
    } else {
      Issue.record("open should match")
    }
    let text = e.description
    #expect(text.contains("selected: item"))
    #expect(text.contains("shadowed  open"))
    #expect(text.contains("route \"item\" has priority"))
    #expect(text.contains("stopped at path segment 3 (path-too-short): the path ends after 2 segments, the pattern has 3"))

    let q = r.explain(try ParsedURL("myapp://sberidauth?code=1"))
    #expect(q.selected == nil)
    if case .stopped(.query, "missing-query-parameter", let reason) = q.entries[0].outcome {
      #expect(reason.contains("\"state\""))
    } else {
      Issue.record("sber should stop at the query")
    }
    let constraint = r.explain(try ParsedURL("myapp://open/item/x"))
    if case .stopped(.pathSegment(2), "no-match", let reason) = constraint.entries[1].outcome {
      #expect(reason == "\"x\" does not match \"{id:[0-9]+}\"")
    } else {
      Issue.record("item should stop at segment 2")
    }
    #expect(constraint.selected == "open")
  }

  @Test(.enabled(if: Router.constraintEngine == .pcre2, "only PCRE2 has limits"))
  func explainReportsTheLimit() throws {
    let r = try router([Route("evil", "myapp://h/{x:(a+)+$}")])
    let e = r.explain(try ParsedURL("myapp://h/" + String(repeating: "a", count: 3_000) + "!"))
    #expect(e.error?.code == .constraintLimitExceeded)
    #expect(e.selected == nil)
    if case .stopped(.pathSegment(1), "constraint-limit-exceeded", _) = e.entries[0].outcome {} else {
      Issue.record("expected a limit stop, got \(e.entries[0].outcome)")
    }
  }
}
