// ProviderRelyingParty against LocalProvider (a real HTTP server on 127.0.0.1 that records every request): for
// VK ID, Sber ID, T-ID and Sign in with Apple, the login from a consumed authorization to a verified identity
// and what went over the wire, the hostile answers each must refuse with a typed error, and the logout.

import Crypto
import Foundation
import LinkParseAuthorization
import LinkParseCore
import LinkParseHTTP
import LinkParseOAuth
import LinkParseProviders
import Testing

/// A provider on 127.0.0.1 serving a JWKS with one signing key, and a client for it.
struct RelyingPartyFixture {
  let provider: LocalProvider
  let client: OAuthHTTPClient
  let key: TestSigningKey
  var base: String { provider.baseURL }
  var now: Int64 { TestSigningKey.now }

  /// A fresh cache of the provider's `/jwks` (each test's failures stay its own).
  func keys() -> JWKSCache { JWKSCache(url: base + "/jwks", client: client) }

  /// An id_token signed by ``key``: `aud` is a string or an array, `extra` members are added (or replace).
  func idToken(
    issuer: String, audience: Any, subject: String, nonce: String?, extra: [String: Any] = [:]
  ) throws -> String {
    var claims: [String: Any] = [
      "iss": issuer, "aud": audience, "sub": subject, "iat": now - 10, "exp": now + 600,
    ]
    if let nonce { claims["nonce"] = nonce }
    claims.merge(extra) { $1 }
    let json = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    return try key.signed(String(decoding: json, as: UTF8.self))
  }

  /// The recorded requests to `path`.
  func requests(to path: String) -> [ReceivedRequest] { provider.recorder.all.filter { $0.path == path } }
}

func withRelyingPartyFixture(timeout: Duration = .seconds(5), _ body: (RelyingPartyFixture) async throws -> Void)
  async throws
{
  try await withLocalProvider { provider in
    try await withClient(provider, timeout: timeout) { client in
      let key = TestSigningKey("rp-key")
      provider.jwks.serve(TestSigningKey.jwks(key))
      try await body(RelyingPartyFixture(provider: provider, client: client, key: key))
    }
  }
}

/// OpenID Connect's `c_hash` / `at_hash`: the left half of SHA-256, base64url.
func leftHalfHash(_ value: String) -> String {
  base64URL(Array(SHA256.hash(data: Data(value.utf8))).prefix(16))
}

