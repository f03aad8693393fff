import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders

/// Regression tests for the defects fixed on the `fixes` branch, one suite per defect.
@Suite("Providers: T-ID debug success")
struct TIDDebugSuccessTests {
  /// `result=success` from the T-ID debug app carries no code: its outcome is not `.success`.
  @Test func debugSuccessIsNotSuccess() throws {
    let url = try ParsedURL("myapp://authorized?result=success")
    guard let detected = ProviderDetector.decode(url: url), case let (provider, result) = (detected.provider, detected.result) else {
      Issue.record("not detected")
      return
    }
    #expect(provider == .tid)
    let callback = try result.get()
    #expect(callback.code == nil)
    #expect(callback.outcome == .debugSuccess)
    #expect(callback.outcome != .success)
    #expect(callback.outcome.rawValue == "debug-success")
    #expect(callback.providerError == nil)
    // A real code is still a success.
    #expect(try ProviderCallback(provider: .tid, parameters: FormParameters("code=c.1")).outcome == .success)
  }
}

@Suite("Providers: Sber detection and raw codes")
struct SberDetectionTests {
  @Test func statusSuccessDetectsSber() throws {
    for href in [
      "myapp://sberidauth?status=success&state=Qk7x2LmN9pRtVw3a&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F",
      "myapp://sberidauth?code=c&status=SUCCESS&state=s",
    ] {
      let url = try ParsedURL(href)
      #expect(ProviderDetector.detect(url: url, parameters: url.queryParameters) == .sber, "\(href)")
      guard let detected = ProviderDetector.decode(url: url), case let (provider, result) = (detected.provider, detected.result) else {
        Issue.record("not detected: \(href)")
        continue
      }
      #expect(provider == .sber)
      let callback = try result.get()
      #expect(callback.outcome == .success)
      guard case .sber(.success(let s)) = callback else {
        Issue.record("\(callback)")
        continue
      }
      #expect(s.status?.lowercased() == "success")
    }
    // Another status value is not Sber's.
    let other = try ParsedURL("https://client.example/cb?status=ok&code=c")
    #expect(ProviderDetector.detect(url: other, parameters: other.queryParameters) == .oauth2)
  }

  @Test func androidErrorCodeIsTheProvidersValue() throws {
    let url = try ParsedURL("app://merchant_app/?result=FAILURE&error_code=5")
    let callback = try #require(ProviderDetector.decode(url: url)).result.get()
    #expect(callback.outcome == .error)
    #expect(callback.providerError?.code.rawValue == "5")
    guard case .sber(.failure(let f)) = callback else {
      Issue.record("\(callback)")
      return
    }
    #expect(f.rawCode == "5")
    #expect(f.errorCode == "5")
  }
}

@Suite("Providers: state-less Sber iOS errors and 'report both'")
struct SberStatelessErrorTests {
  static let pending = PendingAuthorization(
    provider: .sber, redirectURI: try! ParsedURL("myapp://sberidauth"), state: "Qk7x2LmN9pRtVw3a")

  @Test func iOSErrorWithoutStateKeepsTheProvidersError() throws {
    let callback = try Self.pending.validate(ParsedURL("myapp://sberidauth?status=fail&error=invalid_scope"))
    #expect(callback.outcome == .error)
    #expect(callback.providerError?.code.rawValue == "invalid_scope")
  }

  @Test func stateMismatchCarriesTheProvidersError() async throws {
    let error = thrown {
      try Self.pending.validate(ParsedURL("myapp://sberidauth?status=fail&error=access_denied&state=forged"))
    }
    #expect(error?.code == .stateMismatch)
    #expect(error?.providerError?.code == .accessDenied)
    #expect(error?.descriptionEN.contains("access_denied") == true)
    #expect(error?.descriptionRU.contains("access_denied") == true)
    // Any provider: an OAuth error with a wrong state reports both.
    let oauth = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://client.example/cb"), state: "s1")
    let both = thrown { try oauth.validate(ParsedURL("https://client.example/cb?error=login_required&state=s2")) }
    #expect(both?.code == .stateMismatch)
    #expect(both?.providerError?.code == .loginRequired)
    let none = thrown { try oauth.validate(ParsedURL("https://client.example/cb?error=login_required")) }
    #expect(none?.code == .stateMismatch && none?.found == nil && none?.providerError?.code == .loginRequired)
    // No provider error: nothing carried.
    let plain = thrown { try oauth.validate(ParsedURL("https://client.example/cb?code=c&state=s2")) }
    #expect(plain?.code == .stateMismatch && plain?.providerError == nil)
    // Through the store too.
    let store = PendingAuthorizationStore()
    try await store.insert(oauth)
    let viaStore = await asyncThrown { try (await store.consume(ParsedURL("https://client.example/cb?error=access_denied&state=s2"))).callback }
    #expect(viaStore?.code == .stateMismatch && viaStore?.providerError?.code == .accessDenied)
    // A Sber Android error with a wrong state: the provider's value is error_code's.
    let android = thrown { try Self.pending.validate(ParsedURL("myapp://sberidauth?result=FAILURE&error_code=5&state=x")) }
    #expect(android?.code == .stateMismatch && android?.providerError?.code.rawValue == "5")
  }

