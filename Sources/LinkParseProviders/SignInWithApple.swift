// Sign in with Apple callbacks (providers.md §4).

public import LinkParseCore
import LinkParseBytes


/// A decoded Sign in with Apple callback. The same decoder reads a query (`response_mode=query`, or a
/// server bounce to `signinwithapple://callback?…`), a fragment (`response_mode=fragment`) or a
/// `form_post` body: pass the matching ``FormParameters``.
///
/// ```swift
/// // form_post: the POST body Apple sent to https://example.com/auth/apple/callback
/// let body = FormParameters(utf8: requestBodyBytes)
/// switch try AppleCallback(body) {
/// case .success(let s): print(s.code, s.user?.firstName ?? "-", s.idTokenClaims?.subject ?? "-")
/// case .cancelled: showLoginScreen()
/// case .failure(let error, _): print(error.code)
/// }
/// ```
public enum AppleCallback: Sendable, Hashable {
  /// `code`, with `id_token` and `user` when sent.
  case success(AppleSuccess)
  /// `response_type=id_token`: the `id_token` (never `nil` here), `state`, and `user` on a first sign-in, with no
  /// code to exchange (the success's ``AppleSuccess/code`` is empty). Its outcome is
  /// ``CallbackOutcome/idTokenGrant``: verify the token (signature, audience, `nonce`) and the login is done.
  ///
  /// ```swift
  /// try AppleCallback(FormParameters("state=s&id_token=eyJ…"))  // .idTokenGrant(…)
  /// ```
  case idTokenGrant(AppleSuccess)
  /// `error=user_cancelled_authorize`.
  case cancelled(state: Substring?)
  /// Any other `error`.
  case failure(ProviderError, state: Substring?)

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// try AppleCallback(FormParameters("error=user_cancelled_authorize&state=8f3c"))  // .cancelled(state: "8f3c")
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` (also for `id_token` and `user`), `missing-parameter`
  ///   (no error and neither a non-empty `code` nor an `id_token`), `malformed-parameter` (an `id_token` that is
  ///   not a JWT with a JSON payload, or a `user` that is not a JSON object).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates(also: CallbackFields.Key.idToken.bit | CallbackFields.Key.user.bit)
    if let error = ProviderError(&fields) {
      let state = fields.value(.state)
      self = error.code == .userCancelledAuthorize ? .cancelled(state: state) : .failure(error, state: state)
      return
    }
    let code = fields.span(.code)
    // `id_token` and `user` are checked here (a malformed one is rejected now) but decoded when read.
    let idToken = fields.span(.idToken)
    // No code: `response_type=id_token` (Apple's article lists it beside `code`), when an id_token came.
    guard !code.isAbsent || !idToken.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
    if !idToken.isAbsent && !fields.withDecodedValue(.idToken, UnverifiedAppleIDTokenClaims.isDecodable(jwt:)) {
      throw CallbackError(.malformedParameter, parameter: "id_token")
    }
    let user = fields.span(.user)
    // Checked without building anything; bytes that are not UTF-8 pass, as in the `String` that
    // ``AppleSuccess/user`` decodes (they read as U+FFFD there).
    if !user.isAbsent
      && !fields.withDecodedValue(.user, { JSONSupport.conforms($0, to: .appleUser, validatesUTF8: false) })
    {
      throw CallbackError(.malformedParameter, parameter: "user")
    }
    // `user` is kept as sent (its span marked as needing no decoding, so that it stays raw when a setter
    // rebuilds the values); `userJSON` decodes it.
    let spans = (code: code, state: fields.span(.state), idToken: idToken, user: user.raw)
    let success = AppleSuccess(text: fields.takeText(), spans: spans)
    self = code.isAbsent ? .idTokenGrant(success) : .success(success)
  }

  /// The echoed `state`, if any.
  ///
  /// ```swift
  /// try AppleCallback(FormParameters("code=c&state=s")).state  // "s"
  /// ```
  public var state: Substring? {
    switch self {
    case .success(let s), .idTokenGrant(let s): return s.state
    case .cancelled(let state): return state
    case .failure(_, let state): return state
    }
  }
}

/// A successful Sign in with Apple callback.
///
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``).
///
/// ```swift
/// success.user?.email          // unsigned: do not trust it; use the verified id_token's email claim
/// success.idTokenClaims?.nonce // compare after verifying the signature on your backend
/// ```
public struct AppleSuccess: Sendable, Hashable {
  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `code`, `state`, `id_token`, and `user` as sent (still form-encoded) lie in ``text``.
  private(set) var spans: (code: ValueSpan, state: ValueSpan, idToken: ValueSpan, user: ValueSpan)

