import Testing
import LinkParseOAuth
import LinkParseAuthorization
import LinkParseProviders
import LinkParseCore

let formHeaders: [OAuthRequest.Header] = [
  .init("Content-Type", "application/x-www-form-urlencoded"), .init("Accept", "application/json"),
]

let jsonHeaders: [OAuthRequest.Header] = [.init("Content-Type", "application/json"), .init("Accept", "application/json")]

/// VK ID's requests as its "without SDK" guide shows them (providers.md §2.7), the default shape, and the form
/// shape (RFC 6749 §4.1.3) on request.
@Suite struct VKIDClientTests {
  let vk = VKIDClient(clientID: "7915193")
  let form = VKIDClient(clientID: "7915193", shape: .formBody)
  /// The guide's PKCE pair.
  static let guideVerifier = "TMqwHtKeYrAz42vNmy5KsxePTYt--KS-yZsma6q4vrE"

  @Test func guidePKCEPair() {
    #expect(PKCE(verifier: Self.guideVerifier)?.challenge == "VT6yRsqMDL8EgEfcGmtWVaaLzTw5KcuKBoGEmfDBJaw")
  }

  @Test func tokenExchangeAsTheGuideShowsIt() {
    let r = vk.tokenExchange(
      code: "vk2.a.02-Bsy", codeVerifier: Self.guideVerifier, deviceID: "dev+1",
      redirectURI: "vk7915193://vk.ru/blank.html", state: "abracadabracodeexchange")
    #expect(r.kind == .tokenExchange && r.provider == .vk && r.method == .post)
    #expect(r.url == "https://id.vk.ru/oauth2/auth")
    #expect(
      r.fullURL
        == "https://id.vk.ru/oauth2/auth?grant_type=authorization_code&redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html&client_id=7915193&device_id=dev%2B1&state=abracadabracodeexchange&code_verifier=\(Self.guideVerifier)"
    )
    #expect(r.headers == jsonHeaders)
    #expect(r.body == #"{"code":"vk2.a.02-Bsy"}"#)
    // The state is optional.
    #expect(vk.tokenExchange(code: "c", codeVerifier: "v", deviceID: "d", redirectURI: "r").formValue("state") == nil)
  }

  @Test func tokenExchangeAsAForm() {
    let r = form.tokenExchange(
      code: "vk2.a.c&d", codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", deviceID: "dev+1",
      redirectURI: "vk7915193://vk.ru/blank.html", state: "s t")
    #expect(r.url == "https://id.vk.ru/oauth2/auth" && r.fullURL == r.url)
    #expect(r.headers == formHeaders)
    #expect(
      r.body
        == "grant_type=authorization_code&redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html&client_id=7915193&device_id=dev%2B1&state=s+t&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&code=vk2.a.c%26d")
  }

  /// The guide's refresh sends no state.
  @Test func refresh() {
    let r = vk.refresh(refreshToken: "vk2.a.pkzh", deviceID: "generatedencrypteddeviceid123")
    #expect(r.kind == .refresh && r.url == "https://id.vk.ru/oauth2/auth" && r.headers == jsonHeaders)
    #expect(r.fullURL == "https://id.vk.ru/oauth2/auth?grant_type=refresh_token&client_id=7915193&device_id=generatedencrypteddeviceid123")
    #expect(r.body == #"{"refresh_token":"vk2.a.pkzh"}"#)
    let scoped = form.refresh(refreshToken: "r", deviceID: "d", state: "s", scope: ["vkid.personal_info", "email"])
    #expect(scoped.body == "grant_type=refresh_token&client_id=7915193&device_id=d&state=s&scope=vkid.personal_info+email&refresh_token=r")
  }

  /// RFC 6750 §2.1: the access token as a bearer credential, never in a URL.
  @Test func revokeLogoutUserInfoPublicInfo() {
    let revoke = vk.revoke(accessToken: "at")
    #expect(revoke.kind == .revoke && revoke.method == .post && revoke.url == "https://id.vk.ru/oauth2/revoke")
    #expect(revoke.body == "client_id=7915193&access_token=at" && revoke.headers == formHeaders)
    let logout = vk.logout(accessToken: "at")
    // The guide's logout is a plain request without a body (its curl sends a GET), not a POST.
    #expect(logout.kind == .logout && logout.method == .get)
    #expect(logout.fullURL == "https://id.vk.ru/oauth2/logout?client_id=7915193")
    #expect(logout.body == nil && logout.headerValue("Authorization") == "Bearer at")
    let info = vk.userInfo(accessToken: "at")
    #expect(info.kind == .userInfo && info.fullURL == "https://id.vk.ru/oauth2/user_info")
    #expect(info.body == #"{"client_id":"7915193"}"# && info.headerValue("Authorization") == "Bearer at")
    #expect(info.headerValue("Content-Type") == "application/json")
    let pub = vk.publicInfo(idToken: "eyJ.x.y")
    #expect(pub.kind == .userInfo && pub.fullURL == "https://id.vk.ru/oauth2/public_info?client_id=7915193")
    #expect(pub.body == #"{"id_token":"eyJ.x.y"}"#)
    #expect([revoke, logout, info, pub].allSatisfy { $0.provider == .vk })
    for request in [logout, info, pub] { #expect(!request.fullURL.contains("at&") && !request.fullURL.contains("eyJ")) }
    // The form shape, as before.
    #expect(form.logout(accessToken: "at").body == "client_id=7915193&access_token=at")
    #expect(form.logout(accessToken: "at").method == .post)
    #expect(form.userInfo(accessToken: "at").body == "client_id=7915193&access_token=at")
    #expect(form.publicInfo(idToken: "eyJ.x.y").body == "client_id=7915193&id_token=eyJ.x.y")
  }

  /// The exchange's state is its own (providers.md §2.7): the answer's echo is compared with what the request
  /// sent, and the refresh's `"state": ""` passes.
  @Test func echoedState() throws {
    let exchange = vk.tokenExchange(
      code: "vk2.a.02-Bsy", codeVerifier: Self.guideVerifier, deviceID: "d", redirectURI: "vk7915193://vk.ru/blank.html",
      state: "abracadabracodeexchange")
    let answer = try TokenResponse(
      json: Array(#"{"refresh_token":"vk2.a.r","access_token":"vk2.a.a","id_token":"h.p.s","token_type":"Bearer","expires_in":3600,"user_id":1234567890,"state":"abracadabracodeexchange","scope":"phone email"}"#.utf8),
      provider: .vk)
    try exchange.checkEchoedState(of: answer)
    var forged = answer
    forged.state = "abracadabra"
    #expect(throws: OAuthResponseError.self) { try exchange.checkEchoedState(of: forged) }
    let refresh = vk.refresh(refreshToken: "vk2.a.pkzh", deviceID: "d")
    var refreshed = answer
    refreshed.state = ""
    try refresh.checkEchoedState(of: refreshed)
    #expect(throws: OAuthResponseError.self) { try refresh.checkEchoedState(of: answer) }
    refreshed.state = nil
    try refresh.checkEchoedState(of: refreshed)
  }

  @Test func endpointsAreOverridable() {
    let custom = VKIDClient(
      clientID: "1", tokenEndpoint: "https://t.test/a", revokeEndpoint: "https://t.test/r",
      logoutEndpoint: "https://t.test/l", userInfoEndpoint: "https://t.test/u", publicInfoEndpoint: "https://t.test/p")
    #expect(custom.refresh(refreshToken: "r", deviceID: "d").url == "https://t.test/a")
    #expect(custom.revoke(accessToken: "a").url == "https://t.test/r")
    #expect(custom.logout(accessToken: "a").url == "https://t.test/l")
    #expect(custom.userInfo(accessToken: "a").url == "https://t.test/u")
    #expect(custom.publicInfo(idToken: "i").url == "https://t.test/p")
  }
}

@Suite struct SberIDClientTests {
  let sber = SberIDClient(clientID: "0A1B2C3D", clientSecret: "s&cret")
  let rquid = "0123456789abcdef0123456789abcdef"

  @Test func tokenExchange() {
    let r = sber.tokenExchange(
      code: "FA2154AC-3451-C01A-B2D3-C231DBB2E20F", redirectURI: "https://partner.ru/login",
      codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", rquid: rquid)
    #expect(r.kind == .tokenExchange && r.provider == .sber && r.method == .post)
    #expect(r.url == "https://oauth.sber.ru/ru/prod/tokens/v2/oidc")
    #expect(r.headers == formHeaders + [.init("rquid", rquid)])
    #expect(
      r.body
        == "grant_type=authorization_code&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F&client_id=0A1B2C3D&client_secret=s%26cret&redirect_uri=https%3A%2F%2Fpartner.ru%2Flogin&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    let noPKCE = sber.tokenExchange(code: "c", redirectURI: "r", rquid: rquid)
    #expect(noPKCE.formValue("code_verifier") == nil)
  }

  @Test func randomRquidIs32HexDigits() {
    let a = SberIDClient.randomRquid()
    let b = sber.tokenExchange(code: "c", redirectURI: "r").headerValue("rquid")
    #expect(a.count == 32 && a.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
    #expect(b?.count == 32 && b != a)
  }

  @Test func refresh() {
    let r = sber.refresh(refreshToken: "rt", rquid: rquid)
    #expect(r.kind == .refresh && r.url == "https://oauth.sber.ru/ru/prod/tokens/v2/oidc")
    #expect(r.headers == formHeaders + [.init("rquid", rquid)])
    #expect(r.body == "grant_type=refresh_token&refresh_token=rt&client_id=0A1B2C3D&client_secret=s%26cret")
  }

  @Test func userInfo() {
    let r = sber.userInfo(accessToken: "at", rquid: rquid)
    #expect(r.kind == .userInfo && r.method == .get && r.body == nil)
    #expect(r.url == "https://oauth.sber.ru/ru/prod/sberbankid/v2.1/userinfo" && r.fullURL == r.url)
    #expect(
      r.headers == [
        .init("Accept", "application/json"), .init("Authorization", "Bearer at"), .init("x-introspect-rquid", rquid),
        .init("x-ibm-client-id", "0A1B2C3D"),
      ])
  }

  @Test func endpointsAreOverridable() {
    let ift = SberIDClient(
      clientID: "c", clientSecret: "s", tokenEndpoint: "https://oauth-ift.sber.ru/ru/prod/tokens/v2/oidc",
      userInfoEndpoint: "https://oauth-ift.sber.ru/ru/prod/sberbankid/v2.1/userinfo")
    #expect(ift.refresh(refreshToken: "r").url == "https://oauth-ift.sber.ru/ru/prod/tokens/v2/oidc")
    #expect(ift.userInfo(accessToken: "a").url == "https://oauth-ift.sber.ru/ru/prod/sberbankid/v2.1/userinfo")
  }
}

@Suite struct TIDClientTests {
  let web = TIDClient(clientID: "partner", clientSecret: "s3cr3t")
  let mobile = TIDClient(clientID: "partner")
  let basic = OAuthRequest.Header("Authorization", "Basic cGFydG5lcjpzM2NyM3Q=")

  @Test func webTokenExchangeUsesBasic() {
    let r = web.tokenExchange(code: "c.9f&x", redirectURI: "https://partner.ru/cb")
    #expect(r.kind == .tokenExchange && r.provider == .tid && r.method == .post)
    #expect(r.url == "https://id.tbank.ru/auth/token")
    #expect(r.headers == formHeaders + [basic])
    #expect(r.body == "grant_type=authorization_code&code=c.9f%26x&redirect_uri=https%3A%2F%2Fpartner.ru%2Fcb")
  }

  @Test func mobileTokenExchangePutsClientIDInTheForm() {
    let r = mobile.tokenExchange(
      code: "c.9f", redirectURI: "myapp://authorized?from=login", codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    #expect(r.headers == formHeaders)
    #expect(
      r.body
        == "grant_type=authorization_code&code=c.9f&client_id=partner&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&redirect_uri=myapp%3A%2F%2Fauthorized%3Ffrom%3Dlogin")
    // The same body the authorization request's own helper makes.
    let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!
    let auth = TIDAuthorizationRequest(clientID: "partner", callbackURL: "myapp://authorized?from=login", pkce: pkce)
    #expect(r.body == auth.tokenRequestBody(code: "c.9f"))
  }

  @Test func refresh() {
    #expect(web.refresh(refreshToken: "rt").body == "grant_type=refresh_token&refresh_token=rt")
    #expect(web.refresh(refreshToken: "rt").headers == formHeaders + [basic])
    #expect(mobile.refresh(refreshToken: "rt").body == "grant_type=refresh_token&refresh_token=rt&client_id=partner")
    #expect(mobile.refresh(refreshToken: "rt").kind == .refresh)
  }

  @Test func revokeAndIntrospect() {
    let revoke = web.revoke(token: "rt", tokenTypeHint: "refresh_token")
    #expect(revoke.kind == .revoke && revoke.url == "https://id.tbank.ru/auth/revoke")
    #expect(revoke.headers == formHeaders + [basic])
    #expect(revoke.body == "token=rt&token_type_hint=refresh_token")
    #expect(mobile.revoke(token: "at").body == "token=at&client_id=partner")
    let introspect = web.introspect(token: "at", tokenTypeHint: "access_token")
    #expect(introspect.kind == .introspection && introspect.url == "https://id.tbank.ru/auth/introspect")
    #expect(introspect.headers == formHeaders + [basic])
    #expect(introspect.body == "token=at&token_type_hint=access_token")
  }

  @Test func userInfo() {
    let r = web.userInfo(accessToken: "at")
    #expect(r.kind == .userInfo && r.method == .post && r.url == "https://id.tbank.ru/userinfo/userinfo")
    #expect(r.headers == formHeaders + [.init("Authorization", "Bearer at")])
    #expect(r.body == "client_id=partner&client_secret=s3cr3t")
    #expect(mobile.userInfo(accessToken: "at").body == "client_id=partner")
  }

  @Test func endpointsAreOverridable() {
    let c = TIDClient(
      clientID: "p", tokenEndpoint: "https://t/1", revokeEndpoint: "https://t/2", introspectionEndpoint: "https://t/3",
      userInfoEndpoint: "https://t/4")
    #expect(c.tokenExchange(code: "c", redirectURI: "r").url == "https://t/1")
    #expect(c.revoke(token: "t").url == "https://t/2")
    #expect(c.introspect(token: "t").url == "https://t/3")
    #expect(c.userInfo(accessToken: "t").url == "https://t/4")
  }
}

@Suite struct AppleClientTests {
  let apple = AppleClient(clientID: "com.example.web")

  @Test func tokenExchange() {
    let r = apple.tokenExchange(
      code: "c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q", clientSecret: "eyJ.jwt.sig",
      redirectURI: "https://example.com/auth/apple/callback")
    #expect(r.kind == .tokenExchange && r.provider == .apple && r.method == .post)
    #expect(r.url == "https://appleid.apple.com/auth/token" && r.headers == formHeaders)
    #expect(
      r.body
        == "client_id=com.example.web&client_secret=eyJ.jwt.sig&code=c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q&grant_type=authorization_code&redirect_uri=https%3A%2F%2Fexample.com%2Fauth%2Fapple%2Fcallback")
    let native = apple.tokenExchange(code: "c", clientSecret: "j", redirectURI: nil)
    #expect(native.body == "client_id=com.example.web&client_secret=j&code=c&grant_type=authorization_code")
  }

  @Test func refreshAndRevoke() {
    let refresh = apple.refresh(refreshToken: "r.1", clientSecret: "j")
    #expect(refresh.kind == .refresh && refresh.url == "https://appleid.apple.com/auth/token")
    #expect(refresh.body == "client_id=com.example.web&client_secret=j&grant_type=refresh_token&refresh_token=r.1")
    let revoke = apple.revoke(token: "r.1", tokenTypeHint: "refresh_token", clientSecret: "j")
    #expect(revoke.kind == .revoke && revoke.url == "https://appleid.apple.com/auth/revoke" && revoke.headers == formHeaders)
    #expect(revoke.body == "client_id=com.example.web&client_secret=j&token=r.1&token_type_hint=refresh_token")
    let custom = AppleClient(clientID: "c", tokenEndpoint: "https://t/1", revokeEndpoint: "https://t/2")
    #expect(custom.refresh(refreshToken: "r", clientSecret: "j").url == "https://t/1")
    #expect(custom.revoke(token: "r", clientSecret: "j").url == "https://t/2")
  }
}

