import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders

@Suite struct SberIDTests {

  // MARK: Callback (providers.md §1.4 examples)

  @Test func iOSAppSuccess() throws {
    let result = try SberIDCallback(
      params("myapp://sberidauth?status=success&state=Qk7x2LmN9pRtVw3a&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F"))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.code == "FA2154AC-3451-C01A-B2D3-C231DBB2E20F")
    #expect(s.state == "Qk7x2LmN9pRtVw3a")
    #expect(s.status == "success")
  }

  /// Pitfall 1.5.1: all three error encodings.
  @Test func iOSAppError() throws {
    let result = try SberIDCallback(params("myapp://sberidauth?status=fail&error=invalid_scope&state=Qk7x2LmN9pRtVw3a"))
    guard case .failure(let f) = result else { Issue.record("\(result)"); return }
    #expect(f.encoding == .iOSApp)
    #expect(f.error?.code == .invalidScope)
    #expect(f.error?.code.isKnown == true)
    #expect(f.state == "Qk7x2LmN9pRtVw3a")
    #expect(f.rawCode == "invalid_scope")
  }

  @Test func androidAppError() throws {
    let result = try SberIDCallback(params("app://merchant_app/?result=FAILURE&error_code=5"))
    guard case .failure(let f) = result else { Issue.record("\(result)"); return }
    #expect(f.encoding == .androidApp)
    #expect(f.errorCode == "5")
    #expect(f.error == nil)
    #expect(f.status == "FAILURE")
    #expect(f.rawCode == "5")
    #expect(f.descriptionRU.contains("error_code 5"))
  }

  @Test func webError() throws {
    let result = try SberIDCallback(params("https://clientresource.ru/cb?error=access_denied&state=af0ifjsldkj"))
    guard case .failure(let f) = result else { Issue.record("\(result)"); return }
    #expect(f.encoding == .web)
    #expect(f.error?.code == .accessDenied)
    #expect(f.state == "af0ifjsldkj")
  }

  @Test func statusFailWithoutError() throws {
    let result = try SberIDCallback(params("myapp://sberidauth?status=fail&state=s"))
    guard case .failure(let f) = result else { Issue.record("\(result)"); return }
    #expect(f.encoding == .iOSApp)
    #expect(f.rawCode == "fail")
  }

  @Test(arguments: ["invalid_request", "unauthorized_client", "unsupported_response_type", "invalid_scope", "access_denied"])
  func knownErrorsAreTyped(code: String) throws {
    guard case .failure(let f) = try SberIDCallback(params("https://a.ru/cb?error=\(code)&state=s")) else {
      Issue.record("not a failure"); return
    }
    #expect(f.error?.code.isKnown == true)
    #expect(f.error?.code.rawValue == code)
    #expect(f.descriptionEN != f.descriptionRU)
  }

  @Test func unknownErrorIsKeptRaw() throws {
    guard case .failure(let f) = try SberIDCallback(params("https://a.ru/cb?error=bank_is_closed&state=s")) else {
      Issue.record("not a failure"); return
    }
    #expect(f.error?.code.rawValue == "bank_is_closed")
    #expect(f.error?.code.isKnown == false)
    #expect(f.descriptionEN.contains("bank_is_closed"))
    #expect(f.descriptionRU.contains("bank_is_closed"))
  }

  /// Pitfall 1.5.2: the server's error is never replaced by a synthetic `internal_error`, even without `code`.
  @Test func serverErrorIsNotOverwritten() throws {
    let callback = try ProviderCallback(
      provider: .sber, parameters: params("myapp://sberidauth?status=fail&error=invalid_request&state=ok"))
    #expect(callback.outcome == .error)
    #expect(callback.providerError?.code.rawValue == "invalid_request")
  }

  /// Pitfall 1.5.12: `error=null` and an empty `error=` count as absent.
  @Test(arguments: ["error=null&", "error=&", "error&", ""])
  func nullErrorIsAbsent(prefix: String) throws {
    let result = try SberIDCallback(params("myapp://sberidauth?\(prefix)state=s&code=C"))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.code == "C")
  }

  /// Pitfall 1.5.11: partner pass-through parameters come back as extras.
  @Test func passThroughExtras() throws {
    let result = try SberIDCallback(
      params(
        "https://clientresource.ru/cb?utm_source=sbol&option1=promo42&state=af0ifjsldkj&code=D1C2B3A4-0000-4F5E-8A9B-112233445566&other=x"
      ))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.extras == ["utm_source": "sbol", "option1": "promo42"])
  }

  /// Pitfall 1.5.6: duplicated `state` / `code` / `error` are rejected, not first- or last-wins.
  @Test(arguments: ["state=1&state=2&code=c", "state=1&code=a&code=b", "error=x&error=y&state=s"])
  func duplicatesAreRejected(query: String) throws {
    let error = thrown { try SberIDCallback(params("myapp://sberidauth?\(query)")) }
    #expect(error?.code == .duplicateParameter)
    #expect(error?.parameter != nil)
  }

  /// Pitfall 1.5.7: `+` in free text is a space; percent-escapes are decoded once.
  @Test func plusIsSpaceInErrorDescription() throws {
    guard case .failure(let f) = try SberIDCallback(params("https://a.ru/cb?error=access_denied&error_description=User+said+no%2B&state=s"))
    else { Issue.record("not a failure"); return }
    #expect(f.error?.errorDescription == "User said no+")
  }

  /// Pitfall 1.5.8: a value containing `=` (base64 padding) is not truncated.
  @Test func valueWithEqualsSignIsKept() throws {
    guard case .success(let s) = try SberIDCallback(params("myapp://sberidauth?state=YWJj==&code=Q0RF=")) else {
      Issue.record("not a success"); return
    }
    #expect(s.code == "Q0RF=")
    #expect(s.state == "YWJj==")
  }

  @Test func missingCodeIsMissingParameter() throws {
    #expect(rejection { try SberIDCallback(params("myapp://sberidauth?state=s&code=")) } == .missingParameter)
    #expect(rejection { try SberIDCallback(params("myapp://sberidauth?status=success&state=s")) } == .missingParameter)
  }

  // MARK: Seamless login (§1.1.3, pitfalls 3–5, §1.6)

  /// Pitfall 1.5.5: the vendor's own `?&` example yields an empty item, which is ignored.
  @Test func documentedSeamlessLink() throws {
    let link = try SberSeamlessLogin(params("partner://partner.host/auth?&sberIDRedirect=sberbankidlogin%3A%2F%2Fsberbankidsso"))
    #expect(link.baseURL == "sberbankidlogin://sberbankidsso")
    #expect(link.token == nil)
  }

  @Test func webSeamlessLinkWithToken() throws {
    let link = try SberSeamlessLogin(
      params("https://domclick.ru?sberIDRedirect=sberbankidlogin://sberbankidsso&token=d027b83b-e081-45ea-9f33-b995b53352b9"))
    #expect(link.baseURL == "sberbankidlogin://sberbankidsso")
    #expect(link.token == "d027b83b-e081-45ea-9f33-b995b53352b9")
  }

  /// Pitfall 1.5.3: the key matches case-insensitively.
  @Test(arguments: ["sberIDRedirect", "sberIdRedirect", "SBERIDREDIRECT", "sberidredirect"])
  func keyIsCaseInsensitive(key: String) throws {
    let link = try SberSeamlessLogin(params("partner://h/auth?\(key)=sbolidlogin%3A%2F%2Fsberbankidsso"))
    #expect(link.baseURL == "sbolidlogin://sberbankidsso")
    #expect(SberSeamlessLogin.isSeamlessLogin(try params("partner://h/auth?\(key)=x")))
  }

  /// Pitfall 1.5.4: decode once, a second time only for a still-encoded `scheme%3A…`, never a third time.
  @Test func doubleEncodingIsDecodedTwiceAtMost() throws {
    let twice = try SberSeamlessLogin(params("partner://h?sberIDRedirect=sberbankidlogin%253A%252F%252Fsberbankidsso"))
    #expect(twice.baseURL == "sberbankidlogin://sberbankidsso")
    let thrice = thrown {
      try SberSeamlessLogin(params("partner://h?sberIDRedirect=sberbankidlogin%25253A%25252F%25252Fsberbankidsso"))
    }
    #expect(thrice?.code == .untrustedSSOHost)
    #expect(SberSeamlessLogin.isEncodedSchemePrefix("sberbankidlogin%3A%2F%2Fx"))
    #expect(SberSeamlessLogin.isEncodedSchemePrefix("a+b.c-d%3ax"))
    #expect(!SberSeamlessLogin.isEncodedSchemePrefix("sberbankidlogin%253A"))
    #expect(!SberSeamlessLogin.isEncodedSchemePrefix("%3Ax"))
    #expect(!SberSeamlessLogin.isEncodedSchemePrefix("sberbankidlogin://x%3Ay"))
  }

  /// The iOS SDK's own test: the embedded query is dropped.
  @Test func queryIsDropped() throws {
    let link = try SberSeamlessLogin(
      params("www://host.ru?key=abc&sberIDRedirect=sberbankonline%3A%2F%2Fsberid.ru%3FqueryParam%3DkeyValue"))
    #expect(link.baseURL == "sberbankonline://sberid.ru")
  }

  @Test func trustedHTTPSHosts() throws {
    let link = try SberSeamlessLogin(params("partner://h?sberIDRedirect=https%3A%2F%2Fid.sber.ru%2FCSAFront%2Foidc%2Fauthorize.do"))
    #expect(link.baseURL == "https://id.sber.ru/CSAFront/oidc/authorize.do")
    let online = try SberSeamlessLogin(params("partner://h?sberIDRedirect=https%3A%2F%2FONLINE.sberbank.ru"))
    #expect(online.baseURL == "https://online.sberbank.ru/")
  }

  /// §1.6: the base URL is attacker-controllable; anything off the allow-list is `untrusted-sso-host`.
  @Test(arguments: [
    ("https%3A%2F%2Fevil.example%2Fphish", "evil.example"),
    ("https%3A%2F%2Fid.sber.ru%40evil.example%2F", "userinfo"),
    ("https%3A%2F%2Fuser%40id.sber.ru%2F", "userinfo"),
    ("https%3A%2F%2Fid.sber.ru%3A8443%2F", "port"),
    ("https%3A%2F%2Fid.sber.ru%2F%23frag", "fragment"),
    ("http%3A%2F%2Fid.sber.ru%2F", "http://id.sber.ru"),
    ("https%3A%2F%2Fid.sber.ru.evil.example%2F", "id.sber.ru.evil.example"),
    ("javascript%3Aalert(1)", "without a host"),
    ("sberbankidlogin%3A%2F%2Fh%3A99", "port"),
    ("evilapp%3A%2F%2Fsberbankidsso", "evilapp://sberbankidsso"),
    ("https%3A%2F%2Frambler.ru", "rambler.ru"),
  ])
  func untrustedBaseURLs(value: String, named: String) throws {
    let error = thrown { try SberSeamlessLogin(params("partner://h/auth?sberIDRedirect=\(value)")) }
    #expect(error?.code == .untrustedSSOHost)
    #expect(error?.found?.contains(named) == true, "\(error?.found ?? "nil")")
    #expect(error?.descriptionEN.contains(named) == true)
  }

  @Test func policyIsConfigurable() throws {
    let query = "partner://h?sberIDRedirect=newsberapp%3A%2F%2Fsso"
    #expect(rejection { try SberSeamlessLogin(params(query)) } == .untrustedSSOHost)
    var policy = SberSSOTrustPolicy.default
    policy.allowedSchemes.insert("newsberapp")
    #expect(try SberSeamlessLogin(params(query), policy: policy).baseURL == "newsberapp://sso")
    let ift = "partner://h?sberIDRedirect=https%3A%2F%2Fid-ift.sber.ru%2F"
    #expect(rejection { try SberSeamlessLogin(params(ift)) } == .untrustedSSOHost)
    #expect(try SberSeamlessLogin(params(ift), policy: .testStands).baseURL == "https://id-ift.sber.ru/")
    let strict = SberSSOTrustPolicy(allowedSchemes: [], allowedHTTPSHosts: ["ID.SBER.RU"])
    #expect(rejection { try SberSeamlessLogin(params("p://h?sberIDRedirect=sberbankidlogin://x"), policy: strict) } == .untrustedSSOHost)
    #expect(try SberSeamlessLogin(params("p://h?sberIDRedirect=https://id.sber.ru"), policy: strict).baseURL == "https://id.sber.ru/")
  }

  @Test func seamlessMissingOrDuplicated() throws {
    #expect(rejection { try SberSeamlessLogin(params("p://h?sberIDRedirect=")) } == .missingParameter)
    #expect(rejection { try SberSeamlessLogin(params("p://h?x=1")) } == .missingParameter)
    #expect(
      rejection { try SberSeamlessLogin(params("p://h?sberIDRedirect=sbolidlogin://a&sberIdRedirect=https://evil.example")) }
        == .duplicateParameter)
    #expect(
      rejection { try SberSeamlessLogin(params("p://h?sberIDRedirect=sbolidlogin://a&token=1&token=2")) } == .duplicateParameter)
  }

  @Test func seamlessThroughProviderCallback() throws {
    let callback = try ProviderCallback(provider: .sber, parameters: params("partner://h?sberIDRedirect=sbolidlogin%3A%2F%2Fsso&token=t"))
    #expect(callback.outcome == .seamless)
    #expect(callback.values.map(\.name) == ["sso_base_url", "token"])
  }
}
