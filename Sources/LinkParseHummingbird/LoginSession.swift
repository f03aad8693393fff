// The session a web login ends in: who signed in, and the tokens to act for them, kept with hummingbird-auth's
// sessions (in memory, or in PostgreSQL through PostgresSessionDriver).

public import Hummingbird
import LinkParseBytes
public import HummingbirdAuth
public import LinkParseAuthorization
public import LinkParseCore
public import LinkParseHTTP
public import LinkParseOAuth
public import LinkParseProviders
public import NIOCore

/// The session a web login ends in: the verified identity's provider, issuer and subject, and the tokens
/// (the access token, the refresh token when the provider gave one, the id_token for logging out).
///
/// Keep it with hummingbird-auth's `SessionMiddleware` over ``PostgresSessionDriver`` (shared by instances,
/// sealed at rest) or ``MemorySessionDriver`` (one process); its cookie is ``cookieParameters(secure:)``.
/// ``SessionRefresher/signIn(_:consumed:request:context:lifetime:defaultReturnPath:)`` opens one at the end of
/// a callback, ending the one it replaces.
///
/// ```swift
/// let session = LoginSession(identity)
/// session.subject   // "248289761001"
/// session.needsRefresh(now: now)  // false for a fresh access token
/// ```
public struct LoginSession: Codable, Sendable, Hashable {
  /// The provider the user signed in with.
  public var provider: Provider
  /// The issuer of the identity.
  public var issuer: String
  /// The user's stable id at the issuer.
  public var subject: String
  /// The e-mail address (the verified id_token's, else the user info's; never Apple's unsigned `user` JSON).
  public var email: String?
  /// Whether the provider says it verified ``email`` (`nil`: it does not say).
  public var emailVerified: Bool?
  /// The user's name, as the provider gave it (for greeting, not for trusting).
  public var name: String?
  /// The id_token, kept as the hint of an RP-initiated logout.
  public var idToken: String?
  /// The access token; empty after a Sign in with Apple `response_type=id_token` login, which gives none.
  public var accessToken: String
  /// The refresh token, when the provider gave one.
  public var refreshToken: String?
  /// When the access token expires (Unix seconds), when the provider said.
  public var accessTokenExpiresAt: Int64?
  /// VK ID's `device_id` (``VerifiedIdentity/deviceID``), which its refresh needs; `nil` for other providers.
  public var deviceID: String?
  /// When the user signed in (Unix seconds).
  public var authenticatedAt: Int64
  /// How many times the tokens have been refreshed.
  public var refreshCount: Int
  /// The provider's session id, the verified id_token's `sid` (OpenID Connect): what a back-channel logout
  /// token names to end this session; `nil` when the provider gave none.
  public var sid: String?

  /// The session of a verified identity.
  ///
  /// ```swift
  /// let session = LoginSession(identity, now: PendingAuthorization.currentUnixTime())
  /// ```
  public init(_ identity: VerifiedIdentity, now: Int64 = PendingAuthorization.currentUnixTime()) {
    provider = identity.provider
    issuer = identity.issuer
    subject = identity.subject
    email = identity.email?.value
    emailVerified = identity.emailVerified
    name = identity.name?.value
    idToken = identity.tokens?.idToken
    accessToken = identity.tokens?.accessToken ?? ""
    refreshToken = identity.tokens?.refreshToken
    accessTokenExpiresAt = identity.tokens?.expiresAt(receivedAt: now)
    deviceID = identity.deviceID
    authenticatedAt = now
    refreshCount = 0
    sid = identity.idToken?.claims.all["sid"]?.string
  }

  /// Whether the access token expires within `margin` of `now` (a token with no known expiry never
  /// needs refreshing by this test).
  ///
  /// ```swift
  /// session.needsRefresh(now: now, margin: .seconds(60))
  /// ```
  public func needsRefresh(now: Int64 = PendingAuthorization.currentUnixTime(), margin: Duration = .seconds(60)) -> Bool {
    guard let expiresAt = accessTokenExpiresAt else { return false }
    return expiresAt - margin.components.seconds <= now
  }

  /// The session after a refresh that answered `tokens`: the new access token and its expiry; the new refresh
  /// token, or the old one when the answer has none (RFC 6749 §6); the id_token if a new one came.
  ///
  /// ```swift
  /// session.refreshed(with: tokens, now: now).refreshCount  // one more
  /// ```
  public func refreshed(with tokens: TokenResponse, now: Int64 = PendingAuthorization.currentUnixTime()) -> LoginSession {
    var copy = self
    copy.accessToken = tokens.accessToken
    copy.accessTokenExpiresAt = tokens.expiresAt(receivedAt: now)
    if let refreshToken = tokens.refreshToken { copy.refreshToken = refreshToken }
    if let idToken = tokens.idToken { copy.idToken = idToken }
    copy.refreshCount += 1
    return copy
  }

  /// The session's tokens as a token answer: what a provider's logout or revocation takes
  /// (`ProviderRelyingParty.endSession(tokens:)`).
  ///
  /// ```swift
  /// try await party.endSession(tokens: session.tokens)
  /// ```
  public var tokens: TokenResponse {
    TokenResponse(accessToken: accessToken, refreshToken: refreshToken, idToken: idToken)
  }

