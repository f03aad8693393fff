import LinkParseCore
import Testing

@testable import LinkParseRouter

/// `[0-9]+` and `\d+` are matched without PCRE2; they must agree with it (ASCII digits only, whole capture).
@Suite struct DigitConstraintTests {
  @Test(arguments: ["[0-9]+", #"\d+"#])
  func digitsMatchLikePCRE2(constraint: String) throws {
    let table = try router([
      Route("digits", "myapp://x/{id:\(constraint)}"), Route("any", "myapp://x/{id}"),
      Route("host", "https://{n:\(constraint)}.example.ru/a"),
    ])
    for (url, expected) in [
      ("myapp://x/0", "digits"), ("myapp://x/0123456789", "digits"), ("myapp://x/12a", "any"),
      ("myapp://x/a12", "any"), ("myapp://x/%D9%A1", "any"), ("myapp://x/1%20", "any"), ("myapp://x/+1", "any"),
    ] {
      #expect(try matched(table, url)?.0 == expected, "\(url)")
    }
    #expect(try matched(table, "https://42.example.ru/a")?.1 == ["n": "42"])
    #expect(try matched(table, "https://4x.example.ru/a") == nil)
    // The same answers from PCRE2 itself (a constraint that is not recognised as digits-only).
    let pcre = try router([Route("digits", "myapp://x/{id:(?:\(constraint))}"), Route("any", "myapp://x/{id}")])
    for url in ["myapp://x/0", "myapp://x/12a", "myapp://x/%D9%A1"] {
      #expect(try matched(pcre, url)?.0 == matched(table, url)?.0, "\(url)")
    }
  }
}