@Suite struct OAuth2ClientTests {
  @Test func clientSecretBasicEncodesBeforeBase64() {
    let c = OAuth2Client(clientID: "my app", authentication: .clientSecretBasic("a b:c"), tokenEndpoint: "https://as.example/token")
    let r = c.tokenExchange(code: "c", redirectURI: "https://app.example/cb", codeVerifier: "v")
    #expect(r.kind == .tokenExchange && r.provider == .oauth2 && r.url == "https://as.example/token")
    #expect(r.headers == formHeaders + [.init("Authorization", "Basic bXkrYXBwOmErYiUzQWM=")])
    #expect(r.body == "grant_type=authorization_code&code=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_verifier=v")
  }

  @Test func clientSecretPostAndNone() {
    let post = OAuth2Client(clientID: "app", authentication: .clientSecretPost("s3cr3t"), tokenEndpoint: "https://as.example/token")
    #expect(post.refresh(refreshToken: "rt").body == "grant_type=refresh_token&refresh_token=rt&client_id=app&client_secret=s3cr3t")
    #expect(post.refresh(refreshToken: "rt").headers == formHeaders)
    let none = OAuth2Client(clientID: "app", tokenEndpoint: "https://as.example/token")
    #expect(none.tokenExchange(code: "c", redirectURI: nil).body == "grant_type=authorization_code&code=c&client_id=app")
    #expect(none.refresh(refreshToken: "rt", scope: ["openid", "email"]).body == "grant_type=refresh_token&refresh_token=rt&scope=openid+email&client_id=app")
  }

