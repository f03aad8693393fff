import LinkParseAuthorization
import LinkParseCore
@_spi(PendingAuthorizationStores) import LinkParseProviders
import Testing

/// The providers' own documented examples and grammar rules (providers.md §1–§3): T-ID's web error response,
/// repeated outcome-deciding parameters in either order, the documented authorize parameters, and what a
/// state-less forged callback may and may not do to a pending login.
@Suite struct TIDWebErrorTests {
  /// providers.md §3.6: the web flow's error is RFC 6749 §4.1.2.1's, decoded as a provider error.
  @Test func webErrorIsAProviderError() throws {
    let url = try ParsedURL(
      "https://myintegration.ru/auth/complete?state=ABCxyz&error=access_denied&error_description=User+denied")
    let decoded = try TIDCallback(url.queryParameters)
    guard case .failure(let error, let state) = decoded else {
      Issue.record("not a failure: \(decoded)")
      return
    }
    #expect(error.code == .accessDenied && error.code.rawValue == "access_denied")
    #expect(error.errorDescription == "User denied")
    #expect(state == "ABCxyz" && decoded.state == "ABCxyz")
    let callback = ProviderCallback.tid(decoded)
    #expect(callback.outcome == .error)
    #expect(callback.providerError?.code.rawValue == "access_denied")
    #expect(callback.values.map(\.name) == ["state", "error_description"])
    // An unknown value is kept raw.
    let odd = try TIDCallback(FormParameters("state=S&error=limit_exceeded"))
    #expect(ProviderCallback.tid(odd).providerError?.code.rawValue == "limit_exceeded")
  }

  @Test func codeAndErrorConflict() throws {
    #expect(rejection { try TIDCallback(FormParameters("state=ABCxyz&code=c.1&error=access_denied")) } == .conflictingOutcome)
    #expect(rejection { try TIDCallback(FormParameters("error=access_denied&cancelled")) } == .conflictingOutcome)
    // `error=null` and an empty `error=` are absent, as for the other providers.
    #expect(try TIDCallback(FormParameters("state=S&code=c.1&error=null")).state == "S")
  }

  /// Through a pending authorization: the app learns the refusal.
  @Test func validatedWebError() throws {
    let pending = PendingAuthorization(
      provider: .tid, redirectURI: try ParsedURL("https://example.com/auth/tid/callback"), state: "S")
    let callback = try pending.validate(
      ParsedURL("https://example.com/auth/tid/callback?state=S&error=access_denied"))
    #expect(callback.outcome == .error && callback.providerError?.code.rawValue == "access_denied")
  }
}

@Suite struct RepeatedParameterTests {
  /// Every parameter a decoder reads to decide the outcome is critical: a repeat is `duplicate-parameter`
  /// whatever the order of the values (RFC 6749 §3.1, providers.md §2.5 item 2).
  @Test(arguments: [
    ("vk", "code=c&state=s&device_id=d&type=code_v2&type=token", "type"),
    ("vk", "code=c&state=s&device_id=d&type=token&type=code_v2", "type"),
    ("vk", "code=c&state=s&device_id=d&vkconnect_auth_provider_method=external_auth&vkconnect_auth_provider_method=evil", "vkconnect_auth_provider_method"),
    ("vk", "code=c&state=s&device_id=d&vkconnect_auth_provider_method=evil&vkconnect_auth_provider_method=external_auth", "vkconnect_auth_provider_method"),
    ("vk", "code=c&state=s&device_id=d&expires_in=600&expires_in=1", "expires_in"),
    ("sber", "status=success&status=fail&state=s&code=c", "status"),
    ("sber", "status=fail&status=success&state=s&code=c", "status"),
    ("sber", "result=FAILURE&result=SUCCESS&code=c", "result"),
    ("sber", "error_code=5&error_code=6", "error_code"),
    ("tid", "auth_status_code=success&auth_status_code=cancelled_by_user&code=c", "auth_status_code"),
    ("tid", "cancelled&cancelled", "cancelled"),
    ("tid", "result=failure&result=success", "result"),
    ("oauth2", "access_token=a&token_type=Bearer&token_type=mac", "token_type"),
  ])
  func repeatRejected(provider: String, query: String, parameter: String) throws {
    let error = thrown {
      try ProviderCallback(provider: Provider(rawValue: provider)!, parameters: FormParameters(query))
    }
    #expect(error?.code == .duplicateParameter)
    #expect(error?.parameter == parameter)
  }

  /// Parameters no decoder decides by may still repeat (the partner's own, VK's echoed `oauth2_params`).
  @Test func othersMayRepeat() throws {
    #expect(try VKIDCallback(FormParameters("code=c&state=s&device_id=d&v=1&v=2")).state == "s")
    #expect(try SberIDCallback(FormParameters("code=c&state=s&utm_source=a&utm_source=b")).state == "s")
  }
}

