// Sign in with Apple callbacks (providers.md §4).

public import LinkParseCore

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
  /// `error=user_cancelled_authorize`.
  case cancelled(state: String?)
  /// Any other `error`.
  case failure(ProviderError, state: String?)

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// try AppleCallback(FormParameters("error=user_cancelled_authorize&state=8f3c"))  // .cancelled(state: "8f3c")
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` (also for `id_token` and `user`), `missing-parameter`
  ///   (no error and no non-empty `code`), `malformed-parameter` (an `id_token` that is not a JWT with a
  ///   JSON payload, or a `user` that is not a JSON object).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    if let name = parameters.firstDuplicate(among: criticalParameters + ["id_token", "user"]) {
      throw CallbackError(.duplicateParameter, parameter: name)
    }
    let state = parameters.nonEmptyValue("state")
    if let error = ProviderError(parameters) {
      self = error.code == .userCancelledAuthorize ? .cancelled(state: state) : .failure(error, state: state)
      return
    }
    guard let code = parameters.nonEmptyValue("code") else {
      throw CallbackError(.missingParameter, parameter: "code")
    }
    let idToken = parameters.nonEmptyValue("id_token")
    var claims: UnverifiedAppleIDTokenClaims?
    if let idToken {
      guard let decoded = UnverifiedAppleIDTokenClaims(jwt: idToken) else {
        throw CallbackError(.malformedParameter, parameter: "id_token")
      }
      claims = decoded
    }
    let userJSON = parameters.nonEmptyValue("user")
    var user: AppleUser?
    if let userJSON {
      guard let decoded = JSONSupport.decodeAppleUser(userJSON) else {
        throw CallbackError(.malformedParameter, parameter: "user")
      }
      user = decoded
    }
    self = .success(
      AppleSuccess(code: code, state: state, idToken: idToken, idTokenClaims: claims, userJSON: userJSON, user: user))
  }

  /// The echoed `state`, if any.
  ///
  /// ```swift
  /// try AppleCallback(FormParameters("code=c&state=s")).state  // "s"
  /// ```
  public var state: String? {
    switch self {
    case .success(let s): return s.state
    case .cancelled(let state): return state
    case .failure(_, let state): return state
    }
  }
}

/// A successful Sign in with Apple callback.
///
/// ```swift
/// success.user?.email          // unsigned: do not trust it; use the verified id_token's email claim
/// success.idTokenClaims?.nonce // compare after verifying the signature on your backend
/// ```
public struct AppleSuccess: Sendable, Hashable {
  /// The authorization code (single-use, valid 5 minutes).
  public var code: String
  /// The echoed `state`.
  public var state: String?
  /// The raw `id_token` JWT, when `response_type` included `id_token`.
  public var idToken: String?
  /// The `id_token` claims, decoded but **not verified**.
  public var idTokenClaims: UnverifiedAppleIDTokenClaims?
  /// The raw `user` JSON text (sent only on the first authorization: persist it).
  public var userJSON: String?
  /// `user`, decoded. Unsigned: never trust its `email` over the verified `id_token`.
  public var user: AppleUser?
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

/// The claims of an Apple `id_token`, decoded from its payload **without verifying the signature**.
///
/// Nothing here may be trusted until the token is verified on your backend (signature against
/// `https://appleid.apple.com/auth/keys`, `iss == "https://appleid.apple.com"`, `aud == client_id`, `exp`,
/// `nonce`). `email_verified` and `is_private_email` are read leniently: Apple sends them as strings
/// (`"true"`) or booleans.
///
/// ```swift
/// let claims = UnverifiedAppleIDTokenClaims(jwt: idToken)
/// claims?.issuer         // "https://appleid.apple.com"
/// claims?.emailVerified  // true, whether sent as "true" or true
/// ```
public struct UnverifiedAppleIDTokenClaims: Sendable, Hashable, Codable {
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
  /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real.
  public var realUserStatus: Int64?
  /// `transfer_sub`.
  public var transferSubject: String?

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

  init(
    issuer: String?, audience: [String], subject: String?, expiresAt: Int64?, issuedAt: Int64?, authTime: Int64?,
    nonce: String?, nonceSupported: Bool?, email: String?, emailVerified: Bool?, isPrivateEmail: Bool?,
    realUserStatus: Int64?, transferSubject: String?
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
