import Foundation
import Testing
import _LinkParseCLI

/// `--routes`, `linkparse routes check` and `linkparse routes explain`, in process and through the binary.
@Suite struct RoutesCLITests {
  static let routes = """
    # name   pattern                               provider
    vk       vk{app:[0-9]+}://vk.ru/blank.html      vk
    sber     myapp://sberidauth?code&state          sber   # Sber ID

    open     myapp://open/{rest...}
    web      https://{tenant}.example.ru/auth/{provider}/callback
    """

  @Test func routesAddARouteKeyAfterParams() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", Self.routes)
    let input = [
      "vk7915193://vk.ru/blank.html?code=1",
      "myapp://sberidauth?code=c&state=s",
      "myapp://open/a/b%20c",
      "https://Acme.example.ru/auth/t-id/callback",
      "https://example.ru/",
      "not a url",
    ].joined(separator: "\n") + "\n"
    let result = runInProcess(["--routes", file], input: input)
    #expect(result.status == 1)
    #expect(result.stderr.isEmpty)
    let tails = result.lines.map { line in line.range(of: #","route":"#).map { String(line[$0.lowerBound...]) } ?? line }
    #expect(tails == [
      #","route":{"name":"vk","provider":"vk","captures":{"app":"7915193"}}}"#,
      #","route":{"name":"sber","provider":"sber","captures":{}}}"#,
      #","route":{"name":"open","provider":null,"captures":{"rest":"a/b c"}}}"#,
      #","route":{"name":"web","provider":null,"captures":{"tenant":"acme","provider":"t-id"}}}"#,
      #","route":null}"#,
      #"{"line":6,"ok":false,"error":{"code":"missing-scheme-non-relative-url","offset":0,"message":"the input has no scheme (such as 'https:') and no base URL was given to resolve it against"}}"#,
    ])
    // The route key comes last, after "callback"; up to "callback" the record is unchanged.
    let plain = runInProcess([], input: input)
    for (withRoute, without) in zip(result.lines, plain.lines) where withRoute.contains(#""route":"#) {
      let upToCallback = without.range(of: #","callback":"#).map { String(without[..<$0.upperBound]) } ?? without
      #expect(withRoute.hasPrefix(upToCallback))
      #expect(withRoute.range(of: #","callback":"#)!.lowerBound < withRoute.range(of: #","route":"#)!.lowerBound)
    }
    // A route's provider picks the decoder: `myapp://sberidauth?code&state` reads as Sber ID, not generic OAuth.
    #expect(plain.lines[1].contains(#""callback":{"provider":"oauth2","#))
    #expect(result.lines[1].contains(#""callback":{"provider":"sber","outcome":"success","#))
    // --provider wins over the route's provider.
    let forced = runInProcess(["--routes", file, "--provider", "oauth2"], input: "myapp://sberidauth?code=c&state=s\n")
    #expect(forced.stdout.contains(#""callback":{"provider":"oauth2","#))
    #expect(forced.stdout.contains(#""route":{"name":"sber","provider":"sber","#))
  }