/// A JSON object's members (the JWT parts and JSON bodies the tests read back).
func jsonObject(_ text: some StringProtocol) -> [String: Any] {
  (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

/// A base64url segment, decoded.
func base64URLDecoded(_ segment: some StringProtocol) -> String {
  var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
  while text.count % 4 != 0 { text += "=" }
  return String(decoding: Data(base64Encoded: text) ?? Data(), as: UTF8.self)
}

/// `pending` with the callback at `url` (and `body`, for a form_post) validated, as a store would consume it.
func consumed(_ pending: PendingAuthorization, _ url: String, body: String? = nil) throws -> ConsumedAuthorization {
  let callback = try pending.validate(try ParsedURL(url), parameters: body.map { FormParameters(Substring($0)) })
  return ConsumedAuthorization(authorization: pending, callback: callback)
}

/// The error `body` throws, if it is an `E`; records an issue otherwise.
func expectError<E: Error>(
  _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> E? {
  do {
    try await body()
    Issue.record("no error thrown", sourceLocation: sourceLocation)
  } catch let error as E {
    return error
  } catch {
    Issue.record("\(error) is not a \(E.self)", sourceLocation: sourceLocation)
  }
  return nil
}

// MARK: - VK ID

@Suite("ProviderRelyingParty: VK ID", .timeLimit(.minutes(1)))
struct VKRelyingPartyTests {
  static let redirect = "vk7915193://vk.ru/blank.html"
  static let verifier = "TMqwHtKeYrAz42vNmy5KsxePTYt--KS-yZsma6q4vrE"

  static func party(_ f: RelyingPartyFixture, shape: VKIDClient.RequestShape = .guide) -> ProviderRelyingParty {
    .vkID(
      VKIDClient(
        clientID: "7915193", tokenEndpoint: f.base + "/vk/token", logoutEndpoint: f.base + "/vk/logout",
        userInfoEndpoint: f.base + "/vk/user_info", shape: shape),
      client: f.client)
  }

  static func login() throws -> ConsumedAuthorization {
    let pending = PendingAuthorization(
      provider: .vk, redirectURI: try ParsedURL(redirect), state: "st-vk", clientID: "7915193",
      codeVerifier: verifier, redirectURIAsSent: redirect)
    return try consumed(pending, redirect + "?code=vk2.a.CODE-1&state=st-vk&device_id=dev-42&type=code_v2&expires_in=600")
  }

  static func serveTokens(_ f: RelyingPartyFixture, state: String = "$STATE") {
    f.provider.routes.set(
      "/vk/token",
      json: #"{"refresh_token":"vk2.a.r","access_token":"vk2.a.access","id_token":"h.p.s","token_type":"Bearer","#
        + #""expires_in":3600,"user_id":1234567890,"state":"\#(state)","scope":"phone email"}"#)
  }

  static func serveUser(_ f: RelyingPartyFixture, id: String = "1234567890") {
    f.provider.routes.set(
      "/vk/user_info",
      json: #"{"user":{"user_id":"\#(id)","first_name":"Ivan","last_name":"Petrov","phone":"79990001122","#
        + #""avatar":"https://vk.test/a.jpg","email":"ivan@vk.test","sex":2,"verified":false,"birthday":"01.02.2000"}}"#)
  }

  @Test func aLoginEndsInTheUserIDCheckedAgainstTheUserInfo() async throws {
    try await withRelyingPartyFixture { f in
      Self.serveTokens(f)
      Self.serveUser(f)
      let identity = try await Self.party(f).complete(try Self.login(), now: f.now)
      #expect(identity.provider == .vk && identity.issuer == "https://id.vk.ru" && identity.subject == "1234567890")
      #expect(identity.idToken == nil)  // VK publishes no keys for its id_token
      #expect(identity.tokens?.accessToken == "vk2.a.access" && identity.tokens?.idToken == "h.p.s")
      // VK's refresh and logout need the callback's device_id: the identity carries it.
      #expect(identity.deviceID == "dev-42")
      // Printed, interpolated or dumped, the identity shows who signed in and no credential.
      var dumped = ""
      dump(identity, to: &dumped)
      for text in ["\(identity)", String(reflecting: identity), dumped] {
        #expect(text.contains("1234567890"), "\(text)")
        for secret in ["vk2.a.access", "vk2.a.r", "h.p.s", "dev-42"] { #expect(!text.contains(secret), "\(text)") }
      }
      let info = try #require(identity.userInfo)
      #expect(info.sub == "1234567890" && info.givenName == "Ivan" && info.familyName == "Petrov")
      #expect(info.phoneNumber == "79990001122" && info.picture == "https://vk.test/a.jpg")
      #expect(info.birthdate == "2000-02-01" && info.gender == "male")
      #expect(try VKUserInfo(json: Array(info.rawBody.utf8)).verified == false)
      #expect(identity.email == ProfileValue(value: "ivan@vk.test", source: .userInfo))
      #expect(identity.emailVerified == nil)
      #expect(identity.name == ProfileValue(value: "Ivan Petrov", source: .userInfo))

      // The exchange, as VK's guide shows it: the parameters in the query, the code as a JSON body.
      let exchange = try #require(f.requests(to: "/vk/token").first)
      let query = decodeForm(exchange.query ?? "")
      #expect(exchange.method == "POST" && exchange.header("Content-Type") == "application/json")
      #expect(exchange.body == #"{"code":"vk2.a.CODE-1"}"#)
      #expect(query["grant_type"] == "authorization_code" && query["client_id"] == "7915193")
      #expect(query["device_id"] == "dev-42")  // the callback's, round-tripped
      #expect(query["code_verifier"] == Self.verifier)
      #expect(query["redirect_uri"] == Self.redirect)
      #expect(query["state"].map { !$0.isEmpty && $0 != "st-vk" } == true)  // the exchange's own, fresh
      // The user info: the access token as Bearer, client_id in the JSON body.
      let userInfo = try #require(f.requests(to: "/vk/user_info").first)
      #expect(userInfo.method == "POST" && userInfo.header("Authorization") == "Bearer vk2.a.access")
      #expect(jsonObject(userInfo.body)["client_id"] as? String == "7915193")
    }
  }

  @Test func theFormBodyShapeSendsEverythingInTheForm() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/vk/token", json: #"{"access_token":"vk2.a.access","user_id":"1234567890"}"#)
      Self.serveUser(f)
      let identity = try await Self.party(f, shape: .formBody).complete(try Self.login(), now: f.now)
      #expect(identity.subject == "1234567890")
      let exchange = try #require(f.requests(to: "/vk/token").first)
      #expect(exchange.query == nil && exchange.form["device_id"] == "dev-42" && exchange.form["code"] == "vk2.a.CODE-1")
      #expect(exchange.form["code_verifier"] == Self.verifier)
    }
  }

  @Test func aUserInfoForAnotherUserIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      Self.serveTokens(f)
      Self.serveUser(f, id: "999")
      let error = await expectError(IdentityError.self) { _ = try await Self.party(f).complete(try Self.login(), now: f.now) }
      #expect(error?.code == .subjectMismatch)
    }
  }

  @Test func aTokenAnswerEchoingAnotherStateIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      Self.serveTokens(f, state: "someone-elses")
      Self.serveUser(f)
      let error = await expectError(OAuthResponseError.self) { _ = try await Self.party(f).complete(try Self.login(), now: f.now) }
      #expect(error?.code == .invalidField && error?.field == "state")
      #expect(f.requests(to: "/vk/user_info").isEmpty)
    }
  }

  @Test func aTokenAnswerWithoutUserIDIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/vk/token", json: #"{"access_token":"vk2.a.access"}"#)
      Self.serveUser(f)
      let error = await expectError(OAuthResponseError.self) { _ = try await Self.party(f).complete(try Self.login(), now: f.now) }
      #expect(error?.code == .missingField && error?.field == "user_id")
    }
  }

  @Test func anErrorCallbackIsNotASuccess() async throws {
    try await withRelyingPartyFixture { f in
      let pending = PendingAuthorization(
        provider: .vk, redirectURI: try ParsedURL(Self.redirect), state: "st-vk", clientID: "7915193",
        codeVerifier: Self.verifier)
      let denied = try consumed(pending, Self.redirect + "?error=access_denied&state=st-vk")
      let error = await expectError(IdentityError.self) { _ = try await Self.party(f).complete(denied, now: f.now) }
      #expect(error?.code == .notASuccess)
      #expect(f.provider.recorder.all.isEmpty)  // nothing was sent
    }
  }

  @Test func anotherProvidersAuthorizationIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      let error = await expectError(IdentityError.self) {
        _ = try await Self.party(f).complete(try SberRelyingPartyTests.login(), now: f.now)
      }
      #expect(error?.code == .authorizationMismatch)
      #expect(f.provider.recorder.all.isEmpty)
    }
  }

  @Test func logoutSendsTheBearerTokenAndClientID() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/vk/logout", json: #"{"response":1}"#)
      let tokens = TokenResponse(accessToken: "vk2.a.access", refreshToken: "vk2.a.r", userID: 1_234_567_890)
      #expect(try await Self.party(f).endSession(tokens: tokens) == .ended)
      let logout = try #require(f.requests(to: "/vk/logout").first)
      // As the guide's curl sends it: a GET without a body, the token as a bearer credential.
      #expect(logout.method == "GET" && logout.header("Authorization") == "Bearer vk2.a.access")
      #expect(logout.body.isEmpty && logout.header("Content-Type") == nil)
      #expect(decodeForm(logout.query ?? "") == ["client_id": "7915193"])
      #expect(!logout.body.contains("vk2.a.access"))
      // A refused logout is the provider's error, typed.
      f.provider.routes.set("/vk/logout", status: .unauthorized, json: #"{"error":"invalid_token"}"#)
      let error = await expectError(OAuthResponseError.self) { _ = try await Self.party(f).endSession(tokens: tokens) }
      #expect(error?.code == .providerError && error?.status == 401)
    }
  }
}

