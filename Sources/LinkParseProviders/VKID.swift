// VK ID callbacks (providers.md §2).

public import LinkParseCore

/// A decoded VK ID callback (`vk<client_id>://vk.ru/blank.html?…`, or a web redirect).
///
/// Order (providers.md §7.3): legacy `payload` (SDK 1.x) → `error` → `code` + `state` + `device_id`.
/// `oauth2_params` and `v` (the SDK's own redirect-URI query echoed back) are tolerated and ignored.
///
/// ```swift
/// let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=vk2.a.F&state=S&device_id=D&type=code_v2&expires_in=600")
/// if case .success(let s) = try VKIDCallback(url.queryParameters) {
///   s.deviceID   // "D"  (store it: the code cannot be exchanged without it)
///   s.expiresIn  // 600
/// }
/// ```
public enum VKIDCallback: Sendable, Hashable {
  /// VK ID 2.x success.
  case success(VKIDSuccess)
  /// VK ID SDK 1.x `payload` JSON.
  case legacy(VKIDLegacyPayload)
  /// `error` (with `error_description` / `error_uri`), plus the echoed `state` if any.
  case failure(ProviderError, state: Substring?)

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// let result = try VKIDCallback(FormParameters("error=access_denied&state=s"))
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter`, `missing-parameter` (`code`, `state` or `device_id`
  ///   missing or empty on success), `malformed-parameter` (invalid `payload` JSON, `type` other than
  ///   `code_v2`, `vkconnect_auth_provider_method` other than `external_auth`).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    try self.init(CallbackFields(parameters))
  }

  init(_ fields: borrowing CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates(also: .payload)
    if fields.contains(.payload) {
      self = .legacy(try VKIDLegacyPayload(json: fields.string(.payload) ?? ""))
      return
    }
    let state = fields.value(.state)
    if let error = ProviderError(fields) {
      self = .failure(error, state: state)
      return
    }
    guard let code = fields.value(.code) else {
      throw CallbackError(.missingParameter, parameter: "code")
    }
    guard let state else { throw CallbackError(.missingParameter, parameter: "state") }
    guard let deviceID = fields.value(.deviceID) else {
      throw CallbackError(.missingParameter, parameter: "device_id")
    }
    let type = fields.value(.type)
    if let type, type != "code_v2" {
      throw CallbackError(.malformedParameter, parameter: "type", found: String(type))
    }
    var fromVKApp = false
    if let method = fields.value(.vkMethod) {
      guard method == "external_auth" else {
        throw CallbackError(.malformedParameter, parameter: "vkconnect_auth_provider_method", found: String(method))
      }
      fromVKApp = true
    }
    let expiresInRaw = fields.value(.expiresIn)
    self = .success(
      VKIDSuccess(
        code: code, state: state, deviceID: deviceID, type: type, expiresIn: expiresInRaw.flatMap { Int($0) },
        expiresInRaw: expiresInRaw, extID: fields.value(.extID), isReturnFromVKApp: fromVKApp))
  }

  /// The echoed `state`, if any (from the payload for ``legacy(_:)``).
  ///
  /// ```swift
  /// try VKIDCallback(FormParameters("error=x&state=s")).state  // "s"
  /// ```
  public var state: Substring? {
    switch self {
    case .success(let s): return s.state
    case .legacy(let l): return l.state.map { Substring($0) }
    case .failure(_, let state): return state
    }
  }
}

/// A successful VK ID 2.x callback.
///
/// ```swift
/// success.isReturnFromVKApp  // true for vkconnect_auth_provider_method=external_auth
/// ```
public struct VKIDSuccess: Sendable, Hashable {
  /// The authorization code (`vk2.a.…`), exchanged together with ``deviceID`` and the PKCE verifier.
  public var code: Substring
  /// The echoed `state`.
  public var state: Substring
  /// The server's encrypted device id: required for the token exchange and later refreshes.
  public var deviceID: Substring
  /// The code type (`code_v2`), when sent.
  public var type: Substring?
  /// The code's lifetime in seconds, when sent as an integer.
  public var expiresIn: Int?
  /// `expires_in` as sent.
  public var expiresInRaw: Substring?
  /// The internal `ext_id`, when sent.
  public var extID: Substring?
  /// Whether the callback is a return from the VK app (`vkconnect_auth_provider_method=external_auth`).
  public var isReturnFromVKApp: Bool
}

/// The legacy VK ID SDK 1.x `payload` JSON:
/// `{"oauth":{"code":…,"state":…},"user":{"id":…,"first_name":…,"last_name":…,"email":…,"avatar":…}}`.
///
/// ```swift
/// let payload = try VKIDLegacyPayload(json: #"{"oauth":{"code":"c1","state":"s1"},"user":{"id":1}}"#)
/// payload.code     // "c1"
/// payload.user?.id // 1
/// ```
public struct VKIDLegacyPayload: Sendable, Hashable {
  /// The user object of the payload (snake_case keys in the JSON; every key optional).
  public struct User: Sendable, Hashable {
    /// `id`.
    public var id: Int64?
    /// `first_name`.
    public var firstName: String?
    /// `last_name`.
    public var lastName: String?
    /// `email`.
    public var email: String?
    /// `avatar`.
    public var avatar: String?
  }
  /// `oauth.code`.
  public var code: String
  /// `oauth.state`.
  public var state: String?
  /// `user`, when present.
  public var user: User?

  /// Decodes the JSON text of `payload`.
  ///
  /// ```swift
  /// try VKIDLegacyPayload(json: "")  // throws malformed-parameter (payload)
  /// ```
  ///
  /// - Throws: ``CallbackError`` `malformed-parameter` for empty or invalid JSON, `missing-parameter` for a
  ///   missing or empty `oauth.code`.
  public init(json: String) throws(CallbackError) {
    guard let decoded = JSONSupport.decodeVKPayload(json) else {
      throw CallbackError(.malformedParameter, parameter: "payload")
    }
    guard let code = decoded.code, !code.isEmpty else { throw CallbackError(.missingParameter, parameter: "payload.oauth.code") }
    self.code = code
    self.state = decoded.state.flatMap { $0.isEmpty ? nil : $0 }
    self.user = decoded.user
  }
}
