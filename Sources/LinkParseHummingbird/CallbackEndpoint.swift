// A Hummingbird 2 endpoint for identity-provider callbacks: GET (query) and POST form_post (Apple).

public import Hummingbird
import HTTPTypes
public import NIOCore
package import LinkParseCore
@_spi(PendingAuthorizationStores) public import LinkParseProviders
public import LinkParseAuthorization
import LinkParseBytes
public import Logging

/// Receives identity-provider callbacks on a Hummingbird router: rebuilds the callback URL the pending
/// authorization's redirect URI expects (``publicBaseURL`` + the request's path and query), consumes the pending
/// authorization from ``store`` and hands the typed ``ProviderCallback`` to the app's closure, which answers.
///
/// GET reads the parameters from the query; POST reads an `application/x-www-form-urlencoded` body (Apple's
/// `form_post`) of at most ``maxBodySize`` bytes (413 above, 415 for another content type). A rejected callback
/// is answered with RFC 9457 problem JSON (``ProblemDetails``) whose `code` is the ``CallbackError`` code; a
/// provider's error outcome (`access_denied`, a cancel) is not a problem and reaches the closure.
///
/// ```swift
/// let router = Router()
/// let endpoint = LinkParseCallbackEndpoint(store: PendingAuthorizationStore(), publicBaseURL: "https://example.com")
/// endpoint.register(on: router, path: "/auth/callback") { callback, request, context in
///   Response(status: .seeOther, headers: [.location: callback.outcome == .success ? "/" : "/login"])
/// }
/// ```
public struct LinkParseCallbackEndpoint<Store: PendingAuthorizationStoring>: Sendable {
  /// The store the callbacks consume pending authorizations from.
  ///
  /// ```swift
  /// try await endpoint.store.insert(pending)
  /// ```
  public let store: Store
  /// The server's public origin (and path prefix, if any), without a trailing slash: `https://example.com`.
  ///
  /// ```swift
  /// endpoint.publicBaseURL  // "https://example.com"
  /// ```
  public let publicBaseURL: String
  /// The largest POST body read, in bytes (64 KiB by default); a larger one is answered 413.
  ///
  /// ```swift
  /// LinkParseCallbackEndpoint(store: store, publicBaseURL: "https://example.com", maxBodySize: 16 * 1024)
  /// ```
  public let maxBodySize: Int
  /// Where one line per callback goes: provider, outcome or error code, status. Never the query, body, code,
  /// state or tokens.
  ///
  /// ```swift
  /// endpoint.logger.logLevel  // .info
  /// ```
  public let logger: Logger
  /// The clock, in Unix seconds (``PendingAuthorization/currentUnixTime()`` by default).
  ///
  /// ```swift
  /// LinkParseCallbackEndpoint(store: store, publicBaseURL: "https://example.com", now: { 1_700_000_000 })
  /// ```
  public let now: @Sendable () -> Int64
  /// The login cookies that bind each web login to the browser that started it (``LoginCookies``): set by the
  /// start endpoints, required and cleared by the callback.
  ///
  /// ```swift
  /// endpoint.loginCookies.secure  // true for an https publicBaseURL
  /// ```
  public let loginCookies: LoginCookies
  /// The per-client limit on starting logins (``StartLimits``: 30 a minute per client by default).
  ///
  /// ```swift
  /// endpoint.startLimits.limit  // 30
  /// ```
  public var startLimits: StartLimits { limiter.limits }
  /// How long a POST callback's body may take to arrive (10 seconds by default); a slower one is answered 408
  /// `request-timeout`.
  ///
  /// ```swift
  /// endpoint.bodyReadTimeout  // .seconds(10)
  /// ```
  public let bodyReadTimeout: Duration
  let limiter: StartLimiter
  let refusalLog = ThrottledCount(window: 60)
  let clientKey: (@Sendable (Request, SocketAddress?) -> String?)?