  /// Who the session is and how fresh its tokens are, as JSON — never a token: `provider`, `issuer`, `subject`,
  /// `email` (when known), `refresh_count`, `access_token_expires_at` (when known).
  ///
  /// ```swift
  /// session.summaryJSON  // {"provider":"vk","issuer":"https://id.vk.ru","subject":"1","refresh_count":0}
  /// ```
  public var summaryJSON: String {
    var json = "{\"provider\":\(JSONText.quoted(provider.rawValue)),\"issuer\":\(JSONText.quoted(issuer)),"
    json += "\"subject\":\(JSONText.quoted(subject))"
    if let email { json += ",\"email\":\(JSONText.quoted(email))" }
    json += ",\"refresh_count\":\(refreshCount)"
    if let accessTokenExpiresAt { json += ",\"access_token_expires_at\":\(accessTokenExpiresAt)" }
    return json + "}\n"
  }

  /// ``summaryJSON`` as a `200 OK` that is never cached (what a `/me` page can answer).
  ///
  /// ```swift
  /// router.get("/me") { request, context in
  ///   try await login.withSession(request, context) { session in session.summaryResponse() }
  /// }
  /// ```
  public func summaryResponse() -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: summaryJSON)))
  }

  /// The session cookie's name: `__Host-lp-session` over https (the browser then insists on `Secure`,
  /// `Path=/` and no `Domain`, so no sibling subdomain can plant or read it), `lp-session` over plain http.
  ///
  /// ```swift
  /// LoginSession.cookieName(secure: true)  // "__Host-lp-session"
  /// ```
  public static func cookieName(secure: Bool) -> String { secure ? "__Host-lp-session" : "lp-session" }

  /// The session cookie: ``cookieName(secure:)``, `Path=/`, `HttpOnly`, `SameSite=Lax`, and `Secure` when
  /// `secure` (serve https and say so).
  ///
  /// ```swift
  /// SessionMiddleware(storage: driver, configuration: .init(sessionCookieParameters: LoginSession.cookieParameters(secure: true)))
  /// ```
  public static func cookieParameters(secure: Bool) -> SessionCookieParameters {
    SessionCookieParameters(name: cookieName(secure: secure), path: "/", secure: secure, sameSite: .lax)
  }

  /// The session middleware's configuration: ``cookieParameters(secure:)``, the key prefix `lp-session.`, and
  /// `lifetime` (12 hours by default).
  ///
  /// ```swift
  /// router.add(middleware: SessionMiddleware(storage: driver, configuration: LoginSession.middlewareConfiguration(secure: true)))
  /// ```
  public static func middlewareConfiguration(
    secure: Bool, lifetime: Duration = .seconds(12 * 3600)
  ) -> SessionMiddlewareConfiguration {
    SessionMiddlewareConfiguration(
      sessionCookieParameters: cookieParameters(secure: secure), keyPrefix: "lp-session.",
      defaultSessionExpiration: lifetime)
  }

  /// Ends a callback in a session: opens a new session for `identity` in `context` (hummingbird-auth gives it a
  /// fresh random id and sets the cookie; the session the request had is left alone: use
  /// ``SessionRefresher/signIn(_:consumed:request:context:lifetime:defaultReturnPath:)``, which ends it), and answers `303 See Other` to the login's return path
  /// (``PendingAuthorization/returnPath``, checked again by ``ReturnPath``; `/` when it has none), with
  /// `Cache-Control: no-store` and `Referrer-Policy: no-referrer` — the callback's code and state leave the
  /// address bar and reach no one else.
  ///
  /// ```swift
  /// endpoint.callbackRoutes(table, context: LoginSessionContext.self) { consumed, _, _, context in
  ///   LoginSession.signIn(try await party.complete(consumed), consumed: consumed, context: context)
  /// }
  /// ```
  public static func signIn<Context: SessionRequestContext<LoginSession>>(
    _ identity: VerifiedIdentity, consumed: ConsumedAuthorization, context: Context, lifetime: Duration? = nil,
    defaultReturnPath: String = "/"
  ) -> Response {
    context.sessions.createSession(LoginSession(identity), expiresIn: lifetime)
    let target = consumed.authorization.returnPath.flatMap { ReturnPath($0) }?.value ?? defaultReturnPath
    return Response.loginRedirect(.seeOther, to: target)
  }
}

/// A request context for a web login: the client's address (for LinkParseHummingbird's `StartLimits`) and a
/// ``LoginSession`` (hummingbird-auth's `SessionMiddleware`).
///
/// ```swift
/// let router = Router(context: LoginSessionContext.self)
/// router.add(middleware: SessionMiddleware(storage: driver, configuration: LoginSession.middlewareConfiguration(secure: true)))
/// ```
public struct LoginSessionContext: RequestContext, RemoteAddressRequestContext, SessionRequestContext {
  /// Hummingbird's per-request storage.
  public var coreContext: CoreRequestContextStorage
  /// The connected client's address.
  public let remoteAddress: SocketAddress?
  /// The request's session.
  public let sessions: SessionContext<LoginSession>

  /// Made by Hummingbird for each request.
  ///
  /// ```swift
  /// // Router(context: LoginSessionContext.self)
  /// ```
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
    sessions = .init()
  }
}
