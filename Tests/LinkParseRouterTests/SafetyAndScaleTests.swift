import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: regex safety")
struct RouterRegexSafetyTests {
  static let evil = Route("evil", "myapp://h/{x:(a+)+$}")

  /// PCRE2 stops at its limits; the linear matcher answers (no match), in linear time.
  @Test func catastrophicBacktrackingIsATypedLimitErrorOrAnAnswer() throws {
    let r = try router([Self.evil])
    let url = try ParsedURL("myapp://h/" + String(repeating: "a", count: 30_000) + "!")
    let clock = ContinuousClock()
    var thrown: RouteError?
    let elapsed = clock.measure {
      do throws(RouteError) { _ = try r.match(url) } catch { thrown = error }
    }
    if Router.constraintEngine == .pcre2 {
      #expect(thrown?.code == .constraintLimitExceeded)
      #expect(thrown?.code.rawValue == "constraint-limit-exceeded")
      #expect(thrown?.route == "evil")
    } else {
      #expect(thrown == nil)
      #expect(try r.match(url) == nil)
    }
    #expect(elapsed < .seconds(1), "took \(elapsed)")
  }

  @Test func thirtyThousandAsNeverHang() throws {
    let r = try router([Self.evil])
    let url = try ParsedURL("myapp://h/" + String(repeating: "a", count: 30_000))
    let clock = ContinuousClock()
    var result: Result<RouteMatch?, RouteError>!
    let elapsed = clock.measure {
      do throws(RouteError) { result = .success(try r.match(url)) } catch { result = .failure(error) }
    }
    switch result! {
    case .success(let m): #expect(m?.name == "evil")
    case .failure(let e): #expect(e.code == .constraintLimitExceeded)
    }
    #expect(elapsed < .seconds(1), "took \(elapsed)")
  }

  @Test(.enabled(if: Router.constraintEngine == .pcre2, "PCRE2's interpreter"))
  func theInterpreterIsBoundedToo() throws {
    let r = try router([Self.evil], limits: RegexLimits(useJIT: false))
    #expect(!r.usesJIT)
    let url = try ParsedURL("myapp://h/" + String(repeating: "a", count: 30_000) + "!")
    #expect(throws: RouteError.self) { try r.match(url) }
    do { _ = try r.match(url) } catch { #expect(error.code == .constraintLimitExceeded) }
  }

  @Test(.enabled(if: Router.constraintEngine == .pcre2, "only PCRE2 has limits"))
  func limitDoesNotFallBackToALowerPriorityRoute() throws {
    let r = try router([Self.evil, Route("any", "myapp://h/{rest...}")])
    let url = try ParsedURL("myapp://h/" + String(repeating: "a", count: 5_000) + "!")
    #expect(throws: RouteError.self) { try r.match(url) }
    // An ordinary URL still matches.
    #expect(try matched(r, "myapp://h/b/c")?.0 == "any")
    #expect(try matched(r, "myapp://h/aaa")?.0 == "evil")
  }

  @Test(.enabled(if: Router.constraintEngine == .pcre2, "PCRE2's JIT"))
  func jitIsUsedWhenAvailable() throws {
    let r = try router([Route("n", "myapp://h/{x:[0-9]+}")])
    // libpcre2-8 on Debian/Ubuntu x86_64 and arm64 is built with JIT.
    #expect(r.usesJIT)
  }
}

@Suite("Router: 1,000 routes")
struct RouterScaleTests {
  static func table(_ n: Int) -> [Route] {
    (0..<n).map { i in
      switch i % 4 {
      case 0: Route("lit\(i)", "https://example.ru/app\(i)/callback")
      case 1: Route("cap\(i)", "https://example.ru/app\(i)/{provider}/callback")
      case 2: Route("con\(i)", "myapp\(i)://auth/{id:[0-9]+}")
      default: Route("rest\(i)", "https://t\(i).example.ru/files/{rest...}", provider: Provider.allCases[i % Provider.allCases.count])
      }
    }
  }

  @Test func everyRouteOfAThousandMatchesItsOwnURLs() throws {
    let r = try router(Self.table(1_000))
    for i in 0..<1_000 {
      let (url, expectedCaptures): (String, [String: String]) =
        switch i % 4 {
        case 0: ("https://example.ru/app\(i)/callback", [:])
        case 1: ("https://example.ru/app\(i)/vk/callback", ["provider": "vk"])
        case 2: ("myapp\(i)://auth/\(i)", ["id": "\(i)"])
        default: ("https://t\(i).example.ru/files/a/\(i)", ["rest": "a/\(i)"])
        }
      let m = try #require(try matched(r, url), "\(url)")
      #expect(m.0 == r.routes[i].name)
      #expect(m.1 == expectedCaptures)
    }
    #expect(try match(r, "https://example.ru/app1000/callback") == nil)
    #expect(try match(r, "https://example.ru/app1/callback") == nil)  // app1 needs a provider segment
    #expect(try match(r, "myapp2://auth/x") == nil)
    #expect(try match(r, "https://example.ru/app3/files/x") == nil)
    #expect(r.routes.count == 1_000)
  }

  @Test func aThousandRoutesCostAboutAsMuchAsOne() throws {
    let one = try router([Route("lit0", "https://example.ru/app0/callback")])
    let many = try router(Self.table(1_000))
    let url = try ParsedURL("https://example.ru/app0/callback?code=1")
    let a = one.searchStatistics(url)
    let b = many.searchStatistics(url)
    // Root, scheme, host, `app0`, `callback`: one node per component, however many routes.
    #expect(a.nodesVisited == 5 && b.nodesVisited == 5)
    #expect(b.componentsTried <= a.componentsTried + 2)

    let deep = try ParsedURL("https://example.ru/app997/vk/callback")
    #expect(many.searchStatistics(deep).nodesVisited == 6)
  }

  @Test func aThousandRouteMatchIsNotALoopOverRoutes() throws {
    let one = try router([Route("lit0", "https://example.ru/app0/callback")])
    let many = try router(Self.table(1_000))
    let url = try ParsedURL("https://example.ru/app0/callback?code=1")
    func time(_ r: Router) throws -> Duration {
      var best = Duration.seconds(1_000)
      for _ in 0..<5 {
        let elapsed = try ContinuousClock().measure {
          for _ in 0..<2_000 { _ = try r.match(url) }
        }
        best = min(best, elapsed)
      }
      return best
    }
    let t1 = try time(one)
    let t1000 = try time(many)
    // A loop over 1,000 routes would be hundreds of times slower; allow noise from a shared machine.
    #expect(t1000 < t1 * 8, "1 route: \(t1), 1,000 routes: \(t1000)")
  }
}
