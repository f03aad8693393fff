// The steps every relying party's `complete` shares, written once: the callback must be a success; the token
// exchange (the echoed state checked where one was sent); the id_token verified with a JWKSCache (against the
// access token's at_hash too); the subject taken from the verified id_token, else from the token answer (VK
// ID's user_id); the user info fetched and its subject cross-checked (OIDC Core §5.3.2); and the profile values
// picked with their source. OIDCRelyingParty and ProviderRelyingParty differ only in the requests they build and
// in what they expect of the id_token.

import LinkParseAuthorization
import LinkParseCore
import LinkParseOAuth
import LinkParseIDToken
import LinkParseProviders

enum LoginCompletion {
  /// How the token answer's id_token is checked.
  struct IDTokenCheck: Sendable {
    /// The provider's keys.
    var keys: JWKSCache
    /// Issuer, audience, nonce, `max_age`, `iat` age (the access token for `at_hash` is added here).
    var expected: IDTokenVerifier.Expectations
    /// Whether an answer without an id_token is refused (`missing-id-token`).
    var isRequired: Bool
  }

  /// Which user-info answer a request gets, to decode it with the provider's own decoder.
  enum UserInfoRequest: Sendable {
    case oidc(OAuthRequest)
    case vk(OAuthRequest)
    case sber(OAuthRequest)
    case tid(OAuthRequest)
  }

  /// Refuses, with `authorization-mismatch`, an authorization made for another provider, another client, or
  /// recorded for another authorization server (``PendingAuthorization/authorizationServer``): its code and
  /// verifier must never reach this party's token endpoint (RFC 9700 §4.4). Every party's `complete` runs it
  /// first.
  static func requireOwn(
    _ authorization: PendingAuthorization, provider: Provider, clientID: String, issuer: String
  ) throws(IdentityError) {
    let sameServer = authorization.authorizationServer.map { $0 == issuer } ?? true
    guard authorization.provider == provider, authorization.clientID == nil || authorization.clientID == clientID,
      sameServer
    else {
      throw IdentityError(
        .authorizationMismatch,
        message: "the authorization is for \(authorization.provider.rawValue) client \(authorization.clientID ?? "-")"
          + " at \(authorization.authorizationServer ?? "an unrecorded server"); this relying party is"
          + " \(provider.rawValue) client \(clientID) at \(issuer)")
    }
  }

  /// The code of a callback that must be a success: anything else is `not-a-success`.
  static func requireSuccess(_ consumed: ConsumedAuthorization) throws(IdentityError) -> Substring {
    guard consumed.callback.outcome == .success, let code = consumed.callback.code else {
      throw IdentityError(
        .notASuccess, message: "the callback is \(consumed.callback.outcome.rawValue), not a success with a code")
    }
    return code
  }

  /// Exchange, id_token, subject, user info, profile: see the file's header.
  ///
  /// - Parameters:
  ///   - issuer: the identity's issuer when no id_token is verified.
  ///   - userInfo: the user-info request for the token answer, or `nil` for none.
  ///   - callbackToken: an id_token the callback carried, already verified: its `sub` must be the identity's.
  ///   - appleUser: Sign in with Apple's unsigned `user` JSON, surfaced as such.
  static func complete(
    exchange: OAuthRequest, provider: Provider, issuer: String, client: OAuthHTTPClient, idToken check: IDTokenCheck?,
    userInfo: (TokenResponse) throws -> UserInfoRequest?, callbackToken: VerifiedIDToken? = nil,
    appleUser: AppleUser? = nil, now: Int64
  ) async throws -> VerifiedIdentity {
    let tokens = try await client.perform(exchange, as: TokenResponse.self)
    if exchange.formValue("state") != nil { try exchange.checkEchoedState(of: tokens) }

    var verified: VerifiedIDToken?
    if let check {
      if let idToken = tokens.idToken {
        var expected = check.expected
        expected.accessToken = tokens.accessToken
        verified = try await check.keys.verify(idToken, expecting: expected, now: now)
      } else if check.isRequired {
        throw IdentityError(.missingIDToken, message: "the token answer from \(issuer) has no id_token")
      }
    }

    // Who the login is for: the verified id_token says so; without one, VK ID's token answer names its user.
    var subject: String?
    var subjectSource = "the id_token's sub"
    if let verified {
      subject = verified.claims.subject
    } else if provider == .vk {
      guard let userID = tokens.userID else {
        throw OAuthResponseError(.missingField, field: "user_id", message: "VK ID's token answer has no user_id")
      }
      subject = String(userID)
      subjectSource = "the token answer's user_id"
    }
    if let callbackToken, let subject, callbackToken.claims.subject != subject {
      throw IdentityError(
        .subjectMismatch, message: "the callback's id_token names another subject than the token endpoint's")
    }

    var info: OIDCUserInfo?
    if let request = try userInfo(tokens) {
      let fetched = try await fetch(request, client: client)
      if let subject {
        guard fetched.sub == subject else {
          throw IdentityError(
            .subjectMismatch, message: "the user info's subject is not \(subjectSource) (OIDC Core §5.3.2): not used")
        }
      } else {
        subject = fetched.sub
      }
      info = fetched
    }
    guard let subject, !subject.isEmpty else {
      throw IdentityError(
        .missingSubject, message: "nothing names the user: no verified id_token and no user info from \(issuer)")
    }

    return identity(
      provider: provider, issuer: issuer, subject: subject, idToken: verified, tokens: tokens, userInfo: info,
      appleUser: appleUser)
  }

