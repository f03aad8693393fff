// WebLogin over a real socket (Hummingbird's live test server), its parties against LocalProvider (a real HTTP
// server on 127.0.0.1 that records every request): one owner dispatches the callback by its route and a
// session by its provider and issuer — a VK ID session refreshes and logs out at VK ID, never at the other
// provider registered beside it (the example's old glue sent every session's refresh token to the demo
// provider) — and a provider failure answers a stable problem code without its detail.

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkParseAuthorization
import LinkParseCore
import LinkParseHTTP
import LinkParseOAuth
import LinkParseHummingbird
import NIOCore
import Testing

@Suite("WebLogin", .timeLimit(.minutes(1)))
struct WebLoginTests {
  static let base = "https://app.test"

  /// VK ID and a generic OpenID Connect provider, both on LocalProvider (VK at /vk/…, the other at /token).
  static func webLogin(_ f: RelyingPartyFixture, vk: ProviderRelyingParty? = nil) throws -> WebLogin<PendingAuthorizationStore> {
    let metadata = OIDCProviderMetadata(
      issuer: f.base, authorizationEndpoint: f.base + "/authorize", tokenEndpoint: f.base + "/token",
      jwksURI: f.base + "/jwks")
    let oidc = OIDCRelyingParty(metadata: metadata, clientID: "app", clientSecret: "s3cret", client: f.client, keys: f.keys())
    return try WebLogin(
      publicBaseURL: base, logins: [.init("vk", party: vk ?? VKRelyingPartyTests.party(f)), .init("oidc", party: oidc)],
      store: PendingAuthorizationStore(), sessions: MemorySessionDriver(), secret: SymmetricKey(size: .bits256))
  }

  /// The login's routes and a /me, on a live server.
  static func withServer<T: Sendable>(
    _ login: WebLogin<PendingAuthorizationStore>, _ body: @Sendable (any TestClientProtocol) async throws -> T
  ) async throws -> T {
    let router = Router(context: LoginSessionContext.self)
    login.addRoutes(to: router)
    router.get("/me") { request, context in
      try await login.withSession(request, context) { $0.summaryResponse() }
    }
    return try await Application(router: router).test(.live) { client in try await body(client) }
  }

  /// `name=value` of the cookie `response` sets under `prefix`.
  static func cookie(_ response: TestResponse, _ prefix: String) -> String? {
    response.headers[values: .setCookie].first { $0.hasPrefix(prefix) }?.split(separator: ";").first.map(String.init)
  }

  /// A VK ID login through the routes: the start, VK's redirect back (its code, the start's state, a
  /// device_id), the callback with the login cookie. Returns the callback's answer.
  static func vkLogin(_ client: any TestClientProtocol) async throws -> TestResponse {
    let start = try await client.execute(uri: "/login/vk", method: .get)
    #expect(start.status == .found)
    let location = try #require(start.headers[.location])
    let state = try #require(decodeForm(String(location.split(separator: "?").last ?? ""))["state"])
    let loginCookie = try #require(cookie(start, "__Host-lp-login-"))
    return try await client.execute(
      uri: "/auth/vk/callback?code=vk2.a.CODE-1&state=\(state)&device_id=dev-42&type=code_v2&expires_in=600",
      method: .get, headers: [.cookie: loginCookie])
  }

