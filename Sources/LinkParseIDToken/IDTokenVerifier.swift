// id_token verification: a JWKS the caller fetched, RS256/ES256 signatures checked by jwt-kit, then the OIDC
// claim checks (iss, aud, exp, iat and its age, nbf, auth_time and max_age, nonce, c_hash, at_hash) with a
// leeway and an injectable clock.
//
// The header is read here first: `alg` must be RS256 or ES256 and the key is picked by `kid` from the JWKS by
// this code, so `none`, HS256 (with the RSA key as an HMAC secret) and unknown kids never reach jwt-kit.
// jwt-kit builds the keys from the JWKS and checks the signatures.
//
// A module of its own (LinkParseIDToken) so that what does not verify tokens — `linkparse`, an app that only
// decodes callbacks — does not link jwt-kit and its certificate stack (3 MB of a static `linkparse`).

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import JWTKit
internal import LinkParseProviders
public import LinkParseOAuth
import LinkParseBytes

/// A signature algorithm ``IDTokenVerifier`` accepts.
///
/// ```swift
/// IDTokenAlgorithm(rawValue: "RS256")   // .rs256
/// IDTokenAlgorithm(rawValue: "none")    // nil
/// ```
public enum IDTokenAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
  /// RSASSA-PKCS1-v1_5 with SHA-256 (Apple, most providers).
  case rs256 = "RS256"
  /// ECDSA on P-256 with SHA-256.
  case es256 = "ES256"
}

/// Verifies id_tokens against a JWKS: the signature (RS256 or ES256, by jwt-kit), then `iss`, `aud`, `exp`,
/// `iat` (and its age), `nbf`, `auth_time` (against `max_age`), `nonce`, `c_hash` and `at_hash`.
///
/// Fetching the JWKS (`https://appleid.apple.com/auth/keys`, a provider's `jwks_uri`) and caching it is the
/// caller's job; make a new verifier when the provider rotates its keys (an ``IDTokenError/Code/unknownKey``
/// is the usual sign). Building one is `async` (jwt-kit's key collection is an actor); verifying is not, and a
/// verifier is `Sendable`, so share one.
///
/// ```swift
/// let verifier = try await IDTokenVerifier(jwksJSON: appleKeysJSON)
/// let token = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: sentNonce))
/// token.claims.subject              // the Apple user id
/// token.claims.apple.emailVerified  // true
/// ```
public struct IDTokenVerifier: Sendable {

  /// Tokens longer than this (64 KiB) are refused with ``IDTokenError/Code/tooLarge`` before any decoding.
  public static let maxTokenBytes = UnverifiedIDToken.maxTokenBytes
  /// JWKS documents longer than this (1 MiB) are refused with ``IDTokenError/Code/invalidJWKS``.
  public static let maxJWKSBytes = 1024 * 1024

  /// A key the verifier holds.
  ///
  /// ```swift
  /// verifier.keys.map(\.keyID)   // ["W6WcOKB", "fh6Bs8C"]
  /// ```
  public struct Key: Sendable, Hashable {
    /// The JWK's `kid`.
    public var keyID: String?
    /// What the key verifies.
    public var algorithm: IDTokenAlgorithm
  }

  struct Entry: Sendable {
    var key: Key
    var signer: any JWTAlgorithm
  }

  private let entries: [Entry]

  /// The usable keys from the JWKS, in its order. Keys of other types (`oct`, `OKP`, P-384, RSA keys marked
  /// for another algorithm, `"use":"enc"`) are skipped.
  public var keys: [Key] { entries.map(\.key) }