  @Test func routesFileWithProblemsIsAUsageError() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("bad.txt", "a myapp://x/{id:(}\n")
    let result = runInProcess(["--routes", file], input: "myapp://x/1\n")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("bad.txt:1: invalid-regex"))
    let missing = runInProcess(["--routes", directory.url.appendingPathComponent("missing").path], input: "")
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("linkparse: "))
  }

  @Test func checkPrintsEveryProblemWithLineNumbers() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", """
      # comment
      a    myapp://x/{id}
      b    myapp://x/{key}   p
      c    myapp://y/{z:(}
      a    myapp://z
      d
      e    myapp:opaque
      """)
    let result = runInProcess(["routes", "check", file])
    #expect(result.status == 1)
    let lines = result.lines.map { $0.replacingOccurrences(of: file, with: "F") }
    #expect(lines.count == 6, "\(lines)")
    #expect(lines[0] == "F:3: unknown provider \"p\" in route \"b\": expected one of sber, vk, tid, apple, oauth2 (or no third field)")
    #expect(lines[1].hasPrefix("F:3: ambiguous-routes in route \"b\""))
    #expect(lines[1].contains("myapp://x/x"))
    // The engine's own words: PCRE2's with the default traits on Linux, the linear-time matcher's without.
    #expect(lines[2].hasPrefix("F:4: invalid-regex in route \"c\" at byte 14: "), "\(lines[2])")
    #expect(lines[2].contains("missing closing parenthesis"), "\(lines[2])")
    #expect(lines[3].hasPrefix("F:5: duplicate-route-name in route \"a\""))
    #expect(lines[4] == "F:6: expected 'name pattern [provider]', found 1 field")
    #expect(lines[5].hasPrefix("F:7: unknown-syntax in route \"e\" at byte 6:"))
  }

  /// The third field is one of `Provider`'s raw values; anything else (`none`, `auto`, a typo, another case)
  /// is a problem for `routes check` and for `--routes`.
  @Test func unknownProvidersAreProblems() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let good = try directory.file("good.txt", """
      s   myapp://s/a   sber
      v   myapp://s/b   vk
      t   myapp://s/c   tid
      a   myapp://s/d   apple
      o   myapp://s/e   oauth2
      n   myapp://s/f
      """)
    #expect(runInProcess(["routes", "check", good]).status == 0)
    let file = try directory.file("routes.txt", """
      ok      myapp://ok        vk
      typo    myapp://typo      vkid   # a comment
      none    myapp://none      none
      auto    myapp://auto      auto
      upper   myapp://upper     VK
      """)
    let expected = ["vkid", "none", "auto", "VK"].enumerated().map { k, name in
      let route = ["typo", "none", "auto", "upper"][k]
      return "\(file):\(k + 2): unknown provider \"\(name)\" in route \"\(route)\": expected one of sber, vk, tid, apple, oauth2 (or no third field)"
    }
    let check = runInProcess(["routes", "check", file])
    #expect(check.status == 1)
    #expect(check.lines == expected)
    let records = runInProcess(["--routes", file], input: "myapp://ok\n")
    #expect(records.status == 2)
    #expect(records.stdout.isEmpty)
    #expect(records.stderr.split(separator: "\n").map(String.init) == expected.map { "linkparse: " + $0 })
    let explain = runInProcess(["routes", "explain", file, "myapp://ok"])
    #expect(explain.status == 2)
    #expect(explain.stderr.contains("unknown provider \"vkid\""))
  }

  @Test func checkOfAGoodFileExitsZero() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", Self.routes)
    let result = runInProcess(["routes", "check", file])
    #expect(result.status == 0)
    #expect(result.stdout == "\(file): 4 routes, no problems\n")
  }

  @Test func explainPrintsEveryRoute() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", Self.routes)
    let result = runInProcess(["routes", "explain", file, "myapp://sberidauth?code=1"])
    #expect(result.status == 0)
    #expect(result.lines.count == 6)
    #expect(result.lines[0] == "url: myapp://sberidauth?code=1")
    #expect(result.lines[1] == "selected: none")
    #expect(result.lines[3].contains("sber") && result.lines[3].contains("stopped at query (missing-query-parameter)"))
    let open = runInProcess(["routes", "explain", file, "myapp://open/x/y"])
    #expect(open.lines[1] == "selected: open")
    #expect(open.stdout.contains("matched: rest=x/y"))
  }

  @Test func routesUsageErrors() throws {
    #expect(runInProcess(["routes"]).status == 0)
    #expect(runInProcess(["routes", "check"]).status == 2)
    #expect(runInProcess(["routes", "explain", "/nonexistent"]).status == 2)
    #expect(runInProcess(["routes", "explain", "/nonexistent", "myapp://x"]).status == 2)
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", Self.routes)
    let badURL = runInProcess(["routes", "explain", file, "not a url"])
    #expect(badURL.status == 2)
    #expect(badURL.stderr.contains("does not parse"))
  }

  @Test func binaryRunsRoutesCommands() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = try directory.file("routes.txt", Self.routes)
    let check = try runBinary(["routes", "check", file])
    #expect(check.status == 0)
    let explain = try runBinary(["routes", "explain", file, "vk1://vk.ru/blank.html"])
    #expect(explain.status == 0)
    #expect(explain.stdout.contains("selected: vk"))
    let records = try runBinary(["--routes", file], input: "myapp://open/z\n")
    #expect(records.status == 0)
    #expect(records.stdout.hasSuffix(#""route":{"name":"open","provider":null,"captures":{"rest":"z"}}}"# + "\n"))
  }
}
