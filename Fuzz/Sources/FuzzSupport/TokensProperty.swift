import Dispatch
import LinkParseOAuth
import LinkParseIDToken
import LinkParseProviders
import LinkParseCore

/// The `tokens` target: id_token decoding and verification, JWKS reading, and token-response JSON.
///
/// Input layout: one mode byte, then the bytes. Bits 0–1 of the mode:
/// - 0: the bytes are a compact JWS (`header.payload.signature`);
/// - 1: the bytes are the claims JSON, wrapped as `b64({"alg":"ES256","kid":"fuzz-ec"}).b64(bytes).` so the
///   JSON reader sees them directly;
/// - 2: the bytes are a JWKS, read by `IDTokenVerifier(jwksJSON:)`;
/// - 3: the bytes are a token endpoint's JSON answer.
/// Every mode also feeds the bytes to `JSONValue.parse`.
///
/// Properties (besides "a typed error or a result, never a crash"):
/// - every `IDTokenError` has a known code and a description that starts with it;
/// - when `UnverifiedIDToken(parsing:)` fails, `IDTokenVerifier.verify` fails too;
/// - when `verify` succeeds (the seeds signed by the fixed JWKS below), the header's `alg` is RS256 or ES256,
///   its `kid` is one of the JWKS's, the claims are the ones the unverified decode sees, and `iss`, `aud`
///   (no other audience, no trusted audiences being configured, unless `azp` is the client), `azp`, `exp` and
///   `nonce` are what was expected, `iat` is no older than `maxIssuedAtAge` (600 s) plus the leeway, and
///   `auth_time` (when present) is not in the future;
/// - a JWKS that reads has at least one key, each RS256 or ES256.
enum TokensProperty {
  /// A fixed JWKS (one P-256 and one RSA-2048 public key; the private halves only made corpus/tokens seeds).
  static let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-ec","x":"STL8hkpdsWz4cRHbwVxxj_TGX98a5VkxQce3G8VQrEA","y":"z5VBevZ7sOfkLkXbao4t_NIznuMM5hbK5bkSTDUze20"},{"kty":"RSA","kid":"fuzz-rsa","alg":"RS256","n":"7piaFE9FGQzmRRx046QnDLYuAUf8LXI6WWL4vu2HBHWl1uZeR8sLjlsfmzt4ImTwkOJOI2N3d_aUEGPrj1eOKvU3omJt9fK5oCJ7b_pcgSM1WTLEhntGeDmmxaYb0zbBEEP-PLMGGzG2UXrEh6IfC5AcHPY6-f1cKc9lsnQAdDUetMfDLvXlY-hydYQYq2CIUVmg4GXGWu-pvGy5e4xjSfGvovgtS_I6n8v3FQl_ZXGbYP5LzhkAaL4RV6ployDaGHRJP0ALKmWquZQbvEbPEcblz0-8sNLSMTliJvdwFvFG-jyMcQC_s6uoiOIFBsB1eTjXR7B5UwHV3LX7foA0xQ","e":"AQAB"}]}"#
  static let now: Int64 = 1_700_000_100
  static let expected = IDTokenVerifier.Expectations.apple(clientID: "com.example.fuzz", nonce: "fuzz-nonce")
  static let verifier: IDTokenVerifier = blocking {
    do {
      return try await IDTokenVerifier(jwksJSON: jwks)
    } catch {
      fatalError("tokens: the fixed JWKS does not read: \(error)")
    }
  }

  static let knownCodes: Set<String> = [
    "malformed", "unsupported-algorithm", "unknown-key", "invalid-signature", "issuer-mismatch",
    "audience-mismatch", "expired", "issued-in-future", "not-yet-valid", "nonce-mismatch", "missing-claim",
    "too-large", "invalid-jwks", "invalid-client-secret", "ambiguous-key", "untrusted-audience",
    "issued-too-long-ago", "authentication-too-old", "authentication-in-future", "code-hash-mismatch",
    "access-token-hash-mismatch",
  ]

  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard let mode = data.first else { return [] }
    let input = UnsafeBufferPointer(rebasing: data[1...])
    var problems = Problems()