  /// Reads a JWKS (`{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}, …]}`) and keeps its RS256 and ES256 keys.
  ///
  /// Throws ``IDTokenError/Code/invalidJWKS`` when the text is not a JSON object with a `keys` array, when a
  /// key holds private parts (`d`), or when no key is usable.
  ///
  /// `kid`s should be distinct (RFC 7517 §4.5). The same key listed twice counts once; keys of different
  /// algorithms may share a `kid` (the RFC's own example), the token's `alg` picks one. Two *different* keys
  /// of one algorithm under one `kid` do not make the set unreadable: the other keys stay usable, and a
  /// token naming that `kid` is refused with ``IDTokenError/Code/ambiguousKey``, whichever key signed it.
  ///
  /// ```swift
  /// let verifier = try await IDTokenVerifier(jwksJSON: Array(body))
  /// ```
  public init(jwksJSON: some Collection<UInt8>) async throws(IDTokenError) {
    guard jwksJSON.count <= Self.maxJWKSBytes else {
      throw IDTokenError(.invalidJWKS, message: "the JWKS is \(jwksJSON.count) bytes, more than \(Self.maxJWKSBytes)")
    }
    let candidates = try Self.usableKeys(Array(jwksJSON))
    let collection = JWTKeyCollection()
    var entries: [Entry] = []
    for (index, candidate) in candidates.enumerated() {
      // Each key is added under its position, so keys without a kid, or sharing one, all stay usable.
      let slot = JWKIdentifier(string: String(index))
      var jwk = candidate.jwk
      jwk.keyIdentifier = slot
      do {
        try await collection.add(jwk: jwk)
        let signer = try await collection.getKey(for: slot, alg: candidate.key.algorithm.rawValue)
        entries.append(Entry(key: candidate.key, signer: signer))
      } catch {
        // A key jwt-kit cannot build (a modulus that is not base64url, a point not on P-256) is skipped.
        continue
      }
    }
    guard !entries.isEmpty else {
      throw IDTokenError(.invalidJWKS, message: "the JWKS has no usable RS256 or ES256 public key")
    }
    self.entries = entries
  }

  /// Reads a JWKS from its JSON text.
  ///
  /// ```swift
  /// let verifier = try await IDTokenVerifier(jwksJSON: #"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","x":"…","y":"…"}]}"#)
  /// ```
  public init(jwksJSON: String) async throws(IDTokenError) {
    try await self.init(jwksJSON: Array(jwksJSON.utf8))
  }

  // MARK: Expectations

