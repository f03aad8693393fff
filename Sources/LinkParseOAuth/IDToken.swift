// An id_token's header and claims as typed values: what IDTokenVerifier returns after checking the signature
// and the claims (VerifiedIDToken), and what UnverifiedIDToken returns without checking anything.

public import LinkParseProviders
import LinkParseBytes
public import LinkParseCore

/// The JOSE header of an id_token: the algorithm and key id the verifier chose the key by.
///
/// ```swift
/// token.header.algorithm   // "RS256"
/// token.header.keyID       // "W6WcOKB"
/// ```
public struct IDTokenHeader: Sendable, Hashable {
  /// `alg`, as written (`RS256`, `ES256`; an unverified token may say anything, `none` included).
  public var algorithm: String
  /// `kid`, when present.
  public var keyID: String?
  /// `typ`, when present (`JWT`).
  public var type: String?
  /// The whole header, for fields not named above.
  public var all: JSONValue

  /// Creates a header.
  ///
  /// ```swift
  /// IDTokenHeader(algorithm: "ES256", keyID: "k1", all: .object([("alg", .string("ES256"))]))
  /// ```
  public init(algorithm: String, keyID: String? = nil, type: String? = nil, all: JSONValue = .object([])) {
    self.algorithm = algorithm
    self.keyID = keyID
    self.type = type
    self.all = all
  }
}

/// The claims of an id_token, typed where OpenID Connect and the providers name them, and all of them as
/// ``JSONValue`` in ``all``.
///
/// Times (`exp`, `iat`, `nbf`, `auth_time`) are NumericDates, JSON numbers (RFC 7519 §2): `"exp": 1700000000`
/// reads as `1700000000`, `"exp": "1700000000"` as `nil`, the same rule the verifier applies. Other numbers are
/// tolerant (Apple's `real_user_status` as `2` or `"2"`), as are Booleans (`true` and `"true"`). A claim of the
/// wrong type reads as `nil` here; the verifier refuses a token whose `exp`, `iat`, `nbf`, `auth_time`,
/// `iss`, `aud`, `azp`, `nonce`, `c_hash` or `at_hash` has the wrong type.
///
/// ```swift
/// let claims = token.claims
/// claims.subject          // "001234.abcd…"
/// claims.audience         // ["com.example.web"]
/// claims.emailVerified    // true
/// claims.all["custom"]    // anything else the provider sent
/// ```
public struct IDTokenClaims: Sendable, Hashable {
  /// All claims, in document order.
  public var all: JSONValue

  /// Wraps a claims object.
  ///
  /// ```swift
  /// IDTokenClaims(.object([("sub", .string("42"))])).subject   // "42"
  /// ```
  public init(_ all: JSONValue) { self.all = all }

  /// The claim `name`, as JSON.
  ///
  /// ```swift
  /// claims["acr"]?.string
  /// ```
  public subscript(name: String) -> JSONValue? { all[name] }

  // MARK: Standard claims (RFC 7519, OpenID Connect Core §2)

  /// `iss`.
  public var issuer: String? { all["iss"]?.string }
  /// `sub`.
  public var subject: String? { all["sub"]?.string }
  /// `aud`: a single string becomes a one-element array; anything else (or no `aud`) is `[]`.
  public var audience: [String] {
    switch all["aud"] {
    case .string(let s): return [s]
    case .array(let items): return items.compactMap(\.string)
    default: return []
    }
  }
  /// `azp` (authorized party).
  public var authorizedParty: String? { all["azp"]?.string }
  /// `exp`, seconds since 1970.
  public var expiresAt: Int64? { all["exp"].flatMap(Self.numericDate) }
  /// `iat`, seconds since 1970.
  public var issuedAt: Int64? { all["iat"].flatMap(Self.numericDate) }
  /// `nbf`, seconds since 1970.
  public var notBefore: Int64? { all["nbf"].flatMap(Self.numericDate) }
  /// `auth_time`, seconds since 1970.
  public var authTime: Int64? { all["auth_time"].flatMap(Self.numericDate) }
  /// `nonce`.
  public var nonce: String? { all["nonce"]?.string }
  /// `at_hash`.
  public var accessTokenHash: String? { all["at_hash"]?.string }
  /// `c_hash`.
  public var codeHash: String? { all["c_hash"]?.string }
  /// `jti`.
  public var tokenID: String? { all["jti"]?.string }

