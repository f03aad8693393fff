import Crypto
import Foundation
import Testing
import LinkParseAuthorization
import LinkParseProviders

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseBytes
import LinkParseCore

@Suite struct IDTokenVerifierTests {
  typealias F = IDTokenFixture

  // MARK: Valid tokens

  @Test func validRS256Passes() async throws {
    let f = try await F.get()
    let token = try f.verify(try f.rs256())
    #expect(token.header.algorithm == "RS256")
    #expect(token.header.keyID == "rsa-1")
    #expect(token.header.type == "JWT")
    #expect(token.claims.issuer == "https://appleid.apple.com")
    #expect(token.claims.subject == "001234.5f2a7e0c.0421")
    #expect(token.claims.audience == [F.clientID])
    #expect(token.claims.expiresAt == F.now + 600)
    #expect(token.claims.issuedAt == F.now - 10)
    #expect(token.claims.authTime == F.now - 12)
    #expect(token.claims.nonce == F.nonce)
    #expect(token.claims.codeHash == "bTc5YzNhNzE")
    #expect(token.claims.email == "4rtppgbhgb@privaterelay.appleid.com")
    #expect(token.claims.emailVerified == true)
    let apple = token.claims.apple
    #expect(apple.isPrivateEmail == true)
    #expect(apple.realUserStatusValue == .likelyReal)
    #expect(apple.nonceSupported == true)
    #expect(apple.transferSubject == nil)
    // The one Apple claims type, built from the verified claims with IDTokenClaims' rules.
    #expect(apple == UnverifiedAppleIDTokenClaims(token.claims))
    #expect(apple.issuer == "https://appleid.apple.com" && apple.subject == "001234.5f2a7e0c.0421")
    #expect(apple.audience == [F.clientID] && apple.expiresAt == F.now + 600 && apple.issuedAt == F.now - 10)
    #expect(apple.authTime == F.now - 12 && apple.nonce == F.nonce && apple.realUserStatus == 2)
    #expect(apple.email == "4rtppgbhgb@privaterelay.appleid.com" && apple.emailVerified == true)
  }

  @Test func validES256Passes() async throws {
    let f = try await F.get()
    let token = try f.verify(try f.es256())
    #expect(token.header.algorithm == "ES256")
    #expect(token.header.keyID == "ec-1")
    #expect(token.claims.subject == "001234.5f2a7e0c.0421")
  }

  @Test func theJWKSKeepsOnlyUsableKeys() async throws {
    let f = try await F.get()
    #expect(f.verifier.keys == [.init(keyID: "rsa-1", algorithm: .rs256), .init(keyID: "ec-1", algorithm: .es256)])
  }

  @Test func aTokenWithoutKidUsesTheOnlyKeyForItsAlgorithm() async throws {
    let f = try await F.get()
    #expect(try f.verify(try f.es256(kid: nil)).header.keyID == nil)
  }

  // MARK: Keys and signatures

  @Test func unknownKidIsUnknownKey() async throws {
    let f = try await F.get()
    let error = f.error(try f.rs256(kid: "rotated-away"))
    #expect(error?.code == .unknownKey)
    #expect(error?.claim == "kid")
  }

  @Test func aKidOfTheOtherAlgorithmIsUnknownKey() async throws {
    let f = try await F.get()
    let token = try f.sign(header: F.header("ES256", kid: "rsa-1"), payload: F.claims(), with: f.ec)
    #expect(f.error(token)?.code == .unknownKey)
  }

