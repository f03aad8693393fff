// The callback routes of a LinkParseRouter table served by LinkParseCallbackRoutes, and the start-login
// endpoints LoginStart builds: through HummingbirdTesting's router client and over a real socket.

import Foundation
import Hummingbird
import HummingbirdTesting
import LinkParseAuthorization
import LinkParseCore
import LinkParseHummingbird
import LinkParseProviders
import LinkParseRouter
import LinkParseTestSupport
import Testing

/// The query items of `url` (the start endpoint's Location), by name.
func queryItems(_ url: String?) -> [String: String] {
  var items: [String: String] = [:]
  for item in URLComponents(string: url ?? "")?.queryItems ?? [] { items[item.name] = item.value ?? "" }
  return items
}

@Suite struct CallbackRoutesTests {
  static let table: [Route] = [
    Route("vk", "https://example.com/auth/vk/callback", provider: .vk),
    Route("sber", "https://example.com/auth/sber/callback", provider: .sber),
    Route("tid", "https://example.com/auth/tid/callback", provider: .tid),
    Route("apple", "https://example.com/auth/apple/callback", provider: .apple),
    Route("tenant", "https://example.com/auth/t/{tenant}/callback", provider: .oauth2),
    Route("home", "https://example.com/"),
  ]

  struct Fixture {
    let store = PendingAuthorizationStore()
    let logs = CapturedLogs()
    let router = Router()
    let endpoint: LinkParseCallbackEndpoint<PendingAuthorizationStore>

    init() throws {
      endpoint = LinkParseCallbackEndpoint(store: store, publicBaseURL: "https://example.com", logger: logs.logger)
      let table = try LinkParseRouter.Router(CallbackRoutesTests.table)
      router.add(
        middleware: endpoint.callbackRoutes(table, context: BasicRequestContext.self, unknownRoutePrefix: "/auth/") {
          consumed, match, _, _ in
          var location = "/done?route=\(match.name)&provider=\(consumed.callback.provider.rawValue)"
          location += "&outcome=\(consumed.callback.outcome.rawValue)"
          if let tenant = match["tenant"] { location += "&tenant=\(tenant)" }
          return Response(status: .seeOther, headers: [.location: location])
        })
      router.get("/") { _, _ in "home" }
      endpoint.registerStart(
        on: router, path: "/login/vk",
        login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback", scope: ["email"]))
      endpoint.registerStart(
        on: router, path: "/login/apple",
        login: .apple(clientID: "com.example.web", redirectURI: "https://example.com/auth/apple/callback"))
      endpoint.registerStart(
        on: router, path: "/login/tid",
        login: .tid(clientID: "partner", redirectURI: "https://example.com/auth/tid/callback"))
      endpoint.registerStart(
        on: router, path: "/login/sber",
        login: .sberID(clientID: "0A1B2C3D", redirectURI: "https://example.com/auth/sber/callback"))
      endpoint.registerStart(
        on: router, path: "/login/broken", login: .vkID(clientID: "1", redirectURI: "not a url"))
    }

    var app: some ApplicationProtocol { Application(router: router) }
  }

  static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

  @Test func vkLoginStartsAndItsCallbackIsServed() async throws {
    let f = try Fixture()
    let store = f.store
    try await f.app.test(.router) { client in
      let start = try await client.execute(uri: "/login/vk", method: .get)
      #expect(start.status == .found)
      #expect(start.headers[.cacheControl] == "no-store")
      let location = try #require(start.headers[.location])
      #expect(location.hasPrefix("https://id.vk.ru/authorize?"))
      let items = queryItems(location)
      #expect(items["redirect_uri"] == "https://example.com/auth/vk/callback")
      #expect(items["code_challenge_method"] == "S256")
      #expect(items["scope"] == "email")
      let state = try #require(items["state"])
      #expect(state.utf8.count == 43)
      #expect(store.count == 0)  // carried in the login cookie, not stored

      let uri = "/auth/vk/callback?code=code-secret&state=\(state)&device_id=dev-1&type=code_v2&expires_in=600"
      let response = try await client.execute(uri: uri, method: .get, headers: cookies(from: start))
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/done?route=vk&provider=vk&outcome=success")
      expectProblem(
        try await client.execute(uri: uri, method: .get, headers: cookies(from: start)), status: .conflict,
        code: "replayed")
    }
    #expect(!f.logs.all.joined().contains("code-secret"))
  }

