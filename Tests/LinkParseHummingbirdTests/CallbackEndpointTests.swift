import Hummingbird
import HummingbirdTesting
import LinkParseAuthorization
import LinkParseCore
import LinkParseHummingbird
import LinkParseProviders
import Logging
import Synchronization
import LinkParseTestSupport
import Testing

/// Keeps every log line, to check what the endpoint logs (and what it must not).
final class CapturedLogs: Sendable {
  let lines = Mutex<[String]>([])

  struct Handler: LogHandler {
    let sink: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
      let meta = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      let line = "\(event.message) " + meta.joined(separator: " ")
      sink.lines.withLock { $0.append(line) }
    }
  }

  var logger: Logger { Logger(label: "test") { _ in Handler(sink: self) } }
  var all: [String] { lines.withLock { $0 } }
}

/// Checks a problem answer: status, media type, stable code, and that no secret of the fixtures is echoed.
func expectProblem(
  _ response: TestResponse, status: HTTPResponse.Status, code: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(response.status == status, sourceLocation: sourceLocation)
  #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
  let body = String(buffer: response.body)
  #expect(body.contains("\"code\":\"\(code)\""), sourceLocation: sourceLocation)
  #expect(body.contains("\"type\":\"https://linkparse.dev/problems/\(code)\""), sourceLocation: sourceLocation)
  #expect(body.contains("\"status\":\(status.code)"), sourceLocation: sourceLocation)
  #expect(!body.contains("st-secret") && !body.contains("code-secret"), sourceLocation: sourceLocation)
}

/// The `Cookie` header a browser sends back after `response` (its `Set-Cookie` values, name=value only).
func cookies(from response: TestResponse) -> HTTPFields {
  let pairs = response.headers[values: .setCookie].compactMap { $0.split(separator: ";").first.map(String.init) }
  return [.cookie: pairs.joined(separator: "; ")]
}

@Suite struct CallbackEndpointTests {
  struct Fixture {
    let store = PendingAuthorizationStore()
    let logs = CapturedLogs()
    let router = Router()
    /// The login cookies of every endpoint of the fixture (one key).
    static let cookies = LoginCookies(key: Array(repeating: 9, count: 32), secure: true)

    init() throws {
      let endpoint = LinkParseCallbackEndpoint(
        store: store, publicBaseURL: "https://example.com/", logger: logs.logger, loginCookies: Self.cookies,
        now: { 1_700_000_000 })
      endpoint.register(on: router.group("auth"), path: "callback") { consumed, _, _ in
        Response(
          status: .seeOther,
          headers: [.location: "/done?provider=\(consumed.callback.provider.rawValue)&outcome=\(consumed.callback.outcome.rawValue)"])
      }
      endpoint.register(on: router, path: "/auth/apple/callback") { consumed, _, _ in
        Response(status: .seeOther, headers: [.location: "/apple?outcome=\(consumed.callback.outcome.rawValue)"])
      }
      try store.insert(
        PendingAuthorization(
          provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/callback"), state: "st-secret-1"))
      try store.insert(
        PendingAuthorization(
          provider: .apple, redirectURI: try ParsedURL("https://example.com/auth/apple/callback"), state: "8f3c1e2a"))
    }

    var app: some ApplicationProtocol { Application(router: router) }
  }

  static let form: HTTPFields = [.contentType: "Application/X-WWW-Form-URLEncoded; charset=UTF-8"]

  @Test func getSuccessReachesTheClosure() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let response = try await client.execute(uri: "/auth/callback?code=code-secret&state=st-secret-1", method: .get)
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/done?provider=oauth2&outcome=success")
    }
    let logs = f.logs.all
    #expect(logs == ["callback outcome=success provider=oauth2 status=303"])
  }

