import Foundation
import Testing
import LinkParseCore
import LinkParseOAuth
import LinkParseAuthorization
import LinkParseProviders

/// RFC 7636 Appendix B's verifier and its S256 challenge.
let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

/// The error `body` throws, or nil.
func requestError(_ body: () throws -> Void) -> TokenRequestError? {
  do {
    try body()
    return nil
  } catch let error as TokenRequestError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
    return nil
  }
}

@Suite struct AuthorizationFlowTests {
  @Test func vkIDStartToFinish() throws {
    let pkce = try #require(PKCE(verifier: verifier))
    #expect(pkce.challenge == challenge)
    let request = VKIDAuthorizationRequest(
      clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "Qk7x2LmN9pRtVw3aZ8yB", pkce: pkce)
    #expect(request.url.contains("code_challenge=\(challenge)"))
    let pending = try request.pendingAuthorization()
    #expect(pending.provider == .vk)
    #expect(pending.clientID == "7915193")
    #expect(pending.codeVerifier == verifier)
    #expect(pending.state == "Qk7x2LmN9pRtVw3aZ8yB")
    let expiresAt = try #require(pending.expiresAt)
    #expect(expiresAt - PendingAuthorization.currentUnixTime() <= 600)
    let callback = try pending.validate(
      ParsedURL(
        "vk7915193://vk.ru/blank.html?code=vk2.a.MzQ4Nz_g5-Xy&state=Qk7x2LmN9pRtVw3aZ8yB&device_id=Bz1Xk3Yq_0mR-a7TfL9sPw&type=code_v2"
      ))
    let token = try pending.tokenRequest(for: callback)
    #expect(token.kind == .tokenExchange && token.provider == .vk && token.method == .post)
    #expect(token.url == "https://id.vk.ru/oauth2/auth")
    #expect(token.headers == [.init("Content-Type", "application/json"), .init("Accept", "application/json")])
    #expect(token.body == #"{"code":"vk2.a.MzQ4Nz_g5-Xy"}"#)
    // The exchange carries a fresh state of its own, not the authorization request's (providers.md §2.7).
    let exchangeState = try #require(token.formValue("state"))
    #expect(exchangeState != pending.state && exchangeState.count == 43)
    #expect(
      token.fullURL
        == "https://id.vk.ru/oauth2/auth?grant_type=authorization_code&redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html&client_id=7915193&device_id=Bz1Xk3Yq_0mR-a7TfL9sPw&state=\(exchangeState)&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    )
    // The answer echoes the exchange's state; the tokens decode.
    let tokens = try TokenResponse(
      json: Array(#"{"access_token":"vk2.a.T","refresh_token":"vk2.r.R","id_token":"h.p.s","expires_in":3600,"user_id":1234567890,"state":"\#(exchangeState)","scope":"vkid.personal_info"}"#.utf8),
      provider: .vk)
    try token.checkEchoedState(of: tokens)
    var forged = tokens
    forged.state = pending.state
    do {
      try token.checkEchoedState(of: forged)
      Issue.record("a different echoed state passed")
    } catch {
      #expect(error.code == .invalidField && error.field == "state")
    }
    forged.state = nil
    try token.checkEchoedState(of: forged)
    // The endpoint can be overridden.
    #expect(try pending.tokenRequest(for: callback, endpoint: "https://vk.test/oauth2/auth").url == "https://vk.test/oauth2/auth")
  }

  @Test func sberIDStartToFinish() throws {
    let request = SberIDAuthorizationRequest(
      clientID: "0A1B2C3D", redirectURI: "https://partner.ru/login", state: "UhdlDQS6vG4m", nonce: "TGfhfBxr5ak1",
      pkce: PKCE(verifier: verifier))
    let pending = try request.pendingAuthorization()
    #expect(pending.nonce == "TGfhfBxr5ak1" && pending.clientID == "0A1B2C3D" && pending.codeVerifier == verifier)
    let callback = try pending.validate(
      ParsedURL("https://partner.ru/login?state=UhdlDQS6vG4m&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F&utm_source=x"))
    let missing = try #require(requestError { _ = try pending.tokenRequest(for: callback) })
    #expect(missing.code == .missingClientSecret)
    let token = try pending.tokenRequest(for: callback, clientSecret: "s3cr3t")
    #expect(token.url == "https://oauth.sber.ru/ru/prod/tokens/v2/oidc" && token.provider == .sber)
    #expect(token.headerValue("rquid")?.count == 32)
    #expect(
      token.body
        == "grant_type=authorization_code&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F&client_id=0A1B2C3D&client_secret=s3cr3t&redirect_uri=https%3A%2F%2Fpartner.ru%2Flogin&code_verifier=\(verifier)"
    )
  }