  init(text: CallbackText, spans: (code: ValueSpan, state: ValueSpan, idToken: ValueSpan, user: ValueSpan)) {
    self.text = text
    self.spans = spans
  }

  /// A success with these values (no `code` for an id_token grant); `rawUser` is `user` as sent (still
  /// form-encoded).
  init(code: Substring?, state: Substring?, idToken: Substring?, rawUser: Substring?) {
    var builder = CallbackText.Builder()
    let spans = (
      code: builder.append(code), state: builder.append(state), idToken: builder.append(idToken),
      user: builder.append(rawUser)
    )
    self.init(text: builder.text, spans: spans)
  }

  /// The authorization code (single-use, valid 5 minutes); empty in an ``AppleCallback/idTokenGrant(_:)``.
  public var code: Substring {
    get { text.value(spans.code) ?? "" }
    set { self = AppleSuccess(code: newValue, state: state, idToken: idToken, rawUser: text.raw(spans.user)) }
  }
  /// The echoed `state`.
  public var state: Substring? {
    get { text.value(spans.state) }
    set {
      self = AppleSuccess(code: text.value(spans.code), state: newValue, idToken: idToken, rawUser: text.raw(spans.user))
    }
  }
  /// The raw `id_token` JWT, when `response_type` included `id_token`.
  public var idToken: Substring? {
    get { text.value(spans.idToken) }
    set {
      self = AppleSuccess(code: text.value(spans.code), state: state, idToken: newValue, rawUser: text.raw(spans.user))
    }
  }

  /// The `id_token` claims, decoded (on each read) but **not verified**.
  public var idTokenClaims: UnverifiedAppleIDTokenClaims? {
    idToken.flatMap { UnverifiedAppleIDTokenClaims(jwt: String($0)) }
  }

  /// The raw `user` JSON text (sent only on the first authorization: persist it), form-decoded on each read.
  public var userJSON: String? { text.raw(spans.user).map { FormParameters.decode($0) } }

  /// `user`, decoded on each read. Unsigned: never trust its `email` over the verified `id_token`.
  public var user: AppleUser? { userJSON.flatMap(JSONSupport.decodeAppleUser) }

  public static func == (lhs: AppleSuccess, rhs: AppleSuccess) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.idToken == rhs.idToken && lhs.userJSON == rhs.userJSON
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(idToken)
    hasher.combine(userJSON)
  }
}

/// The `user` JSON Apple sends on the first authorization: `{"name":{"firstName":…,"lastName":…},"email":…}`.
/// Every key is optional.
///
/// ```swift
/// let user = AppleUser(firstName: "Timm", lastName: "Preetz")
/// ```
public struct AppleUser: Sendable, Hashable, Codable {
  /// `name.firstName`.
  public var firstName: String?
  /// `name.middleName`.
  public var middleName: String?
  /// `name.lastName`.
  public var lastName: String?
  /// `email` (unsigned).
  public var email: String?

  /// Creates a user.
  ///
  /// ```swift
  /// AppleUser(email: "a@privaterelay.appleid.com")
  /// ```
  public init(firstName: String? = nil, middleName: String? = nil, lastName: String? = nil, email: String? = nil) {
    self.firstName = firstName
    self.middleName = middleName
    self.lastName = lastName
    self.email = email
  }
}

/// The claims of an Apple `id_token` (Apple's "Authenticating users with Sign in with Apple"; providers.md
/// §4.2): the package's one type for them.
///
/// The type itself verifies nothing. Made by ``init(jwt:)`` (and by ``AppleSuccess/idTokenClaims``) from a
/// token's payload **without verifying the signature**: nothing here may be trusted until the token is verified
/// on your backend (signature against `https://appleid.apple.com/auth/keys`, `iss == "https://appleid.apple.com"`,
/// `aud == client_id`, `exp`, `nonce`). LinkParseIDToken's `IDTokenVerifier` does that, and its
/// `VerifiedIDToken`'s `claims.apple` is this type built from the **verified** claims.
///
/// `email_verified` and `is_private_email` are read leniently: Apple sends them as strings (`"true"`) or
/// booleans.
///
/// ```swift
/// let claims = UnverifiedAppleIDTokenClaims(jwt: idToken)   // unverified: the callback's token as sent
/// claims?.issuer         // "https://appleid.apple.com"
/// claims?.emailVerified  // true, whether sent as "true" or true
///
/// let verified = try verifier.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
/// verified.claims.apple.realUserStatusValue  // .likelyReal: from a verified token
/// ```
public struct UnverifiedAppleIDTokenClaims: Sendable, Hashable, Codable {
  /// Apple's `real_user_status`.
  ///
  /// ```swift
  /// UnverifiedAppleIDTokenClaims.RealUserStatus(rawValue: 2)   // .likelyReal
  /// ```
  public enum RealUserStatus: Int64, Sendable, Hashable, Codable {
    /// 0: the platform cannot tell (not iOS 14+ / the web).
    case unsupported = 0
    /// 1: Apple cannot tell.
    case unknown = 1
    /// 2: very likely a real person.
    case likelyReal = 2
  }

