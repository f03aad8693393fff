import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders

@Suite struct VKIDTests {

  @Test func browserFlowSuccess() throws {
    let result = try VKIDCallback(
      params(
        "vk7915193://vk.ru/blank.html?oauth2_params=eyJzY29wZSI6InZraWQucGVyc29uYWxfaW5mbyJ9&code=vk2.a.FmLgF_q1Zx-AbCdEf&state=3F2504E0-4F89-11D3-9A0C-0305E82C3301&device_id=Dv4kQ9-encrypted-id&type=code_v2&expires_in=600&v=2.9.4&ext_id=e1"
      ))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.code == "vk2.a.FmLgF_q1Zx-AbCdEf")
    #expect(s.state == "3F2504E0-4F89-11D3-9A0C-0305E82C3301")
    #expect(s.deviceID == "Dv4kQ9-encrypted-id")
    #expect(s.type == "code_v2")
    #expect(s.expiresIn == 600)
    #expect(s.expiresInRaw == "600")
    #expect(s.extID == "e1")
    #expect(!s.isReturnFromVKApp)
  }

  @Test func returnFromVKApp() throws {
    let result = try VKIDCallback(
      params(
        "vk7915193://?code=vk2.a.Q8n_Wt0pL&device_id=Dv4kQ9-encrypted-id&state=abracadabra&type=code_v2&vkconnect_auth_provider_method=external_auth"
      ))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.isReturnFromVKApp)
    #expect(s.code == "vk2.a.Q8n_Wt0pL")
    #expect(
      rejection { try VKIDCallback(params("vk1://?code=c&device_id=d&state=s&vkconnect_auth_provider_method=other")) }
        == .malformedParameter)
  }

  @Test func webRedirectSuccess() throws {
    let result = try VKIDCallback(
      params("https://your.site/auth/vk?from=header&code=vk2.a.Zk3&type=code_v2&state=XXXRandomZZZ&device_id=Dv4kQ9&expires_in=600"))
    #expect(result.state == "XXXRandomZZZ")
    #expect(rejection { try VKIDCallback(params("https://s/cb?code=c&state=s&device_id=d&type=code_v1")) } == .malformedParameter)
  }

  /// `expires_in`, when present, is 1 to 10 decimal digits as sent; anything else rejects the callback. An
  /// empty or bare `expires_in` counts as absent.
  @Test(arguments: ["abc", "-1", "%2B1", "+1", "1e3", "1.5", "12345678901", "6%30", "0x10", "60%200"])
  func invalidExpiresInIsRejected(value: String) throws {
    let error = thrown {
      try VKIDCallback(params("vk1://vk.ru/blank.html?code=c&state=s&device_id=d&expires_in=\(value)"))
    }
    #expect(error?.code == .malformedParameter, "\(value)")
    #expect(error?.parameter == "expires_in", "\(value)")
    #expect(error?.found == FormParameters.decode(value[...]), "\(value)")
    let auto = try #require(
      ProviderDetector.decode(url: ParsedURL("vk1://vk.ru/blank.html?code=c&state=s&device_id=d&expires_in=\(value)")))
    #expect((try? auto.result.get()) == nil, "\(value)")
  }

  @Test(arguments: [("600", 600), ("0", 0), ("9999999999", 9_999_999_999), ("0600", 600)])
  func validExpiresIn(value: String, seconds: Int) throws {
    let result = try VKIDCallback(params("vk1://vk.ru/blank.html?code=c&state=s&device_id=d&expires_in=\(value)"))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.expiresIn == seconds)
    #expect(s.expiresInRaw == Substring(value))
  }

  @Test(arguments: ["&expires_in=", "&expires_in", ""])
  func emptyOrBareExpiresInIsAbsent(suffix: String) throws {
    let result = try VKIDCallback(params("vk1://vk.ru/blank.html?code=c&state=s&device_id=d\(suffix)"))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.expiresIn == nil)
    #expect(s.expiresInRaw == nil)
  }

  /// Pitfall 2.5.5: `device_id` is mandatory; so are `code` and `state`.
  @Test(arguments: [
    ("code=c&state=s", "device_id"), ("code=c&state=s&device_id=", "device_id"), ("state=s&device_id=d", "code"),
    ("code=c&device_id=d", "state"),
  ])
  func successNeedsCodeStateAndDeviceID(query: String, missing: String) throws {
    let error = thrown { try VKIDCallback(params("vk1://vk.ru/blank.html?\(query)")) }
    #expect(error?.code == .missingParameter)
    #expect(error?.parameter == missing)
  }

  @Test func errorIsTyped() throws {
    let result = try VKIDCallback(
      params("vk7915193://vk.ru/blank.html?error=access_denied&error_description=User%20denied%20access&state=abracadabra"))
    guard case .failure(let error, let state) = result else { Issue.record("\(result)"); return }
    #expect(error.code == .accessDenied)
    #expect(error.errorDescription == "User denied access")
    #expect(state == "abracadabra")
  }

  /// Pitfall 2.5.7: the legacy `payload` JSON is decoded; empty or invalid is an error.
  @Test func legacyPayload() throws {
    let result = try VKIDCallback(
      params(
        "vk523633://vk.com/blank.html?payload=%7B%22oauth%22%3A%7B%22code%22%3A%22c1%22%2C%22state%22%3A%22s1%22%7D%2C%22user%22%3A%7B%22id%22%3A1%2C%22first_name%22%3A%22Ivan%22%2C%22last_name%22%3A%22P%22%7D%7D"
      ))
    guard case .legacy(let payload) = result else { Issue.record("\(result)"); return }
    #expect(payload.code == "c1")
    #expect(payload.state == "s1")
    #expect(payload.user?.id == 1)
    #expect(payload.user?.firstName == "Ivan")
    #expect(payload.user?.lastName == "P")
    #expect(ProviderCallback.vk(result).outcome == .success)
  }

  @Test(arguments: ["payload=", "payload", "payload=%7Bnot+json", "payload=%5B1%5D", "payload=%7B%22oauth%22%3A%7B%7D%7D"])
  func badLegacyPayload(query: String) throws {
    let code = rejection { try VKIDCallback(params("vk1://vk.com/blank.html?\(query)")) }
    #expect(code == .malformedParameter || code == .missingParameter)
  }

  /// Pitfall 2.5.2: duplicates are rejected (the SDKs take the first).
  @Test(arguments: ["code=a&code=b&state=s&device_id=d", "code=a&state=s&device_id=d&device_id=e"])
  func duplicatesAreRejected(query: String) throws {
    #expect(rejection { try VKIDCallback(params("vk1://vk.ru/blank.html?\(query)")) } == .duplicateParameter)
  }

  /// Pitfall 2.5.1: host drift (`vk.ru`, `vk.com`, none) is accepted for `vk<client_id>://`, nothing else.
  @Test func hostDrift() throws {
    let pending = PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk7915193://vk.ru/blank.html"), state: "s")
    for url in ["vk7915193://vk.ru/blank.html?x", "vk7915193://vk.com/blank.html", "vk7915193://?code=c", "VK7915193://vk.com/blank.html"] {
      #expect(pending.matchesRedirect(try ParsedURL(url)), "\(url)")
    }
    for url in [
      "vk7915193://evil.ru/blank.html", "vk7915194://vk.ru/blank.html", "vk7915193://vk.ru/other.html",
      "vk7915193://vk.ru.evil/blank.html", "vk7915193://vk.ru:1/blank.html", "https://vk.ru/blank.html",
    ] {
      #expect(!pending.matchesRedirect(try ParsedURL(url)), "\(url)")
    }
    // Without the VK relaxation (another provider), the host must match exactly.
    let other = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("vk7915193://vk.ru/blank.html"), state: "s")
    #expect(!other.matchesRedirect(try ParsedURL("vk7915193://vk.com/blank.html")))
    // A redirect URI whose host VK never sends is not matched by itself either (the byte-equal fast path
    // answers what the rules answer for the URI itself).
    let foreign = PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk7915193://example.ru/blank.html"), state: "s")
    for url in ["vk7915193://example.ru/blank.html", "vk7915193://example.ru/blank.html?code=c#x"] {
      #expect(!foreign.matchesRedirect(try ParsedURL(url)), "\(url)")
    }
    #expect(foreign.matchesRedirect(try ParsedURL("vk7915193://vk.ru/blank.html?code=c")))
  }
}

