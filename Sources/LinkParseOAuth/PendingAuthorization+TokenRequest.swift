// One authorization, start to finish: the pending authorization that checked the callback builds the token
// request from it, with everything the authorization request already fixed (client id, redirect URI as
// sent, PKCE verifier).

public import LinkParseProviders
public import LinkParseAuthorization
import LinkParseCore

extension PendingAuthorization {
  /// The provider's token exchange for a validated callback.
  ///
  /// Per provider:
  /// - VK ID: ``VKIDClient/tokenExchange(code:codeVerifier:deviceID:redirectURI:state:)`` in the guide's shape,
  ///   with the callback's `code` and `device_id` and a fresh exchange `state`; the verifier is required.
  /// - Sber ID: ``SberIDClient/tokenExchange(code:redirectURI:codeVerifier:rquid:)``; `clientSecret` is
  ///   required (a random `rquid`).
  /// - T-ID: ``TIDClient/tokenExchange(code:redirectURI:codeVerifier:)`` with `redirect_uri` as sent; HTTP
  ///   Basic when `clientSecret` is given (web), `client_id` in the form otherwise (mobile).
  /// - Apple: ``AppleClient/tokenExchange(code:clientSecret:redirectURI:codeVerifier:)``; `clientSecret` (the
  ///   JWT) is required.
  /// - Generic OAuth 2.0: ``OAuth2Client/tokenExchange(code:redirectURI:codeVerifier:)`` at `endpoint`
  ///   (required), `client_secret_basic` when `clientSecret` is given, a public client otherwise.
  ///
  /// `endpoint` overrides the provider's default token endpoint.
  ///
  /// ```swift
  /// let pending = try VKIDAuthorizationRequest(
  ///   clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: state, pkce: pkce
  /// ).pendingAuthorization()
  /// let callback = try pending.validate(try ParsedURL(incoming))
  /// let request = try pending.tokenRequest(for: callback)
  /// request.fullURL  // https://id.vk.ru/oauth2/auth?grant_type=authorization_code&redirect_uri=…&device_id=…
  /// request.body     // {"code":"vk2.a.…"}
  /// ```
  ///
  /// - Throws: ``TokenRequestError``: `provider-mismatch`, `not-a-success` (cancelled, an error, a
  ///   seamless-login link), `missing-code` (the T-ID debug app's stub success), `missing-client-id`,
  ///   `missing-code-verifier` (VK ID), `missing-client-secret` (Sber ID, Apple), `missing-endpoint`
  ///   (generic OAuth 2.0 without `endpoint`).
  public func tokenRequest(
    for callback: ProviderCallback, clientSecret: String? = nil, endpoint: String? = nil
  ) throws(TokenRequestError) -> OAuthRequest {
    guard callback.provider == provider else {
      throw TokenRequestError(
        .providerMismatch,
        message: "the callback is from \(callback.provider.rawValue), the pending authorization is for \(provider.rawValue)")
    }
    guard callback.outcome == .success else {
      throw TokenRequestError(
        .notASuccess, message: "the callback is \(callback.outcome.rawValue), not a success with a code")
    }
    guard let code = callback.code, !code.isEmpty else {
      throw TokenRequestError(.missingCode, message: "the callback is a success without an authorization code")
    }
    guard let clientID, !clientID.isEmpty else {
      throw TokenRequestError(.missingClientID, message: "the pending authorization has no client id")
    }
    let redirect = redirectURIAsSent ?? redirectURI.href
    let client = try ProviderClient(provider: provider, clientID: clientID, clientSecret: clientSecret, endpoint: endpoint)
    switch callback {
    case .vk(.success(let s)):
      // The exchange's state is a fresh value of its own (providers.md §2.7), echoed in the answer:
      // `request.checkEchoedState(of: tokens)` compares it.
      return try client.tokenExchange(
        code: String(s.code), redirectURI: redirect, codeVerifier: codeVerifier, deviceID: String(s.deviceID),
        state: VKIDClient.freshState())
    case .vk:
      // The SDK 1.x payload carries no device_id: its code is not a VK ID 2.x code.
      throw TokenRequestError(.notASuccess, message: "a VK ID SDK 1.x payload has no device_id to exchange its code with")
    case .sberSeamless:
      throw TokenRequestError(.notASuccess, message: "a Sber seamless-login link is not a callback with a code")
    case .sber, .tid, .apple, .oauth2:
      return try client.tokenExchange(code: String(code), redirectURI: redirect, codeVerifier: codeVerifier)
    }
  }
}

extension OAuthRequest {
  /// Checks the `state` a token answer echoes (VK ID does; its iOS SDK compares it again) against the `state`
  /// this request sent (a token exchange's own fresh value, not the authorization request's). When the request
  /// sent none (VK's refresh), the answer's `"state": ""` passes and any other state does not. An answer
  /// without `state` passes: only VK echoes it, and a missing echo proves nothing either way.
  ///
  /// ```swift
  /// let request = try pending.tokenRequest(for: callback)
  /// let tokens = try TokenResponse(json: body, provider: .vk)
  /// try request.checkEchoedState(of: tokens)  // invalid-field "state" when it differs
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` `invalid-field` (field `state`) when the answer's state differs from the
  ///   state sent.
  public func checkEchoedState(of tokens: TokenResponse) throws(OAuthResponseError) {
    guard let echoed = tokens.state else { return }
    let sent = formValue("state") ?? ""
    guard echoed.utf8.elementsEqual(sent.utf8) else {
      throw OAuthResponseError(
        .invalidField, field: "state",
        message: sent.isEmpty
          ? "the token answer echoes a state, but the request sent none"
          : "the token answer's state differs from the state the request sent")
    }
  }
}

extension ConsumedAuthorization {
  /// The provider's token exchange for this callback, built from the authorization it answers (client id,
  /// redirect URI as sent, PKCE verifier): ``PendingAuthorization/tokenRequest(for:clientSecret:endpoint:)``.
  ///
  /// ```swift
  /// let consumed = try await store.consume(url, parameters: nil, now: PendingAuthorization.currentUnixTime())
  /// let request = try consumed.tokenRequest(clientSecret: secret)   // Sber ID, Apple, T-ID web: the secret
  /// ```
  ///
  /// - Throws: ``TokenRequestError``, as ``PendingAuthorization/tokenRequest(for:clientSecret:endpoint:)``.
  public func tokenRequest(clientSecret: String? = nil, endpoint: String? = nil) throws(TokenRequestError) -> OAuthRequest {
    try authorization.tokenRequest(for: callback, clientSecret: clientSecret, endpoint: endpoint)
  }
}