  @Test(arguments: ["RS256", "ES256"])
  func tamperedPayloadIsInvalidSignature(_ alg: String) async throws {
    let f = try await F.get()
    let token = alg == "RS256" ? try f.rs256() : try f.es256()
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    let forged = F.b64(F.claims(["sub": #""someone-else""#]))
    let tampered = "\(parts[0]).\(forged).\(parts[2])"
    let error = f.error(tampered)
    #expect(error?.code == .invalidSignature)
    #expect(error?.part == .signature)
  }

  @Test func aSignatureOfTheWrongLengthIsInvalidSignature() async throws {
    let f = try await F.get()
    let parts = try f.es256().split(separator: ".")
    #expect(f.error("\(parts[0]).\(parts[1]).AAAA")?.code == .invalidSignature)
    #expect(f.error("\(parts[0]).\(parts[1]).")?.code == .invalidSignature)
  }

  @Test func algNoneIsUnsupported() async throws {
    let f = try await F.get()
    let token = F.b64(#"{"alg":"none","kid":"rsa-1"}"#) + "." + F.b64(F.claims()) + "."
    let error = f.error(token)
    #expect(error?.code == .unsupportedAlgorithm)
    #expect(error?.claim == "alg")
    // Decoding without verification still shows it, for logs.
    let unverified = try UnverifiedIDToken(parsing: token)
    #expect(unverified.header.algorithm == "none")
    #expect(unverified.claims.subject == "001234.5f2a7e0c.0421")
  }

  @Test func hs256WithThePublicKeyAsSecretIsUnsupported() async throws {
    let f = try await F.get()
    let input = F.b64(#"{"alg":"HS256","kid":"rsa-1"}"#) + "." + F.b64(F.claims())
    let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(f.rsaPublicPEM.utf8)))
    let token = input + "." + Base64URL.encode(Array(mac))
    #expect(f.error(token)?.code == .unsupportedAlgorithm)
  }

  @Test func criticalHeaderExtensionsAreRefused() async throws {
    let f = try await F.get()
    let token = try f.sign(header: #"{"alg":"RS256","kid":"rsa-1","crit":["b64"],"b64":false}"#, payload: F.claims(), with: f.rsa)
    let error = f.error(token)
    #expect(error?.code == .unsupportedAlgorithm)
    #expect(error?.claim == "crit")
  }

  @Test(arguments: [#"{"kid":"rsa-1"}"#, #"{"alg":7}"#, #"{"alg":"RS256","kid":12}"#])
  func aHeaderWithoutAStringAlgIsMalformed(_ header: String) async throws {
    let f = try await F.get()
    let token = F.b64(header) + "." + F.b64(F.claims()) + ".AAAA"
    let error = f.error(token)
    #expect(error?.code == .malformed)
    #expect(error?.part == .header)
  }

  // MARK: Time

  @Test func expiredBeyondTheLeewayIsRefused() async throws {
    let f = try await F.get()
    let error = f.error(try f.rs256(F.claims(["exp": String(F.now - 61)])))
    #expect(error?.code == .expired)
    #expect(error?.claim == "exp")
    #expect(f.error(try f.rs256(F.claims(["exp": String(F.now - 60)])))?.code == .expired)
  }

  @Test func expiredWithinTheLeewayPasses() async throws {
    let f = try await F.get()
    #expect(try f.verify(try f.rs256(F.claims(["exp": String(F.now - 59)]))).claims.expiresAt == F.now - 59)
    // And with no leeway it is refused.
    #expect(throws: IDTokenError.self) { try f.verify(try f.rs256(F.claims(["exp": String(F.now - 1)])), leeway: .zero) }
  }

  @Test func issuedInTheFutureIsRefused() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256(F.claims(["iat": String(F.now + 120)])))?.code == .issuedInFuture)
    _ = try f.verify(try f.rs256(F.claims(["iat": String(F.now + 30)])))
  }

  @Test func notBeforeInTheFutureIsRefused() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256(F.claims(["nbf": String(F.now + 120)])))?.code == .notYetValid)
    _ = try f.verify(try f.rs256(F.claims(["nbf": String(F.now + 30)])))
  }

  @Test func aFractionalExpIsTruncated() async throws {
    let f = try await F.get()
    #expect(try f.verify(try f.rs256(F.claims(["exp": "1700000600.75"]))).claims.expiresAt == 1_700_000_600)
  }

