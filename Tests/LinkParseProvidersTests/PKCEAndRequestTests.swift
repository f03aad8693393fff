import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders
import LinkParseBytes

@Suite struct PKCETests {

  /// RFC 7636 Appendix B.
  @Test func appendixBVector() {
    let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    #expect(pkce?.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    #expect(pkce?.method == "S256")
    #expect(PKCE.s256Challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }

  /// 32 random bytes → 43 characters of `[A-Za-z0-9_-]` (VK's charset, pitfall 2.5.4).
  @Test func generatedVerifier() {
    var seen = Set<String>()
    for _ in 0..<64 {
      let pkce = PKCE()
      #expect(pkce.verifier.utf8.count == 43)
      #expect(
        pkce.verifier.utf8.allSatisfy {
          ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
        })
      #expect(pkce.challenge == PKCE.s256Challenge(for: pkce.verifier))
      #expect(pkce.challenge.utf8.count == 43)
      seen.insert(pkce.verifier)
    }
    #expect(seen.count == 64)
  }

  @Test func verifierFromGenerator() {
    struct Fixed: RandomNumberGenerator {
      mutating func next() -> UInt64 { 0 }
    }
    var g = Fixed()
    #expect(PKCE(generator: &g).verifier == String(repeating: "A", count: 43))
  }

  @Test func verifierValidation() {
    #expect(PKCE(verifier: String(repeating: "a", count: 42)) == nil)
    #expect(PKCE(verifier: String(repeating: "a", count: 43)) != nil)
    #expect(PKCE(verifier: String(repeating: "a", count: 128)) != nil)
    #expect(PKCE(verifier: String(repeating: "a", count: 129)) == nil)
    #expect(PKCE(verifier: String(repeating: "a", count: 42) + "+") == nil)
    #expect(PKCE(verifier: String(repeating: "a", count: 40) + "-._~") != nil)
  }

  @Test func base64URL() {
    #expect(Base64URL.encode([]) == "")
    #expect(Base64URL.encode([0xFB]) == "-w")
    #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    #expect(Base64URL.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw")
    #expect(Base64URL.decode("YW55IGNhcm5hbCBwbGVhcw==") == Array("any carnal pleas".utf8))
    #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    #expect(Base64URL.decode("a b") == nil)
  }
}

@Suite struct AuthorizationRequestTests {
  static let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!

  @Test func sberAppAndWeb() throws {
    let request = SberIDAuthorizationRequest(
      clientID: "0A1B2C3D-EEA3-D4EC-C535-A12A618A4C3C", redirectURI: "partner://partner.host/auth?x=1&y=2",
      state: "UhdlDQS6vG4m", nonce: "TGfhfBxr5ak1", scope: ["name", "openid", "phones", "email"], pkce: Self.pkce)
    let app = try ParsedURL(request.appURL())
    #expect(app.scheme == "sberbankidexternallogin")
    #expect(app.host == "sberbankid")
    let q = app.queryParameters
    #expect(q.map { $0.name() } == ["client_id", "state", "nonce", "scope", "redirect_uri", "code_challenge", "code_challenge_method"])
    #expect(!q.contains(named: "response_type"))
    #expect(q.value(for: "scope") == "openid name phones email")
    #expect(q.value(for: "redirect_uri") == "partner://partner.host/auth?x=1&y=2")
    #expect(q.value(for: "code_challenge") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    let web = try ParsedURL(request.webURL())
    #expect(web.href.hasPrefix("https://online.sberbank.ru/CSAFront/oidc/authorize.do?client_id="))
    #expect(web.queryParameters.value(for: "response_type") == "code")
    var plain = request
    plain.pkce = nil
    plain.scope = ["email"]
    let noPKCE = try ParsedURL(plain.webURL(base: "https://id.sber.ru/CSAFront/oidc/authorize.do")).queryParameters
    #expect(!noPKCE.contains(named: "code_challenge") && !noPKCE.contains(named: "code_challenge_method"))
    #expect(noPKCE.value(for: "scope") == "openid email")
  }

