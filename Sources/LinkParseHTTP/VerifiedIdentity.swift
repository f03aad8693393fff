// What a completed login proves, whichever relying party completed it (OIDCRelyingParty, ProviderRelyingParty):
// the provider, the issuer and subject, the tokens, the id_token when one was verified, the user info as
// OpenID Connect standard claims, and a few profile values that say where each came from.

public import LinkParseCore
public import LinkParseOAuth
public import LinkParseIDToken
public import LinkParseProviders

/// What a completed login proves: the provider, the issuer and the subject (the user's stable id there), the
/// tokens, the verified id_token when the provider issues one that can be verified, the user info when it was
/// fetched (its subject equal to the id_token's or the token answer's), and profile values with their source.
///
/// Key your users by (``issuer``, ``subject``): ``subject`` is the verified id_token's `sub` (OpenID Connect,
/// Sber ID and T-ID with keys, Apple), VK ID's `user_id` from the token answer (checked against its user info),
/// or, for Sber ID and T-ID without an id_token to verify, the user info's `sub`.
///
/// ```swift
/// let identity = try await party.complete(consumed)
/// identity.subject             // "248289761001"
/// identity.email?.value        // "j@example.com"
/// identity.email?.source       // .idToken
/// ```
public struct VerifiedIdentity: Sendable {
  /// The provider the login went to.
  ///
  /// ```swift
  /// identity.provider  // .vk
  /// ```
  public let provider: Provider
  /// The issuer: the id_token's `iss` when one was verified, else the issuer the relying party is configured
  /// with (VK ID's `https://id.vk.ru`, T-ID's `https://id.tbank.ru`, Sber ID's from its onboarding material).
  ///
  /// ```swift
  /// identity.issuer  // "https://appleid.apple.com"
  /// ```
  public let issuer: String
  /// The subject: the user's stable id at the issuer (VK ID: `user_id` as a string).
  ///
  /// ```swift
  /// identity.subject  // "1234567890"
  /// ```
  public let subject: String
  /// The verified id_token: `nil` when the provider's token is not verified here (VK ID publishes no keys for
  /// its id_token; Sber ID or T-ID without a ``JWKSCache``; a T-ID answer without one). The raw token, if any,
  /// stays in ``tokens``.
  ///
  /// ```swift
  /// identity.idToken?.claims.subject == identity.subject  // true when there is one
  /// ```
  public let idToken: VerifiedIDToken?
  /// The token endpoint's answer (access token, refresh token, …); `nil` for a Sign in with Apple
  /// `response_type=id_token` login, which has no code to exchange (the verified ``idToken`` is the whole
  /// result).
  ///
  /// ```swift
  /// identity.tokens?.refreshToken
  /// ```
  public let tokens: TokenResponse?
  /// The user info as OpenID Connect standard claims, when it was fetched: an OpenID Connect provider's,
  /// Sber ID's and T-ID's answers as they name them; VK ID's `user` object mapped (`user_id` → `sub`,
  /// `first_name` → `given_name`, `last_name` → `family_name`, `phone` → `phone_number`, `avatar` →
  /// `picture`, `birthday` `DD.MM.YYYY` → `birthdate` `YYYY-MM-DD`, `sex` 1/2 → `gender` `female`/`male`).
  /// Members with no standard name are in `additionalFields`, and `rawBody` is the answer as sent (decode it
  /// with `VKUserInfo(json:)`, `SberUserInfo(json:)` or `TIDUserInfo(json:)` for the provider's own type).
  ///
  /// ```swift
  /// identity.userInfo?.givenName  // "Ivan"
  /// ```
  public let userInfo: OIDCUserInfo?
  /// The e-mail address: the verified id_token's `email` claim, else the user info's. Never Apple's unsigned
  /// `user` JSON (see ``unverifiedAppleUser``).
  ///
  /// ```swift
  /// if let email = identity.email, identity.emailVerified == true { link(email.value) }
  /// ```
  public let email: ProfileValue<String>?
  /// Whether the provider says it verified ``email``, as the same source says (`email_verified`, sent as
  /// `true` or `"true"`); `nil` when it says nothing (VK ID).
  ///
  /// ```swift
  /// identity.emailVerified  // true
  /// ```
  public let emailVerified: Bool?
  /// The user's name: `name`, or the given and family names joined, from the verified id_token, else the user
  /// info, else (Sign in with Apple's first login only) the unsigned `user` JSON of the callback, whose
  /// ``ProfileValue/source`` then says ``ProfileSource/callback``.
  ///
  /// ```swift
  /// identity.name?.value   // "Timm Preetz"
  /// identity.name?.source  // .callback: unsigned, fine to greet with, not to trust
  /// ```
  public let name: ProfileValue<String>?
  /// Sign in with Apple's `user` JSON, sent once (the first authorization) in the `form_post` callback:
  /// **unsigned**, so anyone who can post to your callback can write it. Store the name if you like; never take
  /// its `email` as the user's (that is ``email``, from the verified id_token).
  ///
  /// ```swift
  /// identity.unverifiedAppleUser?.firstName  // "Timm"
  /// ```
  public let unverifiedAppleUser: AppleUser?
  /// VK ID's `device_id`, from the callback: VK's refresh (`VKIDClient.refresh(refreshToken:deviceID:)`) and
  /// its token requests need it, so keep it with the tokens; `nil` for every other provider.
  ///
  /// ```swift
  /// vk.refresh(refreshToken: identity.tokens!.refreshToken!, deviceID: identity.deviceID!)
  /// ```
  public var deviceID: String? = nil
}