  /// A bare or empty `error_code` is no error grammar: a state-less success is not let through by it.
  @Test func emptyErrorCodeIsNoExemption() throws {
    #expect(rejection { try Self.pending.validate(ParsedURL("myapp://sberidauth?error_code&code=c")) } == .stateMismatch)
    #expect(rejection { try Self.pending.validate(ParsedURL("myapp://sberidauth?error_code=&code=c")) } == .stateMismatch)
  }
}

@Suite("Providers: security")
struct SecurityFixTests {
  /// 5a: a state-less forged error is reported but does not consume the real pending authorization.
  @Test(arguments: [
    "myapp://sberidauth?error_code=5", "myapp://sberidauth?result=FAILURE&error_code=5",
    "myapp://sberidauth?status=fail&error=access_denied",
  ])
  func forgedStatelessErrorDoesNotRetire(_ forged: String) async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(
      PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "Qk7x2LmN9pRtVw3a"))
    let reported = try (await store.consume(ParsedURL(forged))).callback
    #expect(reported.outcome == .error)
    #expect(store.count == 1)
    let genuine = try (await store.consume(ParsedURL("myapp://sberidauth?status=success&state=Qk7x2LmN9pRtVw3a&code=FA21"))).callback
    #expect(genuine.outcome == .success && genuine.code == "FA21")
    #expect(store.count == 0)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("myapp://sberidauth?state=Qk7x2LmN9pRtVw3a&code=FA21"))).callback } == .replayed)
  }

  static let legacy = #"{"oauth":{"code":"c1","state":"s1"},"user":{"id":1}}"#
  static func legacyURL(_ json: String = legacy, extra: String = "") -> String {
    "vk523633://vk.com/blank.html?payload=" + FormParameters.formEncode(json) + extra
  }
  static let vkPending = PendingAuthorization(
    provider: .vk, redirectURI: try! ParsedURL("vk523633://vk.com/blank.html"), state: "s1")

  /// 5b: the legacy payload's state is the state checked, and a conflicting top-level state or code is rejected.
  @Test func legacyPayloadIsBoundByItsState() async throws {
    let callback = try Self.vkPending.validate(ParsedURL(Self.legacyURL()))
    #expect(callback.outcome == .success && callback.code == "c1" && callback.state == "s1")
    // The payload's state differs from the pending one.
    let other = #"{"oauth":{"code":"c1","state":"evil"}}"#
    #expect(rejection { try Self.vkPending.validate(ParsedURL(Self.legacyURL(other))) } == .stateMismatch)
    // A payload without a state, when one is expected.
    let stateless = #"{"oauth":{"code":"c1"}}"#
    #expect(rejection { try Self.vkPending.validate(ParsedURL(Self.legacyURL(stateless))) } == .stateMismatch)
    // A top-level state that matches the pending one but not the payload's.
    #expect(
      rejection { try Self.vkPending.validate(ParsedURL(Self.legacyURL(other, extra: "&state=s1"))) }
        == .conflictingOutcome)
    // A top-level code that is not the payload's.
    #expect(
      rejection { try Self.vkPending.validate(ParsedURL(Self.legacyURL(extra: "&state=s1&code=c2"))) }
        == .conflictingOutcome)
    #expect(rejection { try VKIDCallback(params(Self.legacyURL(extra: "&code=c2"))) } == .conflictingOutcome)
    // The same values at the top level are fine.
    #expect(try Self.vkPending.validate(ParsedURL(Self.legacyURL(extra: "&state=s1&code=c1"))).code == "c1")
    // The store binds it by the payload's state, once.
    let store = PendingAuthorizationStore()
    try await store.insert(Self.vkPending)
    #expect(try (await store.consume(ParsedURL(Self.legacyURL()))).callback.code == "c1")
    #expect(await asyncRejection { try (await store.consume(ParsedURL(Self.legacyURL()))).callback } == .replayed)
  }

  /// 5c: `iss` is compared as a simple string: an NFD spelling of an NFC issuer is another issuer.
  @Test func issuerIsASimpleStringComparison() throws {
    let nfc = "https://as.example/t\u{E9}nant"
    let nfd = "https://as.example/te\u{301}nant"
    #expect(nfc == nfd)  // canonically equivalent for `String ==`
    let pending = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://client.example/cb"), state: "s", issuer: nfc)
    let good = "https://client.example/cb?code=c&state=s&iss=" + FormParameters.formEncode(nfc)
    #expect(try pending.validate(ParsedURL(good)).code == "c")
    let bad = "https://client.example/cb?code=c&state=s&iss=" + FormParameters.formEncode(nfd)
    #expect(rejection { try pending.validate(ParsedURL(bad)) } == .issuerMismatch)
    // Percent-encoded differently but decoding to the same bytes is the same issuer.
    let lower = "https://client.example/cb?code=c&state=s&iss=https%3a%2f%2fas.example%2ft%c3%a9nant"
    #expect(try pending.validate(ParsedURL(lower)).code == "c")
  }

  /// 5d: a state decoding to invalid UTF-8 does not equal a state holding U+FFFD.
  @Test func stateComparesExactBytes() async throws {
    let pending = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://client.example/cb"), state: "a\u{FFFD}b")
    #expect(rejection { try pending.validate(ParsedURL("https://client.example/cb?code=c&state=a%FFb")) } == .stateMismatch)
    #expect(try pending.validate(ParsedURL("https://client.example/cb?code=c&state=a%EF%BF%BDb")).code == "c")
    let store = PendingAuthorizationStore()
    try await store.insert(pending)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://client.example/cb?code=c&state=a%FFb"))).callback } == .stateMismatch)
    #expect(store.count == 1)
    #expect(try (await store.consume(ParsedURL("https://client.example/cb?code=c&state=a%EF%BF%BDb"))).callback.code == "c")
  }

  /// 5e: entries inserted into a trust policy after init are normalized as init normalizes them.
  @Test func trustPolicyNormalizesLaterEntries() throws {
    var policy = SberSSOTrustPolicy(allowedSchemes: [], allowedHTTPSHosts: [])
    policy.allowedSchemes.insert("MyScheme")
    policy.allowedHTTPSHosts.insert("ID.Example.RU")
    #expect(policy.allowedSchemes == ["myscheme"])
    #expect(policy.allowedHTTPSHosts == ["id.example.ru"])
    let link = try SberSeamlessLogin(FormParameters("sberIDRedirect=myscheme%3A%2F%2Fsso"), policy: policy)
    #expect(link.baseURL == "myscheme://sso")
    let https = try SberSeamlessLogin(FormParameters("sberIDRedirect=https%3A%2F%2Fid.example.ru%2Fsso"), policy: policy)
    #expect(https.baseURL == "https://id.example.ru/sso")
    policy.allowedSchemes = ["OtherScheme"]
    #expect(policy.allowedSchemes == ["otherscheme"])
    #expect(policy == SberSSOTrustPolicy(allowedSchemes: ["otherscheme"], allowedHTTPSHosts: ["id.example.ru"]))
  }
}

