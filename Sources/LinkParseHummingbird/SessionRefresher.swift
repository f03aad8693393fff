// A login session's lifecycle: its tokens refreshed once, however many requests of that session find them
// stale at once, on one instance or on several; logout and sign-in excluding a refresh of the same session.

public import Hummingbird
public import HummingbirdAuth
import LinkParseBytes
public import LinkParseAuthorization
public import LinkParseHTTP
public import LinkParseOAuth
public import LinkParseProviders

/// A lock that one instance at a time holds for a key: what makes a session's refresh single-flight across
/// instances. ``PostgresSessionDriver`` is one (a PostgreSQL advisory lock).
///
/// ```swift
/// try await driver.withRefreshLock(for: "lp-session.abc") { try await refresh() }
/// ```
public protocol SessionRefreshLocking: Sendable {
  /// Runs `body` while holding the lock named `key`.
  func withRefreshLock<T: Sendable>(for key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T
}

/// Why a session's tokens could not be refreshed (besides the provider's own answer, an `OAuthResponseError`
/// such as `invalid_grant`: then end the session and let the user sign in again).
///
/// ```swift
/// error.code  // .noRefreshToken
/// ```
public struct SessionRefreshError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: String, Sendable, Hashable {
    /// The session has no refresh token (the provider gave none): sign in again.
    case noRefreshToken = "no-refresh-token"
    /// The session was ended (logged out, expired) while its refresh waited.
    case sessionEnded = "session-ended"
    /// The session store (or its lock) failed: the session's state is unknown, so the request cannot be
    /// answered as signed in or as signed out; answer 503 and let the browser try again.
    case storeUnavailable = "session-store-unavailable"
  }

  /// What went wrong.
  public let code: Code

  /// An error with `code` (for a `refresh` closure that finds no refresh token, say).
  ///
  /// ```swift
  /// throw SessionRefreshError(.noRefreshToken)
  /// ```
  public init(_ code: Code) { self.code = code }

  /// The code, and what to do.
  ///
  /// ```swift
  /// "\(error)"  // "no-refresh-token: the session has no refresh token; sign in again"
  /// ```
  public var description: String {
    switch code {
    case .noRefreshToken: return "no-refresh-token: the session has no refresh token; sign in again"
    case .sessionEnded: return "session-ended: the session ended while its refresh waited; sign in again"
    case .storeUnavailable: return "session-store-unavailable: the session store failed; try again"
    }
  }
}

/// The lifecycle of the ``LoginSession``s one driver keeps: refresh, sign-in and logout, which exclude each
/// other per session.
///
/// **Refresh once.** Requests of one session that find the same access token stale share one refresh (on this
/// instance), and with a ``SessionRefreshLocking`` driver (``PostgresSessionDriver``, ``MemorySessionDriver``)
/// instances take turns, and the one that comes second finds the session already refreshed and uses it.
/// Providers that rotate refresh tokens (VK ID, RFC 9700 §4.14.2) refuse a refresh token's second use, so a
/// session refreshed twice at once would be lost. With another driver, the lock is this process's own.
///
/// **Refresh, logout and sign-in exclude each other.** Each takes the session's lock:
/// ``endSession(request:)`` deletes the session by its id only when no refresh of it runs, and a refresh that
/// waited finds it gone (``SessionRefreshError/Code/sessionEnded``); and the refresh writes without a lifetime,
/// which the drivers apply to a live session only, so nothing brings an ended session back or takes its
/// expiry away. ``signIn(_:consumed:request:context:lifetime:defaultReturnPath:)`` ends the session the new
/// one replaces.
///
/// **A failing store is not "signed out".** hummingbird-auth's middleware treats a session it could not load as
/// none; ``freshSession(request:context:force:now:refresh:)`` reads it again when the request names one, and
/// throws ``SessionRefreshError/Code/storeUnavailable`` if the store still fails.
///
/// ```swift
/// let refresher = SessionRefresher(driver: driver, configuration: configuration)
/// // in a handler of a router with SessionMiddleware:
/// let session = try await refresher.freshSession(request: request, context: context) { session in
///   try await http.perform(try provider.refresh(refreshToken: session.refreshToken!), as: TokenResponse.self)
/// }
/// ```
public final class SessionRefresher: Sendable {
  /// A token expiring within this long counts as stale (60 seconds).
  public let margin: Duration
  private let storage: SessionStorage<LoginSession>
  private let keyPrefix: String
  private let cookieParameters: SessionCookieParameters
  /// The driver's lock, or this process's own when the driver has none.
  private let lock: any SessionRefreshLocking
  /// The refreshes running on this instance, by session id and the access token they replace.
  private let inFlight = PThreadLocked<[String: Task<LoginSession, any Error>]>([:])