  /// The VK ID session: refreshed at VK ID's token endpoint with its device_id, its logout sent to VK ID; the
  /// other provider hears nothing of it.
  @Test func aSessionRefreshesAndEndsAtItsOwnProvider() async throws {
    try await withRelyingPartyFixture { f in
      VKRelyingPartyTests.serveTokens(f)
      VKRelyingPartyTests.serveUser(f)
      f.provider.routes.set("/vk/logout", json: #"{"response":1}"#)
      try await Self.withServer(try Self.webLogin(f)) { client in
        let done = try await Self.vkLogin(client)
        #expect(done.status == .seeOther && done.headers[.location] == "/", "\(String(buffer: done.body))")
        let session = try #require(Self.cookie(done, "__Host-lp-session="))
        let me = try await client.execute(uri: "/me", method: .get, headers: [.cookie: session])
        #expect(me.status == .ok && String(buffer: me.body).contains(#""provider":"vk""#))

        // VK rotates its refresh tokens: the refresh goes to VK with the login's device_id.
        f.provider.routes.set(
          "/vk/token", json: #"{"access_token":"vk2.a.new","refresh_token":"vk2.r.new","expires_in":3600,"user_id":1234567890,"state":""}"#)
        let refreshed = try await client.execute(uri: "/refresh", method: .post, headers: [.cookie: session])
        #expect(refreshed.status == .ok && String(buffer: refreshed.body).contains(#""refresh_count":1"#))
        let refresh = try #require(f.requests(to: "/vk/token").last)
        let query = decodeForm(refresh.query ?? "")
        #expect(query["grant_type"] == "refresh_token" && query["device_id"] == "dev-42")
        #expect(jsonObject(refresh.body)["refresh_token"] as? String == "vk2.a.r")

        // The logout: ended here, VK's logout sent with the new access token, back to the site's own page.
        let logout = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: session])
        #expect(logout.status == .seeOther && logout.headers[.location] == "/")
        #expect(logout.headers[values: .setCookie].contains { $0.hasPrefix("__Host-lp-session=") && $0.contains("Max-Age=0") })
        #expect(f.requests(to: "/vk/logout").last?.header("Authorization") == "Bearer vk2.a.new")
        let after = try await client.execute(uri: "/me", method: .get, headers: [.cookie: session])
        #expect(after.status == .unauthorized && String(buffer: after.body).contains(#""code":"no-session""#))
      }
      // The other provider was never asked anything.
      #expect(f.requests(to: "/token").isEmpty)
    }
  }