  /// What a token must say: issuer, audience (the client id), nonce, the code and access token it came with,
  /// the `max_age` sent, how old its `iat` may be, and the clock leeway.
  ///
  /// ```swift
  /// let expected = IDTokenVerifier.Expectations.apple(clientID: "com.example.web", nonce: nonce)
  /// expected.issuer   // "https://appleid.apple.com"
  /// ```
  public struct Expectations: Sendable, Hashable {
    /// `iss` must equal this exactly.
    public var issuer: String
    /// `aud` must contain this (your client id); an `azp`, when present, must equal it.
    public var audience: String
    /// When set, `nonce` must be present and equal to it; when `nil`, the token must carry no `nonce` (one in
    /// the token means one was sent: the caller has lost it, or the token answers another login).
    public var nonce: String?
    /// The clock skew tolerated for `exp`, `iat` (and its age), `nbf` and `auth_time` (and `max_age`), in whole
    /// seconds (default 60 seconds).
    public var leeway: Duration
    /// Whether `sub` must be present (OpenID Connect requires it; default true).
    public var requiresSubject: Bool
    /// Audiences besides ``audience`` that a token may also name: other clients of yours, or an API the
    /// provider adds (default none). OpenID Connect Core §3.1.3.7 step 3 refuses a token with "additional
    /// audiences not trusted by the Client"; a token whose `aud` names anything else is refused with
    /// ``IDTokenError/Code/untrustedAudience``, unless its `azp` is ``audience``.
    public var trustedAudiences: Set<String>
    /// The authorization code that came with the token (the callback's `code`), to check `c_hash` against
    /// (OpenID Connect Core §3.3.2.11; default `nil`). When set and the token carries `c_hash`, the hash must
    /// match, else ``IDTokenError/Code/codeHashMismatch``. Whether a missing `c_hash` is refused is
    /// ``requiresCodeHash``.
    public var authorizationCode: String?
    /// Whether the token must carry a `c_hash` (default false). Set it for an id_token that came in the
    /// authorization response of the hybrid flow (`response_type=code id_token`, Sign in with Apple's
    /// `form_post` callback): OpenID Connect Core §3.3.2.11 makes `c_hash` REQUIRED there. A token without one
    /// is refused with ``IDTokenError/Code/missingClaim`` (claim `c_hash`); setting this without
    /// ``authorizationCode`` refuses every token with ``IDTokenError/Code/codeHashMismatch``.
    public var requiresCodeHash: Bool
    /// The access token that came with the id_token, to check `at_hash` against (OpenID Connect Core
    /// §3.1.3.8, §3.2.2.9, §3.3.2.11; default `nil`). When set and the token carries `at_hash`, the hash must
    /// match, else ``IDTokenError/Code/accessTokenHashMismatch``. In the code flow (the id_token from the token
    /// endpoint) `at_hash` is OPTIONAL, so leave ``requiresAccessTokenHash`` false there.
    public var accessToken: String?
    /// Whether the token must carry an `at_hash` (default false): set it for an id_token issued beside an
    /// access token in an authorization response (implicit `id_token token`, hybrid `code id_token token`). A
    /// token without one is refused with ``IDTokenError/Code/missingClaim`` (claim `at_hash`); setting this
    /// without ``accessToken`` refuses every token with ``IDTokenError/Code/accessTokenHashMismatch``.
    public var requiresAccessTokenHash: Bool
    /// The `max_age` sent with the authorization request, whole seconds (default `nil`: none was sent). When set,
    /// `auth_time` is required (a JSON number, else ``IDTokenError/Code/missingClaim`` or
    /// ``IDTokenError/Code/malformed``) and `now − auth_time` must be at most `maxAge + leeway`, else
    /// ``IDTokenError/Code/authenticationTooOld`` (OpenID Connect Core §3.1.2.1, §3.1.3.7 step 11). An
    /// `auth_time` after now + leeway is refused whether or not `maxAge` is set
    /// (``IDTokenError/Code/authenticationInFuture``).
    public var maxAge: Duration?
    /// The oldest `iat` accepted, how long before now (plus the leeway); `nil` turns the check off. The
    /// default, 600 seconds, suits tokens verified as they arrive (from the token endpoint or in the
    /// callback), which is what every preset and ``PendingAuthorization/idTokenExpectations(issuer:leeway:)``
    /// are for; set `nil` (or more) to verify a stored token later, for as long as its `exp` allows. An older
    /// token is refused with ``IDTokenError/Code/issuedTooLongAgo`` (OpenID Connect Core §3.1.3.7 step 10).
    public var maxIssuedAtAge: Duration?

    /// The default of ``maxIssuedAtAge``: 600 seconds.
    public static let defaultMaxIssuedAtAge: Duration = .seconds(600)

    /// Creates expectations.
    ///
    /// ```swift
    /// IDTokenVerifier.Expectations(issuer: "https://accounts.example.com", audience: "client-1", nonce: "n-0S6")
    /// IDTokenVerifier.Expectations(issuer: iss, audience: "web-client", nonce: n, trustedAudiences: ["ios-client"])
    /// IDTokenVerifier.Expectations(issuer: iss, audience: "web-client", nonce: n, authorizationCode: code, requiresCodeHash: true)
    /// ```
    public init(
      issuer: String, audience: String, nonce: String?, leeway: Duration = .seconds(60), requiresSubject: Bool = true,
      trustedAudiences: Set<String> = [], authorizationCode: String? = nil, requiresCodeHash: Bool = false,
      accessToken: String? = nil, requiresAccessTokenHash: Bool = false, maxAge: Duration? = nil,
      maxIssuedAtAge: Duration? = Expectations.defaultMaxIssuedAtAge
    ) {
      self.trustedAudiences = trustedAudiences
      self.authorizationCode = authorizationCode
      self.requiresCodeHash = requiresCodeHash
      self.accessToken = accessToken
      self.requiresAccessTokenHash = requiresAccessTokenHash
      self.maxAge = maxAge
      self.maxIssuedAtAge = maxIssuedAtAge
      self.issuer = issuer
      self.audience = audience
      self.nonce = nonce
      self.leeway = leeway
      self.requiresSubject = requiresSubject
    }

