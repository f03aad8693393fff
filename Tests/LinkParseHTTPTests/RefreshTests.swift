// Every relying party refreshes through the one protocol (`RelyingParty.refresh(refreshToken:deviceID:now:)`),
// each in its provider's request shape and client authentication, against LocalProvider (a real HTTP server on
// 127.0.0.1 that records what it got): VK ID with the login's device_id (and without one, nothing sent), Sber ID
// with rquid and the secret, T-ID with HTTP Basic, Apple with a fresh client_secret JWT, a generic OpenID Connect
// party with client_secret_basic; a refused refresh token is the provider's typed error.

import Foundation
import LinkParseHTTP
import LinkParseOAuth
import LinkParseIDToken
import Testing

@Suite("RelyingParty: refresh", .timeLimit(.minutes(1)))
struct RefreshTests {
  /// The answer every provider's token endpoint gives here: a rotated refresh token.
  static let rotated = #"{"access_token":"at-2","refresh_token":"rt-2","token_type":"Bearer","expires_in":3600}"#

  /// `party` refreshes `rt-1`: the new tokens, and the one request it sent to `path`.
  static func refresh(
    _ f: RelyingPartyFixture, _ party: any RelyingParty, path: String, deviceID: String? = nil
  ) async throws -> ReceivedRequest {
    f.provider.routes.set(path, json: rotated)
    let tokens = try await party.refresh(refreshToken: "rt-1", deviceID: deviceID, now: f.now)
    #expect(tokens.accessToken == "at-2" && tokens.refreshToken == "rt-2")
    let sent = f.requests(to: path)
    try #require(sent.count == 1)
    #expect(sent[0].method == "POST")
    return sent[0]
  }

  @Test func vkIDRefreshesWithTheLoginsDeviceID() async throws {
    try await withRelyingPartyFixture { f in
      let sent = try await Self.refresh(f, VKRelyingPartyTests.party(f), path: "/vk/token", deviceID: "dev-42")
      // The guide's shape: the parameters in the query, the refresh token as the JSON body.
      let query = decodeForm(sent.query ?? "")
      #expect(query["grant_type"] == "refresh_token" && query["client_id"] == "7915193" && query["device_id"] == "dev-42")
      #expect(jsonObject(sent.body)["refresh_token"] as? String == "rt-1")
      #expect(!(sent.query ?? "").contains("rt-1"))
    }
  }

  @Test func vkIDWithoutADeviceIDSendsNothing() async throws {
    try await withRelyingPartyFixture { f in
      let party: any RelyingParty = VKRelyingPartyTests.party(f)
      let error = await expectError(TokenRequestError.self) {
        _ = try await party.refresh(refreshToken: "rt-1", deviceID: nil, now: f.now)
      }
      #expect(error?.code == .missingDeviceID)
      #expect(f.provider.recorder.all.isEmpty)
    }
  }

  @Test func sberIDRefreshesWithRquidAndTheSecret() async throws {
    try await withRelyingPartyFixture { f in
      let sent = try await Self.refresh(f, SberRelyingPartyTests.party(f, keys: nil), path: "/sber/token")
      #expect(sent.form["grant_type"] == "refresh_token" && sent.form["refresh_token"] == "rt-1")
      #expect(sent.form["client_id"] == SberRelyingPartyTests.clientID && sent.form["client_secret"] == "sber-secret")
      #expect(sent.header("rquid").map { $0.count == 32 } == true)
    }
  }

  @Test func tidRefreshesWithBasicAuthentication() async throws {
    try await withRelyingPartyFixture { f in
      let sent = try await Self.refresh(f, TIDRelyingPartyTests.party(f, keys: nil), path: "/tid/token")
      #expect(sent.header("Authorization") == "Basic " + Data("tid-partner:tid-secret".utf8).base64EncodedString())
      #expect(sent.form == ["grant_type": "refresh_token", "refresh_token": "rt-1"])
    }
  }

  @Test func appleRefreshesWithAFreshClientSecret() async throws {
    try await withRelyingPartyFixture { f in
      let sent = try await Self.refresh(f, try AppleRelyingPartyTests.party(f), path: "/apple/token")
      #expect(sent.form["grant_type"] == "refresh_token" && sent.form["refresh_token"] == "rt-1")
      #expect(sent.form["client_id"] == AppleRelyingPartyTests.clientID)
      // The client secret is an ES256 JWT for Apple, from the team's key, made now.
      let secret = try #require(sent.form["client_secret"]).split(separator: ".")
      try #require(secret.count == 3)
      let claims = jsonObject(base64URLDecoded(secret[1]))
      #expect(claims["aud"] as? String == "https://appleid.apple.com" && claims["sub"] as? String == AppleRelyingPartyTests.clientID)
      #expect(jsonObject(base64URLDecoded(secret[0]))["alg"] as? String == "ES256")
    }
  }

  @Test func anOpenIDConnectPartyRefreshesWithItsClientSecret() async throws {
    try await withRelyingPartyFixture { f in
      let metadata = OIDCProviderMetadata(
        issuer: f.base, authorizationEndpoint: f.base + "/authorize", tokenEndpoint: f.base + "/token",
        jwksURI: f.base + "/jwks")
      let party = OIDCRelyingParty(metadata: metadata, clientID: "app", clientSecret: "s3cret", client: f.client, keys: f.keys())
      let sent = try await Self.refresh(f, party, path: "/token")
      #expect(sent.header("Authorization") == "Basic " + Data("app:s3cret".utf8).base64EncodedString())
      #expect(sent.form == ["grant_type": "refresh_token", "refresh_token": "rt-1"])
      #expect(party.provider == .oauth2 && party.issuer == f.base)
    }
  }

