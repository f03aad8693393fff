import Testing
import LinkParse
#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

@Suite struct OAuthRequestFoundationTests {
  @Test func postBecomesAURLRequestWithItsFormBody() throws {
    let request = OAuthRequest(
      kind: .refresh, provider: .tid, url: "https://id.tbank.ru/auth/token",
      headers: [.init("Authorization", "Basic cDpz")],
      form: [.init("grant_type", "refresh_token"), .init("refresh_token", "r+1&x")])
    let urlRequest = try #require(request.urlRequest)
    #expect(urlRequest.httpMethod == "POST")
    #expect(urlRequest.url?.absoluteString == "https://id.tbank.ru/auth/token")
    #expect(urlRequest.value(forHTTPHeaderField: "content-type") == "application/x-www-form-urlencoded")
    #expect(urlRequest.value(forHTTPHeaderField: "Authorization") == "Basic cDpz")
    #expect(urlRequest.httpBody.map { String(decoding: $0, as: UTF8.self) } == "grant_type=refresh_token&refresh_token=r%2B1%26x")
  }

  @Test func getCarriesTheFormInItsQuery() throws {
    let request = OAuthRequest(
      kind: .userInfo, method: .get, url: "https://as.example/userinfo", form: [.init("schema", "openid")])
    let urlRequest = try #require(request.urlRequest)
    #expect(urlRequest.httpMethod == "GET")
    #expect(urlRequest.url?.absoluteString == "https://as.example/userinfo?schema=openid")
    #expect(urlRequest.httpBody == nil)
  }
}