@Suite("Providers: OIDC code id_token and the implicit flow")
struct OAuth2ImplicitAndIDTokenTests {
  @Test func codeIDTokenFragmentKeepsTheIDToken() throws {
    let token = jwt(#"{"iss":"https://as.example","sub":"1","nonce":"n"}"#)
    let url = try ParsedURL("https://client.example/cb#code=c1&id_token=\(token)&state=s1")
    let detected = try #require(ProviderDetector.decode(url: url))
    let (provider, result) = (detected.provider, detected.result)
    #expect(provider == .oauth2)
    let callback = try result.get()
    guard case .oauth2(.success(let s)) = callback else {
      Issue.record("\(callback)")
      return
    }
    #expect(s.code == "c1" && s.state == "s1")
    #expect(s.idToken.map(String.init) == token)
    #expect(callback.values.map(\.name) == ["code", "state", "id_token"])
    var seen: [String: String] = [:]
    callback.forEachValue { name, value in seen[name] = String(value) }
    #expect(seen["id_token"] == token)
    #expect(OAuth2Success(code: "c", idToken: "h.p.s").idToken == "h.p.s")
    #expect(OAuth2Success(code: "c", idToken: "h.p.s") != OAuth2Success(code: "c"))
  }

  @Test func implicitGrantIsDecoded() throws {
    let url = try ParsedURL(
      "https://client.example/cb#access_token=2YotnFZFEjr1zCsicMWpAA&token_type=Bearer&expires_in=3600&scope=openid+email&state=xyz")
    #expect(ProviderDetector.callbackParameters(of: url).value(for: "access_token") == "2YotnFZFEjr1zCsicMWpAA")
    #expect(ProviderDetector.detect(url: url, parameters: ProviderDetector.callbackParameters(of: url)) == .oauth2)
    let detected = try #require(ProviderDetector.decode(url: url))
    let (provider, result) = (detected.provider, detected.result)
    #expect(provider == .oauth2)
    let callback = try result.get()
    guard case .oauth2(.implicit(let g)) = callback else {
      Issue.record("\(callback)")
      return
    }
    #expect(g.accessToken == "2YotnFZFEjr1zCsicMWpAA")
    #expect(g.tokenType == "Bearer")
    #expect(g.expiresIn == 3600 && g.expiresInRaw == "3600")
    #expect(g.scope == "openid email")
    #expect(g.idToken == nil)
    #expect(g.state == "xyz")
    #expect(callback.outcome == .implicitGrant && callback.code == nil && callback.state == "xyz")
    #expect(callback.outcome.rawValue == "implicit-grant")
    #expect(
      callback.values.map(\.name) == ["access_token", "token_type", "expires_in", "scope", "state"])
    #expect(
      g == OAuth2ImplicitGrant(
        accessToken: "2YotnFZFEjr1zCsicMWpAA", tokenType: "Bearer", expiresIn: 3600, expiresInRaw: "3600",
        scope: "openid email", state: "xyz"))
    // The other entry points agree.
    let parameters = ProviderDetector.callbackParameters(of: url)
    #expect(try ProviderCallback(provider: .oauth2, parameters: parameters) == callback)
    #expect(ProviderDetector.decode(url: url, parameters: parameters).map { try? $0.result.get() } == callback)
    // With an id_token (OIDC `id_token token`).
    let oidc = try OAuth2Callback(FormParameters("access_token=T&token_type=Bearer&id_token=h.p.s&state=s"))
    guard case .implicit(let o) = oidc else {
      Issue.record("\(oidc)")
      return
    }
    #expect(o.idToken == "h.p.s" && o.expiresIn == nil)
    // Validated against a pending authorization, state checked.
    let pending = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://client.example/cb"), state: "xyz")
    #expect(try pending.validate(url).outcome == .implicitGrant)
    let forged = try ParsedURL("https://client.example/cb#access_token=T&token_type=Bearer&state=abc")
    #expect(rejection { try pending.validate(forged) } == .stateMismatch)
    // Malformed ones.
    #expect(rejection { try OAuth2Callback(FormParameters("token_type=Bearer&state=s")) } == .missingParameter)
    guard case .implicit(let bare) = try OAuth2Callback(FormParameters("access_token=T&state=s")) else {
      Issue.record("not implicit")
      return
    }
    #expect(bare.accessToken == "T" && bare.tokenType == nil && bare.state == "s")
    #expect(
      rejection { try OAuth2Callback(FormParameters("access_token=T&token_type=Bearer&access_token=U")) }
        == .duplicateParameter)
  }
}

/// `SberIDSuccess.hasExtras` (the byte-level pre-check the callback's values use) agrees with `extras`.
@Suite struct SberExtrasPrecheckTests {
  @Test(arguments: [
    "code=c&state=s", "code=c&state=s&status=success", "code=c&state=s&utm_source=x", "code=c&utm%5Fmedium=y",
    "code=c&option1=promo", "code=c&option4=no", "code=c&utm=no&utmx=no", "code=c&%75tm_a=b", "code=c&option1",
    "utm_=&code=c", "code=c&Option1=x", "code=c&option1=a&option1=b",
  ])
  func hasExtrasAgreesWithExtras(_ query: String) throws {
    guard case .success(let s) = try SberIDCallback(FormParameters(query)) else {
      Issue.record("not a success: \(query)")
      return
    }
    #expect(s.hasExtras == !s.extras.isEmpty, "\(query)")
    let values = ProviderCallback.sber(.success(s)).values.map(\.name)
    #expect(values.filter { $0 != "code" && $0 != "state" && $0 != "status" } == s.extras.keys.sorted(), "\(query)")
  }
}