  /// Makes an endpoint; register it on a router with ``register(on:path:onCallback:)``.
  ///
  /// ```swift
  /// let endpoint = LinkParseCallbackEndpoint(store: PendingAuthorizationStore(), publicBaseURL: "https://example.com")
  /// ```
  public init(
    store: Store, publicBaseURL: String, maxBodySize: Int = 64 * 1024,
    logger: Logger = Logger(label: "linkparse.callback"), loginCookies: LoginCookies? = nil,
    startLimits: StartLimits = StartLimits(), bodyReadTimeout: Duration = .seconds(10),
    clientKey: (@Sendable (_ request: Request, _ remoteAddress: SocketAddress?) -> String?)? = nil,
    startCounts: (any StartCountSharing)? = nil,
    now: @escaping @Sendable () -> Int64 = { PendingAuthorization.currentUnixTime() }
  ) {
    self.limiter = StartLimiter(startLimits, sharing: startCounts)
    self.bodyReadTimeout = bodyReadTimeout
    self.clientKey = clientKey
    self.store = store
    var base = publicBaseURL
    while base.hasSuffix("/") { base.removeLast() }
    self.publicBaseURL = base
    self.loginCookies = loginCookies ?? LoginCookies(secure: base.lowercased().hasPrefix("https:"))
    self.maxBodySize = maxBodySize
    self.logger = logger
    self.now = now
  }

  /// Registers GET and POST on `path` of `router` (a `Router` or a `RouterGroup`). `onCallback` gets every
  /// accepted callback, success or provider error, and answers it (set a session, redirect).
  ///
  /// ```swift
  /// endpoint.register(on: router.group("auth"), path: "callback") { callback, _, _ in
  ///   Response(status: .seeOther, headers: [.location: "/"])
  /// }
  /// ```
  public func register<Methods: RouterMethods>(
    on router: Methods, path: RouterPath,
    onCallback: @escaping @Sendable (ConsumedAuthorization, Request, Methods.Context) async throws -> Response
  ) {
    let endpoint = self
    router.get(path) { request, context in
      try await endpoint.respond(to: request, context: context, onCallback: onCallback)
    }
    router.post(path) { request, context in
      try await endpoint.respond(to: request, context: context, onCallback: onCallback)
    }
  }

  /// Registers GET on `path` that starts a login: `makeAuthorization` builds the provider's authorization URL and
  /// its pending authorization; the answer is 302 to the URL. A pending authorization with a state is sealed
  /// into the browser's login cookie (nothing stored); one without a state goes into ``store`` (503 problem JSON
  /// when the store is full or fails).
  ///
  /// ```swift
  /// endpoint.registerStart(on: router, path: "/auth/start") { _, _ in
  ///   let state = "random-state"
  ///   let pending = PendingAuthorization(
  ///     provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/callback"), state: state)
  ///   return ("https://id.example/authorize?client_id=app&state=\(state)", pending)
  /// }
  /// ```
  public func registerStart<Methods: RouterMethods>(
    on router: Methods, path: RouterPath,
    makeAuthorization: @escaping @Sendable (Request, Methods.Context) async throws -> (
      authorizeURL: String, pending: PendingAuthorization
    )
  ) {
    let endpoint = self
    router.get(path) { request, context -> Response in
      if let refused = endpoint.limitStart(request, context) { return refused }
      let (authorizeURL, pending) = try await makeAuthorization(request, context)
      return await endpoint.start(
        authorizeURL: authorizeURL, pending: pending, cookieHeaders: request.headers[values: .cookie])
    }
  }

  /// Starts a login: 302 to `authorizeURL` with the login's cookie. A login with a state is carried by the
  /// browser: `pending` sealed in its cookie (``LoginCookies``), nothing stored, so a start costs the server
  /// no memory and no row, and no flood of anonymous starts can fill anything. A login without a state (or one
  /// too large for a cookie) is bound to this browser by a random cookie whose hash it keeps, and inserted
  /// into ``store``: 503 when the store is full or fails.
  func start(authorizeURL: String, pending: PendingAuthorization, cookieHeaders: [String] = []) async -> Response {
    var pending = pending
    let crossSitePost = Self.isFormPost(authorizeURL)
    let now = self.now()
    if pending.state != nil {
      // A carried login always expires (the cookie's Max-Age binds only the browser).
      let expiresAt = pending.expiresAt ?? now + PendingAuthorization.defaultLifetime.wholeSeconds
      pending.expiresAt = expiresAt
      if let sealed = loginCookies.seal(pending) {
        var response = started(
          pending, authorizeURL,
          loginCookies.setCookie(
            state: pending.state, value: sealed, maxAge: expiresAt - now, crossSitePost: crossSitePost))
        // The browser's oldest login cookies beyond a few go: abandoned logins never fill its Cookie header.
        for name in loginCookies.stale(cookieHeaders, adding: sealed.utf8.count + 40) {
          response.setCookie(loginCookies.expire(name: name))
        }
        return response
      }
    }
    let cookie = loginCookies.make()
    pending.browserBinding = cookie.hash
    do {
      try await store.insert(pending)
    } catch is PendingAuthorizationStoreFull {
      var response = refusedStart(.storeFull)
      response.headers[.retryAfter] = "60"
      return response
    } catch {
      return problem(.storeUnavailable, event: "login start failed")
    }
    let lifetime = pending.expiresAt.map { $0 - self.now() } ?? PendingAuthorization.defaultLifetime.wholeSeconds
    return started(
      pending, authorizeURL,
      loginCookies.setCookie(state: pending.state, value: cookie.value, maxAge: lifetime, crossSitePost: crossSitePost))
  }