    /// Sign in with Apple: issuer `https://appleid.apple.com`, audience your Services ID (web) or bundle id
    /// (native). Apple signs with RS256; keys at `https://appleid.apple.com/auth/keys`.
    ///
    /// ```swift
    /// .apple(clientID: "com.example.web", nonce: sentNonce)
    /// ```
    public static func apple(clientID: String, nonce: String?) -> Expectations {
      Expectations(issuer: "https://appleid.apple.com", audience: clientID, nonce: nonce)
    }

    /// VK ID. **[INF]** The issuer `https://id.vk.ru` is inferred from VK ID's OAuth 2.1 host (providers.md
    /// §2), not from a documented token; pass `issuer:` if VK's tokens say otherwise (e.g. `https://id.vk.com`).
    ///
    /// ```swift
    /// .vk(clientID: "51234567", nonce: nil)
    /// ```
    public static func vk(clientID: String, nonce: String?, issuer: String = "https://id.vk.ru") -> Expectations {
      Expectations(issuer: issuer, audience: clientID, nonce: nonce)
    }

    /// Sber ID. The nonce sent with the authorization request must be checked here (providers.md §1.6). The
    /// issuer has no default: Sber's documented sample uses a placeholder issuer, so take it from your Sber
    /// ID onboarding material. Note that Sber's sample token is signed with GOST (`gost34.10-2012`), which
    /// this verifier refuses as ``IDTokenError/Code/unsupportedAlgorithm``.
    ///
    /// ```swift
    /// .sber(clientID: "5e7ee80a-…", nonce: sentNonce, issuer: sberIssuer)
    /// ```
    public static func sber(clientID: String, nonce: String?, issuer: String) -> Expectations {
      Expectations(issuer: issuer, audience: clientID, nonce: nonce)
    }

    /// T-ID (T-Bank, formerly Tinkoff ID). **[INF]** The default issuer `https://id.tbank.ru` is the T-ID
    /// authorization host; check it against T-ID's discovery document.
    ///
    /// ```swift
    /// .tid(clientID: "tid_partner", nonce: nil)
    /// ```
    public static func tid(clientID: String, nonce: String?, issuer: String = "https://id.tbank.ru") -> Expectations {
      Expectations(issuer: issuer, audience: clientID, nonce: nonce)
    }

    /// Any OpenID Connect provider: its `issuer` from the discovery document.
    ///
    /// ```swift
    /// .generic(issuer: "https://accounts.google.com", clientID: "123.apps.googleusercontent.com", nonce: n)
    /// ```
    public static func generic(issuer: String, clientID: String, nonce: String?) -> Expectations {
      Expectations(issuer: issuer, audience: clientID, nonce: nonce)
    }
  }

  // MARK: Verifying

  /// Seconds since 1970, now.
  ///
  /// ```swift
  /// IDTokenVerifier.currentUnixTime   // 1764000000
  /// ```
  public static var currentUnixTime: Int64 { Int64(Date().timeIntervalSince1970) }

