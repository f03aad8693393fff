import Crypto
import Dispatch
import HTTPTypes
import Hummingbird
import LinkParseAuthorization
import LinkParseCore
import LinkParseHTTP
import LinkParseHummingbird
import LinkParseOAuth
import LinkParseProviders
import Logging
import NIOCore
import NIOConcurrencyHelpers
import NIOEmbedded

/// The `server` target: the server half under the fuzzer. The bytes are a short sequence of HTTP requests that
/// go, in process (no socket), to a whole `WebLogin` on a Hummingbird router — its starts, callbacks (GET and
/// form_post), `/me`, `POST /refresh`, `POST /logout` and the back-channel logout — with the in-memory pending
/// store and session driver, and relying parties that never reach a provider (``StandInParty``).
///
/// The input: requests separated by a line `%%`; each is a request line `METHOD TARGET`, header lines
/// `Name: value`, an empty line and the body. The requests share a cookie jar (every `Set-Cookie` answered is
/// sent back, beside the request's own `Cookie` headers), and `{state}` in a target, header or body stands for
/// the state of the last login started, `{old-session}` for the last session cookie a logout removed,
/// `{old-login}` for the last login cookie (`name=value`) an answer removed — so the fuzzer can finish a login it
/// started, replay it with its cookie, and present a session after its logout — and `{big}` for
/// 70,000 bytes (over the Cookie header limit and the form body limit, which libFuzzer's 4 KB inputs cannot reach).
///
/// Properties (besides "an answer, never a crash"):
/// - no answer is a 5xx except the documented ones (problem JSON `store-full`, `store-unavailable`,
///   `session-store-unavailable`, `login-not-sent`, `provider-unavailable` (503), `login-failed` (502)), and no
///   route throws (a thrown error is Hummingbird's 500);
/// - every answer of 400 or more is problem JSON (`application/problem+json`, valid JSON, its `type`, `status`
///   and a stable `code`), except the router's own empty `404` for a path that is no route;
/// - a refused callback (4xx under `/auth/`, but for `login-not-approved`: the provider's own refusal, which uses
///   the login up) consumes nothing and reaches no party; a party is only ever given a
///   login of its own provider and client, and no login completes twice (unless given back as not sent);
/// - no answer, header or body, holds a secret: the login secret, a token a party issued, a PKCE verifier;
/// - after `POST /logout`, the session it ended is not a session (`/me` with only that cookie is not `200`);
/// - `/me`'s `200` body is valid JSON.
public enum ServerProperty {
  static let base = "https://example.com"
  static let maximumRequests = 12
  static let separator = Array("\n%%\n".utf8)
  /// The 5xx answers a login documents, by code.
  static let documentedServerErrors: [String: Int] = [
    "store-full": 503, "store-unavailable": 503, "session-store-unavailable": 503, "login-not-sent": 503,
    "provider-unavailable": 503, "login-failed": 502,
  ]

  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    replay(Array(data)).problems
  }

  /// The answers' statuses (`"GET /me 200"`, a request the harness skipped is not listed) and the violations,
  /// for the tests that check that a seed goes where it claims to.
  public static func replay(_ bytes: [UInt8]) -> (statuses: [String], problems: [String]) {
    let requests = parse(bytes)
    if requests.isEmpty { return ([], []) }
    return blocking { await run(requests) }
  }

  /// One request of the input.
  struct Input: Sendable {
    var method: String
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
  }

  /// The input's requests (at most ``maximumRequests``).
  static func parse(_ bytes: [UInt8]) -> [Input] {
    var inputs: [Input] = []
    var rest = bytes[...]
    while !rest.isEmpty && inputs.count < maximumRequests {
      let piece: ArraySlice<UInt8>
      if let end = rest.firstRange(of: separator) {
        piece = rest[..<end.lowerBound]
        rest = rest[end.upperBound...]
      } else {
        piece = rest
        rest = []
      }
      if let input = request(piece) { inputs.append(input) }
    }
    return inputs
  }

  static func request(_ bytes: ArraySlice<UInt8>) -> Input? {
    var lines: [ArraySlice<UInt8>] = []
    var rest = bytes
    var body: [UInt8] = []
    while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
      var line = rest[..<newline]
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      rest = rest[(newline + 1)...]
      if line.isEmpty && !lines.isEmpty {
        body = Array(rest)
        rest = []
        break
      }
      lines.append(line)
    }
    if !rest.isEmpty { lines.append(rest) }
    guard let first = lines.first, let space = first.firstIndex(of: UInt8(ascii: " ")) else { return nil }
    let method = String(decoding: first[..<space], as: UTF8.self)
    let target = String(decoding: first[(space + 1)...], as: UTF8.self)
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst().prefix(64) {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
      var value = line[(colon + 1)...]
      while value.first == UInt8(ascii: " ") { value = value.dropFirst() }
      headers.append((String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
    return Input(method: method, target: target, headers: headers, body: body)
  }

  /// What the parties and the store saw during one input.
  final class Observations: Sendable {
    struct State {
      var consumed = 0
      var completions = 0
      var completedStates: Set<String> = []
      /// The PKCE verifiers the parties were given (no answer may show one).
      var verifiers: [String] = []
      var problems: [String] = []
      var issued = 0
    }
    let state = NIOLockedValueBox(State())
    /// Unguessable per input: what the parties' tokens start with.
    let tokenPrefix: String

    init() {
      var generator = SystemRandomNumberGenerator()
      tokenPrefix = "tok" + String(generator.next() as UInt64, radix: 36) + String(generator.next() as UInt64, radix: 36)
    }

    func token(_ kind: String) -> String {
      let n = state.withLockedValue { state in
        state.issued += 1
        return state.issued
      }
      return "\(tokenPrefix)-\(kind)-\(n)"
    }
  }

  /// The in-memory store, counting what it spends: a refused callback must spend nothing.
  final class CountingStore: PendingAuthorizationStoring {
    let inner = PendingAuthorizationStore(capacity: 64)
    let seen: Observations

    init(_ seen: Observations) { self.seen = seen }

    func insert(_ authorization: PendingAuthorization) async throws { try await inner.insert(authorization) }

    func consume(_ url: ParsedURL, parameters: FormParameters?, browser: BrowserBinding?, now: Int64) async throws
      -> ConsumedAuthorization
    {
      let consumed = try await inner.consume(url, parameters: parameters, browser: browser, now: now)
      seen.state.withLockedValue { $0.consumed += 1 }
      return consumed
    }

    func consume(_ url: ParsedURL, parameters: FormParameters?, carried pending: PendingAuthorization, now: Int64)
      async throws -> ConsumedAuthorization
    {
      let consumed = try await inner.consume(url, parameters: parameters, carried: pending, now: now)
      seen.state.withLockedValue { $0.consumed += 1 }
      return consumed
    }

    func restore(carried pending: PendingAuthorization) async throws -> Bool {
      let restored = try await inner.restore(carried: pending)
      if restored {
        seen.state.withLockedValue { state in
          state.consumed -= 1
          if let s = pending.state { state.completedStates.remove(s) }
        }
      }
      return restored
    }

    func removeExpired(now: Int64) async throws -> Int { inner.removeExpired(now: now) }

    var count: Int { get async throws { inner.count } }
  }

  /// A relying party that never reaches a provider. Its `complete` answers by the callback's code: `unsent`
  /// (the token endpoint could not be connected to: the login is given back), `unreachable` (a timeout), `fail`
  /// (the provider refused), anything else an identity whose subject is the code, with tokens (no refresh token
  /// when the code starts with `x`). Refresh fails for a refresh token of a code starting with `r`.
  struct StandInParty: RelyingParty {
    let provider: Provider
    let clientID: String
    let issuer: String
    let seen: Observations

    func loginStart(redirectURI: String) -> LoginStart {
      switch provider {
      case .vk: return .vkID(clientID: clientID, redirectURI: redirectURI)
      case .apple: return .apple(clientID: clientID, redirectURI: redirectURI)
      default:
        return .oauth2(
          authorizeURL: issuer + "/authorize", clientID: clientID, redirectURI: redirectURI, issuer: issuer)
      }
    }

    func complete(_ consumed: ConsumedAuthorization, now: Int64) async throws -> VerifiedIdentity {
      let pending = consumed.authorization
      // What every real party does first (LoginCompletion.requireSuccess): an error callback is no login.
      guard consumed.callback.outcome == .success, let callbackCode = consumed.callback.code else {
        throw IdentityError(.notASuccess, message: "the callback is \(consumed.callback.outcome.rawValue) (stand-in)")
      }
      let code = String(callbackCode)
      seen.state.withLockedValue { state in
        state.completions += 1
        if pending.provider != provider || pending.clientID != clientID {
          state.problems.append(
            "server: \(provider.rawValue)'s party was given a login of \(pending.provider.rawValue) client \(pending.clientID ?? "nil")")
        }
        if let s = pending.state, !state.completedStates.insert(s).inserted {
          state.problems.append("server: a login (state \(show(Array(s.utf8)))) completed twice")
        }
        if let verifier = pending.codeVerifier { state.verifiers.append(verifier) }
      }
      switch code {
      case "unsent":
        var error = OAuthResponseError(.transport, message: "connection refused (stand-in)")
        error.unsentRequest = .tokenExchange
        throw error
      case "unreachable": throw OAuthResponseError(.timeout, message: "timed out (stand-in)")
      case "fail": throw OAuthResponseError(.providerError, message: "invalid_grant (stand-in)")
      default: break
      }
      let tokens = TokenResponse(
        accessToken: seen.token("access"), tokenType: "Bearer", expiresIn: code.hasPrefix("e") ? 1 : 3600,
        refreshToken: code.hasPrefix("x") ? nil : seen.token(code.hasPrefix("r") ? "refresh-revoked" : "refresh"))
      return VerifiedIdentity(
        provider: provider, issuer: issuer, subject: String(code.prefix(80)), tokens: tokens,
        deviceID: provider == .vk ? "device" : nil)
    }

    func refresh(refreshToken: String, deviceID: String?, now: Int64) async throws -> TokenResponse {
      if refreshToken.contains("-refresh-revoked-") {
        throw OAuthResponseError(.providerError, message: "invalid_grant (stand-in)")
      }
      let tokens = TokenResponse(
        accessToken: seen.token("access"), tokenType: "Bearer", expiresIn: 3600, refreshToken: seen.token("refresh"))
      return tokens
    }

    func endSession(tokens: TokenResponse, postLogoutRedirectURI: String?, now: Int64) async throws -> SessionEnd {
      switch provider {
      case .oauth2: return .redirect(issuer + "/logout")
      case .apple: throw OAuthResponseError(.transport, message: "connection refused (stand-in)")
      default: return .ended
      }
    }
  }

  /// Collects a response body.
  final class BodyBox: @unchecked Sendable {
    var bytes: [UInt8] = []
  }

  struct Collector: ResponseBodyWriter {
    let box: BodyBox
    func write(_ buffer: ByteBuffer) async throws { box.bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
  }

  static let quiet = Logger(label: "linkparse.fuzz.server", factory: { _ in SwiftLogNoOpLogHandler() })

  static func run(_ inputs: [Input]) async -> (statuses: [String], problems: [String]) {
    var problems = Problems()
    var statuses: [String] = []
    let seen = Observations()
    let secret = SymmetricKey(size: .bits256)
    let secretHex = secret.withUnsafeBytes { bytes in
      bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
    let parties: [WebLogin<CountingStore>.Login] = [
      .init("vk", party: StandInParty(provider: .vk, clientID: "51000000", issuer: "https://id.vk.ru", seen: seen)),
      .init("apple", party: StandInParty(provider: .apple, clientID: "com.example.web", issuer: "https://appleid.apple.com", seen: seen)),
      .init("demo", party: StandInParty(provider: .oauth2, clientID: "demo-client", issuer: "https://id.example", seen: seen)),
    ]
    var configuration = WebLogin<CountingStore>.Configuration()
    configuration.trustedProxies = 1
    configuration.startLimits = StartLimits(limit: 5, window: .seconds(60))
    let login: WebLogin<CountingStore>
    do {
      login = try WebLogin(
        publicBaseURL: base, logins: parties, store: CountingStore(seen), sessions: MemorySessionDriver(),
        secret: secret, configuration: configuration, logger: quiet)
    } catch {
      return ([], ["server: the fuzz target's WebLogin does not configure: \(error)"])
    }
    let router = Router(context: LoginSessionContext.self)
    login.addRoutes(to: router)
    router.get("/me") { request, context in
      try await login.withSession(request, context) { session in session.summaryResponse() }
    }
    let responder = router.buildResponder()

    // The requests' channel (only its remote address is read: none). An EmbeddedChannel and its pipeline refer
    // to each other until it is finished: one per input, finished at the end (LeakSanitizer found the cycle).
    let channel = EmbeddedChannel()
    defer { _ = try? channel.finish() }
    var jar: [(name: String, value: String)] = []
    var lastState = ""
    var deadSessions: Set<String> = []
    var oldSession = ""
    var oldLogin = ""
    let sessionCookie = LoginSession.cookieName(secure: true)
    let big = String(repeating: "b", count: 70_000)

    for input in inputs {
      func substituted(_ text: String) -> String {
        guard text.contains("{") else { return text }
        return text.replacing("{state}", with: lastState).replacing("{old-session}", with: oldSession)
          .replacing("{old-login}", with: oldLogin)
          .replacing("{big}", with: big)
      }
      let target = substituted(input.target)
      guard let method = HTTPRequest.Method(input.method),
        target.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F })
      else { continue }
      var fields = HTTPFields()
      var sentSessions: [String] = []
      for header in input.headers {
        guard let name = HTTPField.Name(header.name) else { continue }
        let value = substituted(header.value)
        fields.append(HTTPField(name: name, value: value))
        if name == .cookie { sentSessions += cookieValues(value, named: sessionCookie) }
      }
      if !jar.isEmpty {
        fields.append(HTTPField(name: .cookie, value: jar.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")))
        sentSessions += jar.filter { $0.name == sessionCookie }.map(\.value)
      }
      var body = input.body
      if body.contains(UInt8(ascii: "{")) { body = Array(substituted(String(decoding: body, as: UTF8.self)).utf8) }
      let request = Request(
        head: HTTPRequest(method: method, scheme: "https", authority: "example.com", path: target, headerFields: fields),
        body: RequestBody(buffer: ByteBuffer(bytes: body)))
      let context = LoginSessionContext(source: ApplicationRequestContextSource(channel: channel, logger: quiet))
      let before = seen.state.withLockedValue { ($0.consumed, $0.completions) }
      let response: Response
      do {
        response = try await responder.respond(to: request, context: context)
      } catch let error as any HTTPResponseError {
        guard let answer = try? error.response(from: request, context: context) else {
          problems.add("server: \(input.method) \(show(Array(target.utf8))): an error without an answer: \(error)")
          continue
        }
        response = answer
      } catch {
        problems.add("server: \(input.method) \(show(Array(target.utf8))) threw \(error) (answered 500)")
        continue
      }
      let box = BodyBox()
      do {
        try await response.body.write(Collector(box: box))
      } catch {
        problems.add("server: \(input.method) \(show(Array(target.utf8))): the body failed: \(error)")
      }
      let status = response.status.code
      let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let what = "\(input.method) \(show(Array(target.utf8))) → \(status)"
      statuses.append("\(input.method) \(path) \(status)")

      // 5xx: only the documented ones; 4xx and 5xx: problem JSON, but for the router's empty 404.
      var problemCode: String? = nil
      if status >= 400 {
        problemCode = Self.problemCode(response, box.bytes, problems: &problems, what: what)
        if let code = problemCode {
          if status >= 500 && documentedServerErrors[code] != status {
            problems.add("server: \(what): an undocumented server error, code \(code)")
          }
        } else if !(status == 404 && box.bytes.isEmpty) {
          problems.add("server: \(what): not problem JSON: \(show(box.bytes))")
        }
      }
      // A refused callback spends nothing and reaches no party (`login-not-approved` is no refusal: the provider
      // sent the user back without a login, which uses the login up).
      let after = seen.state.withLockedValue { ($0.consumed, $0.completions) }
      if path.hasPrefix(configuration.callbackPathPrefix) && (400..<500).contains(status) && problemCode != "login-not-approved"
        && (after.0 != before.0 || after.1 != before.1)
      {
        problems.add("server: \(what): a refused callback consumed \(after.0 - before.0) and completed \(after.1 - before.1)")
      }
      // No secret in any answer.
      let answerText = response.headers.map { "\($0.name.rawName): \($0.value)" }.joined(separator: "\n")
        + "\n" + String(decoding: box.bytes, as: UTF8.self)
      // Every token a party issued starts with the prefix; the verifiers are recorded as parties get them.
      let secrets = seen.state.withLockedValue { $0.verifiers } + [secretHex, seen.tokenPrefix]
      let lowercasedAnswer = answerText.lowercased()
      for secret in secrets where answerText.contains(secret) || lowercasedAnswer.contains(secret) {
        problems.add("server: \(what): the answer holds a secret")
      }
      // A session after its logout is none.
      if path == "/me" && status == 200 {
        if !sentSessions.isEmpty && sentSessions.allSatisfy({ deadSessions.contains($0) }) {
          problems.add("server: \(what): a session answered after its logout")
        }
        if !StrictJSON.isValid(box.bytes) { problems.add("server: \(what): /me's body is not JSON: \(show(box.bytes))") }
      }
      let loggedOut = path == "/logout" && input.method == "POST" && status == 303
      // The jar.
      for setCookie in response.headers[values: .setCookie] {
        let pair = setCookie.split(separator: ";", maxSplits: 1)[0]
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        let removed = setCookie.lowercased().contains("max-age=0")
        if let old = jar.firstIndex(where: { $0.name == name }) {
          if name == sessionCookie && removed && loggedOut {
            deadSessions.insert(jar[old].value)
            oldSession = jar[old].value
          }
          if name.contains("lp-login-") && removed { oldLogin = "\(name)=\(jar[old].value)" }
          jar.remove(at: old)
        }
        if !removed { jar.append((name, value)) }
      }
      if loggedOut { deadSessions.formUnion(sentSessions) }
      if let location = response.headers[.location], path.hasPrefix(configuration.startPathPrefix),
        let query = location.split(separator: "?", maxSplits: 1).dropFirst().first
      {
        for pair in query.split(separator: "&") where pair.hasPrefix("state=") {
          lastState = String(pair.dropFirst(6))
        }
      }
    }
    return (statuses, problems.list + seen.state.withLockedValue { $0.problems })
  }

  /// The problem JSON's code, if the answer is problem JSON; what is wrong with it otherwise, added to
  /// `problems` when it claims to be problem JSON.
  static func problemCode(_ response: Response, _ body: [UInt8], problems: inout Problems, what: String) -> String? {
    guard response.headers[.contentType] == "application/problem+json" else { return nil }
    let text = String(decoding: body, as: UTF8.self)
    let prefix = "{\"type\":\"https://linkparse.dev/problems/"
    guard StrictJSON.isValid(body), text.hasPrefix(prefix) else {
      problems.add("server: \(what): problem JSON that is not well-formed: \(show(body))")
      return nil
    }
    let code = text.dropFirst(prefix.count).prefix { $0 != "\"" }
    guard !code.isEmpty, code.utf8.allSatisfy({ $0 == 0x2D || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }),
      text.contains("\"status\":\(response.status.code),\"code\":\"\(code)\"")
    else {
      problems.add("server: \(what): problem JSON without a stable code and its status: \(show(body))")
      return nil
    }
    return String(code)
  }

  /// The values of the cookies named `name` in a Cookie header.
  static func cookieValues(_ header: String, named name: String) -> [String] {
    header.split(separator: ";").compactMap { pair in
      let trimmed = pair.drop { $0 == " " }
      guard trimmed.hasPrefix(name + "=") else { return nil }
      return String(trimmed.dropFirst(name.count + 1))
    }
  }
}
