import Crypto
import Foundation
import JWTKit
import Testing
import LinkParseAuthorization
import LinkParseProviders

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseBytes

@Suite struct AppleClientSecretTests {
  static let now: Int64 = 1_700_000_000

  static func parts(_ jwt: String) throws -> (header: JSONValue, claims: JSONValue, input: String, signature: [UInt8]) {
    let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false)
    try #require(pieces.count == 3)
    func json(_ part: Substring) throws -> JSONValue {
      guard case .success(let bytes) = Base64URL.decode(part.utf8, mode: .strict),
        case .success(let value) = TokenJSON.parse(bytes)
      else { throw CancellationError() }
      return value
    }
    guard case .success(let signature) = Base64URL.decode(pieces[2].utf8, mode: .strict) else { throw CancellationError() }
    return (try json(pieces[0]), try json(pieces[1]), "\(pieces[0]).\(pieces[1])", signature)
  }

  @Test func aSecretFromAFreshP256KeyVerifiesAndSaysWhatAppleWants() async throws {
    let key = P256.Signing.PrivateKey()
    let secret = try AppleClientSecret(
      privateKeyPEM: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clientID: "com.example.web")
    let jwt = try secret.make(now: Self.now)
    let (header, claims, input, signature) = try Self.parts(jwt)

    // The header is exactly {"alg":"ES256","kid":…}.
    #expect(header == .object([("alg", .string("ES256")), ("kid", .string("ABC123DEFG"))]))
    // Every claim.
    #expect(claims["iss"] == .string("DEF123GHIJ"))
    #expect(claims["iat"]?.integer == Self.now)
    #expect(claims["exp"]?.integer == Self.now + 300)
    #expect(claims["aud"] == .string("https://appleid.apple.com"))
    #expect(claims["sub"] == .string("com.example.web"))
    if case .object(let members) = claims { #expect(members.count == 5) }

    // The signature, with swift-crypto and the public key.
    let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
    #expect(key.publicKey.isValidSignature(ecdsa, for: Data(input.utf8)))
    #expect(!key.publicKey.isValidSignature(ecdsa, for: Data((input + "x").utf8)))

    // And with jwt-kit, through the id_token verifier (a JWKS of the public key).
    let jwk = try ES256PublicKey(backing: key.publicKey)
    let xy = try #require(jwk.parameters)
    let verifier = try await IDTokenVerifier(
      jwksJSON: #"{"keys":[{"kty":"EC","crv":"P-256","kid":"ABC123DEFG","x":"\#(xy.x)","y":"\#(xy.y)"}]}"#)
    let verified = try verifier.verify(
      jwt, issuer: "DEF123GHIJ", audience: "https://appleid.apple.com", nonce: nil, now: Self.now + 10)
    #expect(verified.claims.subject == "com.example.web")
    #expect(verified.header.keyID == "ABC123DEFG")
  }

  @Test func theLifetimeIsCappedAtSixMonths() throws {
    let secret = try AppleClientSecret(
      privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyID: "K", teamID: "T", clientID: "C")
    let longest = try Self.parts(try secret.make(now: Self.now, lifetime: .seconds(15_777_000))).claims
    #expect(longest["exp"]?.integer == Self.now + 15_777_000)
    for lifetime: Int64 in [15_777_001, 0, -5, .max] {
      #expect(throws: IDTokenError.self) { try secret.make(now: Self.now, lifetime: .seconds(lifetime)) }
    }
    do {
      _ = try secret.make(now: Self.now, lifetime: .seconds(15_777_001))
    } catch {
      #expect(error.code == .invalidClientSecret)
    }
  }

  @Test func idsAreEscapedAsJSON() throws {
    let secret = try AppleClientSecret(
      privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyID: "k\"1", teamID: "T\\", clientID: "c\n")
    let (header, claims, _, _) = try Self.parts(try secret.make(now: Self.now))
    #expect(header["kid"] == .string("k\"1"))
    #expect(claims["iss"] == .string("T\\"))
    #expect(claims["sub"] == .string("c\n"))
  }

  @Test(arguments: [
    "", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
    P384.Signing.PrivateKey().pemRepresentation,
  ])
  func aPEMThatIsNotAP256KeyIsRefused(_ pem: String) {
    #expect(throws: IDTokenError.self) {
      try AppleClientSecret(privateKeyPEM: pem, keyID: "K", teamID: "T", clientID: "C")
    }
  }
}