/// Where a ``VerifiedIdentity`` profile value comes from.
///
/// ```swift
/// identity.email?.source == .idToken  // from the verified id_token
/// ```
public enum ProfileSource: String, Sendable, Hashable, Codable, CaseIterable {
  /// A claim of the verified id_token.
  case idToken = "id-token"
  /// The provider's user-info answer, fetched with the access token, whose subject matched.
  case userInfo = "user-info"
  /// The callback's own unsigned data (Sign in with Apple's `user` JSON): anyone could have written it.
  case callback
}

/// A profile value and where it comes from.
///
/// ```swift
/// let name = ProfileValue(value: "Ivan Petrov", source: .userInfo)
/// name.value   // "Ivan Petrov"
/// ```
public struct ProfileValue<Value: Sendable & Hashable>: Sendable, Hashable {
  /// The value.
  public var value: Value
  /// Where it comes from.
  public var source: ProfileSource

  /// A value and its source.
  ///
  /// ```swift
  /// ProfileValue(value: "a@b.ru", source: .idToken)
  /// ```
  public init(value: Value, source: ProfileSource) {
    self.value = value
    self.source = source
  }
}

/// What the app must still do to end a user's session, besides ending its own, after
/// ``OIDCRelyingParty/endSession(tokens:postLogoutRedirectURI:state:)`` or
/// ``ProviderRelyingParty/endSession(tokens:now:)``.
///
/// ```swift
/// switch try await party.endSession(tokens: session.tokens) {
/// case .ended: break
/// case .redirect(let url): return .redirect(to: url)
/// case .unsupported(let reason): logger.info("\(reason)")
/// }
/// ```
public enum SessionEnd: Sendable, Hashable {
  /// The provider ended the session or revoked the token: nothing is left to do there.
  case ended
  /// Send the browser to this URL (OpenID Connect RP-Initiated Logout): the provider ends its session there.
  case redirect(String)
  /// The provider has no way to end the session or revoke the token (Sber ID; an OpenID Connect provider
  /// without `end_session_endpoint`): only the app's own session ends, and the tokens live until they expire.
  case unsupported(reason: String)
}

/// `print(identity)`, `"\(identity)"`, `debugPrint` and `dump` show who signed in and mask every credential:
/// the tokens as ``TokenResponse`` prints them, the id_token and VK's `device_id` by their length only.
///
/// ```swift
/// print(identity)
/// // VerifiedIdentity(provider: vk, issuer: "https://id.vk.ru", subject: "1234567890", tokens: TokenResponse(accessToken: <secret, 12 bytes>, …), …)
/// ```
extension VerifiedIdentity: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  public var description: String {
    "VerifiedIdentity(provider: \(provider.rawValue), issuer: \"\(issuer)\", subject: \"\(subject)\", "
      + "idToken: \(idToken == nil ? "nil" : "<verified>"), tokens: \(tokens.map { "\($0)" } ?? "nil"), "
      + "email: \(SecretText.plain(email?.value)), emailVerified: \(SecretText.plain(emailVerified)), "
      + "name: \(SecretText.plain(name?.value)), userInfo: \(userInfo == nil ? "nil" : "<fetched>"), "
      + "deviceID: \(SecretText.masked(deviceID)))"
  }

  public var debugDescription: String { description }

  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "provider": provider, "issuer": issuer, "subject": subject, "idToken": idToken == nil ? "nil" : "<verified>",
        "tokens": tokens as Any, "email": email?.value as Any, "emailVerified": emailVerified as Any,
        "name": name?.value as Any, "deviceID": SecretText.masked(deviceID),
      ], displayStyle: .struct)
  }
}

extension VerifiedIdentity {
  /// An identity with tokens and no profile, for the package's own stand-in parties (the `server` fuzz target's
  /// relying party, which must not reach a provider); a real one comes only from a party's `complete`.
  package init(provider: Provider, issuer: String, subject: String, tokens: TokenResponse?, deviceID: String? = nil) {
    self.init(
      provider: provider, issuer: issuer, subject: subject, idToken: nil, tokens: tokens, userInfo: nil, email: nil,
      emailVerified: nil, name: nil, unverifiedAppleUser: nil, deviceID: deviceID)
  }
}