  /// Verifies `token`'s signature and claims against `expected`.
  ///
  /// In order: size (64 KiB), the three base64url parts, the header (`alg` RS256/ES256 and no `crit`, else
  /// ``IDTokenError/Code/unsupportedAlgorithm``), the key (by `kid`; without a `kid`, the only key for that
  /// `alg`; a `kid` shared by two different keys of that `alg` is ``IDTokenError/Code/ambiguousKey``), the
  /// signature, then the claims:
  /// - `iss` exactly;
  /// - `aud` and `azp`, as OpenID Connect Core §3.1.3.7 steps 3–5 say: `aud` (a string or an array of
  ///   strings) must contain the audience (else ``IDTokenError/Code/audienceMismatch``); an `azp`, when
  ///   present, must be the audience (else `audience-mismatch` for claim `azp`); every other audience must be
  ///   in ``Expectations/trustedAudiences`` (else ``IDTokenError/Code/untrustedAudience``) **unless `azp` is
  ///   present and equals the audience**: the provider then names the client as the party the token was
  ///   issued to, and the other audiences are the ones it is meant to be shown to. Without `azp`, nothing
  ///   says who the token was issued to, so an unknown extra audience is refused;
  /// - `exp` > now − leeway, `iat` ≤ now + leeway, `nbf` ≤ now + leeway, each a JSON number (RFC 7519 §2's
  ///   NumericDate: `"exp":"1700000000"`, a string, is ``IDTokenError/Code/malformed``, as is a string
  ///   `auth_time`);
  /// - `iat` no older than ``Expectations/maxIssuedAtAge`` (600 s by default) + leeway
  ///   (``IDTokenError/Code/issuedTooLongAgo``);
  /// - `auth_time`, when present, ≤ now + leeway (``IDTokenError/Code/authenticationInFuture``); when
  ///   ``Expectations/maxAge`` is set, required and no older than `maxAge` + leeway
  ///   (``IDTokenError/Code/authenticationTooOld``);
  /// - `nonce` equal when one is expected, absent when none is (``IDTokenError/Code/nonceMismatch``);
  /// - `sub` present;
  /// - `c_hash` and `at_hash`, when present, strings; checked (constant time) against
  ///   ``Expectations/authorizationCode`` and ``Expectations/accessToken`` when those are given, and required
  ///   when ``Expectations/requiresCodeHash`` / ``Expectations/requiresAccessTokenHash`` say so
  ///   (``IDTokenError/Code/codeHashMismatch``, ``IDTokenError/Code/accessTokenHashMismatch``).
  ///
  /// ```swift
  /// let token = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
  /// ```
  public func verify(
    _ token: some StringProtocol, expecting expected: Expectations, now: Int64 = IDTokenVerifier.currentUnixTime
  ) throws(IDTokenError) -> VerifiedIDToken {
    let jws = try CompactJWS(token)
    guard let algorithm = IDTokenAlgorithm(rawValue: jws.header.algorithm) else {
      let shown = String(jws.header.algorithm.prefix(20))
      throw IDTokenError(
        .unsupportedAlgorithm, part: .header, claim: "alg",
        message: "alg \"\(shown)\" is not accepted; only RS256 and ES256 are")
    }
    // RFC 7515 §4.1.11: a recipient must refuse critical extensions it does not implement (none are).
    if jws.header.all["crit"] != nil {
      throw IDTokenError(
        .unsupportedAlgorithm, part: .header, claim: "crit",
        message: "the header lists critical extensions (crit); this verifier implements none")
    }
    let candidates = try keys(for: jws.header.keyID, algorithm: algorithm)
    var verified = false
    for entry in candidates {
      // jwt-kit throws for a signature of the wrong shape (an ES256 signature that is not 64 bytes): that is
      // a signature that does not verify.
      if (try? entry.signer.verify(jws.signature, signs: jws.signingInput)) == true {
        verified = true
        break
      }
    }
    guard verified else {
      throw IDTokenError(.invalidSignature, part: .signature, message: "the \(algorithm.rawValue) signature does not verify")
    }
    let claims = try jws.claims()
    try Self.check(claims, expected, now: now)
    try Self.checkHashes(claims, expected, algorithm: algorithm)
    return VerifiedIDToken(header: jws.header, claims: claims)
  }

  /// Verifies `token` against an issuer, an audience and an optional nonce.
  ///
  /// ```swift
  /// let token = try verifier.verify(idToken, issuer: "https://appleid.apple.com", audience: "com.example.web", nonce: nil)
  /// ```
  public func verify(
    _ token: some StringProtocol, issuer: String, audience: String, nonce: String?,
    now: Int64 = IDTokenVerifier.currentUnixTime, leeway: Duration = .seconds(60)
  ) throws(IDTokenError) -> VerifiedIDToken {
    try verify(token, expecting: Expectations(issuer: issuer, audience: audience, nonce: nonce, leeway: leeway), now: now)
  }

