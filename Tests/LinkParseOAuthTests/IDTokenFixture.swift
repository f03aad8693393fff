import Crypto
import Foundation
import JWTKit
import _CryptoExtras
import LinkParseAuthorization
import LinkParseProviders

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseBytes

/// Keys made once per test run (an RSA-2048 and a P-256 key), the JWKS of their public halves, and helpers
/// that sign tokens whose header and payload JSON are written by hand (so tests can send `"exp":"…"`,
/// truncated JSON, `alg: none`, …). Signatures are made by jwt-kit.
struct IDTokenFixture: Sendable {
  /// The time every test verifies at.
  static let now: Int64 = 1_700_000_000
  static let clientID = "com.example.web"
  static let nonce = "n-0S6_WzA2Mj"

  let rsa: any JWTAlgorithm
  let ec: any JWTAlgorithm
  /// The RSA public key in PEM, the secret an HS256 confusion attack would use.
  let rsaPublicPEM: String
  let jwks: String
  let verifier: IDTokenVerifier

  private static let shared = Task { try await IDTokenFixture() }
  static func get() async throws -> IDTokenFixture { try await shared.value }

  private init() async throws {
    let rsaKey = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    let ecKey = try ES256PrivateKey(backing: P256.Signing.PrivateKey())
    let keys = JWTKeyCollection()
    await keys.add(rsa: rsaKey, digestAlgorithm: .sha256, kid: "rsa-1")
    await keys.add(ecdsa: ecKey, kid: "ec-1")
    rsa = try await keys.getKey(for: "rsa-1")
    ec = try await keys.getKey(for: "ec-1")
    rsaPublicPEM = rsaKey.publicKey.pemRepresentation
    let (n, e) = try rsaKey.publicKey.getKeyPrimitives()
    guard let xy = ecKey.parameters else { throw CancellationError() }
    jwks = """
      {"keys":[
        {"kty":"RSA","kid":"rsa-1","use":"sig","alg":"RS256","n":"\(Base64URL.encode(n))","e":"\(Base64URL.encode(e))"},
        {"kty":"EC","kid":"ec-1","crv":"P-256","x":"\(xy.x)","y":"\(xy.y)"},
        {"kty":"oct","kid":"ignored"}
      ]}
      """
    verifier = try await IDTokenVerifier(jwksJSON: jwks)
  }

  /// Apple-shaped claims valid at ``now``; `changes` replaces (or, with `nil`, removes) members, given as raw
  /// JSON text.
  static func claims(_ changes: [String: String?] = [:]) -> String {
    var members: [(String, String)] = [
      ("iss", #""https://appleid.apple.com""#),
      ("aud", #""com.example.web""#),
      ("exp", String(now + 600)),
      ("iat", String(now - 10)),
      ("sub", #""001234.5f2a7e0c.0421""#),
      ("nonce", #""n-0S6_WzA2Mj""#),
      ("c_hash", #""bTc5YzNhNzE""#),
      ("email", #""4rtppgbhgb@privaterelay.appleid.com""#),
      ("email_verified", #""true""#),
      ("is_private_email", #""true""#),
      ("auth_time", String(now - 12)),
      ("nonce_supported", "true"),
      ("real_user_status", "2"),
    ]
    for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
      if let index = members.firstIndex(where: { $0.0 == name }) {
        if let value { members[index].1 = value } else { members.remove(at: index) }
      } else if let value {
        members.append((name, value))
      }
    }
    return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }

  static func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

  /// `header.payload.signature`, signed by `signer` over exactly these header and payload texts.
  func sign(header: String, payload: String, with signer: any JWTAlgorithm) throws -> String {
    let input = Self.b64(header) + "." + Self.b64(payload)
    return input + "." + Base64URL.encode(try signer.sign(Array(input.utf8)))
  }

  func rs256(_ payload: String = IDTokenFixture.claims(), kid: String? = "rsa-1") throws -> String {
    try sign(header: Self.header("RS256", kid: kid), payload: payload, with: rsa)
  }

  func es256(_ payload: String = IDTokenFixture.claims(), kid: String? = "ec-1") throws -> String {
    try sign(header: Self.header("ES256", kid: kid), payload: payload, with: ec)
  }

  static func header(_ alg: String, kid: String?) -> String {
    kid.map { #"{"alg":"\#(alg)","kid":"\#($0)","typ":"JWT"}"# } ?? #"{"alg":"\#(alg)","typ":"JWT"}"#
  }

  /// Verifies as Apple with the fixture's client id and nonce, at ``now``.
  func verify(_ token: String, nonce: String? = IDTokenFixture.nonce, leeway: Duration = .seconds(60)) throws(IDTokenError)
    -> VerifiedIDToken
  {
    var expected = IDTokenVerifier.Expectations.apple(clientID: Self.clientID, nonce: nonce)
    expected.leeway = leeway
    return try verifier.verify(token, expecting: expected, now: Self.now)
  }

  /// The error verifying as Apple (the fixture's client id and nonce, at ``now``) throws once `change` has
  /// adjusted the expectations, or `nil` if it verified.
  func error(_ token: String, _ change: (inout IDTokenVerifier.Expectations) -> Void) -> IDTokenError? {
    var expected = IDTokenVerifier.Expectations.apple(clientID: Self.clientID, nonce: Self.nonce)
    change(&expected)
    do {
      _ = try verifier.verify(token, expecting: expected, now: Self.now)
      return nil
    } catch {
      return error
    }
  }

  /// The error `verify` throws, or `nil` if it verified.
  func error(_ token: String, nonce: String? = IDTokenFixture.nonce) -> IDTokenError? {
    do {
      _ = try verify(token, nonce: nonce)
      return nil
    } catch {
      return error
    }
  }
}