  /// `iss`.
  public var issuer: String?
  /// `aud` (a string or an array in the JWT; always an array here).
  public var audience: [String]
  /// `sub`: the user's stable id for your team.
  public var subject: String?
  /// `exp`, Unix seconds.
  public var expiresAt: Int64?
  /// `iat`, Unix seconds.
  public var issuedAt: Int64?
  /// `auth_time`, Unix seconds.
  public var authTime: Int64?
  /// `nonce`.
  public var nonce: String?
  /// `nonce_supported`.
  public var nonceSupported: Bool?
  /// `email`.
  public var email: String?
  /// `email_verified` (string or bool in the JWT).
  public var emailVerified: Bool?
  /// `is_private_email` (string or bool in the JWT).
  public var isPrivateEmail: Bool?
  /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real (``realUserStatusValue`` names them).
  public var realUserStatus: Int64?
  /// `transfer_sub`: present while the app is being transferred between teams.
  public var transferSubject: String?

  /// ``realUserStatus`` as a ``RealUserStatus`` (`nil` when absent or not 0, 1 or 2).
  ///
  /// ```swift
  /// claims.realUserStatusValue == .likelyReal
  /// ```
  public var realUserStatusValue: RealUserStatus? { realUserStatus.flatMap(RealUserStatus.init(rawValue:)) }

  /// Decodes the payload (second segment) of a compact JWT; `nil` when it is not `a.b.c` with a base64url
  /// JSON object in the middle.
  ///
  /// ```swift
  /// UnverifiedAppleIDTokenClaims(jwt: "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIn0.sig")?.issuer
  /// // "https://appleid.apple.com"
  /// ```
  public init?(jwt: String) {
    let segments = jwt.split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3, let payload = Base64URL.decode(segments[1]),
      let claims = JSONSupport.decodeClaims(payload)
    else { return nil }
    self = claims
  }

  /// Whether ``init(jwt:)`` succeeds on `jwt`, without building the claims (no allocation for payloads up to
  /// a few kilobytes: the payload is decoded in a temporary buffer on the stack).
  static func isDecodable(jwt: Substring) -> Bool {
    var token = jwt
    return token.withUTF8 { isDecodable(jwt: $0) }
  }

  /// ``isDecodable(jwt:)-(Substring)`` over the token's UTF-8 bytes.
  static func isDecodable(jwt bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    // Exactly two dots, as ``init(jwt:)`` splits.
    guard let base = bytes.baseAddress else { return false }
    func dot(after start: Int) -> Int? {
      let i = Scan.first(0x2E, base, start, bytes.count)
      return i < bytes.count ? i : nil
    }
    guard let first = dot(after: 0), let second = dot(after: first + 1), dot(after: second + 1) == nil else {
      return false
    }
    let segment = UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])
    return Base64URL.withDecoded(segment) { claims in
      claims.map { JSONSupport.conforms($0, to: .claims) } ?? false
    }
  }

  /// Claims with these values (LinkParseOAuth's `IDTokenClaims.apple` makes them from a token's claims).
  ///
  /// ```swift
  /// UnverifiedAppleIDTokenClaims(issuer: "https://appleid.apple.com", subject: "001234.abcd", emailVerified: true)
  /// ```
  public init(
    issuer: String? = nil, audience: [String] = [], subject: String? = nil, expiresAt: Int64? = nil,
    issuedAt: Int64? = nil, authTime: Int64? = nil, nonce: String? = nil, nonceSupported: Bool? = nil,
    email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil, realUserStatus: Int64? = nil,
    transferSubject: String? = nil
  ) {
    self.issuer = issuer
    self.audience = audience
    self.subject = subject
    self.expiresAt = expiresAt
    self.issuedAt = issuedAt
    self.authTime = authTime
    self.nonce = nonce
    self.nonceSupported = nonceSupported
    self.email = email
    self.emailVerified = emailVerified
    self.isPrivateEmail = isPrivateEmail
    self.realUserStatus = realUserStatus
    self.transferSubject = transferSubject
  }
}
