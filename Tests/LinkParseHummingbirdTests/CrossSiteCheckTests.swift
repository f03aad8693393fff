import HTTPTypes
import Hummingbird
import LinkParseHummingbird
import Testing

/// `CrossSiteCheck` compares `Origin` with the site's origin as a browser writes it: lowercase, the host
/// IDNA-encoded, a default port left out.
@Suite struct CrossSiteCheckTests {
  @Test(arguments: [
    ("https://App.example:443/base", "https://app.example"),
    ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
    ("http://localhost:80", "http://localhost"),
    ("https://bücher.example", "https://xn--bcher-kva.example"),
    ("https://[::1]:8443/x?y", "https://[::1]:8443"),
  ])
  func theOriginIsTheBrowsers(base: String, origin: String) {
    #expect(CrossSiteCheck(publicBaseURL: base).origin == origin)
  }

  static func request(_ headers: [(String, String)]) -> Request {
    var fields = HTTPFields()
    for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    let head = HTTPRequest(method: .post, scheme: "https", authority: "app.example", path: "/logout", headerFields: fields)
    return Request(head: head, body: .init(buffer: .init()))
  }

  @Test func whatTheBrowserSaysDecides() {
    let check = CrossSiteCheck(publicBaseURL: "https://app.example:443/")
    #expect(!check.isCrossSite(Self.request([("Origin", "https://app.example"), ("Sec-Fetch-Site", "same-origin")])))
    #expect(!check.isCrossSite(Self.request([])))  // not a browser
    #expect(check.isCrossSite(Self.request([("Sec-Fetch-Site", "cross-site")])))
    #expect(check.isCrossSite(Self.request([("Sec-Fetch-Site", "same-site")])))
    #expect(check.isCrossSite(Self.request([("Origin", "https://evil.example")])))
    #expect(check.isCrossSite(Self.request([("Origin", "null")])))
    #expect(check.isCrossSite(Self.request([("Origin", "https://app.example:8443")])))
    #expect(check.refusal(Self.request([("Origin", "https://evil.example")]))?.status == .forbidden)
  }
}