  @Test(arguments: [#""soon""#, "1e10", "-", "true", #""-5""#])
  func aNonNumericExpIsMalformed(_ exp: String) async throws {
    let f = try await F.get()
    let payload = F.claims(["exp": exp])
    guard case .success = TokenJSON.parse(Array(payload.utf8)) else {
      #expect(f.error(try f.rs256(payload))?.code == .malformed)
      return
    }
    let error = f.error(try f.rs256(payload))
    #expect(error?.code == .malformed)
    #expect(error?.claim == "exp")
  }

  @Test(arguments: ["exp", "iat", "iss", "aud", "sub"])
  func aRequiredClaimMissingIsMissingClaim(_ name: String) async throws {
    let f = try await F.get()
    let error = f.error(try f.rs256(F.claims([name: nil])))
    #expect(error?.code == .missingClaim)
    #expect(error?.claim == name)
  }

  // MARK: Issuer and audience

  @Test func aWrongIssuerIsRefused() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256(F.claims(["iss": #""https://appleid.apple.com/""#])))?.code == .issuerMismatch)
    #expect(f.error(try f.rs256(F.claims(["iss": #""https://evil.example""#])))?.code == .issuerMismatch)
  }

  @Test func anAudienceArrayContainingTheClientAndATrustedAudiencePasses() async throws {
    let f = try await F.get()
    var expected = IDTokenVerifier.Expectations.apple(clientID: F.clientID, nonce: F.nonce)
    expected.trustedAudiences = ["other-client"]
    let payload = F.claims(["aud": #"["other-client","com.example.web"]"#])
    let token = try f.verifier.verify(try f.rs256(payload), expecting: expected, now: F.now)
    #expect(token.claims.audience == ["other-client", "com.example.web"])
    // Not trusted, the other audience is refused (IDTokenAudienceTests has the rest).
    #expect(f.error(try f.rs256(payload))?.code == .untrustedAudience)
  }

  @Test func anAudienceArrayWithoutTheClientFails() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256(F.claims(["aud": #"["other-client","com.example.mobile"]"#])))?.code == .audienceMismatch)
    #expect(f.error(try f.rs256(F.claims(["aud": #"[]"#])))?.code == .audienceMismatch)
    #expect(f.error(try f.rs256(F.claims(["aud": #""com.example""#])))?.code == .audienceMismatch)
  }

  @Test func severalAudiencesWithAnotherAuthorizedPartyFail() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["aud": #"["other","com.example.web"]"#, "azp": #""other""#]))
    #expect(f.error(token)?.code == .audienceMismatch)
  }

  // MARK: Nonce

  @Test func aNonceMismatchIsRefused() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256(F.claims(["nonce": #""replayed""#])))?.code == .nonceMismatch)
  }

  @Test func aMissingNonceIsRefusedWhenOneIsExpected() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["nonce": nil]))
    let error = f.error(token)
    #expect(error?.code == .missingClaim)
    #expect(error?.claim == "nonce")
    // Without an expected nonce the same token passes.
    #expect(f.error(token, nonce: nil) == nil)
  }

  // MARK: Malformed input

  @Test func aMegabyteTokenIsTooLarge() async throws {
    let f = try await F.get()
    let huge = String(repeating: "a", count: 1 << 20) + ".b.c"
    #expect(f.error(huge)?.code == .tooLarge)
    #expect(throws: IDTokenError.self) { try UnverifiedIDToken(parsing: huge) }
    #expect(IDTokenVerifier.maxTokenBytes == 65_536)
  }

  @Test func invalidBase64URLIsMalformedWithItsOffset() async throws {
    let f = try await F.get()
    let parts = try f.rs256().split(separator: ".")
    let bad = "\(parts[0]).\(parts[1].prefix(5))+\(parts[1].dropFirst(6)).\(parts[2])"
    let error = f.error(bad)
    #expect(error?.code == .malformed)
    #expect(error?.part == .payload)
    #expect(error?.offset == 5)
    #expect(f.error("\(parts[0])=.\(parts[1]).\(parts[2])")?.part == .header)
  }

  @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "..", "....."])
  func notThreePartsIsMalformed(_ token: String) async throws {
    let f = try await F.get()
    #expect(f.error(token)?.code == .malformed)
  }

  @Test func truncatedJSONIsMalformedWithItsOffset() async throws {
    let f = try await F.get()
    let full = F.claims()
    // `{"iss":"https://appleid.apple.com",` and nothing after: the error is where the next key should be.
    let truncated = String(full[...full.firstIndex(of: ",")!])
    let error = f.error(try f.rs256(truncated))
    #expect(error?.code == .malformed)
    #expect(error?.part == .payload)
    #expect(error?.offset == truncated.utf8.count)
    #expect(f.error(try f.rs256(String(full.dropLast())))?.offset == full.utf8.count - 1)
    // Not a JSON object, duplicate claims.
    #expect(f.error(try f.rs256("[1,2]"))?.code == .malformed)
    let duplicate = String(full.dropLast()) + #","sub":"attacker"}"#
    let dupError = f.error(try f.rs256(duplicate))
    #expect(dupError?.code == .malformed)
    #expect(dupError?.message.contains("duplicate") == true)
  }

  // MARK: Apple claims

  @Test(arguments: [#""true""#, "true"])
  func appleEmailVerifiedStringOrBoolIsTrue(_ value: String) async throws {
    let f = try await F.get()
    let token = try f.verify(try f.rs256(F.claims(["email_verified": value, "is_private_email": value])))
    #expect(token.claims.apple.emailVerified == true)
    #expect(token.claims.apple.isPrivateEmail == true)
    #expect(token.claims.emailVerified == true)
  }

  @Test func appleRealUserStatusAndTransferSubject() async throws {
    let f = try await F.get()
    let token = try f.verify(
      try f.rs256(F.claims(["real_user_status": #""0""#, "transfer_sub": #""t.1""#, "email_verified": "false"])))
    #expect(token.claims.apple.realUserStatusValue == .unsupported)
    #expect(token.claims.apple.transferSubject == "t.1")
    #expect(token.claims.apple.emailVerified == false)
  }

  // MARK: Expectations and other providers

  @Test func presetsNameTheirIssuers() {
    #expect(IDTokenVerifier.Expectations.apple(clientID: "c", nonce: nil).issuer == "https://appleid.apple.com")
    #expect(IDTokenVerifier.Expectations.vk(clientID: "c", nonce: nil).issuer == "https://id.vk.ru")
    #expect(IDTokenVerifier.Expectations.tid(clientID: "c", nonce: nil).issuer == "https://id.tbank.ru")
    let sber = IDTokenVerifier.Expectations.sber(clientID: "c", nonce: "n", issuer: "https://sber.example")
    #expect(sber.issuer == "https://sber.example" && sber.nonce == "n" && sber.leeway == .seconds(60))
    #expect(IDTokenVerifier.Expectations.generic(issuer: "https://as.example", clientID: "c", nonce: nil).audience == "c")
  }

  @Test func vkProfileClaimsReadTheProvidersSpellings() async throws {
    let f = try await F.get()
    let payload = F.claims([
      "iss": #""https://id.vk.ru""#, "aud": #""51234567""#, "sub": nil, "user_id": "1234567",
      "phone": #""79*******00""#, "first_name": #""Иван""#, "last_name": #""И.""#,
    ])
    let token = try f.verifier.verify(
      try f.es256(payload), expecting: { var e = IDTokenVerifier.Expectations.vk(clientID: "51234567", nonce: F.nonce); e.requiresSubject = false; return e }(),
      now: F.now)
    let profile = token.claims.profile(for: .vk)
    #expect(profile.subject == "1234567")
    #expect(profile.phoneNumber == "79*******00")
    #expect(profile.givenName == "Иван")
    #expect(profile.familyName == "И.")
    #expect(token.claims.profile(for: .sber).subject == nil)
  }

  // MARK: JWKS

  @Test(arguments: [
    "", "{", "[]", #"{"keys":{}}"#, #"{"keys":[]}"#, #"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#,
    #"{"keys":[{"kty":"RSA","kid":"x","n":"AQAB","e":"AQAB","use":"enc"}]}"#,
    #"{"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}"#,
    #"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}"#,
    // An RSA modulus of 1,024 bits (under the 2,048 swift-crypto requires) and a P-256 point off the curve.
    #"{"keys":[{"kty":"RSA","n":"wQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQM","e":"AQAB"}]}"#,
    #"{"keys":[{"kty":"EC","crv":"P-256","x":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE","y":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"}]}"#,
  ])
  func anUnusableJWKSIsInvalidJWKS(_ jwks: String) async {
    do {
      _ = try await IDTokenVerifier(jwksJSON: jwks)
      Issue.record("accepted \(jwks)")
    } catch {
      #expect(error.code == .invalidJWKS)
    }
  }

  @Test func aJWKSWithAPrivateKeyIsRefused() async throws {
    let f = try await F.get()
    let leaky = f.jwks.replacingOccurrences(of: #""crv":"P-256","#, with: #""crv":"P-256","d":"AAAA","#)
    await #expect(throws: IDTokenError.self) { try await IDTokenVerifier(jwksJSON: leaky) }
  }

  /// The `tokens` fuzz target's seeds (one mode byte, then the text) signed by its fixed JWKS verify, so the
  /// fuzzer starts from tokens that pass and its "verified ⇒ …" invariants are exercised.
  @Test(arguments: ["jws-es256-valid", "jws-rs256-valid"])
  func theFuzzSeedsVerify(_ name: String) async throws {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("corpus/tokens")
    let jwks = try Data(contentsOf: corpus.appendingPathComponent("jwks-fixed")).dropFirst()
    let token = String(decoding: try Data(contentsOf: corpus.appendingPathComponent(name)).dropFirst(), as: UTF8.self)
    let verifier = try await IDTokenVerifier(jwksJSON: Array(jwks))
    let verified = try verifier.verify(
      token, expecting: .apple(clientID: "com.example.fuzz", nonce: "fuzz-nonce"), now: 1_700_000_100)
    #expect(verified.claims.subject == "001234.fuzz")
  }

  @Test func errorsDescribeThemselves() {
    let error = IDTokenError(.malformed, part: .payload, offset: 17, message: "expected ':' after an object key")
    #expect(error.description == "malformed (payload at byte 17): expected ':' after an object key")
    #expect(IDTokenError.Code.issuedInFuture.rawValue == "issued-in-future")
    #expect(IDTokenError(.expired, claim: "exp", message: "m").description == "expired (claim exp): m")
  }

  @Test func decodeUnverifiedReturnsTheClaimsOfAnyToken() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["iss": #""https://evil.example""#, "exp": "1"]))
    let unverified = try IDTokenVerifier.decodeUnverified(token)
    #expect(unverified.claims.issuer == "https://evil.example")
    #expect(unverified.claims.expiresAt == 1)
    #expect(unverified.header.keyID == "rsa-1")
  }
}
