import Crypto
import JWTKit
import Testing

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseCore

/// RFC 7517 §4.5: keys in a JWKS should have distinct `kid`s. Two different keys of one algorithm under one
/// `kid` make that `kid` ambiguous: a token naming it is refused with `ambiguous-key`, whichever of the two
/// keys signed it. The rest of the set stays usable; the same key listed twice, or keys of different types
/// sharing a `kid` (the RFC's own example), are not ambiguous.
@Suite struct JWKSKeyIDTests {
  typealias F = IDTokenFixture

  /// A second P-256 key, its JWK published under `kid`, and a signer for it.
  static func otherECKey(kid: String) async throws -> (jwk: String, signer: any JWTAlgorithm) {
    let key = try ES256PrivateKey(backing: P256.Signing.PrivateKey())
    let keys = JWTKeyCollection()
    await keys.add(ecdsa: key, kid: "signer")
    guard let xy = key.parameters else { throw CancellationError() }
    return (
      #"{"kty":"EC","kid":"\#(kid)","crv":"P-256","x":"\#(xy.x)","y":"\#(xy.y)"}"#,
      try await keys.getKey(for: "signer")
    )
  }

  /// The fixture's JWKS with `extra` appended to its keys.
  static func jwks(_ f: F, adding extra: String) -> String {
    let end = f.jwks.range(of: "]", options: .backwards)!
    return f.jwks.replacingCharacters(in: end, with: "," + extra + "]")
  }

  static func verify(_ verifier: IDTokenVerifier, _ token: String) -> IDTokenError? {
    do {
      _ = try verifier.verify(token, expecting: .apple(clientID: F.clientID, nonce: F.nonce), now: F.now)
      return nil
    } catch {
      return error
    }
  }

  @Test func twoDifferentKeysUnderOneKidAreAmbiguousForBothKeys() async throws {
    let f = try await F.get()
    let other = try await Self.otherECKey(kid: "ec-1")
    let verifier = try await IDTokenVerifier(jwksJSON: Self.jwks(f, adding: other.jwk))
    // Signed by the fixture's own ec-1 key.
    let first = Self.verify(verifier, try f.es256())
    #expect(first?.code == .ambiguousKey)
    #expect(first?.claim == "kid")
    #expect(first?.message.contains("ec-1") == true)
    // Signed by the other key published as ec-1.
    let forged = try f.sign(header: F.header("ES256", kid: "ec-1"), payload: F.claims(), with: other.signer)
    #expect(Self.verify(verifier, forged)?.code == .ambiguousKey)
    // The rest of the set still verifies.
    #expect(Self.verify(verifier, try f.rs256()) == nil)
  }

  @Test func theSameKeyListedTwiceUnderItsKidIsNotAmbiguous() async throws {
    let f = try await F.get()
    let start = f.jwks.range(of: #"{"kty":"EC""#)!.lowerBound
    let end = f.jwks[start...].firstIndex(of: "}")!
    let ecJWK = String(f.jwks[start...end])
    let verifier = try await IDTokenVerifier(jwksJSON: Self.jwks(f, adding: ecJWK))
    #expect(Self.verify(verifier, try f.es256()) == nil)
  }

  @Test func keysOfDifferentTypesMayShareAKid() async throws {
    let f = try await F.get()
    let shared = f.jwks.replacingOccurrences(of: #""kid":"ec-1""#, with: #""kid":"rsa-1""#)
    let verifier = try await IDTokenVerifier(jwksJSON: shared)
    #expect(Self.verify(verifier, try f.rs256(kid: "rsa-1")) == nil)
    #expect(Self.verify(verifier, try f.es256(kid: "rsa-1")) == nil)
  }
}
