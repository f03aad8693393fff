// LinkParseOAuth's token workloads, one process, ns per item.
//
//   BenchTokens [--only NAME] [--rounds N] [--count N] [--distinct N]
//
// Prints one line per workload, exactly in this form, so that scripts can read it:
//
//   bench=idtoken-rs256 items=10000 ns_per_item=… min_ns_per_item=… rounds=…
//
// ns per item is the median over rounds (each round runs all `--count` items, default 10,000, after one
// warm-up round); min is the fastest round. Workloads:
//
// - idtoken-rs256: `IDTokenVerifier.verify` on Apple-shaped id_tokens signed RS256 with an RSA-2048 key
//                  (split, base64url, header, key by kid, signature by jwt-kit, JSON claims, iss/aud/exp/
//                  iat/nonce checks). The tokens differ (`sub`, `nonce`); `--distinct` of them (default 1,000,
//                  signing RSA is slow) are cycled through.
// - idtoken-es256: the same with ES256 (P-256).
// - idtoken-unverified: `UnverifiedIDToken(parsing:)` on the RS256 tokens: the split, base64url and JSON part
//                  of the work without the signature, for comparison.
// - token-response: `TokenResponse(json:provider:)` on token-endpoint answers of every provider's shape (VK with
//                   `user_id`, `state` and `id_token`; T-ID; Sber with `expires_in` as a string; Apple; a
//                   generic OIDC answer with unknown members), each different (`access_token`, `user_id`).
//
// Every result is folded into a checksum that is printed, so the optimizer cannot drop the work.
//
// Build and run in release:  cd Benchmarks && swift build -c release --product BenchTokens &&
//                            .build/release/BenchTokens

import Crypto
import Foundation
import JWTKit
import LinkParse
import _CryptoExtras

// MARK: - Arguments

nonisolated(unsafe) var only: String? = nil
nonisolated(unsafe) var rounds = 9
nonisolated(unsafe) var count = 10_000
nonisolated(unsafe) var distinct = 1_000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--only": only = arguments.popFirst()
  case "--rounds": rounds = max(1, Int(arguments.popFirst() ?? "") ?? rounds)
  case "--count": count = max(1, Int(arguments.popFirst() ?? "") ?? count)
  case "--distinct": distinct = max(1, Int(arguments.popFirst() ?? "") ?? distinct)
  default:
    FileHandle.standardError.write(Data("BenchTokens: unknown argument \(argument)\n".utf8))
    exit(2)
  }
}

// MARK: - Timing

func now() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

nonisolated(unsafe) var checksum = 0

/// A workload: `run` processes all items once and returns a checksum.
struct Workload {
  var items: Int
  var run: () -> Int
}

func measure(_ name: String, _ workload: Workload) {
  checksum &+= workload.run()  // warm-up
  var perItem: [Double] = []
  for _ in 0..<rounds {
    let start = now()
    checksum &+= workload.run()
    perItem.append(Double(now() - start) / Double(workload.items))
  }
  perItem.sort()
  print(
    String(
      format: "bench=%@ items=%d ns_per_item=%.0f min_ns_per_item=%.0f rounds=%d", name, workload.items,
      perItem[perItem.count / 2], perItem[0], rounds))
}

// MARK: - id_tokens

let clock: Int64 = 1_700_000_000
let clientID = "com.example.web"