  @Test func tidStartToFinishSendsTheCallbackURLAsSent() throws {
    let request = TIDAuthorizationRequest(
      clientID: "partner", callbackURL: "myapp://authorized?from=login", pkce: PKCE(verifier: verifier)!)
    let pending = try request.pendingAuthorization()
    #expect(pending.state == nil)
    let callback = try pending.validate(ParsedURL("myapp://authorized?code=c.9fQ"))
    let mobile = try pending.tokenRequest(for: callback)
    #expect(mobile.url == "https://id.tbank.ru/auth/token" && mobile.provider == .tid)
    #expect(mobile.body == request.tokenRequestBody(code: "c.9fQ"))
    #expect(
      mobile.body
        == "grant_type=authorization_code&code=c.9fQ&client_id=partner&code_verifier=\(verifier)&redirect_uri=myapp%3A%2F%2Fauthorized%3Ffrom%3Dlogin"
    )
    let web = try pending.tokenRequest(for: callback, clientSecret: "s3cr3t")
    #expect(web.headerValue("Authorization") == "Basic cGFydG5lcjpzM2NyM3Q=")
    #expect(web.formValue("client_id") == nil)
  }

  @Test func tidDebugStubAndCancellationAreTypedErrors() throws {
    let pending = try TIDAuthorizationRequest(clientID: "partner", callbackURL: "myapp://authorized", pkce: PKCE())
      .pendingAuthorization()
    let stub = try pending.validate(ParsedURL("myapp://authorized?result=success"))
    // The debug app's stub has no code: its outcome is debug-success, never success.
    #expect(stub.outcome == .debugSuccess)
    #expect(stub.code == nil)
    #expect(requestError { _ = try pending.tokenRequest(for: stub) }?.code == .notASuccess)
    let cancelled = try pending.validate(ParsedURL("myapp://authorized?cancelled"))
    #expect(requestError { _ = try pending.tokenRequest(for: cancelled) }?.code == .notASuccess)
    let unavailable = try pending.validate(ParsedURL("myapp://authorized?unavailable"))
    #expect(requestError { _ = try pending.tokenRequest(for: unavailable) }?.code == .notASuccess)
  }

  @Test func vkErrorCallbackAndMismatchesAreTypedErrors() throws {
    let pending = try VKIDAuthorizationRequest(
      clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "s", pkce: PKCE()
    ).pendingAuthorization()
    let denied = try pending.validate(ParsedURL("vk7915193://vk.ru/blank.html?error=access_denied&state=s"))
    let error = try #require(requestError { _ = try pending.tokenRequest(for: denied) })
    #expect(error.code == .notASuccess)
    let tidCallback = ProviderCallback.tid(try TIDCallback(FormParameters("code=c")))
    #expect(requestError { _ = try pending.tokenRequest(for: tidCallback) }?.code == .providerMismatch)
    var noClient = pending
    noClient.clientID = nil
    let ok = try pending.validate(ParsedURL("vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d"))
    #expect(requestError { _ = try noClient.tokenRequest(for: ok) }?.code == .missingClientID)
    var noVerifier = pending
    noVerifier.codeVerifier = nil
    #expect(requestError { _ = try noVerifier.tokenRequest(for: ok) }?.code == .missingCodeVerifier)
  }

  @Test func appleStartToFinish() throws {
    let request = AppleAuthorizationRequest(
      clientID: "com.example.web", redirectURI: "https://example.com/auth/apple/callback", state: "8f3c1e2a", nonce: "n-1")
    let pending = try request.pendingAuthorization()
    #expect(pending.nonce == "n-1" && pending.codeVerifier == nil)
    let callback = try pending.validate(
      ParsedURL("https://example.com/auth/apple/callback"),
      parameters: FormParameters("state=8f3c1e2a&code=c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q"))
    #expect(requestError { _ = try pending.tokenRequest(for: callback) }?.code == .missingClientSecret)
    let token = try pending.tokenRequest(for: callback, clientSecret: "eyJ.jwt.sig")
    #expect(token.url == "https://appleid.apple.com/auth/token" && token.provider == .apple)
    #expect(
      token.body
        == "client_id=com.example.web&client_secret=eyJ.jwt.sig&code=c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fexample.com%2Fauth%2Fapple%2Fcallback"
    )
  }

  @Test func genericOIDCStartToFinish() throws {
    let request = OAuth2AuthorizationRequest(
      endpoint: "https://as.example/authorize", clientID: "app", redirectURI: "https://app.example",
      scope: ["openid", "email"], state: "st", nonce: "nn", pkce: PKCE(verifier: verifier), issuer: "https://as.example")
    #expect(
      request.url
        == "https://as.example/authorize?response_type=code&client_id=app&redirect_uri=https%3A%2F%2Fapp.example&scope=openid+email&state=st&nonce=nn&code_challenge=\(challenge)&code_challenge_method=S256"
    )
    let pending = try request.pendingAuthorization(expiresAt: nil)
    #expect(pending.issuer == "https://as.example" && pending.expiresAt == nil)
    // The parsed redirect URI gains a '/'; the token request repeats the spelling sent.
    #expect(pending.redirectURI.href == "https://app.example/")
    #expect(pending.redirectURIAsSent == "https://app.example")
    let callback = try pending.validate(ParsedURL("https://app.example/?code=c1&state=st&iss=https%3A%2F%2Fas.example"))
    #expect(requestError { _ = try pending.tokenRequest(for: callback) }?.code == .missingEndpoint)
    let token = try pending.tokenRequest(for: callback, endpoint: "https://as.example/token")
    #expect(token.url == "https://as.example/token" && token.provider == .oauth2)
    #expect(
      token.body
        == "grant_type=authorization_code&code=c1&redirect_uri=https%3A%2F%2Fapp.example&code_verifier=\(verifier)&client_id=app")
    let confidential = try pending.tokenRequest(for: callback, clientSecret: "s3cr3t", endpoint: "https://as.example/token")
    #expect(confidential.headerValue("Authorization") == "Basic YXBwOnMzY3IzdA==")
  }
}

