// The whole server side over real sockets: Hummingbird apps on 127.0.0.1 serving a LinkParseRouter table,
// PostgresPendingAuthorizationStore on the test PostgreSQL server (LINKPARSE_TEST_DATABASE_URL, its own
// database so that the store tests' TRUNCATEs do not reach it), AsyncHTTPClient as the browser.

import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import LinkParseAuthorization
import LinkParseCore
import LinkParseHummingbird
import LinkParsePostgres
import LinkParseProviders
import LinkParseRouter
import LinkParseServerTestSupport
import NIOCore
import PostgresNIO
import Testing

@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: TestDatabase.url != nil, "LINKPARSE_TEST_DATABASE_URL is not set (make test sets it)"))
struct ServerTests {
  static let database = "linkparse_server_test"
  static let secret = SymmetricKey(data: Array(repeating: UInt8(0x33), count: 32))
  /// How many logins the two-instance test runs: 1,000, or LINKPARSE_SERVER_CONCURRENCY_LOGINS.
  static let logins = ProcessInfo.processInfo.environment["LINKPARSE_SERVER_CONCURRENCY_LOGINS"].flatMap { Int($0) } ?? 1000

  /// One server instance: its own PostgresClient (through `databasePort` when given) and store, and a
  /// Hummingbird app on a free port of 127.0.0.1 with `/login` and the callback route `/auth/callback`.
  /// The store's operation limit is 30 s by default: these tests assert exactly-once answers, not latency, and
  /// share 2 cores with every other suite (a 5 s limit once answered one of 64 parallel deliveries 503 in CI;
  /// PostgreSQL's lock-wait log showed no wait of 50 ms or more on the pending counter's row in a full run).
  static func withInstance<R: Sendable>(
    databasePort: Int? = nil, timeout: Duration = .seconds(30), truncate: Bool = false,
    _ body: @Sendable @escaping (_ port: Int, _ store: PostgresPendingAuthorizationStore) async throws -> R
  ) async throws -> R {
    var configuration = try TestDatabase.configuration(database: database, port: databasePort)
    configuration.options.connectTimeout = .seconds(1)
    return try await TestDatabase.withClient(configuration) { client in
      // The first connection and the migration within a generous limit: a short `timeout` is for the test's own
      // operations, and these first ones share 2 cores with the parallel suites (a 3 s limit timed out in CI's
      // migrate while StartLimitsTests flooded its server).
      try await PostgresPendingAuthorizationStore(client: client, secret: secret, operationTimeout: .seconds(30)).migrate()
      let store = PostgresPendingAuthorizationStore(client: client, secret: secret, operationTimeout: timeout)
      if truncate { try await client.query("TRUNCATE linkparse_pending_authorizations") }
      // Instances that share a store share the login cookies' key.
      let endpoint = LinkParseCallbackEndpoint(
        store: store, publicBaseURL: "https://app.example",
        loginCookies: LoginCookies(key: Array(repeating: 0x44, count: 32), secure: true))
      let table = try LinkParseRouter.Router([Route("callback", "https://app.example/auth/callback", provider: .oauth2)])
      let router = Router()
      router.add(
        middleware: endpoint.callbackRoutes(table, context: BasicRequestContext.self, unknownRoutePrefix: "/auth/") {
          _, _, _, _ in Response(status: .seeOther, headers: [.location: "/welcome"])
        })
      endpoint.registerStart(
        on: router, path: "/login",
        login: .oauth2(
          authorizeURL: "https://as.example/authorize", clientID: "app",
          redirectURI: "https://app.example/auth/callback"))
      return try await Application(router: router).test(.live) { client in
        try await body(try #require(client.port), store)
      }
    }
  }

  /// What one request answered: the status and, for problem JSON, its `code`.
  struct Answer: Sendable, Hashable {
    let status: Int
    let code: String?
    let location: String?
  }

  static let http: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()

  static func get(_ port: Int, _ target: String, cookie: String? = nil) async throws -> Answer {
    try await getWithCookie(port, target, cookie: cookie).answer
  }

  /// `get`, and the `name=value` of the answer's `Set-Cookie` (the login cookie a browser keeps).
  static func getWithCookie(_ port: Int, _ target: String, cookie: String? = nil) async throws -> (answer: Answer, setCookie: String?) {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(target)")
    if let cookie { request.headers.add(name: "Cookie", value: cookie) }
    let response = try await http.execute(request, timeout: .seconds(30))
    let body = String(buffer: try await response.body.collect(upTo: 64 * 1024))
    var code: String?
    if let range = body.range(of: "\"code\":\"") {
      code = String(body[range.upperBound...].prefix { $0 != "\"" })
    }
    let setCookie = response.headers.first(name: "set-cookie")?.split(separator: ";").first.map(String.init)
    return (Answer(status: Int(response.status.code), code: code, location: response.headers.first(name: "location")), setCookie)
  }

  /// A login started in a browser: its state, and the login cookie the browser keeps.
  struct Login: Sendable, Hashable {
    let state: String
    let cookie: String
  }

  /// Starts a login on the instance at `port`; the state is read from the 302's Location.
  static func startLogin(_ port: Int) async throws -> Login {
    let (answer, cookie) = try await getWithCookie(port, "/login")
    #expect(answer.status == 302)
    let state = try #require(URLComponents(string: answer.location ?? "")?.queryItems?.first { $0.name == "state" }?.value)
    return Login(state: state, cookie: try #require(cookie))
  }

  /// The callback of `login`, from the browser that started it.
  static func callback(_ port: Int, login: Login) async throws -> Answer {
    try await get(port, "/auth/callback?code=code-\(login.state.prefix(8))&state=\(login.state)", cookie: login.cookie)
  }

  /// Two instances on one database: every login's callback is sent twice to each of them at once. Exactly
  /// one success (303) per login; every other answer is 409 `replayed`.
  @Test func twoInstancesOneSuccessPerLogin() async throws {
    try await TestDatabase.ensureDatabase(Self.database)
    let logins = Self.logins
    try await Self.withInstance(truncate: true) { a, store in
      try await Self.withInstance { b, _ in
        let clock = ContinuousClock()
        let began = clock.now
        var states: [Login] = []
        for batch in stride(from: 0, to: logins, by: 32) {
          states += try await withThrowingTaskGroup(of: (Int, Login).self) { group in
            for i in batch..<min(batch + 32, logins) {
              group.addTask { (i, try await Self.startLogin(i % 2 == 0 ? a : b)) }
            }
            var started: [(Int, Login)] = []
            for try await s in group { started.append(s) }
            return started.sorted { $0.0 < $1.0 }.map(\.1)
          }
        }
        let started = states
        #expect(Set(started).count == logins)
        // Every login is carried in its browser's sealed cookie: the starts stored nothing.
        #expect(try await store.count == 0)
        var answers: [[Answer]] = []
        for batch in stride(from: 0, to: logins, by: 16) {
          answers += try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            for i in batch..<min(batch + 16, logins) {
              for port in [a, a, b, b] {
                group.addTask { (i, try await Self.callback(port, login: started[i])) }
              }
            }
            var byLogin = Array(repeating: [Answer](), count: min(batch + 16, logins) - batch)
            for try await (i, answer) in group { byLogin[i - batch].append(answer) }
            return byLogin
          }
        }
        let elapsed = clock.now - began
        let success = Answer(status: 303, code: nil, location: "/welcome")
        let replayed = Answer(status: 409, code: "replayed", location: nil)
        #expect(answers.count == logins)
        let unexpected = answers.filter { $0.filter { $0 == success }.count != 1 || $0.filter { $0 == replayed }.count != 3 }
        #expect(unexpected.isEmpty, "\(unexpected.count) logins answered otherwise, e.g. \(unexpected.prefix(3))")
        #expect(try await store.count == 0)
        // A sealed login cookie stays far below the 4,096 bytes a browser keeps.
        let cookieSize = started.map(\.cookie.utf8.count).max() ?? 0
        #expect(cookieSize < 2_048)
        print("ServerTests: \(logins) logins, \(logins * 5) requests over 2 instances in \(elapsed); login cookie \(cookieSize) bytes")
      }
    }
  }

  /// Login CSRF over real sockets, two instances on one database: an attacker's jar starts a login and hands
  /// its callback to a victim's jar, which gets the uniform problem; the attacker's own login still succeeds
  /// afterwards (nothing consumed by the refused delivery). Two tabs of one jar (two login cookies in one
  /// Cookie header) both log in, each on the other instance.
  @Test func loginsAreBoundToTheirBrowser() async throws {
    try await TestDatabase.ensureDatabase(Self.database)
    try await Self.withInstance(truncate: true) { a, _ in
      try await Self.withInstance { b, _ in
        let attacker = try await Self.startLogin(a)
        let victim = try await Self.startLogin(a)
        let target = "/auth/callback?code=code-x&state=\(attacker.state)"
        #expect(try await Self.get(b, target, cookie: victim.cookie).code == "unknown-login")
        #expect(try await Self.get(a, target).code == "unknown-login")
        #expect(try await Self.get(b, target, cookie: victim.cookie + "x").code == "unknown-login")
        #expect(try await Self.callback(b, login: attacker).status == 303)
        #expect(try await Self.callback(a, login: victim).status == 303)

        let tab1 = try await Self.startLogin(a)
        let tab2 = try await Self.startLogin(b)
        let jar = tab1.cookie + "; " + tab2.cookie
        #expect(tab1.cookie.split(separator: "=")[0] != tab2.cookie.split(separator: "=")[0])
        #expect(try await Self.callback(b, login: Login(state: tab1.state, cookie: jar)).status == 303)
        #expect(try await Self.callback(a, login: Login(state: tab2.state, cookie: jar)).status == 303)
      }
    }
  }

  /// The database goes away between callbacks: 503 `store-unavailable` for callbacks while it is gone (a
  /// start still works: its login is carried in the cookie); when it is back, the login whose callback failed
  /// still succeeds, once, and so does the one started during the outage.
  @Test func databaseGoesAwayMidRun() async throws {
    try await TestDatabase.ensureDatabase(Self.database)
    let proxy = try await TCPProxy(targetPort: try TestDatabase.port())
    // A short operation limit, so that a database that went away answers 503 quickly; 3 s, not 1, because the
    // store's first operations (connecting through the proxy, migrating) share 2 cores with the parallel suites
    // (a 1 s limit failed CI once while another suite flooded its server).
    try await Self.withInstance(databasePort: proxy.port, timeout: .seconds(3)) { port, store in
      let first = try await Self.startLogin(port)
      let second = try await Self.startLogin(port)
      let third = try await Self.startLogin(port)
      #expect(try await Self.callback(port, login: first).status == 303)

      await proxy.stop()
      #expect(try await Self.callback(port, login: second) == Answer(status: 503, code: "store-unavailable", location: nil))
      // A start needs no database (its login is carried in the cookie): it still works.
      let during = try await Self.startLogin(port)

      try await proxy.start()
      var answer = try await Self.callback(port, login: second)
      for _ in 0..<60 where answer.status == 503 {
        try await Task.sleep(for: .milliseconds(500))
        answer = try await Self.callback(port, login: second)
      }
      #expect(answer.status == 303)
      #expect(try await Self.callback(port, login: during).status == 303)
      #expect(try await Self.callback(port, login: second).code == "replayed")
      #expect(try await Self.callback(port, login: first).code == "replayed")
      #expect(try await Self.callback(port, login: third).status == 303)
      #expect(try await Self.callback(port, login: Login(state: "forged-state", cookie: first.cookie)).code == "unknown-login")
    }
    await proxy.stop()
  }
}
