// ReturnPath: what a web login's return_to may name — a same-site path, never a way off the site.

import LinkParseAuthorization
import LinkParseCore
import LinkParseTestSupport
import Testing

@Suite struct ReturnPathTests {
  @Test(arguments: [
    ("/", "/"), ("/me", "/me"), ("/account?tab=security", "/account?tab=security"), ("/a/../b", "/b"),
    ("/a/./b/", "/a/b/"), ("/%2F%2Fevil.example", "/%2F%2Fevil.example"), ("/x?next=//evil.example", "/x?next=//evil.example"),
    ("/caf%C3%A9", "/caf%C3%A9"), ("/a?", "/a?"),
  ])
  func acceptsSameSitePaths(raw: String, kept: String) {
    #expect(ReturnPath(raw)?.value == kept)
  }

  @Test(arguments: [
    "", "me", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/a\\b",
    "https://evil.example/", "javascript:alert(1)", "http:/evil.example", "/a#fragment", "/ a", "/a\tb",
    "/\t/evil.example", "/a\r\nSet-Cookie: x=y", "/caf\u{E9}", "/\u{0}", "/..//evil.example",
    "/.//evil.example", "/a/../..//evil.example", "/%2e%2e//evil.example", "/%2E.//evil.example", "/.%2e//evil.example",
    String(repeating: "/a", count: 1_025),
  ])
  func refusesEverythingElse(raw: String) {
    #expect(ReturnPath(raw) == nil)
  }

  /// Whatever bytes come, an accepted path resolves to the same origin, and is kept as the parser
  /// serializes it.
  @Test func neverLeavesTheSite() throws {
    var generator = SplitMix64(state: 0x5EED_2026)
    let alphabet = Array("/\\.?#%:@abcAZ09-_~!$&'()*+,;=[] \t".utf8) + [0x00, 0x7F, 0xC3, 0xA9]
    var accepted = 0
    for _ in 0..<20_000 {
      let length = Int.random(in: 1...12, using: &generator)
      let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
      let raw = String(decoding: bytes, as: UTF8.self)
      guard let path = ReturnPath(raw) else { continue }
      accepted += 1
      let url = try #require(try? ParsedURL("https://site.example" + path.value))
      #expect(url.host == "site.example" && url.port == nil && url.username.isEmpty && url.fragment == nil, "\(raw)")
      // As a Location header it stays on the site: a path, not a scheme-relative URL.
      #expect(path.value.hasPrefix("/") && !path.value.hasPrefix("//"), "\(raw) → \(path.value)")
      #expect(ReturnPath(path.value) == path, "\(raw): not stable")
    }
    #expect(accepted > 100)
  }
}
