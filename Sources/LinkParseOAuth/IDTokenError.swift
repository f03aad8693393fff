// Why an id_token (or a JWKS, or an Apple client_secret) was refused: one struct with a stable code, the part of
// the token concerned, a byte offset where one applies, and a sentence. Never contains the token itself.

/// Why an id_token was not verified (or decoded), or why a JWKS or Apple `client_secret` could not be made.
///
/// ``code`` is stable and kebab-case; ``part`` and ``offset`` say where in the token the problem is (for
/// ``Code/malformed``: the byte offset inside the decoded header or payload JSON, or inside the base64url
/// text of that part); ``claim`` names the claim concerned. The message never quotes the token or a secret.
///
/// ```swift
/// do {
///   let token = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
///   print(token.claims.subject ?? "-")
/// } catch {
///   print(error.code, error.message)   // expired: the token expired at 1700000000, 120 s before now (leeway 60 s)
/// }
/// ```
public struct IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {

  /// A stable, machine-readable code. New codes may be added; existing ones never change meaning.
  ///
  /// ```swift
  /// error.code == .expired       // true
  /// error.code.rawValue          // "expired"
  /// ```
  public struct Code: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kebab-case spelling.
    public let rawValue: String
    init(_ rawValue: String) { self.rawValue = rawValue }
    /// The kebab-case spelling.
    public var description: String { rawValue }

    /// Not three base64url parts, invalid base64url, JSON that is not valid or not an object, a claim of the
    /// wrong type (`exp`, `iat`, `nbf` or `auth_time` that is not a JSON number, `azp`, `c_hash` or `at_hash`
    /// not a string, …). ``IDTokenError/part`` and ``IDTokenError/offset`` say where.
    public static let malformed = Code("malformed")
    /// The header's `alg` is not one this verifier accepts (`RS256`, `ES256`): `none`, `HS256`, … are refused;
    /// so is a header with `crit` (critical extensions, none of which is implemented).
    public static let unsupportedAlgorithm = Code("unsupported-algorithm")
    /// No key in the JWKS has the token's `kid` (or none fits its `alg`).
    public static let unknownKey = Code("unknown-key")
    /// The token's `kid` names two different keys of its `alg` in the JWKS (RFC 7517 §4.5 wants distinct
    /// `kid`s), so which key should verify it is not known; the token is refused whichever key signed it.
    public static let ambiguousKey = Code("ambiguous-key")
    /// The signature does not verify with the key.
    public static let invalidSignature = Code("invalid-signature")
    /// `iss` is not the expected issuer (exact string comparison).
    public static let issuerMismatch = Code("issuer-mismatch")
    /// `aud` does not contain the expected client id, or `azp` names another client.
    public static let audienceMismatch = Code("audience-mismatch")
    /// `aud` contains the client id and another audience that is not in
    /// `IDTokenVerifier.Expectations.trustedAudiences`, and no `azp` names the client.
    public static let untrustedAudience = Code("untrusted-audience")
    /// `exp` is in the past, beyond the leeway.
    public static let expired = Code("expired")
    /// `iat` is in the future, beyond the leeway.
    public static let issuedInFuture = Code("issued-in-future")
    /// `nbf` is in the future, beyond the leeway.
    public static let notYetValid = Code("not-yet-valid")
    /// `iat` is older than `IDTokenVerifier.Expectations.maxIssuedAtAge` (600 s by default) plus the
    /// leeway: a token issued long ago, replayed or verified too late.
    public static let issuedTooLongAgo = Code("issued-too-long-ago")
    /// `auth_time` is older than the `max_age` sent (`IDTokenVerifier.Expectations.maxAge`) plus the leeway:
    /// the provider did not make the user authenticate again as asked.
    public static let authenticationTooOld = Code("authentication-too-old")
    /// `auth_time` is in the future, beyond the leeway.
    public static let authenticationInFuture = Code("authentication-in-future")
    /// `c_hash` is not the hash of the authorization code given in
    /// `IDTokenVerifier.Expectations.authorizationCode` (the token was issued with another code), or a
    /// `c_hash` is required and no code was given to check it against.
    public static let codeHashMismatch = Code("code-hash-mismatch")
    /// `at_hash` is not the hash of the access token given in `IDTokenVerifier.Expectations.accessToken`
    /// (the token was issued with another access token), or an `at_hash` is required and no access token was
    /// given to check it against.
    public static let accessTokenHashMismatch = Code("access-token-hash-mismatch")
    /// `nonce` is not the nonce sent with the authorization request, or the token carries one and none was
    /// expected.
    public static let nonceMismatch = Code("nonce-mismatch")
    /// A claim the check needs is absent (`iss`, `sub`, `aud`, `exp`, `iat`; `nonce` when one is expected;
    /// `auth_time` when a `max_age` was sent; `c_hash` or `at_hash` when required).
    public static let missingClaim = Code("missing-claim")
    /// The token is larger than ``UnverifiedIDToken/maxTokenBytes``; nothing was decoded.
    public static let tooLarge = Code("too-large")
    /// The JWKS is not a JSON object with a `keys` array holding at least one usable RS256 or ES256 key, or
    /// holds a private key.
    public static let invalidJWKS = Code("invalid-jwks")
    /// An Apple `client_secret` could not be made (bad PEM, lifetime out of range).
    public static let invalidClientSecret = Code("invalid-client-secret")
  }

  /// The part of a compact JWS a problem is in.
  ///
  /// ```swift
  /// error.part   // .payload
  /// ```
  public enum Part: String, Sendable, Hashable, Codable {
    /// The first part (`{"alg":…,"kid":…}`).
    case header
    /// The second part (the claims).
    case payload
    /// The third part.
    case signature
    /// The token as a whole (its length, its dots).
    case token
  }

  /// What went wrong.
  public var code: Code
  /// The part of the token concerned, when there is one.
  public var part: Part?
  /// The byte offset inside that part's decoded JSON (or its base64url text, for base64url errors).
  public var offset: Int?
  /// The claim (or header field) concerned, when there is one.
  public var claim: String?
  /// A sentence for a log line or a developer; never contains the token.
  public var message: String

  /// Creates an error.
  ///
  /// ```swift
  /// IDTokenError(.missingClaim, claim: "nonce", message: "a nonce was expected but the token has none")
  /// ```
  public init(_ code: Code, part: Part? = nil, offset: Int? = nil, claim: String? = nil, message: String) {
    self.code = code
    self.part = part
    self.offset = offset
    self.claim = claim
    self.message = message
  }

  /// `code (part at byte N, claim c): message`.
  ///
  /// ```swift
  /// "\(error)"   // malformed (payload at byte 17): expected ':' after an object key
  /// ```
  public var description: String {
    var details: [String] = []
    if let part {
      details.append(offset.map { "\(part.rawValue) at byte \($0)" } ?? part.rawValue)
    } else if let offset {
      details.append("at byte \(offset)")
    }
    if let claim { details.append("claim \(claim)") }
    return code.rawValue + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")") + ": " + message
  }
}
