import Crypto
import Foundation
import Testing

@testable import LinkParseOAuth
@testable import LinkParseIDToken

/// `c_hash` and `at_hash` (OpenID Connect Core §3.3.2.11, §3.1.3.8, §3.2.2.9): the left half of the SHA-256
/// (for RS256 and ES256) of the code or access token, base64url without padding, bound to the token by its
/// signature. The hashes here are computed by the test with swift-crypto, not by the verifier's helper.
@Suite struct IDTokenHashTests {
  typealias F = IDTokenFixture

  static let code = "c8f4a0e1d2b3.0.nrxs.Yk3kQ7ZpW2uJ9vXqLmN4Rg"
  static let accessToken = "a7e2c0b9f1d84e6aa3b5c7d9e1f20314.0.rsxv.AbCdEf"

  /// The left-most 128 bits of SHA-256 over the ASCII octets, base64url without padding.
  static func leftHalfSHA256(_ value: String) -> String {
    let digest = Array(SHA256.hash(data: Data(value.utf8)))
    return Data(digest.prefix(digest.count / 2)).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  static func sign(_ f: F, _ alg: IDTokenAlgorithm, _ changes: [String: String?]) throws -> String {
    alg == .rs256 ? try f.rs256(F.claims(changes)) : try f.es256(F.claims(changes))
  }

  @Test func theHelperMatchesTheSpecificationsExample() {
    // OpenID Connect Core Appendix A.4 (RS256): this code has c_hash "LDktKdoQak3Pk0cnXxCltA".
    #expect(Self.leftHalfSHA256("Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk") == "LDktKdoQak3Pk0cnXxCltA")
  }

  @Test(arguments: IDTokenAlgorithm.allCases)
  func aCodeHashOfTheCodeVerifies(alg: IDTokenAlgorithm) async throws {
    let f = try await F.get()
    let token = try Self.sign(f, alg, ["c_hash": "\"\(Self.leftHalfSHA256(Self.code))\""])
    #expect(f.error(token) { $0.authorizationCode = Self.code; $0.requiresCodeHash = true } == nil)
  }

  @Test(arguments: IDTokenAlgorithm.allCases)
  func aCodeHashOfAnotherCodeIsRefused(alg: IDTokenAlgorithm) async throws {
    let f = try await F.get()
    let token = try Self.sign(f, alg, ["c_hash": "\"\(Self.leftHalfSHA256("another-code"))\""])
    let error = f.error(token) { $0.authorizationCode = Self.code }
    #expect(error?.code == .codeHashMismatch)
    #expect(error?.claim == "c_hash")
    // The fixture's own c_hash is not the hash of this code either.
    #expect(f.error(try f.rs256()) { $0.authorizationCode = Self.code }?.code == .codeHashMismatch)
  }

  @Test func aMissingCodeHashIsRefusedOnlyWhenRequired() async throws {
    let f = try await F.get()
    let token = try f.es256(F.claims(["c_hash": nil]))
    // Code flow: the token endpoint's id_token need not carry c_hash.
    #expect(f.error(token) { $0.authorizationCode = Self.code } == nil)
    let error = f.error(token) { $0.authorizationCode = Self.code; $0.requiresCodeHash = true }
    #expect(error?.code == .missingClaim)
    #expect(error?.claim == "c_hash")
    // Required, but no code to check it against: refused whatever the token says.
    let hashed = try f.es256(F.claims(["c_hash": "\"\(Self.leftHalfSHA256(Self.code))\""]))
    #expect(f.error(hashed) { $0.requiresCodeHash = true }?.code == .codeHashMismatch)
  }

  @Test(arguments: ["c_hash", "at_hash"])
  func aHashThatIsNotAStringIsMalformed(claim: String) async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims([claim: "12345"]))
    let error = f.error(token) { _ in }
    #expect(error?.code == .malformed)
    #expect(error?.claim == claim)
  }

  @Test(arguments: IDTokenAlgorithm.allCases)
  func anAccessTokenHashOfTheAccessTokenVerifies(alg: IDTokenAlgorithm) async throws {
    let f = try await F.get()
    let token = try Self.sign(f, alg, ["at_hash": "\"\(Self.leftHalfSHA256(Self.accessToken))\""])
    #expect(f.error(token) { $0.accessToken = Self.accessToken; $0.requiresAccessTokenHash = true } == nil)
  }

  @Test(arguments: IDTokenAlgorithm.allCases)
  func anAccessTokenHashOfAnotherTokenIsRefused(alg: IDTokenAlgorithm) async throws {
    let f = try await F.get()
    let token = try Self.sign(f, alg, ["at_hash": "\"\(Self.leftHalfSHA256(Self.accessToken + "x"))\""])
    let error = f.error(token) { $0.accessToken = Self.accessToken }
    #expect(error?.code == .accessTokenHashMismatch)
    #expect(error?.claim == "at_hash")
    // The full (untruncated) hash is not the left half.
    let digest = Array(SHA256.hash(data: Data(Self.accessToken.utf8)))
    let full = Data(digest).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    let whole = try Self.sign(f, alg, ["at_hash": "\"\(full)\""])
    #expect(f.error(whole) { $0.accessToken = Self.accessToken }?.code == .accessTokenHashMismatch)
  }

  @Test func aMissingAccessTokenHashIsRefusedOnlyWhenRequired() async throws {
    let f = try await F.get()
    let token = try f.rs256()  // no at_hash
    #expect(f.error(token) { $0.accessToken = Self.accessToken } == nil)
    let error = f.error(token) { $0.accessToken = Self.accessToken; $0.requiresAccessTokenHash = true }
    #expect(error?.code == .missingClaim)
    #expect(error?.claim == "at_hash")
    #expect(f.error(token) { $0.requiresAccessTokenHash = true }?.code == .accessTokenHashMismatch)
  }

  @Test func theHybridFlowChecksBoth() async throws {
    let f = try await F.get()
    let token = try f.es256(
      F.claims([
        "c_hash": "\"\(Self.leftHalfSHA256(Self.code))\"", "at_hash": "\"\(Self.leftHalfSHA256(Self.accessToken))\"",
      ]))
    let expected = IDTokenVerifier.Expectations(
      issuer: "https://appleid.apple.com", audience: F.clientID, nonce: F.nonce, authorizationCode: Self.code,
      requiresCodeHash: true, accessToken: Self.accessToken, requiresAccessTokenHash: true)
    _ = try f.verifier.verify(token, expecting: expected, now: F.now)
    // Swapped: each hash checked against the other value.
    var swapped = expected
    (swapped.authorizationCode, swapped.accessToken) = (Self.accessToken, Self.code)
    #expect(throws: IDTokenError.self) { try f.verifier.verify(token, expecting: swapped, now: F.now) }
  }
}
