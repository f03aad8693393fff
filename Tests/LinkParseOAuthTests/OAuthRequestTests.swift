import Testing
import LinkParseOAuth
import LinkParseCore

@Suite struct OAuthRequestTests {
  @Test func formBodyIsEncodedAndHeadersComeFirst() {
    let request = OAuthRequest(
      kind: .tokenExchange, provider: .vk, url: "https://id.vk.ru/oauth2/auth",
      form: [.init("grant_type", "authorization_code"), .init("code", "a&b=c d")])
    #expect(request.body == "grant_type=authorization_code&code=a%26b%3Dc+d")
    #expect(request.headers.first == .init("Content-Type", "application/x-www-form-urlencoded"))
    #expect(request.headerValue("accept") == "application/json")
    #expect(request.formValue("code") == "a&b=c d")
  }

  @Test func getPutsTheFormInTheQuery() {
    let request = OAuthRequest(
      kind: .userInfo, method: .get, url: "https://as.example/userinfo?x=1", form: [.init("client_id", "c")])
    #expect(request.body == nil)
    #expect(request.fullURL == "https://as.example/userinfo?x=1&client_id=c")
    #expect(request.headerValue("Content-Type") == nil)
  }
}