// MARK: - Sber ID

@Suite("ProviderRelyingParty: Sber ID", .timeLimit(.minutes(1)))
struct SberRelyingPartyTests {
  static let redirect = "https://partner.test/auth/sber"
  static let issuer = "https://sber.test"
  static let clientID = "0A1B2C3D-sber"
  static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

  static func party(_ f: RelyingPartyFixture, keys: JWKSCache?) -> ProviderRelyingParty {
    .sberID(
      SberIDClient(
        clientID: clientID, clientSecret: "sber-secret", tokenEndpoint: f.base + "/sber/token",
        userInfoEndpoint: f.base + "/sber/userinfo"),
      issuer: issuer, client: f.client, keys: keys)
  }

  static func login() throws -> ConsumedAuthorization {
    let pending = PendingAuthorization(
      provider: .sber, redirectURI: try ParsedURL(redirect), state: "st-sber", clientID: clientID,
      codeVerifier: verifier, nonce: "n-sber", redirectURIAsSent: redirect)
    return try consumed(pending, redirect + "?utm_source=sbol&state=st-sber&code=FA2154AC-3451-C01A-B2D3-C231DBB2E20F")
  }

  /// The login completed by a party with the provider's keys.
  static func completeWithKeys(_ f: RelyingPartyFixture) async throws -> VerifiedIdentity {
    try await party(f, keys: f.keys()).complete(try login(), now: f.now)
  }

