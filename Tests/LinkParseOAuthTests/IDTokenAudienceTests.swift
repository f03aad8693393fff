import Testing

@testable import LinkParseOAuth
@testable import LinkParseIDToken

/// `aud` and `azp` as OpenID Connect Core §3.1.3.7 steps 3–5 want them: the client must be an audience, every
/// other audience must be one the caller trusts (unless `azp` is the client), and an `azp` must be the client.
@Suite struct IDTokenAudienceTests {
  typealias F = IDTokenFixture

  /// Apple expectations for the fixture's client and nonce, trusting `trusted` as extra audiences.
  static func expecting(trusting trusted: Set<String> = []) -> IDTokenVerifier.Expectations {
    var expected = IDTokenVerifier.Expectations.apple(clientID: F.clientID, nonce: F.nonce)
    expected.trustedAudiences = trusted
    return expected
  }

  static func error(_ f: F, _ token: String, trusting trusted: Set<String> = []) -> IDTokenError? {
    do {
      _ = try f.verifier.verify(token, expecting: expecting(trusting: trusted), now: F.now)
      return nil
    } catch {
      return error
    }
  }

  @Test func anUntrustedExtraAudienceWithoutAzpIsRefused() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["aud": #"["com.example.web","com.evil.other"]"#]))
    let error = Self.error(f, token)
    #expect(error?.code == .untrustedAudience)
    #expect(error?.claim == "aud")
    #expect(error?.message.contains("com.evil.other") == true)
    // The same token passes once the caller trusts the other audience.
    #expect(Self.error(f, token, trusting: ["com.evil.other"]) == nil)
  }

  @Test func oneUntrustedAudienceAmongTrustedOnesIsRefused() async throws {
    let f = try await F.get()
    let token = try f.es256(F.claims(["aud": #"["com.example.ios","com.example.web","com.evil.other"]"#]))
    #expect(Self.error(f, token, trusting: ["com.example.ios"])?.code == .untrustedAudience)
    #expect(Self.error(f, token, trusting: ["com.example.ios", "com.evil.other"]) == nil)
  }

  /// The issue's wording, documented on `IDTokenVerifier.verify`: an `azp` equal to the client id makes the
  /// client the party the token was issued to, so extra audiences are then accepted.
  @Test func anAzpEqualToTheClientAcceptsExtraAudiences() async throws {
    let f = try await F.get()
    let token = try f.rs256(
      F.claims(["aud": #"["com.example.web","com.evil.other"]"#, "azp": #""com.example.web""#]))
    #expect(Self.error(f, token) == nil)
  }

  @Test func aSingleAudienceWithAnotherAzpIsRefused() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["azp": #""com.evil.other""#]))
    let error = Self.error(f, token)
    #expect(error?.code == .audienceMismatch)
    #expect(error?.claim == "azp")
    // Trusting that party as an audience does not make it the client.
    #expect(Self.error(f, token, trusting: ["com.evil.other"])?.code == .audienceMismatch)
    // An azp that is the client passes; one that is not a string is malformed.
    #expect(Self.error(f, try f.rs256(F.claims(["azp": #""com.example.web""#]))) == nil)
    let numeric = Self.error(f, try f.rs256(F.claims(["azp": "7"])))
    #expect(numeric?.code == .malformed)
    #expect(numeric?.claim == "azp")
  }

  @Test func theClientListedTwiceIsNotAnExtraAudience() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["aud": #"["com.example.web","com.example.web"]"#]))
    #expect(Self.error(f, token) == nil)
  }

  @Test func trustedAudiencesDefaultToNoneAndSurviveThePresets() {
    #expect(IDTokenVerifier.Expectations.apple(clientID: "c", nonce: nil).trustedAudiences.isEmpty)
    let expected = IDTokenVerifier.Expectations(
      issuer: "https://as.example", audience: "c", nonce: nil, trustedAudiences: ["api"])
    #expect(expected.trustedAudiences == ["api"])
  }
}
