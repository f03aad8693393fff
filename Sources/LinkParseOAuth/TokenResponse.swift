// The token endpoint's answer (RFC 6749 §5.1, OIDC Core §3.1.3.3) and its providers' additions: VK ID's
// `user_id` and echoed `state`; the error answer (RFC 6749 §5.2, T-ID's `error_message`).

public import LinkParseProviders
public import LinkParseCore

/// A token endpoint's successful answer (authorization-code exchange or refresh).
///
/// Members no property names are kept in ``additionalFields``; the body is kept in ``rawBody``.
///
/// ```swift
/// let body = Array(#"{"access_token":"vk2.a.x","refresh_token":"vk2.r.y","expires_in":"3600","user_id":1234,"state":"s"}"#.utf8)
/// let tokens = try TokenResponse(json: body, provider: .vk)
/// tokens.expiresIn                                // 3600
/// tokens.userID                                   // 1234
/// tokens.expiresAt(receivedAt: 1_700_000_000)     // 1_700_003_600
/// ```
public struct TokenResponse: Sendable, Hashable, Codable {
  /// `access_token` (never empty).
  public var accessToken: String
  /// `token_type` (`Bearer`; VK ID omits it).
  public var tokenType: String?
  /// `expires_in`, seconds; sent as `600` or `"600"`.
  public var expiresIn: Int64?
  /// `refresh_token`.
  public var refreshToken: String?
  /// `id_token` (a JWT; verify it before trusting its claims).
  public var idToken: String?
  /// `scope`, space-separated (an array of strings is joined).
  public var scope: String?
  /// VK ID's `user_id` (a number or a string of digits).
  public var userID: Int64?
  /// `state`, which VK ID echoes in its token answer: compare it with the state sent.
  public var state: String?
  /// Every member the properties above do not name, in document order (an object).
  public var additionalFields: JSONValue
  /// The body as received (UTF-8, invalid sequences replaced).
  public var rawBody: String