@Suite struct TIDTests {

  @Test func iOSGrammar() throws {
    #expect(try TIDCallback(params("tinkoffid://?code=some_code")) == .success(TIDSuccess(code: "some_code")))
    #expect(try TIDCallback(params("myapp://authorized?code=c.9fQ2mZtR1x")) == .success(TIDSuccess(code: "c.9fQ2mZtR1x")))
  }

  /// Pitfall 3.5.1: bare flags (no `=`) are outcomes; a value, if any, is ignored.
  @Test func bareFlags() throws {
    #expect(try TIDCallback(params("myapp://authorized?cancelled")) == .cancelled)
    #expect(try TIDCallback(params("myapp://authorized?unavailable")) == .unavailable)
    #expect(try TIDCallback(params("tinkoffid://?cancelled=1")) == .cancelled)
    #expect(ProviderCallback.tid(.unavailable).outcome == .unavailable)
    #expect(ProviderCallback.tid(.cancelled).outcome == .cancelled)
  }

  @Test func androidGrammar() throws {
    #expect(
      try TIDCallback(params("https://www.partner.com/partner?auth_status_code=success&code=c.9fQ2mZtR1x"))
        == .success(TIDSuccess(code: "c.9fQ2mZtR1x")))
    #expect(try TIDCallback(params("https://www.partner.com/partner?auth_status_code=cancelled_by_user")) == .cancelled)
    #expect(rejection { try TIDCallback(params("https://p/p?auth_status_code=success")) } == .missingParameter)
    #expect(rejection { try TIDCallback(params("https://p/p?auth_status_code=weird")) } == .malformedParameter)
  }

  @Test func debugAppGrammar() throws {
    #expect(try TIDCallback(params("myapp://authorized?result=failure")) == .debugResult("failure"))
    #expect(try TIDCallback(params("myapp://authorized?result=cancelled")) == .cancelled)
    #expect(try TIDCallback(params("myapp://authorized?result=unavailable")) == .unavailable)
    #expect(try TIDCallback(params("myapp://authorized?result=success")) == .debugResult("success"))
    #expect(ProviderCallback.tid(.debugResult("success")).outcome == .debugSuccess)
    #expect(ProviderCallback.tid(.debugResult("failure")).outcome == .error)
    #expect(ProviderCallback.tid(.debugResult("failure")).providerError?.code.rawValue == "failure")
    #expect(rejection { try TIDCallback(params("myapp://authorized?result=FAILURE")) } == .malformedParameter)
  }

  @Test func webGrammar() throws {
    let result = try TIDCallback(
      params(
        "https://myintegration.ru/auth/complete?state=ABCxyz&code=c.1aGiAXX3Ni&session_state=hXXXXXXY3kgs3nx0H3RTj3JzCSrdaqaDhU6lS8XXXXX.i4kl6dsEB1SQogzq0Nj0"
      ))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.state == "ABCxyz")
    #expect(s.sessionState == "hXXXXXXY3kgs3nx0H3RTj3JzCSrdaqaDhU6lS8XXXXX.i4kl6dsEB1SQogzq0Nj0")
    #expect(ProviderCallback.tid(result).values.map(\.name) == ["code", "state", "session_state"])
  }

  /// Pitfall 3.5.2: more than one outcome is `conflicting-outcome`, never a random pick.
  @Test(arguments: [
    "cancelled&unavailable", "unavailable&cancelled", "cancelled&code=x", "code=x&unavailable",
    "auth_status_code=cancelled_by_user&code=x", "result=failure&code=x", "cancelled&result=unavailable",
    "cancelled&code=",
  ])
  func conflictingOutcomes(query: String) throws {
    let error = thrown { try TIDCallback(params("myapp://authorized?\(query)")) }
    #expect(error?.code == .conflictingOutcome)
    #expect(error?.found?.contains("+") == true)
  }

  @Test func agreeingSignalsAreOneOutcome() throws {
    #expect(try TIDCallback(params("myapp://a?auth_status_code=cancelled_by_user&cancelled")) == .cancelled)
  }

  /// Pitfall 3.5.3: an empty `code=` is `missing-parameter` (the SDK silently ignores it).
  @Test func emptyCodeIsMissingParameter() throws {
    let error = thrown { try TIDCallback(params("tinkoffid://?code=")) }
    #expect(error?.code == .missingParameter)
    #expect(error?.parameter == "code")
    #expect(rejection { try TIDCallback(params("tinkoffid://?code")) } == .missingParameter)
  }

  @Test func unknownCallback() throws {
    #expect(rejection { try TIDCallback(params("tinkoffid://some_unknown_param=foobar")) } == .unrecognizedCallback)
    #expect(rejection { try TIDCallback(params("myapp://authorized?x=1")) } == .unrecognizedCallback)
  }

  /// Pitfall 3.5.4: exact scheme/host/path matching, not string prefix matching.
  @Test func noPrefixMatching() throws {
    let pending = PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://auth"), state: nil)
    #expect(rejection { try pending.validate(ParsedURL("myapp://authorized-other?code=c")) } == .redirectMismatch)
    #expect(rejection { try pending.validate(ParsedURL("myapp://auth/x?code=c")) } == .redirectMismatch)
    #expect(rejection { try pending.validate(ParsedURL("myapp://Auth?code=c")) } == .redirectMismatch)
    #expect(try pending.validate(ParsedURL("MYAPP://auth?code=c")).code == "c")
  }

  /// Pitfalls 3.5.5–3.5.8: the request and the token body are form-encoded; PKCE is S256.
  @Test func requestAndTokenBodyAreFormEncoded() throws {
    let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!
    let request = TIDAuthorizationRequest(clientID: "partner id", callbackURL: "myapp://authorized?from=a&b=c+d%", pkce: pkce)
    let url = try ParsedURL(request.url)
    #expect(url.href.hasPrefix("https://tinkoff.ru/partner_auth?clientId=partner+id&codeChallenge="))
    let q = url.queryParameters
    #expect(q.map { $0.name() } == ["clientId", "codeChallenge", "codeChallengeMethod", "callbackUrl"])
    #expect(q.value(for: "callbackUrl") == "myapp://authorized?from=a&b=c+d%")
    #expect(q.value(for: "codeChallenge") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    #expect(q.value(for: "codeChallengeMethod") == "S256")
    let body = FormParameters(request.tokenRequestBody(code: "c.9f&x=1+%"))
    #expect(body.value(for: "code") == "c.9f&x=1+%")
    #expect(body.value(for: "grant_type") == "authorization_code")
    #expect(body.value(for: "code_verifier") == pkce.verifier)
    #expect(body.value(for: "redirect_uri") == "myapp://authorized?from=a&b=c+d%")
    #expect(FormParameters(request.tokenRequestBody(code: "c", redirectURI: "mobile://")).value(for: "redirect_uri") == "mobile://")
  }
}