  // MARK: Profile claims (OpenID Connect Core §5.1)

  /// `email`.
  public var email: String? { all["email"]?.string }
  /// `email_verified`, from `true`/`false` or `"true"`/`"false"`.
  public var emailVerified: Bool? { all["email_verified"]?.boolean }
  /// `phone_number`.
  public var phoneNumber: String? { all["phone_number"]?.string }
  /// `phone_number_verified`, from a Boolean or its string.
  public var phoneNumberVerified: Bool? { all["phone_number_verified"]?.boolean }
  /// `name`.
  public var name: String? { all["name"]?.string }
  /// `given_name`.
  public var givenName: String? { all["given_name"]?.string }
  /// `family_name`.
  public var familyName: String? { all["family_name"]?.string }

  // MARK: Provider views

  /// Sign in with Apple's claims (`is_private_email`, `real_user_status`, …) as LinkParseProviders' one type
  /// for them, read from these claims with this type's rules (`UnverifiedAppleIDTokenClaims.init(_:)`).
  ///
  /// The type's name says what it is as the callback carries it; read from a ``VerifiedIDToken``'s claims,
  /// these values come from a token whose signature and claims `IDTokenVerifier` (LinkParseIDToken) checked.
  ///
  /// ```swift
  /// let token = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
  /// token.claims.apple.isPrivateEmail        // true: from the verified token
  /// token.claims.apple.realUserStatusValue   // .likelyReal
  /// ```
  public var apple: UnverifiedAppleIDTokenClaims { UnverifiedAppleIDTokenClaims(self) }

  /// The subject, phone and names as VK ID, Sber ID or T-ID name them.
  ///
  /// ```swift
  /// token.claims.profile(for: .vk).phoneNumber
  /// ```
  public func profile(for provider: Provider) -> ProviderProfileClaims { ProviderProfileClaims(self, provider: provider) }

  /// A NumericDate (RFC 7519 §2): a JSON number, never a string; a fraction is truncated
  /// (`1700000000.5` → 1700000000); exponents and overflow give `nil`. The verifier's `exp`, `iat`, `nbf` and
  /// `auth_time` checks and the accessors above all read times through this.
  package static func numericDate(_ value: JSONValue) -> Int64? {
    guard case .number(let text) = value else { return nil }
    if let whole = value.integer { return whole }
    guard let dot = text.firstIndex(of: ".") else { return nil }
    let fraction = text[text.index(after: dot)...]
    guard fraction.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return JSONValue.number(String(text[..<dot])).integer
  }
}

extension UnverifiedAppleIDTokenClaims {
  /// Apple's claims read from a token's claims, with ``IDTokenClaims``' rules: times are NumericDates (JSON
  /// numbers), `email_verified`, `is_private_email` and `nonce_supported` are `true`/`false` or
  /// `"true"`/`"false"`, `real_user_status` is a whole number or a string of digits; a claim of another type
  /// reads as `nil`. From a ``VerifiedIDToken``'s claims, every value is from the verified token.
  ///
  /// ```swift
  /// let apple = UnverifiedAppleIDTokenClaims(verified.claims)   // the same as verified.claims.apple
  /// apple.emailVerified        // true (from "true" or true)
  /// apple.realUserStatusValue  // .likelyReal
  /// ```
  public init(_ claims: IDTokenClaims) {
    self.init(
      issuer: claims.issuer, audience: claims.audience, subject: claims.subject, expiresAt: claims.expiresAt,
      issuedAt: claims.issuedAt, authTime: claims.authTime, nonce: claims.nonce,
      nonceSupported: claims["nonce_supported"]?.boolean, email: claims.email, emailVerified: claims.emailVerified,
      isPrivateEmail: claims["is_private_email"]?.boolean, realUserStatus: claims["real_user_status"]?.integer,
      transferSubject: claims["transfer_sub"]?.string)
  }
}