  @Test func sberSeamless() throws {
    let request = SberIDAuthorizationRequest(clientID: "c", redirectURI: "https://domclick.ru/cb", state: "s", nonce: "n")
    let link = try SberSeamlessLogin(params("https://domclick.ru?sberIDRedirect=sberbankidlogin://sberbankidsso&token=t-1"))
    let url = try ParsedURL(request.seamlessURL(link))
    #expect(url.href.hasPrefix("sberbankidlogin://sberbankidsso?client_id=c&"))
    #expect(url.queryParameters.value(for: "token") == "t-1")
    #expect(url.queryParameters.value(for: "response_type") == "code")
    let base = try ParsedURL(appendQuery("https://id.sber.ru/a?z=1", [("b", "2")]))
    #expect(base.query == "z=1&b=2")
  }

  @Test func vk() throws {
    let request = VKIDAuthorizationRequest(
      clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "s", pkce: Self.pkce,
      scope: ["vkid.personal_info", "email"])
    let url = try ParsedURL(request.url)
    #expect(url.host == "id.vk.ru")
    let q = url.queryParameters
    #expect(q.value(for: "redirect_uri") == "vk7915193://vk.ru/blank.html")
    #expect(q.value(for: "code_challenge_method") == "S256")
    #expect(q.value(for: "scope") == "vkid.personal_info email")
    #expect(q.value(for: "response_type") == "code")
    // The guide's recommendation, by default; `prompt: []` sends none.
    #expect(q.value(for: "prompt") == "login")
    var noPrompt = request
    noPrompt.prompt = []
    #expect(try ParsedURL(noPrompt.url).queryParameters.value(for: "prompt") == nil)
    let start = try LoginStart.vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk").makeAuthorization()
    #expect(try ParsedURL(start.authorizeURL).queryParameters.value(for: "prompt") == "login")
    #expect(url.query?.contains("redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html") == true)
    var s256 = request
    s256.codeChallengeMethod = "s256"
    #expect(try ParsedURL(s256.url).queryParameters.value(for: "code_challenge_method") == "s256")
  }
}

@Suite struct ProviderDetectorTests {
  @Test(arguments: [
    ("vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d", Provider.vk),
    ("vk7915193://?error=access_denied", .vk),
    ("https://your.site/auth/vk?code=vk2.a.Zk3&type=code_v2&state=X&device_id=D", .vk),
    ("vk523633://vk.com/blank.html?payload=%7B%7D", .vk),
    ("partner://partner.host/auth?&sberIDRedirect=sberbankidlogin%3A%2F%2Fsberbankidsso", .sber),
    ("https://domclick.ru?sberIdRedirect=x&code=c", .sber),
    ("myapp://sberidauth?status=fail&error=invalid_scope&state=s", .sber),
    ("app://merchant_app/?result=FAILURE&error_code=5", .sber),
    ("myapp://authorized?cancelled", .tid),
    ("myapp://authorized?unavailable", .tid),
    ("https://www.partner.com/partner?auth_status_code=success&code=c", .tid),
    ("myapp://authorized?result=failure", .tid),
    ("https://example.com/cb?error=user_cancelled_authorize&state=s", .apple),
    ("https://example.com/cb?code=c&id_token=a.e30.b&user=%7B%7D", .apple),
    ("signinwithapple://callback?code=c", .apple),
    ("https://example.com/cb#state=s&code=c&id_token=a.e30.b&user=%7B%7D", .apple),
    ("https://client.example/cb?code=c&state=s&iss=x", .oauth2),
    ("https://client.example/cb?error=login_required", .oauth2),
    ("myapp://sberidauth?status=success&state=s&code=c", .sber),
    ("https://myintegration.ru/auth/complete?state=A&code=c&session_state=x", .oauth2),
  ])
  func rules(url: String, expected: Provider) throws {
    let parsed = try ParsedURL(url)
    #expect(ProviderDetector.detect(url: parsed, parameters: ProviderDetector.callbackParameters(of: parsed)) == expected)
  }