func base64URL(_ bytes: some Sequence<UInt8>) -> String {
  Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// An Apple-shaped claims object, different per `i`.
func claims(_ i: Int) -> String {
  #"{"iss":"https://appleid.apple.com","aud":"\#(clientID)","exp":\#(clock + 600),"iat":\#(clock - 10),"#
    + #""sub":"001234.\#(String(i, radix: 16)).0421","nonce":"nonce-\#(i)","c_hash":"bTc5YzNhNzE","#
    + #""email":"u\#(i)@privaterelay.appleid.com","email_verified":"true","is_private_email":"true","#
    + #""auth_time":\#(clock - 12),"nonce_supported":true,"real_user_status":2}"#
}

/// `distinct` tokens signed by `signer`, cycled to `count`, and a verifier for `jwks`.
func makeIDTokenWorkload(alg: String, kid: String, signer: any JWTAlgorithm, jwks: String) async throws -> Workload {
  let verifier = try await IDTokenVerifier(jwksJSON: jwks)
  let header = base64URL(#"{"alg":"\#(alg)","kid":"\#(kid)","typ":"JWT"}"#.utf8)
  var signed: [(token: String, nonce: String)] = []
  for i in 0..<min(distinct, count) {
    let input = header + "." + base64URL(claims(i).utf8)
    signed.append((input + "." + base64URL(try signer.sign(Array(input.utf8))), "nonce-\(i)"))
  }
  let tokens = (0..<count).map { signed[$0 % signed.count] }
  // Each check is the full one a backend does: the expected nonce differs per token.
  let expectations = signed.map { IDTokenVerifier.Expectations.apple(clientID: clientID, nonce: $0.nonce) }
  return Workload(items: count) {
    var sum = 0
    for (index, item) in tokens.enumerated() {
      do {
        let token = try verifier.verify(item.token, expecting: expectations[index % signed.count], now: clock)
        sum &+= token.claims.subject?.utf8.count ?? 0
      } catch {
        fatalError("BenchTokens: a fixture token did not verify: \(error)")
      }
    }
    return sum
  }
}

func makeRS256() async throws -> Workload {
  let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
  let keys = JWTKeyCollection()
  await keys.add(rsa: key, digestAlgorithm: .sha256, kid: "rsa-1")
  let (n, e) = try key.publicKey.getKeyPrimitives()
  let jwks = #"{"keys":[{"kty":"RSA","kid":"rsa-1","use":"sig","alg":"RS256","n":"\#(base64URL(n))","e":"\#(base64URL(e))"}]}"#
  return try await makeIDTokenWorkload(alg: "RS256", kid: "rsa-1", signer: try await keys.getKey(for: "rsa-1"), jwks: jwks)
}

func makeUnverified() async throws -> Workload {
  let key = try ES256PrivateKey(backing: P256.Signing.PrivateKey())
  let keys = JWTKeyCollection()
  await keys.add(ecdsa: key, kid: "ec-1")
  let signer = try await keys.getKey(for: "ec-1")
  let header = base64URL(#"{"alg":"RS256","kid":"rsa-1","typ":"JWT"}"#.utf8)
  var signed: [String] = []
  for i in 0..<min(distinct, count) {
    let input = header + "." + base64URL(claims(i).utf8)
    signed.append(input + "." + base64URL(try signer.sign(Array(input.utf8)) + [UInt8](repeating: 7, count: 192)))
  }
  let tokens = (0..<count).map { signed[$0 % signed.count] }
  return Workload(items: count) {
    var sum = 0
    for token in tokens {
      guard let decoded = try? UnverifiedIDToken(parsing: token) else { fatalError("BenchTokens: a token did not decode") }
      sum &+= decoded.claims.subject?.utf8.count ?? 0
    }
    return sum
  }
}

func makeES256() async throws -> Workload {
  let key = try ES256PrivateKey(backing: P256.Signing.PrivateKey())
  let keys = JWTKeyCollection()
  await keys.add(ecdsa: key, kid: "ec-1")
  let xy = key.parameters!
  let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"ec-1","x":"\#(xy.x)","y":"\#(xy.y)"}]}"#
  return try await makeIDTokenWorkload(alg: "ES256", kid: "ec-1", signer: try await keys.getKey(for: "ec-1"), jwks: jwks)
}

// MARK: - Token responses

/// `count` token-endpoint answers, cycling over five providers' shapes, each with its own values.
func makeTokenResponses() async throws -> Workload {
  func body(_ i: Int) -> (String, Provider) {
    let token = "at." + String(repeating: String(i, radix: 36), count: 4) + ".\(i)"
    switch i % 5 {
    case 0:
      return (
        #"{"refresh_token":"rt.\#(i)","access_token":"\#(token)","id_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln","#
          + #""token_type":"Bearer","expires_in":3600,"user_id":\#(1000 + i),"state":"Qk7x2LmN9pRtVw3aZ8yB","scope":"vkid.personal_info email phone"}"#,
        .vk)
    case 1:
      return (
        #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":1791,"refresh_token":"rt.\#(i)","#
          + #""id_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIyIn0.c2ln"}"#, .tid)
    case 2:
      return (
        #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":"3600","scope":"openid name","#
          + #""id_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIzIn0.c2ln","refresh_token":"rt.\#(i)"}"#, .sber)
    case 3:
      return (
        #"{"access_token":"\#(token)","expires_in":3600,"id_token":"eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJzdWIiOiI0In0.c2ln","#
          + #""refresh_token":"rt.\#(i)","token_type":"Bearer"}"#, .apple)
    default:
      return (
        #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":300,"scope":"openid profile","#
          + #""id_token":"h.p.s","not_before_policy":0,"session_state":"a1b2-\#(i)","x_extra":{"tier":"gold","n":[1,2,3]}}"#,
        .oauth2)
    }
  }
  let bodies = (0..<count).map { i in let (text, provider) = body(i); return (Array(text.utf8), provider) }
  return Workload(items: count) {
    var sum = 0
    for (bytes, provider) in bodies {
      do {
        let tokens = try TokenResponse(json: bytes, provider: provider)
        sum &+= tokens.accessToken.utf8.count &+ Int(tokens.expiresIn ?? 0)
      } catch {
        fatalError("BenchTokens: a fixture token response did not decode: \(error)")
      }
    }
    return sum
  }
}

// MARK: - Run

let workloads: [(String, () async throws -> Workload)] = [
  ("idtoken-rs256", makeRS256),
  ("idtoken-es256", makeES256),
  ("idtoken-unverified", makeUnverified),
  ("token-response", makeTokenResponses),
]

if let only, !workloads.contains(where: { $0.0 == only }) {
  FileHandle.standardError.write(
    Data("BenchTokens: no workload \(only); workloads: \(workloads.map(\.0).joined(separator: ", "))\n".utf8))
  exit(2)
}
for (name, make) in workloads where only == nil || only == name {
  measure(name, try await make())
}
print("checksum=\(checksum)")
