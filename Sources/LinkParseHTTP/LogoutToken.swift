// OpenID Connect Back-Channel Logout 1.0: the provider posts a signed logout token to the relying party's
// back-channel endpoint when a user's session there ends; the party verifies it (§2.6) and ends the sessions it
// names, by `sid` or by `sub`.

public import LinkParseIDToken
public import LinkParseOAuth

/// A verified back-channel logout token: who is logged out, and the token's own id (used once).
///
/// ```swift
/// let logout = try await party.verifyLogoutToken(token, now: IDTokenVerifier.currentUnixTime)
/// logout.subject    // "248289761001", or nil when only sid is given
/// logout.sessionID  // "08a5019c-17e1-4977-8f42-65a12843ea02", or nil
/// ```
public struct LogoutToken: Sendable, Hashable {
  /// The `events` member that makes a JWT a back-channel logout token.
  public static let event = "http://schemas.openid.net/event/backchannel-logout"

  /// `iss`: the provider that ended the session (the party's issuer).
  public let issuer: String
  /// `sub`, when present: every session of this user at ``issuer`` ends (when ``sessionID`` is absent).
  public let subject: String?
  /// `sid`, when present: the provider's session id (the id_token's `sid`); only the sessions of that one end.
  public let sessionID: String?
  /// `jti`: the token's id, which a relying party accepts once.
  public let tokenID: String
  /// `exp`: until when the token could be replayed (how long its ``tokenID`` must be remembered).
  public let expiresAt: Int64

  /// Reads a logout token's claims once its signature, `iss`, `aud`, `iat`, `exp` and the absence of `nonce`
  /// are verified (``OIDCRelyingParty/verifyLogoutToken(_:now:)`` does both): `events` must hold the
  /// back-channel logout event as an object, `sub` or `sid` a non-empty string, `jti` a non-empty string. The
  /// header's `typ` is not checked (§2.6 does not: `logout+jwt` is only recommended, and providers send `JWT`
  /// too); the `events` claim and the absence of `nonce` are what keep an id_token from passing for one.
  ///
  /// ```swift
  /// let logout = try LogoutToken(verified)
  /// ```
  ///
  /// - Throws: ``IdentityError`` `invalid-logout-token`, naming what is missing.
  public init(_ verified: VerifiedIDToken) throws(IdentityError) {
    let claims = verified.claims
    func refuse(_ message: String) -> IdentityError { IdentityError(.invalidLogoutToken, message: message) }
    guard case .object = claims.all["events"]?[Self.event] else {
      throw refuse("events has no \(Self.event) object: not a back-channel logout token (an id_token, say)")
    }
    let subject = claims.subject.flatMap { $0.isEmpty ? nil : $0 }
    let sessionID = claims.all["sid"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    guard subject != nil || sessionID != nil else { throw refuse("the token names neither sub nor sid") }
    guard let tokenID = claims.tokenID, !tokenID.isEmpty else { throw refuse("the token has no jti") }
    guard let issuer = claims.issuer, let expiresAt = claims.expiresAt else {
      throw refuse("the token has no iss or exp")
    }
    (self.issuer, self.subject, self.sessionID, self.tokenID, self.expiresAt) =
      (issuer, subject, sessionID, tokenID, expiresAt)
  }
}

extension OIDCRelyingParty {
  /// Verifies a back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.6): the signature with
  /// ``keys`` (a rotated key is fetched), `iss` the provider's, `aud` this client, `iat` recent
  /// (``maxIssuedAtAge``), `exp` not past, no `nonce`; then what ``LogoutToken/init(_:)`` checks. Remember the
  /// token's ``LogoutToken/tokenID`` until ``LogoutToken/expiresAt``, and refuse it a second time.
  ///
  /// ```swift
  /// let logout = try await party.verifyLogoutToken(form["logout_token"]!)
  /// ```
  ///
  /// - Throws: ``IDTokenError`` (signature, issuer, audience, times, a `nonce`), ``IdentityError``
  ///   `invalid-logout-token`, ``OAuthResponseError`` (the keys could not be read).
  public func verifyLogoutToken(_ token: String, now: Int64 = IDTokenVerifier.currentUnixTime) async throws -> LogoutToken {
    let expected = IDTokenVerifier.Expectations(
      issuer: metadata.issuer, audience: clientID, nonce: nil, requiresSubject: false,
      maxIssuedAtAge: maxIssuedAtAge ?? IDTokenVerifier.Expectations.defaultMaxIssuedAtAge)
    return try LogoutToken(try await keys.verify(token, expecting: expected, now: now))
  }
}
