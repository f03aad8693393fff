// What the id_token answering a pending authorization must say: the expectations IDTokenVerifier checks.

public import LinkParseProviders
public import LinkParseOAuth

extension PendingAuthorization {
  /// What the `id_token` answering this authorization must say, for ``IDTokenVerifier/verify(_:expecting:now:)``:
  /// the provider's issuer (`issuer`, else the pending authorization's expected ``issuer``, else the provider's
  /// preset: Apple, VK ID, T-ID), this authorization's client id as the audience, and the `nonce` it sent (so a
  /// token minted for another login is refused with `nonce-mismatch`).
  ///
  /// ```swift
  /// let tokens = try TokenResponse(json: body, provider: .apple)
  /// let verified = try verifier.verify(tokens.idToken!, expecting: try pending.idTokenExpectations())
  /// ```
  ///
  /// - Throws: ``TokenRequestError`` `missing-client-id`, `missing-issuer` (Sber ID, whose issuer comes from
  ///   its onboarding material, and a generic server without an expected issuer, unless `issuer` is given).
  public func idTokenExpectations(issuer: String? = nil, leeway: Duration = .seconds(60)) throws(TokenRequestError)
    -> IDTokenVerifier.Expectations
  {
    guard let clientID, !clientID.isEmpty else {
      throw TokenRequestError(.missingClientID, message: "the pending authorization has no client id")
    }
    var expectations: IDTokenVerifier.Expectations
    switch (provider, issuer ?? self.issuer) {
    case (_, let issuer?):
      expectations = IDTokenVerifier.Expectations(issuer: issuer, audience: clientID, nonce: nonce)
    case (.apple, nil): expectations = .apple(clientID: clientID, nonce: nonce)
    case (.vk, nil): expectations = .vk(clientID: clientID, nonce: nonce)
    case (.tid, nil): expectations = .tid(clientID: clientID, nonce: nonce)
    case (.sber, nil), (.oauth2, nil):
      throw TokenRequestError(
        .missingIssuer, message: "no issuer is known for \(provider.rawValue)'s id_token: pass issuer:")
    }
    expectations.leeway = leeway
    return expectations
  }
}