  @Test(arguments: ["https://example.com/", "myapp://x?foo=bar", "tinkoffid://some_unknown_param=foobar", "vkontakte://x?state=s"])
  func nothingToDecode(url: String) throws {
    let parsed = try ParsedURL(url)
    #expect(ProviderDetector.detect(url: parsed, parameters: parsed.queryParameters) == nil)
  }

  @Test func parameterSource() throws {
    let both = try ParsedURL("https://e/cb?code=q#code=f")
    #expect(ProviderDetector.callbackParameters(of: both).value(for: "code") == "q")
    let fragmentOnly = try ParsedURL("https://e/cb?from=x#code=f")
    #expect(ProviderDetector.callbackParameters(of: fragmentOnly).value(for: "code") == "f")
    let neither = try ParsedURL("https://e/cb?a=1#b=2")
    #expect(ProviderDetector.callbackParameters(of: neither).value(for: "a") == "1")
    func isVKScheme(_ scheme: String) -> Bool {
      var scheme = scheme
      return scheme.withUTF8 { ProviderDetector.isVKScheme($0) }
    }
    #expect(isVKScheme("vk1"))
    #expect(!isVKScheme("vk"))
    #expect(!isVKScheme("vk1a"))
    #expect(!isVKScheme("vkontakte"))
  }
}

@Suite struct CallbackErrorTests {
  static let codes: [CallbackError.Code] = [
    .redirectMismatch, .duplicateParameter, .stateMismatch, .issuerMismatch, .expired, .replayed, .notPending,
    .ambiguousAuthorization, .missingParameter, .malformedParameter, .conflictingOutcome, .unrecognizedCallback,
    .untrustedSSOHost,
  ]

  @Test func stableKebabCaseCodes() {
    #expect(
      Self.codes.map(\.rawValue) == [
        "redirect-mismatch", "duplicate-parameter", "state-mismatch", "issuer-mismatch", "expired", "replayed",
        "not-pending", "ambiguous-authorization", "missing-parameter", "malformed-parameter", "conflicting-outcome",
        "unrecognized-callback", "untrusted-sso-host",
      ])
  }

  @Test func everyErrorHasEnglishAndRussianText() {
    var english = Set<String>()
    var russian = Set<String>()
    for code in Self.codes {
      let error = CallbackError(code, parameter: "state", found: "x")
      #expect(!error.descriptionEN.contains("(\(code.rawValue))"), "\(code): generic text")
      #expect(!error.descriptionRU.contains("(\(code.rawValue))"), "\(code): generic text")
      #expect(error.descriptionRU.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) }, "\(code)")
      english.insert(error.descriptionEN)
      russian.insert(error.descriptionRU)
      #expect(error.description.hasPrefix(code.rawValue))
    }
    #expect(english.count == Self.codes.count)
    #expect(russian.count == Self.codes.count)
  }

  @Test func textNamesParameterAndFinding() {
    let error = CallbackError(.duplicateParameter, parameter: "device_id")
    #expect(error.descriptionEN.contains("device_id"))
    #expect(error.descriptionRU.contains("device_id"))
    let host = CallbackError(.untrustedSSOHost, parameter: "sberIDRedirect", found: "https://evil.example")
    #expect(host.descriptionRU.contains("https://evil.example"))
  }

  @Test func providerErrorsHaveBothLanguages() throws {
    let unknown = OAuthErrorCode(rawValue: "limit_exceeded")
    #expect(unknown.descriptionEN.contains("limit_exceeded"))
    #expect(unknown.descriptionRU.contains("limit_exceeded"))
    let callback = try ProviderCallback(provider: .vk, parameters: FormParameters("error=access_denied&state=s"))
    #expect(callback.providerError?.descriptionRU == OAuthErrorCode.accessDenied.descriptionRU)
  }
}