  @Test func revokeIntrospectUserInfo() throws {
    let c = OAuth2Client(
      clientID: "app", authentication: .clientSecretBasic("s3cr3t"), tokenEndpoint: "https://as.example/token",
      revocationEndpoint: "https://as.example/revoke", introspectionEndpoint: "https://as.example/introspect",
      userInfoEndpoint: "https://as.example/userinfo")
    let basic = OAuthRequest.Header("Authorization", "Basic YXBwOnMzY3IzdA==")
    let revoke = try c.revoke(token: "rt", tokenTypeHint: "refresh_token")
    #expect(revoke.kind == .revoke && revoke.url == "https://as.example/revoke")
    #expect(revoke.headers == formHeaders + [basic] && revoke.body == "token=rt&token_type_hint=refresh_token")
    let introspect = try c.introspect(token: "at")
    #expect(introspect.kind == .introspection && introspect.url == "https://as.example/introspect")
    #expect(introspect.headers == formHeaders + [basic] && introspect.body == "token=at")
    let info = try c.userInfo(accessToken: "at")
    #expect(info.kind == .userInfo && info.method == .get && info.url == "https://as.example/userinfo")
    #expect(info.headers == [.init("Accept", "application/json"), .init("Authorization", "Bearer at")])
    #expect(info.body == nil)
  }

  @Test func missingEndpointsThrow() {
    let c = OAuth2Client(clientID: "app", tokenEndpoint: "https://as.example/token")
    #expect(throws: TokenRequestError.self) { try c.revoke(token: "t") }
    #expect(throws: TokenRequestError.self) { try c.introspect(token: "t") }
    do {
      _ = try c.userInfo(accessToken: "t")
      Issue.record("no error")
    } catch {
      #expect(error.code == .missingEndpoint)
    }
  }
}