  static func serve(_ f: RelyingPartyFixture, idToken: String?, userSub: String = "sber-sub-1") {
    let token = idToken.map { #","id_token":"\#($0)""# } ?? ""
    f.provider.routes.set(
      "/sber/token", json: #"{"access_token":"sber-at","token_type":"Bearer","expires_in":60"# + token + "}")
    f.provider.routes.set(
      "/sber/userinfo",
      json: #"{"sub":"\#(userSub)","given_name":"Иван","family_name":"Иванов","phone_number":"+7 (999) 123-45-67","#
        + #""email":"ivan@sber.test"}"#)
  }

  static func goodToken(_ f: RelyingPartyFixture, extra: [String: Any] = [:]) throws -> String {
    try f.idToken(issuer: issuer, audience: clientID, subject: "sber-sub-1", nonce: "n-sber", extra: extra)
  }

  @Test func aLoginVerifiesTheIDTokenAndCrossChecksTheUserInfo() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: try Self.goodToken(f, extra: ["email": "ivan@sber.test", "email_verified": true]))
      let identity = try await Self.completeWithKeys(f)
      #expect(identity.subject == "sber-sub-1" && identity.issuer == Self.issuer)
      #expect(identity.idToken?.claims.nonce == "n-sber")
      #expect(identity.email == ProfileValue(value: "ivan@sber.test", source: .idToken) && identity.emailVerified == true)
      #expect(identity.name == ProfileValue(value: "Иван Иванов", source: .userInfo))
      #expect(identity.userInfo?.phoneNumber == "+7 (999) 123-45-67")

      let exchange = try #require(f.requests(to: "/sber/token").first)
      let rquid = try #require(exchange.header("rquid"))
      #expect(rquid.count == 32 && rquid.allSatisfy(\.isHexDigit))
      #expect(exchange.form["grant_type"] == "authorization_code" && exchange.form["client_secret"] == "sber-secret")
      #expect(exchange.form["client_id"] == Self.clientID && exchange.form["code_verifier"] == Self.verifier)
      #expect(exchange.form["redirect_uri"] == Self.redirect)  // as sent: without the callback's utm_source
      #expect(exchange.form["code"] == "FA2154AC-3451-C01A-B2D3-C231DBB2E20F")
      let userInfo = try #require(f.requests(to: "/sber/userinfo").first)
      #expect(userInfo.method == "GET" && userInfo.header("Authorization") == "Bearer sber-at")
      #expect(userInfo.header("x-introspect-rquid")?.count == 32 && userInfo.header("x-ibm-client-id") == Self.clientID)
    }
  }

  @Test func withoutKeysTheUserInfoNamesTheUser() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: "not.verified.here")
      let identity = try await Self.party(f, keys: nil).complete(try Self.login(), now: f.now)
      #expect(identity.subject == "sber-sub-1" && identity.idToken == nil)
      #expect(identity.email == ProfileValue(value: "ivan@sber.test", source: .userInfo))
      #expect(f.provider.jwks.fetches == 0)
    }
  }

  @Test func aUserInfoForAnotherUserIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: try Self.goodToken(f), userSub: "someone-else")
      let error = await expectError(IdentityError.self) {
        _ = try await Self.completeWithKeys(f)
      }
      #expect(error?.code == .subjectMismatch)
    }
  }

  /// An id_token the token endpoint answers that must be refused, and the code it is refused with.
  struct HostileToken: Sendable, CustomTestStringConvertible {
    var issuer = SberRelyingPartyTests.issuer
    var audience: [String] = [SberRelyingPartyTests.clientID]
    var nonce = "n-sber"
    var refusal: IDTokenError.Code
    var testDescription: String { refusal.rawValue }
  }

  static let hostileTokens = [
    HostileToken(audience: [clientID, "another-client"], refusal: .untrustedAudience),
    HostileToken(nonce: "another-login", refusal: .nonceMismatch),
    HostileToken(issuer: "https://elsewhere.test", refusal: .issuerMismatch),
    HostileToken(audience: ["another-client"], refusal: .audienceMismatch),
  ]

  @Test(arguments: hostileTokens) func aHostileIDTokenIsRefused(_ token: HostileToken) async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: try f.idToken(
        issuer: token.issuer, audience: token.audience.count == 1 ? token.audience[0] : token.audience,
        subject: "sber-sub-1", nonce: token.nonce))
      let error = await expectError(IDTokenError.self) { _ = try await Self.completeWithKeys(f) }
      #expect(error?.code == token.refusal)
      #expect(f.requests(to: "/sber/userinfo").isEmpty)
    }
  }

  @Test func withKeysAnAnswerWithoutIDTokenIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: nil)
      let error = await expectError(IdentityError.self) {
        _ = try await Self.completeWithKeys(f)
      }
      #expect(error?.code == .missingIDToken)
    }
  }

  @Test(arguments: [JWKSEndpoint.Mode.serverError, .garbage, .slow])
  func aJWKSEndpointThatFailsIsATypedError(_ mode: JWKSEndpoint.Mode) async throws {
    try await withRelyingPartyFixture(timeout: .milliseconds(500)) { f in
      Self.serve(f, idToken: try Self.goodToken(f))
      f.provider.jwks.mode = mode
      let error = await expectError(OAuthResponseError.self) {
        _ = try await Self.completeWithKeys(f)
      }
      let expected: [JWKSEndpoint.Mode: OAuthResponseError.Code] = [
        .serverError: .httpStatus, .garbage: .unexpectedShape, .slow: .timeout,
      ]
      #expect(error?.code == expected[mode])
      #expect(f.provider.jwks.fetches == 1 && f.requests(to: "/sber/userinfo").isEmpty)
    }
  }

  @Test func sberHasNoLogoutAndSaysSo() async throws {
    try await withRelyingPartyFixture { f in
      let end = try await Self.party(f, keys: nil).endSession(tokens: TokenResponse(accessToken: "sber-at"))
      guard case .unsupported(let reason) = end else {
        Issue.record("\(end)")
        return
      }
      #expect(reason.contains("Sber ID documents no revocation"))
      #expect(f.provider.recorder.all.isEmpty)
    }
  }
}