  /// Decodes a token **without verifying anything**: the same as ``UnverifiedIDToken/init(parsing:)``.
  ///
  /// - Warning: The result is whatever the sender wrote. Never sign a user in with it.
  ///
  /// ```swift
  /// let unverified = try IDTokenVerifier.decodeUnverified(idToken)
  /// unverified.header.keyID
  /// ```
  public static func decodeUnverified(_ token: some StringProtocol) throws(IDTokenError) -> UnverifiedIDToken {
    try UnverifiedIDToken(parsing: token)
  }

  // MARK: Internals

  private func keys(for keyID: String?, algorithm: IDTokenAlgorithm) throws(IDTokenError) -> [Entry] {
    if let keyID {
      let named = entries.filter { $0.key.keyID == keyID }
      guard !named.isEmpty else {
        throw IDTokenError(
          .unknownKey, part: .header, claim: "kid",
          message: "no key in the JWKS has kid \"\(keyID.prefix(64))\" (refetch the JWKS if the provider rotated its keys)")
      }
      let fitting = named.filter { $0.key.algorithm == algorithm }
      guard !fitting.isEmpty else {
        throw IDTokenError(
          .unknownKey, part: .header, claim: "kid",
          message: "the key \"\(keyID.prefix(64))\" is for \(named[0].key.algorithm.rawValue), the token says \(algorithm.rawValue)")
      }
      // Identical keys were merged when the JWKS was read, so two entries are two different keys.
      guard fitting.count == 1 else {
        throw IDTokenError(
          .ambiguousKey, part: .header, claim: "kid",
          message: "the JWKS has \(fitting.count) different \(algorithm.rawValue) keys with kid \"\(keyID.prefix(64))\" "
            + "(RFC 7517 §4.5); tokens naming it are refused until the provider's JWKS names its keys apart")
      }
      return fitting
    }
    let fitting = entries.filter { $0.key.algorithm == algorithm }
    guard fitting.count == 1 else {
      throw IDTokenError(
        .unknownKey, part: .header, claim: "kid",
        message: "the token has no kid and the JWKS has \(fitting.count) \(algorithm.rawValue) keys (one is needed)")
    }
    return fitting
  }

