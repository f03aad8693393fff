// The pieces of error reporting that need no server: targets for logs, body quotes, the error-JSON reader.

import LinkParseOAuth
import LinkParseProviders
import Testing

@testable import LinkParseHTTP

@Suite struct ResponseErrorsTests {

  @Test(arguments: [
    ("https://id.vk.ru/oauth2/auth", "id.vk.ru", "/oauth2/auth"),
    ("https://user:pw@as.example:8443/userinfo?access_token=x#f", "as.example:8443", "/userinfo"),
    ("http://127.0.0.1:9", "127.0.0.1:9", "/"),
    ("https://as.example?client_secret=s", "as.example", "/"),
  ])
  func targetKeepsHostAndPathOnly(url: String, host: String, path: String) {
    let target = RequestTarget(url)
    #expect(target.host == host)
    #expect(target.path == path)
  }

  @Test(arguments: [
    ("http://localhost:8080/x", true), ("http://LOCALHOST/x", true), ("http://a.localhost/x", true),
    ("http://127.0.0.1:1/x", true), ("http://127.255.0.9/x", true), ("http://[::1]:80/x", true),
    ("http://[::1]/x", true), ("http://127.1/x", false), ("http://128.0.0.1/x", false),
    ("http://localhost.example/x", false), ("http://127.0.0.1.example/x", false), ("http://[::2]/x", false),
    ("http://evil@127.0.0.1.nip.io/x", false), ("http://x@localhost/", true),
  ])
  func loopback(url: String, isLoopback: Bool) {
    #expect(RequestTarget(url).isLoopback == isLoopback)
    #expect(RequestTarget(url).scheme == "http")
  }

  @Test func quoteIsAtMost200BytesOnACharacterBoundary() {
    let body = Array(String(repeating: "ж", count: 300).utf8)  // 2 bytes each
    let quote = StatusErrors.quote(body, secrets: [])
    #expect(quote.hasSuffix("…"))
    #expect(quote.dropLast().utf8.count == 200)
    #expect(!quote.contains("\u{FFFD}"))
    #expect(StatusErrors.quote(Array("short\r\n\tbody".utf8), secrets: []) == "short body")
  }

  @Test func quoteMasksSecretsEvenAcrossTheCut() {
    let secret = "SECRET-TOKEN-VALUE"
    let body = Array((String(repeating: "x", count: 190) + secret + String(repeating: "y", count: 50)).utf8)
    let quote = StatusErrors.quote(body, secrets: [secret])
    #expect(!quote.contains("SECRET"))
    #expect(quote.contains("[redac"))
  }

  @Test func secretsAreTheSecretFieldsAndTheAuthorization() {
    let request = OAuthRequest(
      kind: .tokenExchange, url: "https://as.example/token",
      headers: [.init("Authorization", "Basic YXBwOnNlY3JldA==")],
      form: [
        .init("grant_type", "authorization_code"), .init("code", "the-code"), .init("client_secret", "the-secret"),
        .init("client_id", "app"),
      ])
    let secrets = StatusErrors.secrets(of: request)
    #expect(Set(secrets) == ["the-code", "the-secret", "Basic YXBwOnNlY3JldA==", "YXBwOnNlY3JldA=="])
  }

  // The reader is LinkParseOAuth's OAuthErrorResponse(json:): its rules decide the edge cases.
  @Test func errorBodyReader() throws {
    let body = Array(#"{"error":"invalid_grant","error_description":"code expired","state":"s","extra":1}"#.utf8)
    let read = try #require(ProviderErrorBody.read(body))
    #expect(read.error == .invalidGrant)
    #expect(read.errorDescription == "code expired")
    #expect(read.state == "s")
    #expect(read.additionalFields == .object([("extra", .number("1"))]))
    #expect(read.rawBody == String(decoding: body, as: UTF8.self))
    #expect(ProviderErrorBody.read(Array(#"{"error_message":"x"}"#.utf8)) == nil)
    // An `error` that is not a string is still an error answer, kept whole (no error code to type).
    let nested = try #require(ProviderErrorBody.read(Array(#"{"error":{"error_code":5}}"#.utf8)))
    #expect(nested.error.rawValue == "unknown_error")
    #expect(nested.additionalFields["error"]?["error_code"] == .number("5"))
    #expect(ProviderErrorBody.read(Array("<html>".utf8)) == nil)
    #expect(ProviderErrorBody.read([]) == nil)
    let tid = try #require(ProviderErrorBody.read(Array(#"{"error":"access_denied","error_message":"no"}"#.utf8)))
    #expect(tid.errorDescription == "no")
  }
}