  /// A started login's answer: 302 to `authorizeURL` with its login cookie; logged.
  private func started(_ pending: PendingAuthorization, _ authorizeURL: String, _ cookie: Cookie) -> Response {
    logger.info("login started", metadata: ["provider": "\(pending.provider.rawValue)", "status": "302"])
    var response = Response.loginRedirect(.found, to: authorizeURL)
    response.setCookie(cookie)
    return response
  }

  /// `429 too-many-logins` with `Retry-After` when the request's client has started its ``startLimits`` of
  /// logins, else `nil` (go on). A request whose client is not known (a context without its address and no
  /// `clientKey`) is not limited per client.
  func limitStart(_ request: Request, _ context: some RequestContext) -> Response? {
    let address = (context as? any RemoteAddressRequestContext)?.remoteAddress
    let client = clientKey.map { $0(request, address) } ?? StartLimiter.clientKey(address)
    guard let client, let wait = limiter.admit(client, now: now()) else { return nil }
    var response = refusedStart(.tooManyLogins, client: client)
    response.headers[.retryAfter] = String(wait)
    return response
  }

  /// A refused start's problem answer, logged the first, second, fourth, eighth… time in each minute (with the
  /// count so far and the client key of the refused one): a flood of refused starts writes a few lines, not
  /// one per request.
  func refusedStart(_ details: ProblemDetails, client: String? = nil) -> Response {
    if let count = refusalLog.count(now: now()) {
      var metadata: Logger.Metadata = [
        "code": "\(details.code)", "status": "\(details.status)", "refused_this_minute": "\(count)",
      ]
      if let client { metadata["client"] = "\(client)" }
      logger.info("login start refused", metadata: metadata)
    }
    return details.response()
  }

  /// Whether the provider answers the authorization request with a cross-site POST (`response_mode=form_post`).
  static func isFormPost(_ authorizeURL: String) -> Bool {
    guard let url = try? ParsedURL(authorizeURL) else { return false }
    return FormParameters(url.query ?? "").first(named: "response_mode")?.value() == "form_post"
  }

  /// Answers one callback request (what ``register(on:path:onCallback:)`` routes to): a problem response for a
  /// rejected callback, else `onCallback`'s response.
  ///
  /// ```swift
  /// router.get("/cb") { request, context in
  ///   try await endpoint.respond(to: request, context: context) { _, _, _ in Response(status: .ok) }
  /// }
  /// ```
  public func respond<Context: RequestContext>(
    to request: Request, context: Context,
    onCallback: @Sendable (ConsumedAuthorization, Request, Context) async throws -> Response
  ) async throws -> Response {
    let target = request.uri.string
    guard target.hasPrefix("/"), let url = try? ParsedURL(publicBaseURL + target) else {
      return problem(.malformedRequest)
    }
    return try await respond(to: request, context: context, url: url, onCallback: onCallback)
  }