  static func check(_ claims: IDTokenClaims, _ expected: Expectations, now: Int64) throws(IDTokenError) {
    // iss
    switch claims["iss"] {
    case nil: throw IDTokenError(.missingClaim, part: .payload, claim: "iss", message: "the token has no iss")
    case .string(let issuer):
      guard issuer == expected.issuer else {
        throw IDTokenError(
          .issuerMismatch, part: .payload, claim: "iss",
          message: "iss is \"\(issuer.prefix(100))\", expected \"\(expected.issuer)\"")
      }
    default: throw IDTokenError(.malformed, part: .payload, claim: "iss", message: "iss is not a string")
    }
    // aud
    let audiences: [String]
    switch claims["aud"] {
    case nil: throw IDTokenError(.missingClaim, part: .payload, claim: "aud", message: "the token has no aud")
    case .string(let single): audiences = [single]
    case .array(let items):
      var strings: [String] = []
      for item in items {
        guard case .string(let s) = item else {
          throw IDTokenError(.malformed, part: .payload, claim: "aud", message: "aud holds something other than strings")
        }
        strings.append(s)
      }
      audiences = strings
    default: throw IDTokenError(.malformed, part: .payload, claim: "aud", message: "aud is neither a string nor an array")
    }
    guard audiences.contains(expected.audience) else {
      throw IDTokenError(
        .audienceMismatch, part: .payload, claim: "aud",
        message: "aud (\(audiences.count) value\(audiences.count == 1 ? "" : "s")) does not contain \"\(expected.audience)\"")
    }
    // azp: when present, the client (step 5); when it is, the other audiences are accepted (steps 3–4 as
    // verify's documentation reads them), else each must be trusted.
    var issuedToClient = false
    switch claims["azp"] {
    case nil: break
    case .string(let azp):
      guard azp == expected.audience else {
        throw IDTokenError(
          .audienceMismatch, part: .payload, claim: "azp",
          message: "azp is \"\(azp.prefix(100))\": the token was issued to another client than \"\(expected.audience)\"")
      }
      issuedToClient = true
    default: throw IDTokenError(.malformed, part: .payload, claim: "azp", message: "azp is not a string")
    }
    if !issuedToClient,
      let untrusted = audiences.first(where: { $0 != expected.audience && !expected.trustedAudiences.contains($0) })
    {
      throw IDTokenError(
        .untrustedAudience, part: .payload, claim: "aud",
        message: "aud also names \"\(untrusted.prefix(100))\", which is not a trusted audience, and the token has no "
          + "azp naming \"\(expected.audience)\" (add it to trustedAudiences if it is yours)")
    }
    // exp, iat, nbf
    let exp = try time("exp", claims, required: true)!
    let leeway = expected.leeway.wholeSeconds
    guard now < exp.addingSaturating(leeway) else {
      throw IDTokenError(
        .expired, part: .payload, claim: "exp",
        message: "the token expired at \(exp), \(now.subtractingSaturating(exp)) s before now (leeway \(leeway) s)")
    }
    let iat = try time("iat", claims, required: true)!
    try notInFuture("iat", iat, now: now, leeway: leeway, else: .issuedInFuture)
    if let nbf = try time("nbf", claims, required: false) {
      try notInFuture("nbf", nbf, now: now, leeway: leeway, else: .notYetValid)
    }
    // iat's age (§3.1.3.7 step 10), when bounded.
    if let maxIssuedAtAge = expected.maxIssuedAtAge?.wholeSeconds {
      let bound = maxIssuedAtAge.addingSaturating(leeway)
      guard now.subtractingSaturating(iat) <= bound else {
        throw IDTokenError(
          .issuedTooLongAgo, part: .payload, claim: "iat",
          message: "iat is \(iat), \(now.subtractingSaturating(iat)) s before now, more than maxIssuedAtAge "
            + "\(maxIssuedAtAge) s plus leeway \(leeway) s (raise or clear maxIssuedAtAge to verify older tokens)")
      }
    }
    // auth_time: a JSON number when present, not in the future; required and recent enough when max_age was sent
    // (§3.1.2.1, §3.1.3.7 step 11).
    if expected.maxAge != nil && claims["auth_time"] == nil {
      throw IDTokenError(
        .missingClaim, part: .payload, claim: "auth_time",
        message: "the token has no auth_time, which is required when max_age is sent (OpenID Connect Core §3.1.2.1)")
    }
    if let authTime = try time("auth_time", claims, required: false) {
      try notInFuture("auth_time", authTime, now: now, leeway: leeway, else: .authenticationInFuture)
      if let maxAge = expected.maxAge?.wholeSeconds {
        let age = now.subtractingSaturating(authTime)
        guard age <= maxAge.addingSaturating(leeway) else {
          throw IDTokenError(
            .authenticationTooOld, part: .payload, claim: "auth_time",
            message: "the user authenticated \(age) s ago, more than the max_age \(maxAge) s sent plus leeway "
              + "\(leeway) s: the provider did not make the user sign in again")
        }
      }
    }
    // nonce: equal to the one sent, and absent when none was.
    switch (expected.nonce, claims["nonce"]) {
    case (nil, nil): break
    case (nil, _?):
      throw IDTokenError(
        .nonceMismatch, part: .payload, claim: "nonce",
        message: "the token carries a nonce but no nonce was sent (pass the authorization request's nonce)")
    case (_?, nil):
      throw IDTokenError(.missingClaim, part: .payload, claim: "nonce", message: "a nonce was expected but the token has none")
    case (let nonce?, .string(let actual)?):
      guard constantTimeEquals(actual, nonce) else {
        throw IDTokenError(.nonceMismatch, part: .payload, claim: "nonce", message: "nonce is not the one sent")
      }
    case (_?, _?): throw IDTokenError(.malformed, part: .payload, claim: "nonce", message: "nonce is not a string")
    }
    // sub
    if expected.requiresSubject {
      switch claims["sub"] {
      case .string(let s) where !s.isEmpty: break
      case nil, .string: throw IDTokenError(.missingClaim, part: .payload, claim: "sub", message: "the token has no sub")
      default: throw IDTokenError(.malformed, part: .payload, claim: "sub", message: "sub is not a string")
      }
    }
  }