  /// A refresher for the sessions `driver` keeps with `configuration` (the session middleware's); it locks
  /// across instances when `driver` is a ``SessionRefreshLocking``, in this process otherwise.
  ///
  /// ```swift
  /// let refresher = SessionRefresher(driver: driver, configuration: LoginSession.middlewareConfiguration(secure: true))
  /// ```
  public init(driver: any PersistDriver, configuration: SessionMiddlewareConfiguration, margin: Duration = .seconds(60)) {
    self.storage = SessionStorage(
      driver,
      configuration: SessionStorageConfiguration(
        sessionCookieParameters: configuration.sessionCookieParameters, keyPrefix: configuration.keyPrefix))
    self.keyPrefix = configuration.keyPrefix
    self.cookieParameters = configuration.sessionCookieParameters
    self.lock = driver as? any SessionRefreshLocking ?? ProcessSessionLock()
    self.margin = margin
  }

  /// The request's session, its access token refreshed first when it expires within ``margin`` (or
  /// when `force`); `nil` when the request has no session. `refresh` sends the provider's refresh request for
  /// the session it is given and returns the answer; it runs once per session and stale token, however many
  /// requests ask at once. The refreshed session is stored before this returns (if it is still live: a
  /// session logged out or expired meanwhile stays ended), and is the context's session from then on.
  ///
  /// ```swift
  /// let session = try await refresher.freshSession(request: request, context: context) { session in
  ///   try await http.perform(try provider.refresh(refreshToken: session.refreshToken!), as: TokenResponse.self)
  /// }
  /// ```
  ///
  /// - Throws: ``SessionRefreshError`` (``SessionRefreshError/Code/storeUnavailable`` when the store fails:
  ///   answer 503, not "signed out"), whatever `refresh` throws (the provider's refusal: end the session).
  public func freshSession<Context: SessionRequestContext<LoginSession>>(
    request: Request, context: Context, force: Bool = false,
    now: Int64 = PendingAuthorization.currentUnixTime(),
    refresh: @escaping @Sendable (LoginSession) async throws -> TokenResponse
  ) async throws -> LoginSession? {
    // No session cookie: only a session this request opened (nothing stored to refresh yet).
    guard let id = storage.getId(request: request) else { return context.sessions.session }
    let seen: LoginSession
    if let loaded = context.sessions.session {
      seen = loaded
    } else {
      // The middleware found none, or could not load it: ask again, so that a failing store is an error.
      guard let loaded = try await storeCall({ try await Self.load(self.storage, request) }) else { return nil }
      seen = loaded
    }
    guard force || seen.needsRefresh(now: now, margin: margin) else { return seen }
    let flightKey = id + "\u{0}" + seen.accessToken
    let task = inFlight.withLock { flights -> Task<LoginSession, any Error> in
      if let running = flights[flightKey] { return running }
      // The task removes itself when done; it cannot get there before this insert, which holds the lock.
      let task = Task {
        defer { _ = self.inFlight.withLock { $0.removeValue(forKey: flightKey) } }
        return try await self.refreshOnce(seen: seen, id: id, request: request, now: now, refresh: refresh)
      }
      flights[flightKey] = task
      return task
    }
    let updated = try await task.value
    // The middleware then writes this same value again: never the stale one over it.
    _ = context.sessions.updateSession(updated)
    return updated
  }

  /// Ends the request's session (logout): under the session's lock — after any refresh of it, before any
  /// other — deletes it from the store by the id its cookie names, whether or not the session middleware
  /// could load it. Returns the session as it was stored (for the provider's logout), `nil` when the request
  /// names none (or it had already ended). Answer with ``expiredCookie`` in every case, errors included.
  ///
  /// ```swift
  /// let ended = try await refresher.endSession(request: request)
  /// ```
  ///
  /// - Throws: ``SessionRefreshError`` ``SessionRefreshError/Code/storeUnavailable`` when the session could
  ///   not be deleted (it may still be live: answer 503, never "logged out").
  public func endSession(request: Request) async throws -> LoginSession? {
    guard let id = storage.getId(request: request) else { return nil }
    let storage = self.storage
    return try await storeCall {
      try await self.lock.withRefreshLock(for: self.keyPrefix + id) {
        // Read for the provider's logout; a session that does not read (another type) is deleted all the same.
        let stored = try? await Self.load(storage, request)
        _ = try await storage.delete(request: request)
        return stored ?? nil
      }
    }
  }