  /// Answers one callback request whose URL is already rebuilt: reads the form body of a POST, consumes the
  /// pending authorization and hands the callback to `onCallback`.
  func respond<Context: RequestContext>(
    to request: Request, context: Context, url: ParsedURL,
    onCallback: @Sendable (ConsumedAuthorization, Request, Context) async throws -> Response
  ) async throws -> Response {
    // A browser with more cookies for the site than it may send: told so, before anything is read.
    let cookieHeaders = request.headers[values: .cookie]
    if cookieHeaders.reduce(0, { $0 + $1.utf8.count }) > LoginCookies.maximumCookieHeaderSize {
      return problem(.cookieHeaderTooLarge)
    }
    var parameters: FormParameters? = nil
    if request.method == .post {
      switch try await formBody(request) {
      case .form(let form): parameters = form
      case .refused(let refusal): return problem(refusal)
      }
    }
    let consumed: ConsumedAuthorization
    // The one login cookie named for the callback's state.
    let state = CallbackBinding(url, parameters: parameters ?? ProviderDetector.callbackParameters(of: url)).state
    let (browser, hasCookie, carried) = loginCookies.presented(cookieHeaders, state: state)
    do {
      if let carried {
        // The login this browser carried in its sealed cookie: spent once in the store, which held nothing.
        consumed = try await store.consume(url, parameters: parameters, carried: carried, now: now())
      } else {
        consumed = try await store.consume(url, parameters: parameters, browser: browser, now: now())
      }
    } catch let error as CallbackError {
      // Whether a login is pending for this callback elsewhere, and whose, is not for the caller to learn.
      if ProblemDetails.unknownLoginCodes.contains(error.code) {
        logger.info("callback rejected", metadata: ["code": "\(error.code)"])
        return problem(.unknownLogin)
      }
      var response = problem(ProblemDetails(error))
      // This browser's login, used up (answered before, or too late): its cookie goes.
      if hasCookie && (error.code == .replayed || error.code == .expired) {
        response.setCookie(loginCookies.clearCookie(stateBytes: state, crossSitePost: request.method == .post))
      }
      return response
    } catch {
      // The store's own failure (a lost database): never its message, which is for the log.
      logger.warning("pending-authorization store failed", metadata: ["error": "\(error)"])
      return problem(.storeUnavailable)
    }
    let callback = consumed.callback
    var response: Response
    do {
      response = try await onCallback(consumed, request, context)
    } catch let retry as LoginRetry {
      // The login was not used (its code never left): given back to the browser that carried it, whose cookie
      // stays, so that delivering the same callback again can finish it.
      response = retry.response
      if consumed.isSpent, let carried {
        do {
          if try await store.restore(carried: carried) {
            logger.info("callback given back", metadata: ["provider": "\(callback.provider.rawValue)"])
            return response
          }
        } catch {
          logger.warning("pending-authorization store failed", metadata: ["error": "\(error)"])
        }
      }
    }
    if consumed.isSpent && consumed.authorization.browserBinding != nil {
      response.setCookie(loginCookies.clearCookie(state: consumed.authorization.state, crossSitePost: request.method == .post))
    }
    logger.info(
      "callback",
      metadata: [
        "provider": "\(callback.provider.rawValue)", "outcome": "\(callback.outcome.rawValue)",
        "status": "\(response.status.code)",
      ])
    return response
  }