  /// Creates a token response from its values.
  ///
  /// ```swift
  /// TokenResponse(accessToken: "t", tokenType: "Bearer", expiresIn: 3600)
  /// ```
  public init(
    accessToken: String, tokenType: String? = nil, expiresIn: Int64? = nil, refreshToken: String? = nil,
    idToken: String? = nil, scope: String? = nil, userID: Int64? = nil, state: String? = nil,
    additionalFields: JSONValue = .object([]), rawBody: String = ""
  ) {
    self.accessToken = accessToken
    self.tokenType = tokenType
    self.expiresIn = expiresIn
    self.refreshToken = refreshToken
    self.idToken = idToken
    self.scope = scope
    self.userID = userID
    self.state = state
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a token endpoint's body.
  ///
  /// ```swift
  /// do {
  ///   let tokens = try TokenResponse(json: body, provider: .tid)
  /// } catch where error.code == .providerError {
  ///   error.providerError?.error  // invalid_grant
  /// }
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json` (with the byte offset), `unexpected-shape` (not an
  ///   object, a member of the wrong type), `provider-error` (the body has an `error` member:
  ///   ``OAuthResponseError/providerError`` holds it), `missing-field` (`access_token` absent or empty),
  ///   `invalid-field` (`expires_in` or `user_id` not a whole number, `expires_in` negative).
  public init(json: some Collection<UInt8>, provider: Provider = .oauth2) throws(OAuthResponseError) {
    let (reader, raw) = try JSONObjectReader.parse(json, what: "token response")
    var r = reader
    if let error = OAuthErrorResponse.detect(r, raw: raw, provider: provider, expectedKey: "access_token") {
      throw OAuthResponseError(providerError: error)
    }
    guard let accessToken = try r.string("access_token"), !accessToken.isEmpty else {
      throw OAuthResponseError(.missingField, field: "access_token", message: "the token response has no access_token")
    }
    self.accessToken = accessToken
    tokenType = try r.string("token_type")
    expiresIn = try r.integer("expires_in")
    if let expiresIn, expiresIn < 0 {
      throw OAuthResponseError(
        .invalidField, field: "expires_in", message: "expires_in is negative (\(expiresIn)): a lifetime is 0 or more seconds")
    }
    refreshToken = try r.string("refresh_token")
    idToken = try r.string("id_token")
    scope = try r.scope("scope")
    userID = try r.integer("user_id")
    state = try r.string("state")
    additionalFields = r.rest
    rawBody = raw
  }

  /// When the access token expires: `receivedAt + expiresIn` (Unix seconds), or `nil` without `expires_in`.
  ///
  /// ```swift
  /// tokens.expiresAt(receivedAt: PendingAuthorization.currentUnixTime())
  /// ```
  public func expiresAt(receivedAt: Int64) -> Int64? {
    guard let expiresIn else { return nil }
    let (sum, overflow) = receivedAt.addingReportingOverflow(expiresIn)
    return overflow ? (expiresIn > 0 ? .max : .min) : sum
  }
}

extension OAuthResponseError {
  /// `provider-error` carrying the provider's answer.
  init(providerError: OAuthErrorResponse) {
    var message = "the provider answered with error \(providerError.error.rawValue)"
    if let d = providerError.errorDescription { message += ": " + d }
    self.init(.providerError, field: "error", message: message, providerError: providerError)
  }
}

extension OAuthErrorResponse {
  /// Decodes a provider's error body (`error`, `error_description` or T-ID's `error_message`, `error_uri`,
  /// VK's `state`; the rest kept).
  ///
  /// ```swift
  /// let error = try OAuthErrorResponse(json: Array(#"{"error":"limit_exceeded","error_message":"Too many"}"#.utf8))
  /// error.error.rawValue    // "limit_exceeded"
  /// error.errorDescription  // "Too many"
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape` (not an object), `missing-field`
  ///   (no `error` member).
  public init(json: some Collection<UInt8>, provider: Provider = .oauth2) throws(OAuthResponseError) {
    let (r, raw) = try JSONObjectReader.parse(json, what: "error response")
    guard let error = OAuthErrorResponse.detect(r, raw: raw, provider: provider, expectedKey: nil) else {
      throw OAuthResponseError(.missingField, field: "error", message: "the error response has no error member")
    }
    self = error
  }
}

/// A revocation endpoint's answer (RFC 7009 §2.2: an empty body with 200; VK ID answers `{"response":1}`
/// [INF]; Apple an empty body).
///
/// ```swift
/// let ok = try RevokeResponse(json: [UInt8](), provider: .apple)
/// ok.additionalFields  // .object([])
/// ```
public struct RevokeResponse: Sendable, Hashable, Codable {
  /// The members of a JSON answer (empty for an empty body or `{}`).
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates an answer from its values.
  ///
  /// ```swift
  /// RevokeResponse()
  /// ```
  public init(additionalFields: JSONValue = .object([]), rawBody: String = "") {
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a revocation answer: an empty (or all-whitespace) body, `{}`, or any JSON object without
  /// `error`.
  ///
  /// ```swift
  /// try RevokeResponse(json: Array(#"{"response":1}"#.utf8), provider: .vk)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape` (JSON that is not an object),
  ///   `provider-error` (an `error` member).
  public init(json: some Collection<UInt8>, provider: Provider = .oauth2) throws(OAuthResponseError) {
    if json.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
      self.init(additionalFields: .object([]), rawBody: String(decoding: json, as: UTF8.self))
      return
    }
    let (r, raw) = try JSONObjectReader.parse(json, what: "revocation response")
    if let error = OAuthErrorResponse.detect(r, raw: raw, provider: provider, expectedKey: nil) {
      throw OAuthResponseError(providerError: error)
    }
    self.init(additionalFields: r.rest, rawBody: raw)
  }
}

/// How secrets print: never their value, only that one is there and how long it is.
package enum SecretText {
  /// `<secret, N bytes>`, or `nil` for no value.
  ///
  /// ```swift
  /// SecretText.masked("vk2.a.abc")  // "<secret, 9 bytes>"
  /// ```
  package static func masked(_ value: String?) -> String {
    value.map { "<secret, \($0.utf8.count) bytes>" } ?? "nil"
  }

  /// A value that is no secret, quoted, or `nil`.
  package static func plain(_ value: (any CustomStringConvertible)?) -> String {
    guard let value else { return "nil" }
    return value is String ? "\"\(value)\"" : "\(value)"
  }
}

/// `print(tokens)`, `"\(tokens)"`, `debugPrint` and `dump` show the access, refresh and id tokens masked (their
/// length only) and leave the raw body and extra members out: a log line never carries a credential.
///
/// ```swift
/// print(TokenResponse(accessToken: "vk2.a.secret", refreshToken: "vk2.r.secret"))
/// // TokenResponse(accessToken: <secret, 12 bytes>, tokenType: nil, expiresIn: nil, refreshToken: <secret, 12 bytes>, …)
/// ```
extension TokenResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  public var description: String {
    "TokenResponse(accessToken: \(SecretText.masked(accessToken)), tokenType: \(SecretText.plain(tokenType)), "
      + "expiresIn: \(SecretText.plain(expiresIn)), refreshToken: \(SecretText.masked(refreshToken)), "
      + "idToken: \(SecretText.masked(idToken)), scope: \(SecretText.plain(scope)), userID: \(SecretText.plain(userID)), "
      + "state: \(SecretText.masked(state)))"
  }

  public var debugDescription: String { description }

  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "accessToken": SecretText.masked(accessToken), "tokenType": tokenType as Any, "expiresIn": expiresIn as Any,
        "refreshToken": SecretText.masked(refreshToken), "idToken": SecretText.masked(idToken), "scope": scope as Any,
        "userID": userID as Any, "state": SecretText.masked(state),
      ], displayStyle: .struct)
  }
}