  @Test func aRefusedRefreshTokenIsTheProvidersError() async throws {
    try await withRelyingPartyFixture { f in
      f.provider.routes.set("/tid/token", status: .badRequest, json: #"{"error":"invalid_grant"}"#)
      let party: any RelyingParty = TIDRelyingPartyTests.party(f, keys: nil)
      let error = await expectError(OAuthResponseError.self) {
        _ = try await party.refresh(refreshToken: "rt-used", deviceID: nil, now: f.now)
      }
      #expect(error?.providerError?.error == .invalidGrant)
    }
  }

  /// Each party starts its logins at its own provider, for its own client, with its provider's scope.
  @Test func eachPartyStartsItsOwnLogins() async throws {
    try await withRelyingPartyFixture { f in
      var vk = VKRelyingPartyTests.party(f)
      vk.scope = ["vkid.personal_info"]
      let parties: [any RelyingParty] = [vk, SberRelyingPartyTests.party(f, keys: nil), TIDRelyingPartyTests.party(f, keys: nil), try AppleRelyingPartyTests.party(f)]
      for party in parties {
        let (url, pending) = try party.loginStart(redirectURI: "https://example.com/auth/x/callback").makeAuthorization()
        #expect(pending.provider == party.provider && pending.clientID == party.clientID)
        #expect(url.contains("client_id=" + party.clientID.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!) || url.contains("client_id=\(party.clientID)"))
      }
      let (vkURL, _) = try vk.loginStart(redirectURI: "https://example.com/auth/vk/callback").makeAuthorization()
      #expect(vkURL.contains("scope=vkid.personal_info"))
    }
  }
}

/// `OIDCRelyingParty.verifyLogoutToken` (OpenID Connect Back-Channel Logout 1.0 §2.6) on tokens signed by the
/// provider's key: what makes a logout token, and what an id_token or a token of another client lacks.
@Suite("OIDCRelyingParty: logout tokens", .timeLimit(.minutes(1)))
struct LogoutTokenTests {
  nonisolated(unsafe) static let event = ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]

  static func party(_ f: RelyingPartyFixture) -> OIDCRelyingParty {
    OIDCRelyingParty(
      metadata: OIDCProviderMetadata(
        issuer: f.base, authorizationEndpoint: f.base + "/authorize", tokenEndpoint: f.base + "/token",
        jwksURI: f.base + "/jwks"),
      clientID: "app", clientSecret: nil, client: f.client, keys: f.keys())
  }

  @Test func aLogoutTokenNamesItsSessions() async throws {
    try await withRelyingPartyFixture { f in
      let token = try f.idToken(
        issuer: f.base, audience: "app", subject: "u-1", nonce: nil, extra: ["events": Self.event, "jti": "j-1", "sid": "s-1"])
      let logout = try await Self.party(f).verifyLogoutToken(token, now: f.now)
      #expect(logout.issuer == f.base && logout.subject == "u-1" && logout.sessionID == "s-1" && logout.tokenID == "j-1")
      #expect(logout.expiresAt == f.now + 600)
    }
  }

  @Test func whatIsNotALogoutTokenIsRefused() async throws {
    try await withRelyingPartyFixture { f in
      let party = Self.party(f)
      // An id_token (no events), no jti, neither sub nor sid, events of another kind.
      let refusals: [[String: Any]] = [
        ["jti": "j"], ["events": Self.event], ["events": ["http://schemas.openid.net/event/other": [String: Any]()], "jti": "j"],
      ]
      for extra in refusals {
        let token = try f.idToken(issuer: f.base, audience: "app", subject: "u-1", nonce: nil, extra: extra)
        let error = await expectError(IdentityError.self) { _ = try await party.verifyLogoutToken(token, now: f.now) }
        #expect(error?.code == .invalidLogoutToken, "\(extra.keys)")
      }
      var claims: [String: Any] = ["events": Self.event, "jti": "j", "sub": ""]
      let noOne = try f.idToken(issuer: f.base, audience: "app", subject: "", nonce: nil, extra: claims)
      let error = await expectError(IdentityError.self) { _ = try await party.verifyLogoutToken(noOne, now: f.now) }
      #expect(error?.code == .invalidLogoutToken)
      // A nonce (an id_token's mark), another audience: the verifier refuses them.
      claims["sub"] = "u-1"
      for (audience, nonce) in [("app", "n"), ("another", nil)] as [(String, String?)] {
        let token = try f.idToken(issuer: f.base, audience: audience, subject: "u-1", nonce: nonce, extra: claims)
        _ = await expectError(IDTokenError.self) { _ = try await party.verifyLogoutToken(token, now: f.now) }
      }
      // A party of another provider takes no logout tokens.
      let vk: any RelyingParty = VKRelyingPartyTests.party(f)
      let refused = await expectError(IdentityError.self) { _ = try await vk.verifyLogoutToken("a.b.c", now: f.now) }
      #expect(refused?.code == .logoutTokensUnsupported)
    }
  }
}