  /// The identity of `subject`, its profile values picked with their source: the e-mail from the verified
  /// id_token, else the user info; the name from the id_token, else the user info, else Apple's unsigned `user`
  /// JSON. `issuer` stands when no id_token was verified.
  static func identity(
    provider: Provider, issuer: String, subject: String, idToken verified: VerifiedIDToken?, tokens: TokenResponse?,
    userInfo info: OIDCUserInfo?, appleUser: AppleUser?
  ) -> VerifiedIdentity {
    let claims = verified?.claims
    let email: ProfileValue<String>?
    let emailVerified: Bool?
    if let value = claims?.email {
      email = ProfileValue(value: value, source: .idToken)
      emailVerified = claims?.emailVerified
    } else if let value = info?.email {
      email = ProfileValue(value: value, source: .userInfo)
      emailVerified = info?.emailVerified
    } else {
      email = nil
      emailVerified = nil
    }
    let name =
      claims.flatMap { fullName($0.name, $0.givenName, $0.familyName) }
        .map { ProfileValue(value: $0, source: .idToken) }
      ?? info.flatMap { fullName($0.name, $0.givenName, $0.familyName) }
        .map { ProfileValue(value: $0, source: .userInfo) }
      ?? appleUser.flatMap { fullName(nil, $0.firstName, $0.lastName) }
        .map { ProfileValue(value: $0, source: .callback) }
    return VerifiedIdentity(
      provider: provider, issuer: claims?.issuer ?? issuer, subject: subject, idToken: verified, tokens: tokens,
      userInfo: info, email: email, emailVerified: emailVerified, name: name, unverifiedAppleUser: appleUser)
  }

  /// `name`, else the given and family names joined with a space; `nil` when there is nothing.
  static func fullName(_ name: String?, _ given: String?, _ family: String?) -> String? {
    if let name, !name.isEmpty { return name }
    let parts = [given, family].compactMap { $0 }.filter { !$0.isEmpty }
    return parts.isEmpty ? nil : parts.joined(separator: " ")
  }

  /// The user info, decoded by the provider's own decoder and given as standard claims.
  static func fetch(_ request: UserInfoRequest, client: OAuthHTTPClient) async throws(OAuthResponseError)
    -> OIDCUserInfo
  {
    switch request {
    case .oidc(let request): return try await client.perform(request, as: OIDCUserInfo.self)
    case .vk(let request): return OIDCUserInfo(try await client.perform(request, as: VKUserInfo.self))
    case .sber(let request): return OIDCUserInfo(try await client.perform(request, as: SberUserInfo.self))
    case .tid(let request): return OIDCUserInfo(try await client.perform(request, as: TIDUserInfo.self))
    }
  }
}

extension OIDCUserInfo {
  /// VK ID's `user` as standard claims (see ``VerifiedIdentity/userInfo``); no `user_id` gives an empty `sub`,
  /// which matches no subject.
  init(_ vk: VKUserInfo) {
    self.init(
      sub: vk.userID ?? "", givenName: vk.firstName,
      familyName: vk.lastName, email: vk.email, additionalFields: vk.additionalFields, rawBody: vk.rawBody)
    phoneNumber = vk.phone
    picture = vk.avatar
    gender = vk.sex == 1 ? "female" : vk.sex == 2 ? "male" : nil
    if let birthday = vk.birthday {
      // DD.MM.YYYY → YYYY-MM-DD; anything else is left out rather than passed off as a birthdate.
      let parts = birthday.split(separator: ".", omittingEmptySubsequences: false)
      if parts.count == 3, parts[0].count == 2, parts[1].count == 2, parts[2].count == 4,
        parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
      {
        birthdate = "\(parts[2])-\(parts[1])-\(parts[0])"
      }
    }
  }

  /// Sber ID's user info as standard claims (its names are the standard ones).
  init(_ sber: SberUserInfo) {
    self.init(
      sub: sber.sub, givenName: sber.givenName,
      familyName: sber.familyName, email: sber.email, additionalFields: sber.additionalFields, rawBody: sber.rawBody)
    middleName = sber.middleName
    birthdate = sber.birthdate
    phoneNumber = sber.phoneNumber
    gender = sber.gender
  }

  /// T-ID's user info as standard claims (its names are the standard ones).
  init(_ tid: TIDUserInfo) {
    self.init(
      sub: tid.sub, name: tid.name, givenName: tid.givenName, familyName: tid.familyName, email: tid.email,
      emailVerified: tid.emailVerified, additionalFields: tid.additionalFields, rawBody: tid.rawBody)
    middleName = tid.middleName
    birthdate = tid.birthdate
    gender = tid.gender
    phoneNumber = tid.phoneNumber
    phoneNumberVerified = tid.phoneNumberVerified
  }
}