@Suite struct AuthorizationParameterTests {
  @Test func vkPromptLogin() {
    let pkce = PKCE(verifier: "TMqwHtKeYrAz42vNmy5KsxePTYt--KS-yZsma6q4vrE")!
    #expect(pkce.challenge == "VT6yRsqMDL8EgEfcGmtWVaaLzTw5KcuKBoGEmfDBJaw")
    let request = VKIDAuthorizationRequest(
      clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "abracadabra", pkce: pkce,
      scope: ["phone", "email"], prompt: [.login])
    #expect(
      request.url
        == "https://id.vk.ru/authorize?response_type=code&client_id=7915193&redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html&state=abracadabra&code_challenge=VT6yRsqMDL8EgEfcGmtWVaaLzTw5KcuKBoGEmfDBJaw&code_challenge_method=S256&scope=phone+email&prompt=login"
    )
  }

  @Test func sberLoginHint() {
    let request = SberIDAuthorizationRequest(
      clientID: "0A1B2C3D", redirectURI: "https://partner.ru/login", state: "s", nonce: "n", loginHint: "+79990001122")
    #expect(request.webURL().hasSuffix("&response_type=code&login_hint=%2B79990001122"))
    #expect(request.appURL().hasSuffix("&login_hint=%2B79990001122"))
  }

  @Test func extraParametersChecked() throws {
    var extra = AuthorizationParameters()
    try extra.add("lang_id", "3")
    for reserved in ["state", "redirect_uri", "code_challenge", "code_challenge_method", "client_id", "nonce", "callbackUrl"] {
      do throws(AuthorizationParameterError) {
        try extra.add(reserved, "x")
        Issue.record("\(reserved) was accepted")
      } catch {
        #expect(error.code == .reservedParameter && error.parameter == reserved)
        #expect(error.message.contains(reserved))
      }
    }
    #expect(throws: AuthorizationParameterError.self) { try extra.add("lang_id", "4") }
    #expect(throws: AuthorizationParameterError.self) { try extra.add("", "4") }
    let pkce = PKCE(verifier: "TMqwHtKeYrAz42vNmy5KsxePTYt--KS-yZsma6q4vrE")!
    let vk = VKIDAuthorizationRequest(
      clientID: "1", redirectURI: "vk1://vk.ru/blank.html", state: "s", pkce: pkce, extraParameters: extra)
    #expect(vk.url.hasSuffix("&code_challenge_method=S256&prompt=login&lang_id=3"))
    let oauth = OAuth2AuthorizationRequest(
      endpoint: "https://as.example/authorize", clientID: "app", redirectURI: "https://app.example/cb", state: "s",
      prompt: [.login, .consent], loginHint: "a@b", extraParameters: ["ui_locales": "ru en"])
    #expect(oauth.url.hasSuffix("&state=s&prompt=login+consent&login_hint=a%40b&ui_locales=ru+en"))
    let tid = TIDAuthorizationRequest(clientID: "p", callbackURL: "myapp://authorized", pkce: pkce, extraParameters: extra)
    #expect(tid.url.hasSuffix("&lang_id=3"))
    let apple = AppleAuthorizationRequest(
      clientID: "c", redirectURI: "https://e.com/cb", state: "s", extraParameters: extra)
    #expect(apple.url.hasSuffix("&state=s&lang_id=3"))
  }
}

/// providers.md §3.6: the T-ID app flow has no state, so anyone can open its callback link. A forged outcome
/// that is not a code is reported but leaves the pending login alone.
@Suite struct StatelessForgeryTests {
  @Test(arguments: ["cancelled", "unavailable", "result=failure", "result=cancelled", "result=garbage", "code="])
  func forgedTIDOutcomeKeepsTheLogin(forged: String) async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
    _ = try? (await store.consume(try ParsedURL("myapp://authorized?\(forged)"))).callback
    #expect(store.count == 1)
    #expect(try (await store.consume(try ParsedURL("myapp://authorized?code=c.9fQ2mZtR1x"))).callback.code == "c.9fQ2mZtR1x")
    #expect(store.count == 0)
    #expect(await asyncRejection { try (await store.consume(try ParsedURL("myapp://authorized?code=c.9fQ2mZtR1x"))).callback } == .replayed)
  }

  /// The outcome is still reported to the caller.
  @Test func forgedCancelIsReported() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
    #expect(try (await store.consume(try ParsedURL("myapp://authorized?cancelled"))).callback == .tid(.cancelled))
    #expect(try (await store.consume(try ParsedURL("myapp://authorized?unavailable"))).callback == .tid(.unavailable))
    #expect(store.count == 1)
  }

  /// A web login bound by its state is spent by its error or cancel, as before.
  @Test func statedErrorRetires() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("https://e.com/cb"), state: "S"))
    #expect(try (await store.consume(try ParsedURL("https://e.com/cb?state=S&error=access_denied"))).callback.outcome == .error)
    #expect(store.count == 0)
  }

  /// The rule itself.
  @Test func retireRule() {
    let cancelled: Result<ProviderCallback, CallbackError> = .success(.tid(.cancelled))
    let code: Result<ProviderCallback, CallbackError> = .success(.tid(.success(TIDSuccess(code: "c"))))
    #expect(!PendingAuthorization.retires(cancelled, callbackHasState: false, authorizationHasState: false))
    #expect(PendingAuthorization.retires(code, callbackHasState: false, authorizationHasState: false))
    #expect(!PendingAuthorization.retires(code, callbackHasState: false, authorizationHasState: true))
    #expect(PendingAuthorization.retires(cancelled, callbackHasState: true, authorizationHasState: true))
    #expect(!PendingAuthorization.retires(.failure(CallbackError(.stateMismatch)), callbackHasState: true, authorizationHasState: true))
    #expect(PendingAuthorization.retires(.failure(CallbackError(.expired)), callbackHasState: false, authorizationHasState: false))
    #expect(!PendingAuthorization.retires(.failure(CallbackError(.malformedParameter)), callbackHasState: false, authorizationHasState: false))
  }
}

@Suite struct SeamlessLinkValidationTests {
  /// providers.md §1.1.3: a seamless-login link is inbound, not a callback: without a state it is not a
  /// state mismatch.
  @Test func seamlessLinkIsNotACallback() throws {
    let pending = PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("partner://partner.host/auth"), state: "s")
    let error = thrown {
      try pending.validate(ParsedURL("partner://partner.host/auth?&sberIDRedirect=sberbankidlogin%3A%2F%2Fsberbankidsso"))
    }
    #expect(error?.code == .unrecognizedCallback)
    #expect(error?.parameter == "sberIDRedirect")
  }
}