    switch mode & 3 {
    case 0: checkToken(String(decoding: input, as: UTF8.self), problems: &problems)
    case 1:
      let header = base64URL(Array(#"{"alg":"ES256","kid":"fuzz-ec"}"#.utf8))
      checkToken(header + "." + base64URL(Array(input)) + ".", problems: &problems)
    case 2:
      let bytes = Array(input)
      let result: Result<[IDTokenVerifier.Key], IDTokenError> = blocking {
        do throws(IDTokenError) {
          return .success(try await IDTokenVerifier(jwksJSON: bytes).keys)
        } catch {
          return .failure(error)
        }
      }
      switch result {
      case .success(let keys): problems.check(!keys.isEmpty, "a JWKS read with no keys")
      case .failure(let error):
        checkError(error, problems: &problems)
        problems.check(error.code == .invalidJWKS, "a JWKS failed with \(error.code), not invalid-jwks")
      }
    default:
      // A token endpoint's answer, as each provider's decoder reads it: a typed error or a result, and a result's
      // id_token goes through the same checks as a bare token.
      for provider in Provider.allCases {
        do throws(OAuthResponseError) {
          let tokens = try TokenResponse(json: input, provider: provider)
          problems.check(!tokens.accessToken.isEmpty, "TokenResponse: an empty access_token accepted")
          problems.check(tokens.expiresIn.map { $0 >= 0 } ?? true, "TokenResponse: a negative expires_in accepted")
          if provider == .oauth2, let idToken = tokens.idToken { checkToken(idToken, problems: &problems) }
        } catch {
          problems.check(!error.message.isEmpty, "TokenResponse: an error without a message")
          problems.check(
            (error.code == .providerError) == (error.providerError != nil),
            "TokenResponse: provider-error and providerError disagree (\(error.code))")
        }
      }
      do throws(OAuthResponseError) {
        _ = try OAuthErrorResponse(json: input)
      } catch {
        problems.check(!error.message.isEmpty, "OAuthErrorResponse: an error without a message")
      }
    }

    do throws(OAuthResponseError) {
      _ = try JSONValue.parse(input)
    } catch {
      problems.check(!error.message.isEmpty, "JSONValue.parse: an error without a message")
    }
    return problems.list
  }

  static func checkToken(_ token: String, problems: inout Problems) {
    let unverified: UnverifiedIDToken?
    do throws(IDTokenError) {
      unverified = try UnverifiedIDToken(parsing: token)
    } catch {
      checkError(error, problems: &problems)
      unverified = nil
    }
    do throws(IDTokenError) {
      let verified = try verifier.verify(token, expecting: expected, now: now)
      problems.check(unverified != nil, "verify accepted what the unverified decode refused: \(show(token))")
      problems.check(
        IDTokenAlgorithm(rawValue: verified.header.algorithm) != nil, "verified with alg \(verified.header.algorithm)")
      problems.check(
        verifier.keys.contains { $0.keyID == verified.header.keyID || verified.header.keyID == nil },
        "verified with an unknown kid")
      if let unverified {
        problems.check(unverified.claims == verified.claims, "verified claims differ from the unverified decode")
        problems.check(unverified.header == verified.header, "verified header differs from the unverified decode")
      }
      let claims = verified.claims
      problems.check(claims.issuer == expected.issuer, "verified with iss \(claims.issuer ?? "nil")")
      problems.check(claims.audience.contains(expected.audience), "verified without the audience")
      problems.check(
        claims.authorizedParty == expected.audience
          || (claims.authorizedParty == nil && claims.audience.allSatisfy { $0 == expected.audience }),
        "verified with an untrusted audience or another azp")
      problems.check((claims.expiresAt ?? .min) > now - expected.leeway.components.seconds, "verified an expired token")
      problems.check(claims.nonce == expected.nonce, "verified with another nonce")
      if let iat = claims.issuedAt, let maxAge = expected.maxIssuedAtAge?.components.seconds {
        // iat is the fuzzer's: compared without subtracting from it, which could overflow.
        problems.check(iat >= now - maxAge - expected.leeway.components.seconds, "verified a token issued at \(iat), too long ago")
      }
      problems.check(
        claims.authTime.map { $0 <= now + expected.leeway.components.seconds } ?? true, "verified an auth_time in the future")
      _ = (claims.apple, claims.profile(for: .vk), claims.profile(for: .sber))
    } catch {
      checkError(error, problems: &problems)
    }
  }

  static func checkError(_ error: IDTokenError, problems: inout Problems) {
    problems.check(knownCodes.contains(error.code.rawValue), "unknown error code \(error.code)")
    problems.check(!error.message.isEmpty, "\(error.code): no message")
    problems.check(error.description.hasPrefix(error.code.rawValue), "description does not start with the code")
    if let offset = error.offset { problems.check(offset >= 0, "negative offset \(offset)") }
  }

  static func base64URL(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var out: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in bytes {
      accumulator = accumulator << 8 | UInt32(byte)
      bits += 8
      while bits >= 6 {
        bits -= 6
        out.append(alphabet[Int(accumulator >> UInt32(bits) & 63)])
      }
      accumulator &= (1 << UInt32(bits)) - 1
    }
    if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(6 - bits) & 63)]) }
    return String(decoding: out, as: UTF8.self)
  }
}

/// Runs async work to completion from synchronous code (libFuzzer's thread is not one of the concurrency
/// pool's, so waiting here cannot starve the task).
private final class ResultBox<T>: @unchecked Sendable {
  var value: T?
}

func blocking<T>(_ body: @escaping @Sendable () async -> T) -> T {
  let box = ResultBox<T>()
  let done = DispatchSemaphore(value: 0)
  Task {
    box.value = await body()
    done.signal()
  }
  done.wait()
  return box.value!
}
