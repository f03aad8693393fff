// c_hash and at_hash (OpenID Connect Core §3.3.2.11, §3.1.3.8, §3.2.2.9): the left-most half of the hash of the
// code's or access token's ASCII octets, by the hash of the token's JOSE `alg`, base64url without padding. The
// id_token's signature covers the hash, so a matching one binds the code or access token to the id_token.

internal import Crypto
internal import LinkParseProviders
import LinkParseOAuth
import LinkParseBytes

extension IDTokenVerifier {

  /// The left-most half of the hash of `value`'s octets, with the hash `algorithm` uses (SHA-256 for RS256 and
  /// ES256), base64url without padding: what `c_hash` and `at_hash` hold.
  static func leftHalfHash(_ value: String, algorithm: IDTokenAlgorithm) -> String {
    let digest: [UInt8]
    switch algorithm {
    case .rs256, .es256: digest = Array(SHA256.hash(data: Array(value.utf8)))
    }
    return Base64URL.encode(digest.prefix(digest.count / 2))
  }

  /// Checks `c_hash` against ``Expectations/authorizationCode`` and `at_hash` against
  /// ``Expectations/accessToken``: see those for the rules.
  static func checkHashes(_ claims: IDTokenClaims, _ expected: Expectations, algorithm: IDTokenAlgorithm)
    throws(IDTokenError)
  {
    try checkHash(
      "c_hash", of: expected.authorizationCode, required: expected.requiresCodeHash, claims, algorithm,
      mismatch: .codeHashMismatch, what: "authorization code", field: "authorizationCode")
    try checkHash(
      "at_hash", of: expected.accessToken, required: expected.requiresAccessTokenHash, claims, algorithm,
      mismatch: .accessTokenHashMismatch, what: "access token", field: "accessToken")
  }

  private static func checkHash(
    _ name: String, of value: String?, required: Bool, _ claims: IDTokenClaims, _ algorithm: IDTokenAlgorithm,
    mismatch: IDTokenError.Code, what: String, field: String
  ) throws(IDTokenError) {
    let hash: String?
    switch claims[name] {
    case nil: hash = nil
    case .string(let s): hash = s
    default: throw IDTokenError(.malformed, part: .payload, claim: name, message: "\(name) is not a string")
    }
    if required && value == nil {
      throw IDTokenError(
        mismatch, part: .payload, claim: name,
        message: "\(name) is required but no \(what) was given to check it against (set Expectations.\(field))")
    }
    guard let hash else {
      if required {
        throw IDTokenError(
          .missingClaim, part: .payload, claim: name,
          message: "the token has no \(name), which is required for an id_token that comes with an \(what) in "
            + "the authorization response (OpenID Connect Core §3.3.2.11)")
      }
      return
    }
    guard let value else { return }
    guard constantTimeEquals(hash, leftHalfHash(value, algorithm: algorithm)) else {
      throw IDTokenError(
        mismatch, part: .payload, claim: name,
        message: "\(name) is not the \(algorithm.rawValue) hash of the \(what) given: the id_token was issued with "
          + "another \(what) (pass the one that came with this id_token)")
    }
  }
}