  /// The request's body, at most ``maxBodySize`` bytes, or `nil` when it has not all come within
  /// ``bodyReadTimeout``.
  private func collectBody(_ request: Request) async throws -> ByteBuffer? {
    let (limit, timeout) = (maxBodySize, bodyReadTimeout)
    return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
      group.addTask {
        var request = request
        return try await request.collectBody(upTo: limit)
      }
      group.addTask {
        try await Task.sleep(for: timeout)
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
  }

  func problem(_ details: ProblemDetails, event: Logger.Message = "callback rejected") -> Response {
    logger.info(event, metadata: ["code": "\(details.code)", "status": "\(details.status)"])
    return details.response()
  }
}

/// An RFC 9457 problem answer: `type` `https://linkparse.dev/problems/<code>`, `title`, `status`, the stable
/// `code` and an English `detail`, which never repeats the callback's values (code, state, tokens).
///
/// ```swift
/// ProblemDetails(CallbackError(.replayed)).status  // 409
/// ```
public struct ProblemDetails: Sendable, Hashable {
  /// The stable kebab-case code: a ``CallbackError`` code, or one of the endpoint's own: `unknown-login` (403,
  /// for `not-pending`, `redirect-mismatch`, `state-mismatch`, `browser-mismatch` and `duplicate-parameter`
  /// alike), `too-many-logins` (429), `store-full` (503), `request-timeout` (408), `content-too-large`
  /// (413), `unsupported-media-type` (415), `malformed-request` (400), `unknown-route` (404),
  /// `method-not-allowed` (405), `provider-mismatch` (403), `constraint-limit-exceeded` (400),
  /// `invalid-configuration` (500), `cookie-header-too-large` (431); and for the session's POSTs,
  /// `cross-site-request` (403) and `session-store-unavailable` (503).
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.expired)).code  // "expired"
  /// ```
  public let code: String
  /// The HTTP status.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.stateMismatch)).status  // 403
  /// ```
  public let status: Int
  /// A short, fixed summary of the problem type.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.notPending)).title  // "Not pending"
  /// ```
  public let title: String
  /// An English sentence (``CallbackError/descriptionEN`` without what the callback carried).
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.replayed)).detail  // "This authorization was already used by an earlier callback."
  /// ```
  public let detail: String

  /// The problem a rejected callback is answered with.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.duplicateParameter, parameter: "state")).status  // 400
  /// ```
  public init(_ error: CallbackError) {
    // `found` and the provider error can hold the callback's own values: left out.
    let detail = CallbackError(error.code, parameter: error.parameter).descriptionEN
    let status: Int
    switch error.code {
    case .stateMismatch, .issuerMismatch, .nonceMismatch: status = 403
    case .replayed, .ambiguousAuthorization: status = 409
    case .notPending: status = 404
    case .expired: status = 410
    default: status = 400
    }
    self.init(code: error.code.rawValue, status: status, detail: detail)
  }

  package init(code: String, status: Int, detail: String) {
    self.code = code
    self.status = status
    self.detail = detail
    var title = code.replacingDashes()
    title = title.prefix(1).uppercased() + title.dropFirst()
    self.title = title
  }

  static let contentTooLarge = ProblemDetails(
    code: "content-too-large", status: 413, detail: "The callback's body is larger than the endpoint accepts.")
  static let unsupportedMediaType = ProblemDetails(
    code: "unsupported-media-type", status: 415,
    detail: "A POST callback must be application/x-www-form-urlencoded.")
  package static let unknownRoute = ProblemDetails(
    code: "unknown-route", status: 404, detail: "No callback route matches this request.")
  static let methodNotAllowed = ProblemDetails(
    code: "method-not-allowed", status: 405, detail: "A callback route answers GET and POST only.")
  static let providerMismatch = ProblemDetails(
    code: "provider-mismatch", status: 403,
    detail: "The callback arrived on a route declared for another provider than the login's.")
  static let constraintLimitExceeded = ProblemDetails(
    code: "constraint-limit-exceeded", status: 400,
    detail: "A route constraint hit its matching limits on this request; no route was chosen.")
  static let invalidConfiguration = ProblemDetails(
    code: "invalid-configuration", status: 500, detail: "The login's configured redirect URI is not a URL.")
  static let invalidReturnPath = ProblemDetails(
    code: "invalid-return-path", status: 400,
    detail: "return_to must be a path on this site (one leading /, printable ASCII, no \\ or fragment).")
  /// A state-changing POST (logout, refresh) that a browser sent from another site (``CrossSiteCheck``): 403.
  ///
  /// ```swift
  /// ProblemDetails.crossSiteRequest.code  // "cross-site-request"
  /// ```
  public static let crossSiteRequest = ProblemDetails(
    code: "cross-site-request", status: 403, detail: "This request must come from the site's own pages.")
  /// The session store failed, so whether the request has a session is unknown: 503, try again.
  ///
  /// ```swift
  /// ProblemDetails.sessionStoreUnavailable.status  // 503
  /// ```
  public static let sessionStoreUnavailable = ProblemDetails(
    code: "session-store-unavailable", status: 503, detail: "The session store is unavailable; try again.")
  static let cookieHeaderTooLarge = ProblemDetails(
    code: "cookie-header-too-large", status: 431,
    detail: "The request's cookies are larger than the site accepts; clear this site's cookies and try again.")
  static let storeUnavailable = ProblemDetails(
    code: "store-unavailable", status: 503, detail: "The pending-authorization store is unavailable; try again.")
  /// One answer for every callback that binds no login of this browser: no login with its state, a login of
  /// another browser (login CSRF), a state sent to another redirect URI, a repeated parameter. Telling them
  /// apart would tell a prober whether, and where, logins are pending.
  static let unknownLogin = ProblemDetails(
    code: "unknown-login", status: 403,
    detail: "No login started in this browser matches this callback; start the login again.")
  /// The callback errors answered with ``unknownLogin``.
  static let unknownLoginCodes: Set<CallbackError.Code> = [
    .notPending, .redirectMismatch, .stateMismatch, .browserMismatch, .duplicateParameter,
  ]
  static let tooManyLogins = ProblemDetails(
    code: "too-many-logins", status: 429, detail: "This client has started too many logins; wait and try again.")
  static let storeFull = ProblemDetails(
    code: "store-full", status: 503, detail: "Too many logins are in progress; try again in a minute.")
  static let requestTimeout = ProblemDetails(
    code: "request-timeout", status: 408, detail: "The callback's body did not arrive in time.")
  static let malformedRequest = ProblemDetails(
    code: "malformed-request", status: 400, detail: "The request target does not make a valid callback URL.")

  /// The problem's `type` URI.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.replayed)).type  // "https://linkparse.dev/problems/replayed"
  /// ```
  public var type: String { "https://linkparse.dev/problems/" + code }

  /// The JSON object, members in a fixed order.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.replayed)).json  // {"type":"https://linkparse.dev/problems/replayed",…}
  /// ```
  public var json: String {
    "{\"type\":\(JSONText.quoted(type)),\"title\":\(JSONText.quoted(title)),\"status\":\(status),"
      + "\"code\":\(JSONText.quoted(code)),\"detail\":\(JSONText.quoted(detail))}"
  }

  /// A Hummingbird response: the status, `Content-Type: application/problem+json`, ``json``.
  ///
  /// ```swift
  /// ProblemDetails(CallbackError(.replayed)).response().status  // .conflict
  /// ```
  public func response() -> Response {
    return Response(
      status: HTTPResponse.Status(code: status),
      headers: [.contentType: "application/problem+json", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
  }
}

/// A POST's form body, or why it was refused.
package enum FormBody {
  case form(FormParameters)
  case refused(ProblemDetails)
}

extension LinkParseCallbackEndpoint {
  /// The request's `application/x-www-form-urlencoded` body (any parameter, `charset=utf-8`, allowed), read
  /// within ``bodyReadTimeout`` and ``maxBodySize``; else `unsupported-media-type`, `request-timeout` or
  /// `content-too-large`.
  package func formBody(_ request: Request) async throws -> FormBody {
    // Hummingbird's MediaType reads the type (its names are case-insensitive, RFC 9110 §8.3.1: lowercased
    // first).
    guard let mediaType = MediaType(from: (request.headers[.contentType] ?? "").lowercased()),
      mediaType.isType(.applicationUrlEncoded)
    else {
      return .refused(.unsupportedMediaType)
    }
    do {
      guard let collected = try await collectBody(request) else { return .refused(.requestTimeout) }
      return .form(FormParameters(utf8: collected.readableBytesView))
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
      // NIOTooManyBytesError: more than maxBodySize bytes.
      return .refused(.contentTooLarge)
    }
  }
}

extension Response {
  /// A redirect of a login (to the provider, or back to the app after the callback): never cached
  /// (`Cache-Control: no-store`), and it sends no `Referer` (`Referrer-Policy: no-referrer`), so the codes and
  /// states in the URLs around it reach no one else.
  package static func loginRedirect(_ status: HTTPResponse.Status, to location: String) -> Response {
    Response(
      status: status,
      headers: [.location: location, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"])
  }
}

extension StringProtocol {
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
  }

  fileprivate func replacingDashes() -> String {
    String(map { $0 == "-" ? " " : $0 })
  }
}

/// Thrown by a callback closure when it did not use the login it was given — its code never reached the
/// provider (the token endpoint could not be connected to) —: the endpoint gives a login the browser carried
/// back to it (the store forgets that it was spent, the login cookie stays), so that the same callback,
/// delivered again (a reload), can finish the login; and answers ``response``. A login the store cannot give
/// back is used up as usual.
///
/// ```swift
/// } catch let failure as OAuthResponseError where failure.unsentRequest == .tokenExchange {
///   throw LoginRetry(ProblemDetails.providerUnavailable.response())
/// }
/// ```
public struct LoginRetry: Error, Sendable {
  /// The answer to the callback that could not finish.
  public var response: Response

  /// The retry that answers `response`.
  ///
  /// ```swift
  /// throw LoginRetry(Response(status: .serviceUnavailable))
  /// ```
  public init(_ response: Response) { self.response = response }
}