  /// Throws `code` when `time`, the claim `name`, is after now + leeway.
  private static func notInFuture(
    _ name: String, _ time: Int64, now: Int64, leeway: Int64, else code: IDTokenError.Code
  ) throws(IDTokenError) {
    guard time <= now.addingSaturating(leeway) else {
      throw IDTokenError(
        code, part: .payload, claim: name,
        message: "\(name) is \(time), \(time.subtractingSaturating(now)) s after now (leeway \(leeway) s)")
    }
  }

  private static func time(_ name: String, _ claims: IDTokenClaims, required: Bool) throws(IDTokenError) -> Int64? {
    guard let value = claims[name] else {
      if required { throw IDTokenError(.missingClaim, part: .payload, claim: name, message: "the token has no \(name)") }
      return nil
    }
    guard let seconds = IDTokenClaims.numericDate(value) else {
      let found = if case .string = value { "a string" } else { "not a whole number of seconds" }
      throw IDTokenError(
        .malformed, part: .payload, claim: name,
        message: "\(name) is \(found); a NumericDate is a JSON number of seconds (RFC 7519 §2)")
    }
    return seconds
  }

  // MARK: JWKS

  private struct Candidate {
    var key: Key
    var jwk: JWK
    /// The public key's members (`n`, `e` or `x`, `y`): equal for the same key listed twice.
    var material: [String]

    struct Identity: Hashable {
      var key: Key
      var material: [String]
    }
    var identity: Identity { Identity(key: key, material: material) }
  }

  private static func usableKeys(_ bytes: [UInt8]) throws(IDTokenError) -> [Candidate] {
    let document: JSONValue
    switch TokenJSON.parse(bytes) {
    case .success(let value): document = value
    case .failure(let failure):
      throw IDTokenError(.invalidJWKS, offset: failure.offset, message: "the JWKS is not JSON: \(failure.message)")
    }
    guard case .array(let items)? = document["keys"] else {
      throw IDTokenError(.invalidJWKS, message: "the JWKS is not an object with a \"keys\" array")
    }
    var candidates: [Candidate] = []
    var seen: Set<Candidate.Identity> = []
    for item in items {
      guard case .object = item else { continue }
      for secret in ["d", "p", "q", "k"] where item[secret] != nil {
        throw IDTokenError(
          .invalidJWKS, claim: secret, message: "a JWKS key holds private material (\"\(secret)\"); publish public keys only")
      }
      if let use = item["use"], use.string != "sig" { continue }
      let keyID = item["kid"]?.string
      let declared = item["alg"]?.string
      let candidate: Candidate
      switch item["kty"]?.string {
      case "RSA":
        guard declared == nil || declared == "RS256", let n = item["n"]?.string, let e = item["e"]?.string else { continue }
        candidate = Candidate(
          key: Key(keyID: keyID, algorithm: .rs256),
          jwk: .rsa(.rs256, identifier: nil, modulus: n, exponent: e), material: [n, e])
      case "EC":
        guard declared == nil || declared == "ES256", item["crv"]?.string == "P-256",
          let x = item["x"]?.string, let y = item["y"]?.string
        else { continue }
        candidate = Candidate(
          key: Key(keyID: keyID, algorithm: .es256),
          jwk: .ecdsa(.es256, identifier: nil, x: x, y: y, curve: .p256), material: [x, y])
      default: continue
      }
      // The same key listed twice under one kid is one key; two different ones are both kept, and make their
      // kid ambiguous (see keys(for:algorithm:)).
      if seen.insert(candidate.identity).inserted { candidates.append(candidate) }
    }
    return candidates
  }
}

extension Int64 {
  fileprivate func addingSaturating(_ other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }

  fileprivate func subtractingSaturating(_ other: Int64) -> Int64 {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? (other > 0 ? .min : .max) : difference
  }
}