// MARK: - T-ID

@Suite("ProviderRelyingParty: T-ID", .timeLimit(.minutes(1)))
struct TIDRelyingPartyTests {
  static let redirect = "https://partner.test/auth/tid"
  static let issuer = "https://id.tbank.ru"
  static let verifier = "tid-verifier-0123456789-abcdefghijklmnopqrstuv"

  static func party(_ f: RelyingPartyFixture, keys: JWKSCache?) -> ProviderRelyingParty {
    .tid(
      TIDClient(
        clientID: "tid-partner", clientSecret: "tid-secret", tokenEndpoint: f.base + "/tid/token",
        revokeEndpoint: f.base + "/tid/revoke", userInfoEndpoint: f.base + "/tid/userinfo"),
      client: f.client, keys: keys)
  }

  static func login() throws -> ConsumedAuthorization {
    let pending = PendingAuthorization(
      provider: .tid, redirectURI: try ParsedURL(redirect), state: "st-tid", clientID: "tid-partner",
      codeVerifier: verifier, redirectURIAsSent: redirect)
    return try consumed(pending, redirect + "?state=st-tid&code=c.1aGiAXX3Ni&session_state=hX.i4")
  }

  static func serve(_ f: RelyingPartyFixture, idToken: String?, userSub: String = "tid-sub-7") {
    let token = idToken.map { #","id_token":"\#($0)""# } ?? ""
    f.provider.routes.set(
      "/tid/token",
      json: #"{"access_token":"t.at","token_type":"Bearer","expires_in":1791,"refresh_token":"t.rt""# + token + "}")
    f.provider.routes.set(
      "/tid/userinfo",
      json: #"{"sub":"\#(userSub)","name":"Анна Смирнова","email":"anna@tid.test","email_verified":"true"}"#)
  }

  @Test func aLoginWithAnIDTokenVerifiesIt() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: try f.idToken(issuer: Self.issuer, audience: "tid-partner", subject: "tid-sub-7", nonce: nil))
      let identity = try await Self.party(f, keys: f.keys()).complete(try Self.login(), now: f.now)
      #expect(identity.subject == "tid-sub-7" && identity.idToken?.claims.subject == "tid-sub-7")
      #expect(identity.email == ProfileValue(value: "anna@tid.test", source: .userInfo) && identity.emailVerified == true)
      #expect(identity.name == ProfileValue(value: "Анна Смирнова", source: .userInfo))

      let exchange = try #require(f.requests(to: "/tid/token").first)
      let basic = "Basic " + Data("tid-partner:tid-secret".utf8).base64EncodedString()
      #expect(exchange.header("Authorization") == basic)
      #expect(exchange.form["client_id"] == nil && exchange.form["client_secret"] == nil)
      #expect(exchange.form["code"] == "c.1aGiAXX3Ni" && exchange.form["code_verifier"] == Self.verifier)
      #expect(exchange.form["redirect_uri"] == Self.redirect)
      let userInfo = try #require(f.requests(to: "/tid/userinfo").first)
      #expect(userInfo.method == "POST" && userInfo.header("Authorization") == "Bearer t.at")
    }
  }

