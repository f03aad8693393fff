// Excerpts of response bodies in error messages: token-shaped values are masked whatever the body, not only the
// request's own secrets.

import LinkParseOAuth
import LinkParseProviders
import Testing

@testable import LinkParseHTTP

@Suite struct ErrorExcerptMaskingTests {

  /// The whole text through the masker (no cut).
  static func masked(_ text: String, secrets: [String] = []) -> String {
    String(decoding: ExcerptMasking.mask(Array(text.utf8), secrets: secrets, outputLimit: .max).bytes, as: UTF8.self)
  }

  @Test(arguments: [
    // Form text, unquoted, as an HTML error page repeats it.
    ("access_token=vk2.a.LEAKED1 refresh_token=rt.LEAKED2", "access_token=[redacted] refresh_token=[redacted]"),
    ("code=abc123&state=xyz", "code=[redacted]&state=xyz"),
    ("a?client_secret=s3cr3t;code_verifier=dBjft", "a?client_secret=[redacted];code_verifier=[redacted]"),
    // JSON, with and without spaces.
    (#"{"access_token": "at.LEAKED", "token_type":"Bearer"}"#, #"{"access_token": "[redacted]", "token_type":"Bearer"}"#),
    (#"{"id_token":"abc\"def","x":1}"#, #"{"id_token":"[redacted]","x":1}"#),
    (#"{"code": 4711,"state":"s"}"#, #"{"code": [redacted],"state":"s"}"#),
    // JSON inside a JSON string (escaped once and twice).
    (#"{"m":"{\"id_token\":\"eyJ.LEAKED\",\"x\":1}"}"#, #"{"m":"{\"id_token\":\"[redacted]\",\"x\":1}"}"#),
    (#"\\\"access_token\\\":\\\"at.LEAKED\\\""#, #"\\\"access_token\\\":\\\"[redacted]\\\""#),
    (#"\"refresh_token\":rt.LEAKED\n"#, #"\"refresh_token\":[redacted]\n"#),
    // Other spellings of the names, other quotes.
    ("client_secret='s3cr3t' next", "client_secret='[redacted]' next"),
    ("Code_Verifier = dBjftJeZ4CVP", "Code_Verifier = [redacted]"),
    ("refreshToken: rt.LEAKED", "refreshToken: [redacted]"),
    ("ACCESS-TOKEN=at.LEAKED", "ACCESS-TOKEN=[redacted]"),
    (#"<input name="access_token" value="at.LEAKED">"#, #"<input name="access_token" value="[redacted]">"#),
    // A value cut by the end of the text is masked to the end.
    (#"{"access_token":"at.LEAK"#, #"{"access_token":"[redacted]"#),
    ("id_token=eyJ", "id_token=[redacted]"),
    // Not secrets.
    ("error_code=5 xcode=7 token_type=Bearer codes=1", "error_code=5 xcode=7 token_type=Bearer codes=1"),
    ("access_token=&state=s", "access_token=&state=s"),
    ("the code is wrong", "the code is wrong"),
  ])
  func tokenShapedValuesAreMasked(_ body: String, _ expected: String) {
    #expect(Self.masked(body) == expected)
  }

  @Test func theRequestsOwnSecretsAreMaskedToo() {
    #expect(Self.masked("unknown grant the-code-value here", secrets: ["the-code-value"]) == "unknown grant [redacted] here")
  }

  @Test func invalidUTF8AndArbitraryBytesAreHandled() {
    let body: [UInt8] = [0xFF, 0xFE, 0x00] + Array("access_token=".utf8) + [0xC3] + Array("LEAKED".utf8) + [0xC3, 0x20]
      + Array("refresh_token=\"".utf8) + [0x80, 0x81] + Array("LEAKED\"".utf8)
    let out = String(decoding: ExcerptMasking.mask(body, secrets: [], outputLimit: .max).bytes, as: UTF8.self)
    #expect(!out.contains("LEAKED"))
    #expect(out.contains("access_token=[redacted]"))
    #expect(out.contains(#"refresh_token="[redacted]""#))
    let quote = StatusErrors.quote(body, secrets: [])
    #expect(!quote.contains("LEAKED"))
    // Every byte value, in every position around a secret name, never traps.
    for byte in UInt8.min...UInt8.max {
      let around = [byte] + Array("code".utf8) + [byte] + Array("=".utf8) + [byte, byte] + Array("x\\".utf8) + [byte]
      _ = ExcerptMasking.mask(around, secrets: ["x"], outputLimit: .max)
    }
  }

  @Test func megabyteBodiesAreMaskedInLinearTime() {
    let megabyte = 1 << 20
    let bodies: [[UInt8]] = [
      Array("access_token=".utf8) + Array(repeating: UInt8(ascii: "a"), count: megabyte) + Array(" tail".utf8),
      Array(String(repeating: "code=", count: megabyte / 5).utf8),
      Array(String(repeating: #"\""#, count: megabyte / 2).utf8),
      Array(String(repeating: #"id_token:"\"#, count: megabyte / 11).utf8),
      Array(String(repeating: "access_token", count: megabyte / 12).utf8),
      Array(repeating: UInt8(ascii: "\\"), count: megabyte),
      Array(String(repeating: #""code" : "#, count: megabyte / 10).utf8),
    ]
    let clock = ContinuousClock()
    for body in bodies {
      let started = clock.now
      let whole = ExcerptMasking.mask(body, secrets: ["some-request-secret"], outputLimit: .max)
      #expect(whole.complete)
      _ = StatusErrors.quote(body, secrets: ["some-request-secret"])
      #expect(clock.now - started < .seconds(20), "\(body.prefix(20)) took \(clock.now - started)")
    }
    let first = ExcerptMasking.mask(bodies[0], secrets: [], outputLimit: .max)
    #expect(String(decoding: first.bytes, as: UTF8.self) == "access_token=[redacted] tail")
  }

  @Test func aRequestSecretAfterALongMaskedValueIsNotHalfQuoted() {
    let secret = "REQUEST-SECRET-0123456789abcdefghijklmnopqrstuvwxyz"
    let body = Array(("access_token=" + String(repeating: "x", count: 500) + " echo " + secret + " end").utf8)
    let quote = StatusErrors.quote(body, secrets: [secret])
    #expect(!quote.contains("REQUEST-"))
    #expect(quote == "access_token=[redacted] echo [redacted] end")
  }

  // MARK: The messages of OAuthResponseError

  static let request = OAuthRequest(
    kind: .tokenExchange, url: "https://id.vk.ru/oauth2/auth",
    form: [.init("grant_type", "authorization_code"), .init("code", "the-request-code")])

  @Test func anHTMLErrorPageDoesNotLeakTheProvidersTokens() {
    let html = """
      <html><body><h1>500</h1><pre>debug: access_token=vk2.a.LEAKEDaccess refresh_token=vk2.a.LEAKEDrefresh
      id_token=eyJLEAKED code=the-request-code</pre></body></html>
      """
    let response = OAuthHTTPResponse(
      status: 500, headers: [.init("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8))
    let error = StatusErrors.error(for: response, request: Self.request)
    #expect(error.code == .httpStatus)
    #expect(!error.message.contains("LEAKED"))
    #expect(!error.message.contains("the-request-code"))
    #expect(error.message.contains("access_token=[redacted] refresh_token=[redacted] id_token=[redacted]"))
    #expect(!error.description.contains("LEAKED"))
  }

  @Test func aProvidersErrorDescriptionIsMaskedAndCut() {
    let body = #"{"error":"server_error","error_description":"failed for access_token=vk2.a.LEAKED and {\"refresh_token\":\"rt.LEAKED\"} "#
      + String(repeating: "padding ", count: 100) + #""}"#
    let response = OAuthHTTPResponse(status: 500, headers: [.init("Content-Type", "application/json")], body: Array(body.utf8))
    let error = StatusErrors.error(for: response, request: Self.request)
    #expect(error.code == .providerError)
    #expect(!error.message.contains("LEAKED"))
    #expect(error.message.contains("access_token=[redacted]"))
    #expect(error.message.hasSuffix("…"))
    #expect(error.message.utf8.count < 400)
  }
}