  @Test func appleFormPostSucceeds() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let body = ByteBuffer(string: "state=8f3c1e2a&code=c1d2e3f4a5b6c7d8e9f00112233445566.0.nrqtw.Zm9vYmFyYmF6")
      let response = try await client.execute(
        uri: "/auth/apple/callback", method: .post, headers: Self.form, body: body)
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/apple?outcome=success")
    }
  }

  @Test func providerErrorIsNotAProblem() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let response = try await client.execute(
        uri: "/auth/callback?error=access_denied&state=st-secret-1", method: .get)
      #expect(response.status == .seeOther)
      #expect(response.headers[.location]?.hasPrefix("/done?provider=oauth2&outcome=") == true)
      #expect(response.headers[.location]?.hasSuffix("outcome=success") == false)
    }
  }

  @Test func replayIs409() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let uri = "/auth/callback?code=code-secret&state=st-secret-1"
      let first = try await client.execute(uri: uri, method: .get)
      #expect(first.status == .seeOther)
      expectProblem(try await client.execute(uri: uri, method: .get), status: .conflict, code: "replayed")
    }
    let logs = f.logs.all
    #expect(logs.last == "callback rejected code=replayed status=409")
    #expect(!logs.joined().contains("secret"))
  }

  @Test func forgedStateIs403AndTheRealCallbackStillSucceeds() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      expectProblem(
        try await client.execute(uri: "/auth/callback?code=code-secret&state=forged", method: .get),
        status: .forbidden, code: "unknown-login")
      let response = try await client.execute(uri: "/auth/callback?code=code-secret&state=st-secret-1", method: .get)
      #expect(response.status == .seeOther)
    }
  }

  /// A repeated state binds nothing, and is answered as any callback that binds no login is (whether a login is
  /// pending there is not told).
  @Test func duplicateStateGetsTheUniformProblem() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      expectProblem(
        try await client.execute(uri: "/auth/callback?code=code-secret&state=st-secret-1&state=st-secret-1", method: .get),
        status: .forbidden, code: "unknown-login")
    }
  }

  @Test func largeBodyIs413() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let body = ByteBuffer(string: "state=8f3c1e2a&code=" + String(repeating: "a", count: 100 * 1024))
      expectProblem(
        try await client.execute(uri: "/auth/apple/callback", method: .post, headers: Self.form, body: body),
        status: .contentTooLarge, code: "content-too-large")
    }
  }

  @Test func otherContentTypeIs415() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      expectProblem(
        try await client.execute(
          uri: "/auth/apple/callback", method: .post, headers: [.contentType: "application/json"],
          body: ByteBuffer(string: #"{"state":"8f3c1e2a","code":"c"}"#)),
        status: .unsupportedMediaType, code: "unsupported-media-type")
    }
  }

  /// Invalid percent escapes and invalid UTF-8 in a form_post body: a typed answer each (a fresh store per
  /// body), never a crash or a 500.
  static let malformedBodies: [([UInt8], Int)] = {
    let invalidState: [UInt8] = Array("state=".utf8) + [0xFF] + Array("&code=c".utf8)
    let cases: [([UInt8], Int)] = [
      (Array("state=%ZZ&code=%".utf8), 403),
      (invalidState, 403),
      ([0x00, 0x26, 0x3D, 0x25], 403),
      (Array("state=8f3c1e2a&state=%FF&code=c".utf8), 403),
    ]
    return cases
  }()

  @Test(arguments: Self.malformedBodies)
  func malformedBodyBytesGetATypedAnswer(bytes: [UInt8], status: Int) async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let response = try await client.execute(
        uri: "/auth/apple/callback", method: .post, headers: Self.form, body: ByteBuffer(bytes: bytes))
      #expect(response.status.code == status)
      #expect(response.headers[.contentType] == "application/problem+json")
    }
  }

  /// Invalid UTF-8 inside an otherwise valid Apple code still binds (the store compares bytes).
  @Test func invalidUTF8InCodeStillBinds() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let bytes = Array("state=8f3c1e2a&code=".utf8) + [0xFF, 0xFE, 0xC0]
      let response = try await client.execute(
        uri: "/auth/apple/callback", method: .post, headers: Self.form, body: ByteBuffer(bytes: bytes))
      #expect(response.status.code != 500)
    }
  }

  @Test func unknownPathIs404() async throws {
    let f = try Fixture()
    try await f.app.test(.router) { client in
      let response = try await client.execute(uri: "/auth/nowhere?code=c&state=st-secret-1", method: .get)
      #expect(response.status == .notFound)
    }
  }

  @Test func problemDetailsStatuses() {
    let cases: [(CallbackError.Code, Int)] = [
      (.malformedParameter, 400), (.duplicateParameter, 400), (.missingParameter, 400), (.conflictingOutcome, 400),
      (.unrecognizedCallback, 400), (.redirectMismatch, 400), (.stateMismatch, 403), (.issuerMismatch, 403),
      (.replayed, 409), (.notPending, 404), (.expired, 410),
    ]
    for (code, status) in cases {
      #expect(ProblemDetails(CallbackError(code)).status == status)
    }
    let json = ProblemDetails(CallbackError(.malformedParameter, parameter: "code", found: "code-secret")).json
    #expect(!json.contains("code-secret"))
    #expect(json.hasPrefix(#"{"type":"https://linkparse.dev/problems/malformed-parameter","title":"Malformed parameter","status":400,"code":"malformed-parameter","detail":"#))
  }

  /// A start seals its login into the cookie: nothing is inserted (the fixture's two logins stay the store's
  /// only ones), and the cookie carries the login back.
  @Test func startInsertsAndRedirects() async throws {
    let f = try Fixture()
    let endpoint = LinkParseCallbackEndpoint(
      store: f.store, publicBaseURL: "https://example.com", logger: f.logs.logger, loginCookies: Fixture.cookies)
    endpoint.registerStart(on: f.router, path: "/auth/start") { _, _ in
      let pending = PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/callback"), state: "st-secret-2")
      return ("https://id.example/authorize?state=st-secret-2", pending)
    }
    let store = f.store
    try await f.app.test(.router) { client in
      let start = try await client.execute(uri: "/auth/start", method: .get)
      #expect(start.status == .found)
      #expect(start.headers[.location] == "https://id.example/authorize?state=st-secret-2")
      #expect(store.count == 2)
      let setCookie = try #require(start.headers[.setCookie])
      let attributes = setCookieAttributes(setCookie)
      #expect(setCookie.hasPrefix("__Host-lp-login-") && attributes["path"] == "/" && attributes["max-age"] != nil)
      #expect(attributes["httponly"] == "" && attributes["secure"] == "" && attributes["samesite"] == "Lax")
      // Without the cookie the login is not this browser's; with it, it is, and the cookie is cleared.
      let uri = "/auth/callback?code=code-secret&state=st-secret-2"
      expectProblem(try await client.execute(uri: uri, method: .get), status: .forbidden, code: "unknown-login")
      let response = try await client.execute(uri: uri, method: .get, headers: cookies(from: start))
      #expect(response.status == .seeOther)
      let cleared = try #require(response.headers[.setCookie])
      #expect(cleared.contains("=;") && setCookieAttributes(cleared)["max-age"] == "0")
    }
    #expect(f.logs.all.first == "login started provider=oauth2 status=302")
  }

  /// A store's own failure, not a callback's.
  struct DatabaseDown: Error, CustomStringConvertible {
    var description: String { "connection to db-host-secret refused" }
  }

  /// A store that cannot answer (a lost database).
  struct UnavailableStore: PendingAuthorizationStoring {
    func insert(_ authorization: PendingAuthorization) async throws { throw DatabaseDown() }
    func consume(_ url: ParsedURL, parameters: FormParameters?, browser: BrowserBinding?, now: Int64) async throws -> ConsumedAuthorization {
      throw DatabaseDown()
    }
    func consume(_ url: ParsedURL, parameters: FormParameters?, carried pending: PendingAuthorization, now: Int64) async throws -> ConsumedAuthorization {
      throw DatabaseDown()
    }
    func removeExpired(now: Int64) async throws -> Int { 0 }
    var count: Int { get async throws { 0 } }
  }

  @Test func unavailableStoreIs503() async throws {
    let router = Router()
    let endpoint = LinkParseCallbackEndpoint(store: UnavailableStore(), publicBaseURL: "https://example.com")
    endpoint.register(on: router, path: "/cb") { _, _, _ in Response(status: .ok) }
    endpoint.registerStart(on: router, path: "/start") { request, _ in
      // A login with a state is carried in its cookie (the store is not asked); one without is stored.
      let state: String? = request.uri.query == "stateless" ? nil : "s"
      return ("https://id.example/authorize", PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://example.com/cb"), state: state))
    }
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(uri: "/cb?code=c&state=s", method: .get)
      expectProblem(response, status: .serviceUnavailable, code: "store-unavailable")
      #expect(!String(buffer: response.body).contains("db-host-secret"))
      let start = try await client.execute(uri: "/start", method: .get)
      #expect(start.status == .found)
      let cookie = try #require(start.headers[.setCookie]?.split(separator: ";").first.map(String.init))
      // Its callback needs the store once, to spend it: unavailable, so 503 too (and the cookie is kept).
      let carried = try await client.execute(uri: "/cb?code=c&state=s", method: .get, headers: [.cookie: cookie])
      expectProblem(carried, status: .serviceUnavailable, code: "store-unavailable")
      #expect(carried.headers[.setCookie] == nil)
      let stateless = try await client.execute(uri: "/start?stateless", method: .get)
      expectProblem(stateless, status: .serviceUnavailable, code: "store-unavailable")
    }
  }

  @Test func liveSocketOn127001() async throws {
    let f = try Fixture()
    // HummingbirdTesting's .live binds "localhost" on a free port and connects over TCP.
    try await f.app.test(.live) { client in
      #expect(client.port != nil)
      let response = try await client.execute(uri: "/auth/callback?code=code-secret&state=st-secret-1", method: .get)
      #expect(response.status == .seeOther)
      expectProblem(
        try await client.execute(uri: "/auth/callback?code=code-secret&state=st-secret-1", method: .get),
        status: .conflict, code: "replayed")
    }
  }
}

/// providers.md §3.6: a T-ID web login the user refused reaches the app as T-ID's error, not a 400 problem.
@Suite struct TIDWebErrorEndpointTests {
  @Test func refusedTIDLoginReachesTheApp() async throws {
    let store = PendingAuthorizationStore()
    let router = Router()
    let endpoint = LinkParseCallbackEndpoint(store: store, publicBaseURL: "https://example.com/", now: { 1_700_000_000 })
    endpoint.register(on: router, path: "/auth/tid/callback") { consumed, _, _ in
      Response(
        status: .seeOther,
        headers: [.location: "/done?outcome=\(consumed.callback.outcome.rawValue)&error=\(consumed.callback.providerError?.code.rawValue ?? "-")"])
    }
    try await store.insert(
      PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("https://example.com/auth/tid/callback"), state: "S1"))
    try await Application(router: router).test(.router) { client in
      let response = try await client.execute(
        uri: "/auth/tid/callback?state=S1&error=access_denied&error_description=User+denied", method: .get)
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/done?outcome=error&error=access_denied")
    }
    #expect(store.count == 0)  // bound by its state: the login is over
  }
}