  /// The provider refuses the code: a stable problem code, and nothing of the provider's answer in the body.
  @Test func aRefusedLoginIsAStableProblem() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set(
        "/vk/token", status: .badRequest, json: #"{"error":"invalid_grant","error_description":"secret-detail-7"}"#)
      try await Self.withServer(try Self.webLogin(f)) { client in
        let done = try await Self.vkLogin(client)
        let body = String(buffer: done.body)
        #expect(done.status == .badGateway && body.contains(#""code":"login-failed""#), "\(body)")
        #expect(done.headers[.contentType] == "application/problem+json")
        #expect(!body.contains("secret-detail-7") && !body.contains("invalid_grant"))
        #expect(Self.cookie(done, "__Host-lp-session=") == nil)
      }
    }
  }

  /// A token endpoint that cannot be connected to: the code never left, so the login is given back — 503
  /// `login-not-sent` with `Retry-After`, the login cookie kept, no session — and the same callback, delivered
  /// again once the provider is up, finishes the login; a third delivery is a replay.
  @Test func aLoginWhoseCodeNeverLeftCanBeRetried() async throws {
    try await withRelyingPartyFixture { f in
      let port = try await LocalProvider.closedPort()
      let down = "http://127.0.0.1:\(port)"
      let vk = ProviderRelyingParty.vkID(
        VKIDClient(
          clientID: "7915193", tokenEndpoint: down + "/vk/token", logoutEndpoint: down + "/vk/logout",
          userInfoEndpoint: down + "/vk/user_info"),
        client: f.client)
      try await Self.withServer(try Self.webLogin(f, vk: vk)) { client in
        let start = try await client.execute(uri: "/login/vk", method: .get)
        let location = try #require(start.headers[.location])
        let state = try #require(decodeForm(String(location.split(separator: "?").last ?? ""))["state"])
        let loginCookie = try #require(Self.cookie(start, "__Host-lp-login-"))
        let callback = "/auth/vk/callback?code=vk2.a.CODE-1&state=\(state)&device_id=dev-42&type=code_v2&expires_in=600"
        let first = try await client.execute(uri: callback, method: .get, headers: [.cookie: loginCookie])
        #expect(first.status == .serviceUnavailable && String(buffer: first.body).contains(#""code":"login-not-sent""#))
        #expect(first.headers[.retryAfter] == "5")
        #expect(first.headers[values: .setCookie].isEmpty, "nothing cleared, no session: \(first.headers)")

        // The provider comes up where the party sends its requests.
        let provider = try await LocalProvider.start(port: port)
        let up = RelyingPartyFixture(provider: provider, client: f.client, key: f.key)
        VKRelyingPartyTests.serveTokens(up)
        VKRelyingPartyTests.serveUser(up)
        do {
          let second = try await client.execute(uri: callback, method: .get, headers: [.cookie: loginCookie])
          #expect(second.status == .seeOther, "\(String(buffer: second.body))")
          #expect(Self.cookie(second, "__Host-lp-session=") != nil)
          #expect(second.headers[values: .setCookie].contains { $0.hasPrefix("__Host-lp-login-") && $0.contains("Max-Age=0") })
          #expect(up.requests(to: "/vk/token").count == 1)
          let third = try await client.execute(uri: callback, method: .get, headers: [.cookie: loginCookie])
          #expect(third.status == .conflict && String(buffer: third.body).contains(#""code":"replayed""#))
          #expect(up.requests(to: "/vk/token").count == 1)
        }
        await provider.stop()
      }
    }
  }

  /// A provider that answers too slowly, after the code was sent: 503 `provider-unavailable`, and the login is
  /// used up (the code may have reached it).
  @Test func aProviderThatTimesOutUsesTheLoginUp() async throws {
    try await withRelyingPartyFixture(timeout: .milliseconds(500)) { f in
      let vk = ProviderRelyingParty.vkID(
        VKIDClient(
          clientID: "7915193", tokenEndpoint: f.base + "/slow-head", logoutEndpoint: f.base + "/vk/logout",
          userInfoEndpoint: f.base + "/vk/user_info"),
        client: f.client)
      try await Self.withServer(try Self.webLogin(f, vk: vk)) { client in
        let done = try await Self.vkLogin(client)
        #expect(done.status == .serviceUnavailable && String(buffer: done.body).contains(#""code":"provider-unavailable""#))
        #expect(Self.cookie(done, "__Host-lp-session=") == nil)
        #expect(done.headers[values: .setCookie].contains { $0.hasPrefix("__Host-lp-login-") && $0.contains("Max-Age=0") })
      }
    }
  }

  /// The user declined at the provider: 403 `login-not-approved`, nothing sent to the provider.
  @Test func aDeclinedLoginIsNotApproved() async throws {
    try await withRelyingPartyFixture { f in
      try await Self.withServer(try Self.webLogin(f)) { client in
        let start = try await client.execute(uri: "/login/oidc", method: .get)
        let location = try #require(start.headers[.location])
        let state = try #require(decodeForm(String(location.split(separator: "?").last ?? ""))["state"])
        let done = try await client.execute(
          uri: "/auth/oidc/callback?error=access_denied&state=\(state)", method: .get,
          headers: [.cookie: try #require(Self.cookie(start, "__Host-lp-login-"))])
        #expect(done.status == .forbidden && String(buffer: done.body).contains(#""code":"login-not-approved""#))
      }
      #expect(f.provider.recorder.all.allSatisfy { $0.path == "/jwks" })
    }
  }

  /// Settings that cannot work stop the server at start-up, named: two logins of one name, two parties a session
  /// could not tell apart, a start whose redirect URI is not its callback.
  @Test func aConfigurationThatCannotWorkIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      let vk = VKRelyingPartyTests.party(f)
      func make(_ logins: [WebLogin<PendingAuthorizationStore>.Login]) throws {
        _ = try WebLogin(
          publicBaseURL: Self.base, logins: logins, store: PendingAuthorizationStore(), sessions: MemorySessionDriver(),
          secret: SymmetricKey(size: .bits256))
      }
      #expect(throws: ConfigurationError.self) { try make([.init("vk", party: vk), .init("vk", party: vk)]) }
      #expect(throws: ConfigurationError.self) { try make([.init("vk", party: vk), .init("vk2", party: vk)]) }
      #expect(throws: ConfigurationError.self) {
        try make([.init("vk", party: vk, start: vk.loginStart(redirectURI: "https://evil.test/auth/vk/callback"))])
      }
      #expect(throws: Never.self) { try make([.init("vk", party: vk)]) }
    }
  }
}
