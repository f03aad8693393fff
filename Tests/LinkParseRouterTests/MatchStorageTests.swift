import Foundation
import LinkParseTestSupport
import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

@Suite("Router: match storage, accessors and word-wide comparisons")
struct RouterMatchStorageTests {
  static let table = RouterPatternTests.table

  @Test(arguments: [
    ("vk7915193://vk.ru/blank.html?code=1", 0, ["app"]),
    ("myapp://sberidauth?code=1", 1, [String]()),
    ("https://acme.example.ru/auth/vk/callback", 2, ["tenant", "provider"]),
    ("myapp://open/a/b%20c", 4, ["rest"]),
    ("https://cdn.example.ru/img_42.png", 5, ["id"]),
  ])
  func captureCountCaptureAtAndRouteIndexAgreeWithCaptures(url: String, index: Int, names: [String]) throws {
    let r = try router(Self.table)
    let m = try #require(try match(r, url))
    #expect(m.routeIndex == index)
    #expect(r.routes[m.routeIndex] == m.route)
    #expect(m.captureCount == names.count)
    #expect(m.captures.map(\.name) == names)
    #expect((0..<m.captureCount).map { m.capture(at: $0) } == m.captures)
    for capture in m.captures { #expect(m[capture.name] == capture.value) }
    #expect(m["missing"] == nil)
  }

  @Test func capturesBeyondTheInlineStorage() throws {
    let r = try router([Route("deep", "myapp://h{h}/{a}/{b}/x{c}y/{d}/{e}/{f}/{g}/{rest...}")])
    let m = try #require(try match(r, "myapp://h0/1/2/x3y/4/5/6/7/8/9"))
    #expect(m.captureCount == 9)
    #expect(m.captures.map(\.name) == ["h", "a", "b", "c", "d", "e", "f", "g", "rest"])
    #expect(m.captures.map(\.value) == ["0", "1", "2", "3", "4", "5", "6", "7", "8/9"])
    #expect(m.capture(at: 8).utf8Range == 27..<30)
    #expect(m["g"] == "7" && m["rest"] == "8/9")
  }

  @Test func theMatchKeepsTheURL() throws {
    let r = try router(Self.table)
    let url = try ParsedURL("https://acme.example.ru/auth/vk/callback?code=1")
    let m = try #require(try r.match(url))
    #expect(m.url == url)
    #expect(m.captures.allSatisfy { $0.rawValue.base == url.href })
  }

  @Test func queryRequirementsAreCheckedWithTheParameters() throws {
    let r = try router([
      Route("code", "myapp://cb/{x}?code"),
      Route("error", "myapp://cb/{y}?error&state"),
      Route("any", "myapp://cb/{z}"),
    ])
    #expect(try matched(r, "myapp://cb/1?code=a")?.0 == "code")
    #expect(try matched(r, "myapp://cb/1?error=e&state=s")?.0 == "error")
    #expect(try matched(r, "myapp://cb/1?error=e")?.0 == "any")
    #expect(try matched(r, "myapp://cb/1?c%6Fde")?.0 == "code")
    #expect(try matched(r, "myapp://cb/1")?.1 == ["z": "1"])
    // The search that meets a query requirement starts again with the parameters, and is counted once: the
    // root, the scheme, the host and the three capture nodes.
    let url = try ParsedURL("myapp://cb/1?code=a")
    #expect(r.searchStatistics(url).nodesVisited == 6)
  }

  @Test func longLiteralsCompareEveryByte() throws {
    let r = try router([
      Route("long", "https://clientresource-login.example.ru/a-very-long-segment-name/x"),
      Route("help", "myapp://app/HelpCenterArticles", options: .caseInsensitivePath),
      Route("nine", "myapp://app/abcdefghi"),
    ])
    #expect(try matched(r, "https://CLIENTRESOURCE-LOGIN.example.ru/a-very-long-segment-name/x")?.0 == "long")
    #expect(try match(r, "https://clientresource-login.example.ru/a-very-long-segmXnt-name/x") == nil)
    #expect(try match(r, "https://clientresource-logXn.example.ru/a-very-long-segment-name/x") == nil)
    #expect(try matched(r, "myapp://app/helpcenterarticles")?.0 == "help")
    #expect(try matched(r, "myapp://app/HELPCENTERARTICLES")?.0 == "help")
    #expect(try match(r, "myapp://app/HelpCenterArticlez") == nil)
    #expect(try matched(r, "myapp://app/abcdefghi")?.0 == "nine")
    #expect(try match(r, "myapp://app/abcdefghI") == nil)
    #expect(try match(r, "myapp://app/Abcdefghi") == nil)
  }

  /// Literals are compared a word at a time (first eight bytes, last eight, then the middle): every length
  /// around those boundaries, a difference at every position, at the end of the URL or before its query.
  @Test(arguments: 1...26)
  func literalsOfEveryLengthMatchExactly(length: Int) throws {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let text = String(letters[0..<length])
    let r = try router([
      Route("exact", "myapp://h/\(text)"),
      Route("caseless", "myapp://c/\(text)", options: .caseInsensitivePath),
      Route("host", "myapp://\(text).ru/x"),
    ])
    for suffix in ["", "?q=1", "#f", "/"] {
      #expect(try matched(r, "myapp://h/\(text)\(suffix)")?.0 == (suffix == "/" ? nil : "exact"))
      #expect(try matched(r, "myapp://c/\(text.uppercased())\(suffix)")?.0 == (suffix == "/" ? nil : "caseless"))
      #expect(try matched(r, "myapp://\(text.uppercased()).ru/x\(suffix)")?.0 == (suffix == "/" ? nil : "host"))
    }
    #expect(try match(r, "myapp://h/\(text)x") == nil)
    #expect(try match(r, "myapp://h/\(text.dropLast())") == nil)
    #expect(try match(r, "myapp://h/\(text.uppercased())") == nil)
    for k in 0..<length {
      var changed = letters[0..<length]
      changed[k] = "0"
      #expect(try match(r, "myapp://h/\(String(changed))") == nil, "difference at \(k)")
      #expect(try match(r, "myapp://c/\(String(changed))") == nil, "difference at \(k)")
    }
  }

  /// Folding changes only the ASCII letters: '@' and '[' (just below and above the capitals) stay as they are.
  @Test func caselessComparisonsFoldOnlyLetters() throws {
    let r = try router([
      Route("a", "myapp://x/a@b[c", options: .caseInsensitivePath),
      Route("b", "myapp://x/z", options: .caseInsensitivePath),
    ])
    #expect(try matched(r, "myapp://x/A@B[C")?.0 == "a")
    #expect(try match(r, "myapp://x/a%60b%7Bc") == nil)
    #expect(try matched(r, "MYAPP://X/Z")?.0 == "b")
  }

  /// The matcher reads the components from the serialization; they must be where the parser put them.
  static let serializations = [
    "https://example.com/auth/apple/callback?code=1#f",
    "https://user:pa%40ss@a.ru:8443/x/y?q",
    "https://[::1]:8080/",
    "http://1.2.3.4",
    "file:///tmp/x",
    "file://host/share",
    "vk7915193://vk.ru?code=1",
    "vk7915193://",
    "myapp:/oauth2redirect/x",
    "myapp:/.//double/slash",
    "myapp:/",
    "web+demo://h/%2F/a?b#c",
    "https://a.ru/a%3Fb%23c?x#y",
  ]

  @Test func componentsAreWhereTheParserPutThem() throws {
    for string in Self.serializations {
      try checkComponents(ParsedURL(string))
    }
  }

  /// The same over every valid URL of the web-platform-tests data (when `../shared/conformance` is there).
  @Test func componentsAreWhereTheParserPutThemForTheConformanceData() throws {
    let data: Data
    switch ConformanceData.file("urltestdata.json") {
    case .found(let bytes): data = bytes
    case .skipped(let message):
      print(message)
      return
    case .missing(let message):
      Issue.record(Comment(rawValue: message))
      return
    }
    let cases = try #require(try JSONSerialization.jsonObject(with: data) as? [Any])
    var checked = 0
    for case let entry as [String: Any] in cases {
      guard let input = entry["input"] as? String else { continue }
      let base = (entry["base"] as? String).flatMap { try? ParsedURL($0) }
      guard let url = try? ParsedURL(input, base: base) else { continue }
      checkComponents(url)
      checked += 1
    }
    #expect(checked > 500)
  }

  private func checkComponents(_ url: ParsedURL, sourceLocation: SourceLocation = #_sourceLocation) {
    guard !url.hasOpaquePath else { return }
    let r = url.utf8Ranges
    let view = Router.componentOffsets(of: url)
    #expect(view.schemeEnd == r.scheme.upperBound, "\(url)", sourceLocation: sourceLocation)
    #expect(view.host?.lowerBound == r.host?.lowerBound, "\(url)", sourceLocation: sourceLocation)
    #expect(view.host.map { $0.upperBound == r.path.lowerBound } ?? true, "\(url)", sourceLocation: sourceLocation)
    #expect(view.pathStart == r.path.lowerBound, "\(url)", sourceLocation: sourceLocation)
    #expect(view.pathEnd == r.path.upperBound, "\(url)", sourceLocation: sourceLocation)
  }
}
