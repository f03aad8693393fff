import Testing
import LinkParseCore
@_spi(Testing) import LinkParseRouter

/// `Router.match` answers URLs equal to a literal-only route from a hash table before the trie; these check
/// that it answers exactly as the trie would, and that the routes that could tie are left to the trie.
@Suite("Router: the literal-only routes table")
struct StaticRoutesTests {
  static let routes = [
    Route("vk-app", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
    Route("vk-web", "https://shop.example.ru/auth/vk", provider: .vk),
    Route("sber-app", "myapp://sberidauth", provider: .sber),
    Route("sber-web", "https://clientresource.ru/login/sberid/callback", provider: .sber),
    Route("apple-app", "signinwithapple://callback", provider: .apple),
    Route("native", "com.example.app:/oauth2redirect"),
    Route("oauth", "https://{tenant}.example.{tld}/oauth2/callback", provider: .oauth2),
    Route("any-auth", "https://shop.example.ru/auth/{provider}"),
    Route("open", "myapp://open/{rest...}"),
    Route("open-home", "myapp://open"),
    Route("trailing", "https://a.example.ru/x/"),
  ]

  /// URLs that hit the table, and ones that must not (they differ from every literal route somewhere).
  static let urls = [
    "https://shop.example.ru/auth/vk?code=1&state=2",
    "https://shop.example.ru/auth/vk",
    "https://shop.example.ru/auth/vk#code=1",
    "https://shop.example.ru/auth/vk/?code=1",
    "https://shop.example.ru/auth/VK?code=1",
    "https://SHOP.example.ru/auth/vk?code=1",
    "https://shop.example.ru:8443/auth/vk?code=1",
    "https://user:pass@shop.example.ru/auth/vk?code=1",
    "https://shop.example.ru/auth/ok?code=1",
    "https://shop.example.ru/auth?code=1",
    "myapp://sberidauth?code=1&state=2",
    "myapp://SberIDAuth?code=1",
    "myapp://sberidauth/?code=1",
    "myapp://sberidauth",
    "MyApp://sberidauth?x",
    "https://clientresource.ru/login/sberid/callback?code=1",
    "https://clientresource.ru/login/sberid/callback2?code=1",
    "https://clientresource.ru/login/sberid?code=1",
    "signinwithapple://callback?code=1",
    "signinwithapple://callbacK?code=1",
    "com.example.app:/oauth2redirect?code=1",
    "com.example.app:/oauth2redirect/?code=1",
    "com.example.app://oauth2redirect?code=1",
    "vk7915193://vk.ru/blank.html?code=1",
    "https://acme.example.ru/oauth2/callback?code=1",
    "myapp://open?x=1",
    "myapp://open/a/b?x=1",
    "myapp://open/?x=1",
    "https://a.example.ru/x/?q",
    "https://a.example.ru/x?q",
    "https://a.example.ru/x//?q",
  ]

  @Test func theTableAnswersAsTheTrieDoes() throws {
    let r = try router(Self.routes)
    var hits = 0
    for string in Self.urls {
      let url = try ParsedURL(string)
      let matched = try r.match(url)?.routeIndex
      #expect(matched == r.trieRouteIndex(url), "\(string)")
      if r.isStaticMatch(url) {
        hits += 1
        #expect(matched != nil, "\(string)")
        #expect(try r.match(url)?.captureCount == 0)
      }
    }
    // The literal routes' own URLs (with a query, a fragment or nothing after the path) are table hits.
    #expect(hits >= 9)
    #expect(try r.isStaticMatch(ParsedURL("https://shop.example.ru/auth/vk?code=1")))
    #expect(try r.isStaticMatch(ParsedURL("myapp://sberidauth?code=1")))
    #expect(try r.isStaticMatch(ParsedURL("com.example.app:/oauth2redirect?code=1")))
    // Not hits: letter case in an opaque host (the trie folds it), userinfo, a port, another path.
    #expect(try !r.isStaticMatch(ParsedURL("myapp://SberIDAuth?code=1")))
    #expect(try r.match(ParsedURL("myapp://SberIDAuth?code=1"))?.name == "sber-app")
    #expect(try !r.isStaticMatch(ParsedURL("https://user:pass@shop.example.ru/auth/vk?code=1")))
    #expect(try r.match(ParsedURL("https://user:pass@shop.example.ru/auth/vk?code=1"))?.name == "vk-web")
    #expect(try r.match(ParsedURL("https://shop.example.ru/auth/ok?code=1"))?.name == "any-auth")
  }

  @Test func routesThatCouldTieAreLeftToTheTrie() throws {
    // The same literals with a query requirement outrank the plain route when the parameter is present.
    let withQuery = try router([Route("plain", "myapp://cb/done"), Route("sber", "myapp://cb/done?code&state")])
    let url = try ParsedURL("myapp://cb/done?code=1&state=2")
    #expect(try withQuery.match(url)?.name == "sber")
    #expect(try withQuery.match(ParsedURL("myapp://cb/done?code=1"))?.name == "plain")
    #expect(!withQuery.isStaticMatch(url))

    // A caseless route with the same literals (the table compares the path exactly) is ambiguous with it
    // and rejected; one with a different text that folds equal is left to the trie too.
    let caseless = try router([
      Route("exact", "myapp://cb/Done"),
      Route("folded", "myapp://cb/DONE/x", options: .caseInsensitivePath),
    ])
    #expect(try caseless.match(ParsedURL("myapp://cb/Done"))?.name == "exact")
    #expect(try caseless.isStaticMatch(ParsedURL("myapp://cb/Done")))
    #expect(try caseless.match(ParsedURL("myapp://cb/done/X"))?.name == "folded")
    #expect(try !caseless.isStaticMatch(ParsedURL("myapp://cb/done/X")))
  }

  @Test func randomURLsAgreeWithTheTrie() throws {
    let r = try router(Self.routes)
    var generator = SystemRandomNumberGenerator()
    let schemes = ["https", "myapp", "signinwithapple", "com.example.app", "vk42", "HTTPS"]
    let hosts = ["shop.example.ru", "clientresource.ru", "sberidauth", "callback", "open", "a.example.ru", "", "Open"]
    let segments = ["auth", "vk", "login", "sberid", "callback", "oauth2redirect", "x", "", "blank.html", "VK"]
    for _ in 0..<3000 {
      let scheme = schemes.randomElement(using: &generator)!
      var s = scheme + (Int.random(in: 0..<6, using: &generator) == 0 ? ":" : "://")
      if s.hasSuffix("//") { s += hosts.randomElement(using: &generator)! }
      for _ in 0..<Int.random(in: 0...3, using: &generator) { s += "/" + segments.randomElement(using: &generator)! }
      s += ["", "?code=1", "#state=2", "?a"].randomElement(using: &generator)!
      guard let url = try? ParsedURL(s) else { continue }
      #expect(try r.match(url)?.routeIndex == r.trieRouteIndex(url), "\(s)")
    }
  }
}