  /// The `Set-Cookie` that removes the session cookie from the browser: what a logout answers, always.
  ///
  /// ```swift
  /// response.headers[values: .setCookie].append(refresher.expiredCookie.description)
  /// ```
  public var expiredCookie: Cookie {
    let parameters = cookieParameters
    if let sameSite = parameters.sameSite {
      return Cookie(
        name: parameters.name, value: "", maxAge: 0, domain: parameters.domain, path: parameters.path,
        secure: parameters.secure, sameSite: sameSite)
    }
    return Cookie(
      name: parameters.name, value: "", maxAge: 0, domain: parameters.domain, path: parameters.path,
      secure: parameters.secure)
  }

  /// Ends a callback in a session, replacing the request's: ends the session the request's cookie names
  /// (under its lock, as ``endSession(request:)``), then ``LoginSession/signIn(_:consumed:context:lifetime:defaultReturnPath:)``
  /// — a new session with a fresh id, and `303 See Other` to the login's return path.
  ///
  /// ```swift
  /// endpoint.callbackRoutes(table, context: LoginSessionContext.self) { consumed, _, request, context in
  ///   try await refresher.signIn(try await party.complete(consumed), consumed: consumed, request: request, context: context)
  /// }
  /// ```
  ///
  /// - Throws: ``SessionRefreshError`` ``SessionRefreshError/Code/storeUnavailable`` when the replaced session
  ///   could not be ended (then no new one is opened).
  public func signIn<Context: SessionRequestContext<LoginSession>>(
    _ identity: VerifiedIdentity, consumed: ConsumedAuthorization, request: Request, context: Context,
    lifetime: Duration? = nil, defaultReturnPath: String = "/"
  ) async throws -> Response {
    _ = try await endSession(request: request)
    return LoginSession.signIn(
      identity, consumed: consumed, context: context, lifetime: lifetime, defaultReturnPath: defaultReturnPath)
  }

  /// Under the lock: the stored session, refreshed unless someone already replaced the token `seen` has.
  private func refreshOnce(
    seen: LoginSession, id: String, request: Request, now: Int64,
    refresh: @escaping @Sendable (LoginSession) async throws -> TokenResponse
  ) async throws -> LoginSession {
    let storage = self.storage
    let work: @Sendable () async throws -> LoginSession = {
      guard let current = try await Self.storeCall({ try await Self.load(storage, request) }) else {
        throw SessionRefreshError(.sessionEnded)
      }
      if current.accessToken != seen.accessToken { return current }
      guard current.refreshToken != nil else { throw SessionRefreshError(.noRefreshToken) }
      let tokens: TokenResponse
      do { tokens = try await refresh(current) } catch { throw ProviderFailure(underlying: error) }
      let updated = current.refreshed(with: tokens, now: now)
      // Without a lifetime: applied to a live session only, its expiry kept.
      try await Self.storeCall { try await storage.update(session: updated, expiresIn: nil, request: request) }
      return updated
    }
    return try await storeCall { try await self.lock.withRefreshLock(for: self.keyPrefix + id, work) }
  }

  /// The stored session; one that is not a ``LoginSession`` counts as none.
  private static func load(_ storage: SessionStorage<LoginSession>, _ request: Request) async throws -> LoginSession? {
    do {
      return try await storage.load(request: request)
    } catch let error as SessionStorage<LoginSession>.Error where error == .sessionInvalidType {
      return nil
    }
  }

  /// `body`, its store failures as ``SessionRefreshError/Code/storeUnavailable``; a ``SessionRefreshError``
  /// as it is, and what the refresh closure threw (a provider's answer) unwrapped.
  private func storeCall<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    try await Self.storeCall(body)
  }

  private static func storeCall<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    do {
      return try await body()
    } catch let error as SessionRefreshError {
      throw error
    } catch let failure as ProviderFailure {
      throw failure.underlying
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      throw SessionRefreshError(.storeUnavailable)
    }
  }
}

/// What the refresh closure threw, carried through the lock unchanged (not a store failure).
private struct ProviderFailure: Error {
  let underlying: any Error
}
