// `Codable` for ProviderCallback and CallbackError (no Foundation: any encoder works; tests use JSON).

import LinkParseCore

/// Encoded as an object: `provider`, `outcome` (``CallbackOutcome``'s raw value), `kind` (the case within the
/// provider), `values` (``values``, as an object from parameter name to decoded value), `error` (the derived
/// ``providerError``: `code`, `description_en`, `description_ru`, when there is one), and where the values
/// alone do not say it: `providerError` (the typed ``ProviderError`` a failure holds), `expiresIn` (VK success,
/// OAuth 2.0 implicit grant) and `user` (VK legacy payload). Decoding reads `provider`, `kind`, `values` and
/// those extra fields (`outcome` and `error` are derived, and ignored), and gives back an equal value.
///
/// ```swift
/// let callback = try ProviderCallback(provider: .tid, parameters: FormParameters("code=c.1"))
/// let json = try JSONEncoder().encode(callback)
/// // {"provider":"tid","outcome":"success","kind":"success","values":{"code":"c.1"}}
/// try JSONDecoder().decode(ProviderCallback.self, from: json) == callback  // true
/// ```
extension ProviderCallback: Codable {
  private enum CodingKeys: String, CodingKey {
    case provider, outcome, kind, values, error, providerError, expiresIn, user
  }

  private enum ErrorKeys: String, CodingKey {
    case code
    case descriptionEN = "description_en"
    case descriptionRU = "description_ru"
  }

  /// A parameter name as a key of `values`.
  private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// The case within the provider.
  private enum Kind: String, Codable {
    case success, failure, seamless, legacy, cancelled, unavailable, debugResult = "debug-result", implicit
  }

  private var kind: Kind {
    switch self {
    case .sber(.success), .vk(.success), .tid(.success), .apple(.success), .oauth2(.success): return .success
    case .sber(.failure), .vk(.failure), .tid(.failure), .apple(.failure), .oauth2(.failure): return .failure
    case .sberSeamless: return .seamless
    case .vk(.legacy): return .legacy
    case .tid(.cancelled), .apple(.cancelled): return .cancelled
    case .tid(.unavailable): return .unavailable
    case .tid(.debugResult): return .debugResult
    case .oauth2(.implicit): return .implicit
    }
  }