/// The subject, phone number and names of a user as VK ID, Sber ID or T-ID put them in an id_token.
///
/// Each property reads the OpenID Connect name first and then the provider's own spellings. **[INF]**: the
/// alternative names (`user_id`, `phone`, `first_name`, `last_name`, `middle_name`) come from the providers'
/// user-info answers, not from documented id_token samples; the OIDC names are what the tokens are expected
/// to carry.
///
/// ```swift
/// let profile = verified.claims.profile(for: .vk)
/// profile.subject       // "1234567"
/// profile.phoneNumber   // "79*******00" (VK masks it)
/// ```
public struct ProviderProfileClaims: Sendable, Hashable {
  /// The claims this view reads.
  public var claims: IDTokenClaims
  /// The provider whose spellings are tried.
  public var provider: Provider

  /// A view of `claims` for `provider`.
  ///
  /// ```swift
  /// ProviderProfileClaims(token.claims, provider: .sber).givenName
  /// ```
  public init(_ claims: IDTokenClaims, provider: Provider) {
    self.claims = claims
    self.provider = provider
  }

  private func first(_ names: String...) -> String? {
    for name in names {
      switch claims[name] {
      case .string(let s) where !s.isEmpty: return s
      case .number(let n): return n
      default: continue
      }
    }
    return nil
  }

  /// `sub` (VK: also `user_id`, which may be a number).
  public var subject: String? { provider == .vk ? first("sub", "user_id") : first("sub") }
  /// `phone_number` (also `phone`).
  public var phoneNumber: String? { first("phone_number", "phone") }
  /// `email`.
  public var email: String? { first("email") }
  /// `given_name` (also `first_name`).
  public var givenName: String? { first("given_name", "first_name") }
  /// `family_name` (also `last_name`).
  public var familyName: String? { first("family_name", "last_name") }
  /// `middle_name` (also `patronymic`; Sber sends a patronymic).
  public var middleName: String? { first("middle_name", "patronymic") }
  /// `name`.
  public var name: String? { first("name") }
  /// `birthdate`.
  public var birthdate: String? { first("birthdate", "birthday") }
}

/// An id_token decoded **without any verification**: no signature check, no issuer, audience, expiry or
/// nonce check.
///
/// - Warning: Anyone can make a token that decodes. Never use these claims to sign a user in or to trust
///   an email; use `IDTokenVerifier` (LinkParseIDToken) for that. This is for logging, debugging, or picking which JWKS to
///   fetch from the `iss` before verifying.
///
/// ```swift
/// let unverified = try UnverifiedIDToken(parsing: idToken)
/// unverified.header.keyID        // "W6WcOKB": which key to look for
/// unverified.claims.issuer       // UNTRUSTED: anyone could have written it
/// ```
public struct UnverifiedIDToken: Sendable, Hashable {
  /// Tokens longer than this (64 KiB) are refused with ``IDTokenError/Code/tooLarge`` before any decoding (by
  /// this decoder and by LinkParseIDToken's `IDTokenVerifier`).
  public static let maxTokenBytes = 64 * 1024

  /// The header, unverified.
  public var header: IDTokenHeader
  /// The claims, unverified.
  public var claims: IDTokenClaims

  /// Splits and decodes a compact JWS (`header.payload.signature`) **without verifying anything**.
  ///
  /// Throws ``IDTokenError/Code/tooLarge`` above ``UnverifiedIDToken/maxTokenBytes`` and
  /// ``IDTokenError/Code/malformed`` for anything that is not three base64url parts whose first two are JSON
  /// objects (with the part and byte offset). Any `alg` is accepted here, `none` included.
  ///
  /// ```swift
  /// let unverified = try UnverifiedIDToken(parsing: "eyJhbGciOiJub25lIn0.eyJzdWIiOiI0MiJ9.")
  /// unverified.header.algorithm   // "none"
  /// unverified.claims.subject     // "42"
  /// ```
  public init(parsing token: some StringProtocol) throws(IDTokenError) {
    let parts = try CompactJWS(token)
    header = parts.header
    claims = try parts.claims()
  }
}