  @Test func appleFormPostThroughTheTable() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let start = try await client.execute(uri: "/login/apple", method: .get)
      let items = queryItems(start.headers[.location])
      #expect(items["response_mode"] == "form_post")
      #expect(items["nonce"]?.utf8.count == 43)
      let state = try #require(items["state"])
      let body = ByteBuffer(string: "state=\(state)&code=c1d2e3f4a5b6c7d8e9f00112233445566.0.nrqtw.Zm9vYmFyYmF6")
      // A cross-site POST: the browser sends only the SameSite=None cookie, which the Apple login set.
      let attributes = setCookieAttributes(try #require(start.headers[.setCookie]))
      #expect(attributes["secure"] == "" && attributes["samesite"] == "None")
      var headers = Self.form
      headers[.cookie] = cookies(from: start)[.cookie]
      let response = try await client.execute(
        uri: "/auth/apple/callback", method: .post, headers: headers, body: body)
      #expect(response.headers[.location] == "/done?route=apple&provider=apple&outcome=success")
    }
  }

  @Test func tidWebCallbackIsBoundByState() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let start = try await client.execute(uri: "/login/tid", method: .get)
      let location = try #require(start.headers[.location])
      #expect(location.hasPrefix("https://id.tbank.ru/auth/authorize?response_type=code&client_id=partner&"))
      let state = try #require(queryItems(location)["state"])
      expectProblem(
        try await client.execute(uri: "/auth/tid/callback?state=forged&code=code-secret&session_state=x", method: .get),
        status: .forbidden, code: "unknown-login")
      let response = try await client.execute(
        uri: "/auth/tid/callback?state=\(state)&code=c.1aGiAXX3Ni&session_state=hX.i4", method: .get,
        headers: cookies(from: start))
      #expect(response.headers[.location] == "/done?route=tid&provider=tid&outcome=success")
    }
  }

  @Test func capturesReachTheApp() async throws {
    let f = try Fixture()
    try await f.store.insert(
      PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/t/acme/callback"), state: "st-secret-1"))
    try await f.app.test(.router) { client in
      let response = try await client.execute(uri: "/auth/t/acme/callback?code=code-secret&state=st-secret-1", method: .get)
      #expect(response.headers[.location] == "/done?route=tenant&provider=oauth2&outcome=success&tenant=acme")
    }
  }

  @Test func routesWithoutProviderAndUnknownPaths() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let home = try await client.execute(uri: "/", method: .get)
      #expect(home.status == .ok)
      #expect(String(buffer: home.body) == "home")
      expectProblem(
        try await client.execute(uri: "/auth/nowhere?code=code-secret&state=st-secret-1", method: .get),
        status: .notFound, code: "unknown-route")
      let outside = try await client.execute(uri: "/elsewhere", method: .get)
      #expect(outside.status == .notFound)
      #expect(outside.headers[.contentType] != "application/problem+json")
    }
  }

  @Test func otherMethodsAre405() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let response = try await client.execute(uri: "/auth/vk/callback?code=code-secret", method: .put)
      expectProblem(response, status: .methodNotAllowed, code: "method-not-allowed")
      #expect(response.headers[.allow] == "GET, POST")
    }
  }

  /// A login whose redirect URI is another provider's route: rejected, not handed to the app as that provider.
  @Test func providerMismatchIs403() async throws {
    let f = try Fixture()
    try await f.store.insert(
      PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/sber/callback"), state: "st-secret-1"))
    try await f.app.test(.router) { client in
      expectProblem(
        try await client.execute(uri: "/auth/sber/callback?code=code-secret&state=st-secret-1", method: .get),
        status: .forbidden, code: "provider-mismatch")
    }
  }

  @Test func brokenLoginConfigurationIs500() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      expectProblem(try await client.execute(uri: "/login/broken", method: .get), status: .internalServerError, code: "invalid-configuration")
    }
    #expect(f.store.count == 0)
  }

  /// Hostile callbacks first (forged state, duplicate parameters, the genuine callback without its login cookie
  /// or with another's, malformed and oversized bodies, unknown route): each its status and code (one uniform
  /// `unknown-login` for every callback that binds no login of this browser), and the genuine callback
  /// afterwards still succeeds exactly once.
  @Test func hostileInputLosesNothing() async throws {
    let f = try Fixture()
    try await f.app.test(.live) { client in
      let start = try await client.execute(uri: "/login/apple", method: .get)
      let state = try #require(queryItems(start.headers[.location])["state"])
      var withCookie = Self.form
      withCookie[.cookie] = cookies(from: start)[.cookie]
      var wrongCookie = Self.form
      wrongCookie[.cookie] = cookies(from: start)[.cookie]!.split(separator: "=")[0] + "=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      let genuine = ByteBuffer(string: "state=\(state)&code=c1d2e3f4a5b6c7d8e9f00112233445566.0.nrqtw.Zm9vYmFyYmF6")
      let cases: [(HTTPRequest.Method, String, HTTPFields, ByteBuffer?, HTTPResponse.Status, String)] = [
        (.post, "/auth/apple/callback", withCookie, ByteBuffer(string: "state=forged&code=code-secret"), .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", withCookie, ByteBuffer(string: "state=\(state)&state=\(state)&code=code-secret"), .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", withCookie, ByteBuffer(string: "state=\(state)&code=a&code=b"), .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", withCookie, ByteBuffer(bytes: [0x25, 0xFF, 0x26, 0x3D]), .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", Self.form, genuine, .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", wrongCookie, genuine, .forbidden, "unknown-login"),
        (.post, "/auth/apple/callback", [.contentType: "text/plain"], ByteBuffer(string: "state=\(state)&code=c"), .unsupportedMediaType, "unsupported-media-type"),
        (.post, "/auth/apple/callback", Self.form, ByteBuffer(repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024), .contentTooLarge, "content-too-large"),
        (.get, "/auth/apple/callbackx?state=\(state)&code=c", [:], nil, .notFound, "unknown-route"),
      ]
      for (method, uri, headers, body, status, code) in cases {
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
        expectProblem(response, status: status, code: code)
      }
      let ok = try await client.execute(uri: "/auth/apple/callback", method: .post, headers: withCookie, body: genuine)
      #expect(ok.headers[.location] == "/done?route=apple&provider=apple&outcome=success")
      let again = try await client.execute(uri: "/auth/apple/callback", method: .post, headers: withCookie, body: genuine)
      expectProblem(again, status: .conflict, code: "replayed")
    }
  }

  @Test func everyLoginStartDrawsFreshValues() throws {
    let starts: [(LoginStart, Provider, String)] = [
      (.vkID(clientID: "1", redirectURI: "https://e.com/vk"), .vk, "https://id.vk.ru/authorize?"),
      (.sberID(clientID: "1", redirectURI: "https://e.com/sber"), .sber, "https://online.sberbank.ru/CSAFront/oidc/authorize.do?"),
      (.tid(clientID: "1", redirectURI: "https://e.com/tid"), .tid, "https://id.tbank.ru/auth/authorize?"),
      (.apple(clientID: "1", redirectURI: "https://e.com/apple"), .apple, "https://appleid.apple.com/auth/authorize?"),
      (.oauth2(authorizeURL: "https://as.example/authorize", clientID: "1", redirectURI: "https://e.com/cb", issuer: "https://as.example"), .oauth2, "https://as.example/authorize?"),
    ]
    for (login, provider, prefix) in starts {
      let (url1, pending1) = try login.makeAuthorization(now: 1_000)
      let (url2, pending2) = try login.makeAuthorization(now: 1_000)
      #expect(url1.hasPrefix(prefix))
      #expect(pending1.provider == provider)
      #expect(pending1.expiresAt == 1_000 + PendingAuthorization.defaultLifetime.components.seconds)
      #expect(pending1.state != nil && pending1.state != pending2.state)
      #expect(queryItems(url1)["state"] == pending1.state)
      #expect(url1 != url2)
      if provider != .apple {
        #expect(pending1.codeVerifier.map { PKCE.s256Challenge(for: $0) } == queryItems(url1)["code_challenge"])
      }
      if provider == .sber || provider == .apple || provider == .oauth2 {
        #expect(pending1.nonce != nil && pending1.nonce == queryItems(url1)["nonce"])
      }
    }
  }
}