  /// The typed provider error a failure holds.
  private var heldProviderError: ProviderError? {
    switch self {
    case .sber(.failure(let f)): return f.error
    case .vk(.failure(let e, _)), .tid(.failure(let e, _)), .apple(.failure(let e, _)), .oauth2(.failure(let e, _, _)):
      return e
    default: return nil
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(provider, forKey: .provider)
    try c.encode(outcome, forKey: .outcome)
    try c.encode(kind, forKey: .kind)
    var values = c.nestedContainer(keyedBy: NameKey.self, forKey: .values)
    var failure: (any Error)?
    forEachValue { name, value in
      guard failure == nil else { return }
      do { try values.encode(String(value), forKey: NameKey(stringValue: name)) } catch { failure = error }
    }
    if let failure { throw failure }
    if let error = providerError {
      var e = c.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
      try e.encode(error.code, forKey: .code)
      try e.encode(error.descriptionEN, forKey: .descriptionEN)
      try e.encode(error.descriptionRU, forKey: .descriptionRU)
    }
    try c.encodeIfPresent(heldProviderError, forKey: .providerError)
    switch self {
    case .vk(.success(let s)): try c.encodeIfPresent(s.expiresIn, forKey: .expiresIn)
    case .oauth2(.implicit(let g)): try c.encodeIfPresent(g.expiresIn, forKey: .expiresIn)
    case .vk(.legacy(let l)): try c.encodeIfPresent(l.user.map(LegacyUser.init), forKey: .user)
    default: break
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let provider = try c.decode(Provider.self, forKey: .provider)
    let kind = try c.decode(Kind.self, forKey: .kind)
    let container = try c.nestedContainer(keyedBy: NameKey.self, forKey: .values)
    var values: [String: String] = [:]
    for key in container.allKeys { values[key.stringValue] = try container.decode(String.self, forKey: key) }
    func value(_ name: String) -> Substring? { values[name].map { $0[...] } }
    func required(_ name: String) throws -> Substring {
      guard let v = value(name) else {
        throw DecodingError.keyNotFound(
          NameKey(stringValue: name), .init(codingPath: container.codingPath, debugDescription: "missing \(name)"))
      }
      return v
    }
    func providerError() throws -> ProviderError {
      try c.decode(ProviderError.self, forKey: .providerError)
    }
    let mismatch = DecodingError.dataCorruptedError(
      forKey: .kind, in: c, debugDescription: "kind \(kind.rawValue) is not one of \(provider)'s")
    switch (provider, kind) {
    case (.sber, .success):
      // The partner's pass-through parameters are the values other than the three named ones.
      let extras = values.keys.filter { $0 != "code" && $0 != "state" && $0 != "status" }.sorted()
      let parameters = extras.map { FormParameters.formEncode($0) + "=" + FormParameters.formEncode(values[$0]!) }
        .joined(separator: "&")
      self = .sber(
        .success(
          SberIDSuccess(code: try required("code"), state: value("state"), status: value("status"), parameters: parameters[...])))
    case (.sber, .failure):
      guard let encoding = values["encoding"].flatMap(SberIDFailure.Encoding.init(rawValue:)) else {
        throw DecodingError.dataCorruptedError(forKey: .values, in: c, debugDescription: "bad Sber encoding")
      }
      self = .sber(
        .failure(
          SberIDFailure(
            encoding: encoding, error: try c.decodeIfPresent(ProviderError.self, forKey: .providerError),
            errorCode: value("error_code"), status: value("status") ?? value("result"), state: value("state"))))
    case (.sber, .seamless):
      self = .sberSeamless(SberSeamlessLogin(baseURL: String(try required("sso_base_url")), token: values["token"]))
    case (.vk, .success):
      self = .vk(
        .success(
          VKIDSuccess(
            code: try required("code"), state: try required("state"), deviceID: try required("device_id"),
            type: value("type"), expiresIn: try c.decodeIfPresent(Int.self, forKey: .expiresIn),
            expiresInRaw: value("expires_in"), extID: value("ext_id"),
            isReturnFromVKApp: values["vkconnect_auth_provider_method"] != nil)))
    case (.vk, .legacy):
      let user = try c.decodeIfPresent(LegacyUser.self, forKey: .user)
      self = .vk(
        .legacy(VKIDLegacyPayload(code: String(try required("code")), state: values["state"], user: user?.user)))
    case (.vk, .failure):
      self = .vk(.failure(try providerError(), state: value("state")))
    case (.tid, .success):
      self = .tid(.success(TIDSuccess(code: try required("code"), state: value("state"), sessionState: value("session_state"))))
    case (.tid, .cancelled): self = .tid(.cancelled)
    case (.tid, .unavailable): self = .tid(.unavailable)
    case (.tid, .debugResult): self = .tid(.debugResult(String(try required("result"))))
    case (.tid, .failure): self = .tid(.failure(try providerError(), state: value("state")))
    case (.apple, .success):
      self = .apple(
        .success(
          AppleSuccess(
            code: try required("code"), state: value("state"), idToken: value("id_token"),
            rawUser: values["user"].map { FormParameters.formEncode($0)[...] })))
    case (.apple, .cancelled): self = .apple(.cancelled(state: value("state")))
    case (.apple, .failure): self = .apple(.failure(try providerError(), state: value("state")))
    case (.oauth2, .success):
      self = .oauth2(
        .success(
          OAuth2Success(
            code: try required("code"), state: value("state"), issuer: value("iss"),
            sessionState: value("session_state"), idToken: value("id_token"))))
    case (.oauth2, .failure):
      self = .oauth2(.failure(try providerError(), state: value("state"), issuer: value("iss")))
    case (.oauth2, .implicit):
      self = .oauth2(
        .implicit(
          OAuth2ImplicitGrant(
            accessToken: try required("access_token"), tokenType: value("token_type"),
            expiresIn: try c.decodeIfPresent(Int.self, forKey: .expiresIn), expiresInRaw: value("expires_in"),
            scope: value("scope"), idToken: value("id_token"), state: value("state"))))
    default:
      throw mismatch
    }
  }

  /// A legacy payload's user, under its JSON names (`first_name`, …).
  private struct LegacyUser: Codable {
    var id: Int64?
    var first_name: String?
    var last_name: String?
    var email: String?
    var avatar: String?

    init(_ user: VKIDLegacyPayload.User) {
      (id, first_name, last_name, email, avatar) = (user.id, user.firstName, user.lastName, user.email, user.avatar)
    }

    var user: VKIDLegacyPayload.User {
      VKIDLegacyPayload.User(id: id, firstName: first_name, lastName: last_name, email: email, avatar: avatar)
    }
  }
}

/// Encoded as an object: `code` (the kebab-case raw value), `parameter`, `found` and `providerError` when
/// present, and `description_en` / `description_ru` (derived, ignored when decoding). Decoding gives back an
/// equal error.
///
/// ```swift
/// let data = try JSONEncoder().encode(CallbackError(.stateMismatch, parameter: "state"))
/// // {"code":"state-mismatch","parameter":"state","description_en":"…","description_ru":"…"}
/// try JSONDecoder().decode(CallbackError.self, from: data).code  // .stateMismatch
/// ```
extension CallbackError: Codable {
  private enum CodingKeys: String, CodingKey {
    case code, parameter, found, providerError
    case descriptionEN = "description_en"
    case descriptionRU = "description_ru"
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      try c.decode(Code.self, forKey: .code), parameter: try c.decodeIfPresent(String.self, forKey: .parameter),
      found: try c.decodeIfPresent(String.self, forKey: .found),
      providerError: try c.decodeIfPresent(ProviderError.self, forKey: .providerError))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(code, forKey: .code)
    try c.encodeIfPresent(parameter, forKey: .parameter)
    try c.encodeIfPresent(found, forKey: .found)
    try c.encodeIfPresent(providerError, forKey: .providerError)
    try c.encode(descriptionEN, forKey: .descriptionEN)
    try c.encode(descriptionRU, forKey: .descriptionRU)
  }
}

/// Encoded as its raw value, a string (`"state-mismatch"`).
///
/// ```swift
/// try JSONEncoder().encode(CallbackError.Code.replayed)  // "replayed"
/// ```
extension CallbackError.Code: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
