// Refreshing a session's tokens once, however many requests of that session find them stale at once, on one
// instance or on several.

public import Hummingbird
public import HummingbirdAuth
import LinkParseBytes
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
    }
  }
}

/// Keeps a session's access token fresh with one refresh at a time per session: requests of one session that
/// find the same token stale share one refresh (on this instance), and with a ``SessionRefreshLocking`` driver
/// (``PostgresSessionDriver``) instances take turns, and the one that comes second finds the session already
/// refreshed and uses it. Providers that rotate refresh tokens (VK ID, RFC 9700 §4.14.2) refuse a refresh
/// token's second use, so a session refreshed twice at once would be lost.
///
/// ```swift
/// let refresher = SessionRefresher(driver: driver, configuration: configuration)
/// // in a handler of a router with SessionMiddleware:
/// let session = try await refresher.freshSession(request: request, context: context) { session in
///   try await http.perform(try provider.refresh(refreshToken: session.refreshToken!), as: TokenResponse.self)
/// }
/// ```
public final class SessionRefresher: Sendable {
  /// A token expiring within this many seconds counts as stale (60).
  public let margin: Int64
  private let storage: SessionStorage<LoginSession>
  private let keyPrefix: String
  private let lock: (any SessionRefreshLocking)?
  /// The refreshes running on this instance, by session id and the access token they replace.
  private let inFlight = PThreadLocked<[String: Task<LoginSession, any Error>]>([:])

  /// A refresher for the sessions `driver` keeps with `configuration` (the session middleware's); it locks
  /// across instances when `driver` is a ``SessionRefreshLocking``.
  ///
  /// ```swift
  /// let refresher = SessionRefresher(driver: driver, configuration: LoginSession.middlewareConfiguration(secure: true))
  /// ```
  public init(driver: any PersistDriver, configuration: SessionMiddlewareConfiguration, margin: Int64 = 60) {
    self.storage = SessionStorage(
      driver,
      configuration: SessionStorageConfiguration(
        sessionCookieParameters: configuration.sessionCookieParameters, keyPrefix: configuration.keyPrefix))
    self.keyPrefix = configuration.keyPrefix
    self.lock = driver as? any SessionRefreshLocking
    self.margin = margin
  }

  /// The request's session, its access token refreshed first when it expires within ``margin`` seconds (or
  /// when `force`); `nil` when the request has no session. `refresh` sends the provider's refresh request for
  /// the session it is given and returns the answer; it runs once per session and stale token, however many
  /// requests ask at once. The refreshed session is stored before this returns, and is the context's session
  /// from then on.
  ///
  /// ```swift
  /// let session = try await refresher.freshSession(request: request, context: context) { session in
  ///   try await http.perform(try provider.refresh(refreshToken: session.refreshToken!), as: TokenResponse.self)
  /// }
  /// ```
  ///
  /// - Throws: ``SessionRefreshError``, whatever `refresh` throws (the provider's refusal: end the session),
  ///   the driver's errors.
  public func freshSession<Context: SessionRequestContext<LoginSession>>(
    request: Request, context: Context, force: Bool = false,
    now: Int64 = PendingAuthorization.currentUnixTime(),
    refresh: @escaping @Sendable (LoginSession) async throws -> TokenResponse
  ) async throws -> LoginSession? {
    guard let seen = context.sessions.session else { return nil }
    guard force || seen.needsRefresh(now: now, margin: margin) else { return seen }
    guard let id = storage.getId(request: request) else { return seen }
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

  /// Under the lock: the stored session, refreshed unless someone already replaced the token `seen` has.
  private func refreshOnce(
    seen: LoginSession, id: String, request: Request, now: Int64,
    refresh: @escaping @Sendable (LoginSession) async throws -> TokenResponse
  ) async throws -> LoginSession {
    let storage = self.storage
    let work: @Sendable () async throws -> LoginSession = {
      guard let current = try await storage.load(request: request) else {
        throw SessionRefreshError(.sessionEnded)
      }
      if current.accessToken != seen.accessToken { return current }
      guard current.refreshToken != nil else { throw SessionRefreshError(.noRefreshToken) }
      let updated = current.refreshed(with: try await refresh(current), now: now)
      try await storage.update(session: updated, expiresIn: nil, request: request)
      return updated
    }
    guard let lock else { return try await work() }
    return try await lock.withRefreshLock(for: keyPrefix + id, work)
  }
}