  @Test func anAnswerWithoutIDTokenIsCompletedByTheUserInfo() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: nil)
      let identity = try await Self.party(f, keys: f.keys()).complete(try Self.login(), now: f.now)
      #expect(identity.subject == "tid-sub-7" && identity.idToken == nil && identity.issuer == Self.issuer)
      #expect(f.provider.jwks.fetches == 0)
    }
  }

  @Test func aUserInfoForAnotherUserIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(
        f, idToken: try f.idToken(issuer: Self.issuer, audience: "tid-partner", subject: "tid-sub-7", nonce: nil),
        userSub: "tid-sub-8")
      let error = await expectError(IdentityError.self) {
        _ = try await Self.party(f, keys: f.keys()).complete(try Self.login(), now: f.now)
      }
      #expect(error?.code == .subjectMismatch)
    }
  }

  @Test func withNeitherIDTokenNorUserInfoNothingNamesTheUser() async throws {
    try await withRelyingPartyFixture { f in
      Self.serve(f, idToken: nil)
      var party = Self.party(f, keys: nil)
      party.fetchesUserInfo = false
      let error = await expectError(IdentityError.self) { _ = try await party.complete(try Self.login(), now: f.now) }
      #expect(error?.code == .missingSubject)
    }
  }

  @Test func aCancelIsNotASuccess() async throws {
    try await withRelyingPartyFixture { f in
      let pending = PendingAuthorization(
        provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil, clientID: "tid-partner",
        codeVerifier: Self.verifier)
      let cancelled = try consumed(pending, "myapp://authorized?cancelled")
      let error = await expectError(IdentityError.self) { _ = try await Self.party(f, keys: nil).complete(cancelled, now: f.now) }
      #expect(error?.code == .notASuccess)
    }
  }

  /// A setting that cannot work is named when the party is checked, and before a login sends anything.
  @Test func aBadIssuerIsNamedBeforeAnyRequest() async throws {
    try await withRelyingPartyFixture { f in
      let party = ProviderRelyingParty.tid(TIDClient(clientID: "tid-partner"), client: f.client, issuer: "x")
      #expect(throws: ConfigurationError.self) { try party.validate() }
      let error = await expectError(ConfigurationError.self) { _ = try await party.complete(try Self.login(), now: f.now) }
      #expect(error?.setting == "ProviderRelyingParty.issuer")
      #expect(f.provider.recorder.all.isEmpty)
      #expect(throws: Never.self) { try Self.party(f, keys: nil).validate() }
    }
  }

  @Test func logoutRevokesTheAccessTokenThenTheRefreshToken() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/tid/revoke", json: "{}")
      let end = try await Self.party(f, keys: nil).endSession(tokens: TokenResponse(accessToken: "t.at", refreshToken: "t.rt"))
      #expect(end == .ended)
      // TinkoffID-iOS signs out with the access token: it is revoked first, then the refresh token.
      let revokes = f.requests(to: "/tid/revoke")
      try #require(revokes.count == 2)
      #expect(revokes[0].header("Authorization") == "Basic " + Data("tid-partner:tid-secret".utf8).base64EncodedString())
      #expect(revokes[0].form == ["token": "t.at", "token_type_hint": "access_token"])
      #expect(revokes[1].form == ["token": "t.rt", "token_type_hint": "refresh_token"])
      f.provider.routes.set("/tid/revoke", status: .badRequest, json: #"{"error":"invalid_grant"}"#)
      let error = await expectError(OAuthResponseError.self) {
        _ = try await Self.party(f, keys: nil).endSession(tokens: TokenResponse(accessToken: "t.at"))
      }
      #expect(error?.providerError?.error == .invalidGrant)
      #expect(f.requests(to: "/tid/revoke").last?.form["token"] == "t.at")
    }
  }
}

// MARK: - Sign in with Apple

@Suite("ProviderRelyingParty: Sign in with Apple", .timeLimit(.minutes(1)))
struct AppleRelyingPartyTests {
  static let redirect = "https://example.test/auth/apple"
  static let clientID = "com.example.web"
  static let issuer = "https://appleid.apple.com"
  static let code = "c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q"
  static let teamKey = P256.Signing.PrivateKey()
  static let user = #"{"name":{"firstName":"Timm","lastName":"Preetz"},"email":"spoofed@evil.test"}"#

  static func party(_ f: RelyingPartyFixture) throws -> ProviderRelyingParty {
    let secret = try AppleClientSecret(
      privateKeyPEM: teamKey.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clientID: clientID)
    return .apple(
      AppleClient(clientID: clientID, tokenEndpoint: f.base + "/apple/token", revokeEndpoint: f.base + "/apple/revoke"),
      clientSecret: secret, client: f.client, keys: f.keys())
  }

  static var pending: PendingAuthorization {
    get throws {
      PendingAuthorization(
        provider: .apple, redirectURI: try ParsedURL(redirect), state: "st-apple", clientID: clientID, nonce: "n-apple",
        redirectURIAsSent: redirect)
    }
  }

