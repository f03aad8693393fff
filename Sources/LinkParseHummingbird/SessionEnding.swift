// What a back-channel logout needs of a session store: end the sessions of a user (or of one provider session)
// on every instance, and accept each logout token once.

public import LinkParseHTTP

/// A session store that can end sessions by who they belong to, not only by their id — what OpenID Connect
/// Back-Channel Logout needs (``WebLogin`` serves it when its session driver is one). ``MemorySessionDriver``
/// and ``PostgresSessionDriver`` are.
///
/// ```swift
/// let ended = try await sessions.endSessions(matching: logout)  // 2
/// ```
public protocol SessionEnding: Sendable {
  /// Deletes the ``LoginSession``s of `logout`'s issuer that it names: with a `sid`, the sessions with that
  /// ``LoginSession/sid`` (and that subject, when it names one too); with only a `sub`, every session of that
  /// user. Returns how many ended.
  func endSessions(matching logout: LogoutToken) async throws -> Int

  /// Records `logout`'s `jti` (per issuer) until its expiry; `false` when it was recorded already (a replay).
  func recordLogoutToken(_ logout: LogoutToken) async throws -> Bool
}

extension LoginSession {
  /// Whether `logout` names this session (see ``SessionEnding/endSessions(matching:)``).
  ///
  /// ```swift
  /// session.isNamed(by: logout)  // true
  /// ```
  public func isNamed(by logout: LogoutToken) -> Bool {
    guard issuer == logout.issuer else { return false }
    if let subject = logout.subject, subject != self.subject { return false }
    if let sessionID = logout.sessionID { return sid == sessionID }
    return true
  }
}