@Suite struct PendingAuthorizationExtrasTests {
  func make(clientID: String? = "c", verifier: String? = "v", nonce: String? = "n") throws -> PendingAuthorization {
    PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("myapp://cb"), state: "s", expiresAt: 100, clientID: clientID,
      codeVerifier: verifier, nonce: nonce)
  }

  @Test func extrasTakePartInEqualityAndHash() throws {
    #expect(try make() == make())
    #expect(try make().hashValue == make().hashValue)
    #expect(try make() != make(clientID: "d"))
    #expect(try make() != make(verifier: nil))
    #expect(try make() != make(nonce: "m"))
  }

  @Test func settersKeepTheOtherValues() throws {
    var p = try make()
    let before = p
    p.state = "t"
    #expect(p.clientID == "c" && p.codeVerifier == "v" && p.nonce == "n")
    p.nonce = "m"
    #expect(p.nonce == "m" && p.state == "t" && p.expiresAt == 100)
    #expect(before.nonce == "n")
    p.redirectURIAsSent = "myapp://cb"  // the same as href: not kept
    #expect(p.redirectURIAsSent == nil)
  }

  @Test func codableRoundTrip() throws {
    let p = try make()
    let data = try JSONEncoder().encode(p)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#""codeVerifier":"v""#) && text.contains(#""clientID":"c""#) && text.contains(#""nonce":"n""#))
    #expect(try JSONDecoder().decode(PendingAuthorization.self, from: data) == p)
    // Old encodings without the new keys still decode.
    let old = try JSONDecoder().decode(
      PendingAuthorization.self, from: Data(#"{"provider":"vk","redirectURI":"vk1://vk.ru/blank.html","state":"s"}"#.utf8))
    #expect(old.clientID == nil && old.codeVerifier == nil && old.nonce == nil)
  }
}