  /// The form_post body Apple sends: the code, the state, `idToken` when given, the first login's `user`.
  static func login(idToken: String?) throws -> ConsumedAuthorization {
    var body = "state=st-apple&code=\(code)"
    if let idToken { body += "&id_token=\(idToken)" }
    body += "&user=" + (user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    return try consumed(try pending, redirect, body: body)
  }

  static func postedToken(_ f: RelyingPartyFixture, cHash: String? = leftHalfHash(code), subject: String = "apple-sub")
    throws -> String
  {
    try f.idToken(
      issuer: issuer, audience: clientID, subject: subject, nonce: "n-apple",
      extra: cHash.map { ["c_hash": $0] } ?? [:])
  }

  static func serveTokens(_ f: RelyingPartyFixture) throws {
    let idToken = try f.idToken(
      issuer: issuer, audience: clientID, subject: "apple-sub", nonce: "n-apple",
      extra: [
        "email": "abc@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
        "at_hash": leftHalfHash("apple-at"),
      ])
    f.provider.routes.set(
      "/apple/token",
      json: #"{"access_token":"apple-at","token_type":"Bearer","expires_in":3600,"refresh_token":"apple-rt","id_token":"\#(idToken)"}"#)
  }

  /// `response_type=id_token` (Apple's article lists it beside `code`, in `fragment` or `form_post`): the
  /// callback carries the id_token and the state, no code. It validates against the authorization (nonce
  /// required: `c_hash` cannot apply) and completes with no token exchange, on the token verified with Apple's
  /// keys.
  @Test func anIDTokenOnlyLoginCompletesWithoutAnExchange() async throws {
    try await withRelyingPartyFixture { f in
      let token = try f.idToken(
        issuer: Self.issuer, audience: Self.clientID, subject: "apple-sub", nonce: "n-apple",
        extra: ["email": "abc@privaterelay.appleid.com", "email_verified": "true"])
      let user = Self.user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
      let login = try consumed(try Self.pending, Self.redirect, body: "state=st-apple&id_token=\(token)&user=\(user)")
      #expect(login.callback.outcome == .idTokenGrant && login.callback.code == nil)
      let identity = try await Self.party(f).complete(login, now: f.now)
      #expect(identity.provider == .apple && identity.subject == "apple-sub" && identity.issuer == Self.issuer)
      #expect(identity.tokens == nil && identity.idToken?.claims.nonce == "n-apple")
      #expect(identity.email == ProfileValue(value: "abc@privaterelay.appleid.com", source: .idToken))
      #expect(identity.name == ProfileValue(value: "Timm Preetz", source: .callback))
      #expect(f.requests(to: "/apple/token").isEmpty)
      // The same in a fragment (response_mode=fragment).
      let fragment = try Self.pending.validate(try ParsedURL(Self.redirect + "#state=st-apple&id_token=\(token)"))
      #expect(fragment.outcome == .idTokenGrant)

      // Another login's token (another nonce): refused before anything is sent.
      let other = try f.idToken(issuer: Self.issuer, audience: Self.clientID, subject: "apple-sub", nonce: "n-other")
      let mismatch = await expectError(CallbackError.self) {
        _ = try consumed(try Self.pending, Self.redirect, body: "state=st-apple&id_token=\(other)")
      }
      #expect(mismatch?.code == .nonceMismatch)
      // An authorization that sent no nonce has nothing to bind such a token to.
      let withoutNonce = PendingAuthorization(
        provider: .apple, redirectURI: try ParsedURL(Self.redirect), state: "st-apple", clientID: Self.clientID)
      let unbound = await expectError(CallbackError.self) {
        _ = try consumed(withoutNonce, Self.redirect, body: "state=st-apple&id_token=\(token)")
      }
      #expect(unbound?.code == .nonceMismatch)
      // A token Apple's keys did not sign (right nonce): refused at completion.
      // (Another key under the fixture key's kid: the signature does not verify.)
      let forged = try TestSigningKey("rp-key").signed(
        #"{"iss":"\#(Self.issuer)","aud":"\#(Self.clientID)","sub":"apple-sub","nonce":"n-apple","#
          + #""iat":\#(f.now - 10),"exp":\#(f.now + 600)}"#)
      let refused = await expectError(IDTokenError.self) {
        _ = try await Self.party(f).complete(
          try consumed(try Self.pending, Self.redirect, body: "state=st-apple&id_token=\(forged)"), now: f.now)
      }
      #expect(refused != nil)
      #expect(f.requests(to: "/apple/token").isEmpty)
    }
  }

  @Test func aFormPostLoginVerifiesBothIDTokens() async throws {
    try await withRelyingPartyFixture { f in
      try Self.serveTokens(f)
      let identity = try await Self.party(f).complete(try Self.login(idToken: try Self.postedToken(f)), now: f.now)
      #expect(identity.provider == .apple && identity.issuer == Self.issuer && identity.subject == "apple-sub")
      #expect(identity.idToken?.claims.apple.isPrivateEmail == true)
      // The e-mail is the verified token's; the posted `user` JSON's stays unverified.
      #expect(identity.email == ProfileValue(value: "abc@privaterelay.appleid.com", source: .idToken))
      #expect(identity.emailVerified == true)
      #expect(identity.unverifiedAppleUser?.email == "spoofed@evil.test")
      #expect(identity.name == ProfileValue(value: "Timm Preetz", source: .callback))
      #expect(identity.userInfo == nil)

      let exchange = try #require(f.requests(to: "/apple/token").first)
      #expect(exchange.form["client_id"] == Self.clientID && exchange.form["code"] == Self.code)
      #expect(exchange.form["grant_type"] == "authorization_code" && exchange.form["redirect_uri"] == Self.redirect)
      // The client_secret: an ES256 JWT from the team's key, for this client.
      let secret = try #require(exchange.form["client_secret"])
      let parts = secret.split(separator: ".")
      #expect(parts.count == 3)
      let header = jsonObject(base64URLDecoded(parts[0]))
      let claims = jsonObject(base64URLDecoded(parts[1]))
      #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
      #expect(claims["iss"] as? String == "DEF123GHIJ" && claims["sub"] as? String == Self.clientID)
      #expect(claims["aud"] as? String == "https://appleid.apple.com")
      #expect((claims["iat"] as? NSNumber)?.int64Value == f.now && (claims["exp"] as? NSNumber)?.int64Value == f.now + 300)
      let raw = Data(base64Encoded: Self.padded(parts[2])) ?? Data()
      #expect(
        Self.teamKey.publicKey.isValidSignature(
          try P256.Signing.ECDSASignature(rawRepresentation: raw), for: Data("\(parts[0]).\(parts[1])".utf8)))
    }
  }

  static func padded(_ segment: Substring) -> String {
    var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return text
  }

  @Test func aCodeOnlyCallbackVerifiesTheTokenEndpointsIDToken() async throws {
    try await withRelyingPartyFixture { f in
      try Self.serveTokens(f)
      let identity = try await Self.party(f).complete(
        try consumed(try Self.pending, Self.redirect + "?state=st-apple&code=\(Self.code)"), now: f.now)
      #expect(identity.subject == "apple-sub" && identity.unverifiedAppleUser == nil && identity.name == nil)
    }
  }

  @Test func aPostedIDTokenWithAWrongCodeHashIsRefusedBeforeTheExchange() async throws {
    try await withRelyingPartyFixture { f in
      try Self.serveTokens(f)
      let forged = try Self.postedToken(f, cHash: leftHalfHash("another-code"))
      let error = await expectError(IDTokenError.self) {
        _ = try await Self.party(f).complete(try Self.login(idToken: forged), now: f.now)
      }
      #expect(error?.code == .codeHashMismatch)
      #expect(f.requests(to: "/apple/token").isEmpty)  // the code was not spent
    }
  }

  @Test func aPostedIDTokenWithoutCodeHashIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      try Self.serveTokens(f)
      let error = await expectError(IDTokenError.self) {
        _ = try await Self.party(f).complete(try Self.login(idToken: try Self.postedToken(f, cHash: nil)), now: f.now)
      }
      #expect(error?.code == .missingClaim && error?.claim == "c_hash")
    }
  }

