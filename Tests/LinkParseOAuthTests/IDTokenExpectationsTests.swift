import Testing

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseCore
import LinkParseAuthorization
import LinkParseProviders

/// The pending authorization's nonce and client id bind the id_token to the login that asked for it.
@Suite struct IDTokenExpectationsTests {
  static func applePending(nonce: String?) throws -> PendingAuthorization {
    try AppleAuthorizationRequest(
      clientID: IDTokenFixture.clientID, redirectURI: "https://example.com/auth/apple/callback", state: "8f3c1e2a",
      nonce: nonce
    ).pendingAuthorization(expiresAt: nil)
  }

  @Test func theTokenOfThisLoginVerifies() async throws {
    let fixture = try await IDTokenFixture.get()
    let expectations = try Self.applePending(nonce: IDTokenFixture.nonce).idTokenExpectations()
    #expect(expectations.issuer == "https://appleid.apple.com")
    #expect(expectations.audience == IDTokenFixture.clientID && expectations.nonce == IDTokenFixture.nonce)
    let token = try fixture.verifier.verify(try fixture.rs256(), expecting: expectations, now: IDTokenFixture.now)
    #expect(token.claims.apple.emailVerified == true)
  }

  @Test func aTokenMintedForAnotherLoginIsRefused() async throws {
    let fixture = try await IDTokenFixture.get()
    let other = try Self.applePending(nonce: "another-login").idTokenExpectations()
    #expect(throws: IDTokenError.self) {
      try fixture.verifier.verify(try fixture.es256(), expecting: other, now: IDTokenFixture.now)
    }
    do {
      _ = try fixture.verifier.verify(try fixture.es256(), expecting: other, now: IDTokenFixture.now)
    } catch let error as IDTokenError {
      #expect(error.code == .nonceMismatch)
    }
  }

  @Test func issuersComeFromTheProviderThePendingIssuerOrTheCaller() throws {
    let vk = PendingAuthorization(
      provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "s", clientID: "1", nonce: "n")
    #expect(try vk.idTokenExpectations().issuer == "https://id.vk.ru")
    #expect(try vk.idTokenExpectations(issuer: "https://id.vk.com", leeway: .seconds(5)).issuer == "https://id.vk.com")
    #expect(try vk.idTokenExpectations(leeway: .seconds(5)).leeway == .seconds(5))
    let sber = PendingAuthorization(
      provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s", clientID: "c")
    #expect(throws: TokenRequestError.self) { try sber.idTokenExpectations() }
    let generic = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://app.example/cb"), state: "s",
      issuer: "https://as.example", clientID: "app")
    #expect(try generic.idTokenExpectations().issuer == "https://as.example")
    let noClient = PendingAuthorization(provider: .apple, redirectURI: try ParsedURL("https://e.com/cb"), state: "s")
    #expect(throws: TokenRequestError.self) { try noClient.idTokenExpectations() }
  }
}