/// An id_token whose signature verified with a key from the JWKS and whose `iss`, `aud`, `azp`, `exp`, `iat`,
/// `nbf`, `auth_time`, `nonce`, `c_hash` and `at_hash` matched what was expected (as far as
/// `IDTokenVerifier.Expectations` asks). Made by `IDTokenVerifier` (LinkParseIDToken).
///
/// ```swift
/// let token = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
/// token.header.keyID            // the key that verified it
/// token.claims.subject          // the user
/// token.claims.apple.isPrivateEmail
/// ```
public struct VerifiedIDToken: Sendable, Hashable {
  /// The header (its `alg` is `RS256` or `ES256`).
  public let header: IDTokenHeader
  /// The claims, verified.
  public let claims: IDTokenClaims

  package init(header: IDTokenHeader, claims: IDTokenClaims) {
    self.header = header
    self.claims = claims
  }
}

// MARK: - Splitting a compact JWS

/// The three parts of a compact JWS, the header decoded, the payload base64url-decoded (not yet parsed).
/// (`package`: LinkParseIDToken's verifier splits tokens with it.)
package struct CompactJWS {
  package var header: IDTokenHeader
  /// `header.payload`, the bytes the signature covers.
  package var signingInput: ArraySlice<UInt8>
  package var payload: [UInt8]
  package var signature: [UInt8]

  package init(_ token: some StringProtocol) throws(IDTokenError) {
    let utf8 = token.utf8
    guard utf8.count <= UnverifiedIDToken.maxTokenBytes else {
      throw IDTokenError(
        .tooLarge, part: .token,
        message: "the token is \(utf8.count) bytes, more than the \(UnverifiedIDToken.maxTokenBytes) accepted")
    }
    let bytes = Array(utf8)
    var dots: [Int] = []
    for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
      dots.append(i)
      if dots.count > 2 { break }
    }
    guard dots.count == 2 else {
      throw IDTokenError(
        .malformed, part: .token, offset: dots.count > 2 ? dots[2] : nil,
        message: "a compact JWS has three base64url parts separated by two dots; this has \(dots.count > 2 ? "more than three" : "\(dots.count + 1)")")
    }
    let headerText = bytes[..<dots[0]]
    let payloadText = bytes[(dots[0] + 1)..<dots[1]]
    let signatureText = bytes[(dots[1] + 1)...]

    let headerBytes = try Self.decode(headerText, part: .header)
    payload = try Self.decode(payloadText, part: .payload)
    signature = try Self.decode(signatureText, part: .signature)
    signingInput = bytes[..<dots[1]]

    let json = try Self.parseObject(headerBytes, part: .header)
    guard let alg = json["alg"] else {
      throw IDTokenError(.malformed, part: .header, claim: "alg", message: "the header has no alg")
    }
    guard case .string(let algorithm) = alg else {
      throw IDTokenError(.malformed, part: .header, claim: "alg", message: "the header's alg is not a string")
    }
    var keyID: String? = nil
    switch json["kid"] {
    case nil: break
    case .string(let s): keyID = s
    default: throw IDTokenError(.malformed, part: .header, claim: "kid", message: "the header's kid is not a string")
    }
    header = IDTokenHeader(algorithm: algorithm, keyID: keyID, type: json["typ"]?.string, all: json)
  }

  package func claims() throws(IDTokenError) -> IDTokenClaims {
    IDTokenClaims(try Self.parseObject(payload, part: .payload))
  }

  private static func decode(_ text: ArraySlice<UInt8>, part: IDTokenError.Part) throws(IDTokenError) -> [UInt8] {
    if text.isEmpty && part != .signature {
      throw IDTokenError(.malformed, part: part, offset: 0, message: "the \(part.rawValue) part is empty")
    }
    switch Base64URL.decode(text, mode: .strict) {
    case .success(let bytes): return bytes
    case .failure(let failure):
      throw IDTokenError(
        .malformed, part: part, offset: failure.offset, message: "the \(part.rawValue) part is not base64url (no padding)")
    }
  }

  private static func parseObject(_ bytes: [UInt8], part: IDTokenError.Part) throws(IDTokenError) -> JSONValue {
    switch TokenJSON.parse(bytes) {
    case .success(let value):
      guard case .object = value else {
        throw IDTokenError(.malformed, part: part, offset: 0, message: "the \(part.rawValue) is JSON but not an object")
      }
      return value
    case .failure(let failure):
      throw IDTokenError(
        .malformed, part: part, offset: failure.offset, message: "the \(part.rawValue) is not JSON: \(failure.message)")
    }
  }
}