  @Test func aPostedIDTokenForAnotherUserIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      try Self.serveTokens(f)
      let error = await expectError(IdentityError.self) {
        _ = try await Self.party(f).complete(
          try Self.login(idToken: try Self.postedToken(f, subject: "someone-else")), now: f.now)
      }
      #expect(error?.code == .subjectMismatch)
    }
  }

  @Test func aTokenEndpointIDTokenWithAnotherNonceIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      let idToken = try f.idToken(issuer: Self.issuer, audience: Self.clientID, subject: "apple-sub", nonce: "n-other")
      f.provider.routes.set("/apple/token", json: #"{"access_token":"apple-at","id_token":"\#(idToken)"}"#)
      let error = await expectError(IDTokenError.self) {
        _ = try await Self.party(f).complete(try consumed(try Self.pending, Self.redirect + "?state=st-apple&code=c1"), now: f.now)
      }
      #expect(error?.code == .nonceMismatch)
    }
  }

  @Test func aCancelIsNotASuccess() async throws {
    try await withRelyingPartyFixture { f in
      let cancelled = try consumed(try Self.pending, Self.redirect, body: "error=user_cancelled_authorize&state=st-apple")
      let error = await expectError(IdentityError.self) { _ = try await Self.party(f).complete(cancelled, now: f.now) }
      #expect(error?.code == .notASuccess)
      #expect(f.provider.recorder.all.isEmpty)
    }
  }

  @Test func logoutRevokesWithAClientSecret() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/apple/revoke", json: "")
      let end = try await Self.party(f).endSession(
        tokens: TokenResponse(accessToken: "apple-at", refreshToken: "apple-rt"), now: f.now)
      #expect(end == .ended)
      let revoke = try #require(f.requests(to: "/apple/revoke").first)
      #expect(revoke.form["client_id"] == Self.clientID && revoke.form["token"] == "apple-rt")
      #expect(revoke.form["token_type_hint"] == "refresh_token")
      #expect(revoke.form["client_secret"]?.split(separator: ".").count == 3)
    }
  }
}

// MARK: - OpenID Connect's end of session

@Suite("OIDCRelyingParty.endSession")
struct OIDCEndSessionTests {
  @Test func aProviderWithAnEndSessionEndpointGetsTheBrowser() async throws {
    let client = OAuthHTTPClient()
    do {
      try await endSessionAnswers(client)
      try await client.shutdown()
    } catch {
      try? await client.shutdown()
      throw error
    }
  }

  func endSessionAnswers(_ client: OAuthHTTPClient) async throws {
    var metadata = OIDCProviderMetadata(
      issuer: "https://id.example", authorizationEndpoint: "https://id.example/a", tokenEndpoint: "https://id.example/t",
      jwksURI: "https://id.example/k", endSessionEndpoint: "https://id.example/logout")
    let party = OIDCRelyingParty(metadata: metadata, clientID: "app", clientSecret: nil, client: client)
    let end = try await party.endSession(
      tokens: TokenResponse(accessToken: "at", idToken: "h.p.s"), postLogoutRedirectURI: "https://app.example/")
    #expect(
      end == .redirect(
        "https://id.example/logout?id_token_hint=h.p.s&client_id=app&post_logout_redirect_uri=https%3A%2F%2Fapp.example%2F"))
    metadata.endSessionEndpoint = nil
    let without = OIDCRelyingParty(metadata: metadata, clientID: "app", clientSecret: nil, client: client)
    guard case .unsupported = try await without.endSession(tokens: TokenResponse(accessToken: "at")) else {
      Issue.record("a provider without end_session_endpoint")
      return
    }
  }
}
