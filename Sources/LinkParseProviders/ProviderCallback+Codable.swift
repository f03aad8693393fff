// `Codable` for ProviderCallback and CallbackError (no Foundation: any encoder works; tests use JSON).

import LinkParseBytes
import LinkParseCore

/// Encoded as the object `linkparse` writes under a record's `"callback"` key (one schema, in
/// `Schemas/linkparse-record-v1.ddl` and the DocC article *Using the linkparse command*): `provider`,
/// `outcome` (``CallbackOutcome``'s raw value), then ``values`` under their own names, strings except a VK ID
/// success's `expires_in` (a number), and for ``CallbackOutcome/error`` an `error` object: `code` and `raw` (the
/// provider's code), `description_en`, `description_ru` (``providerError``).
///
/// Decoding reads that object back (the descriptions are derived, and ignored) and gives an equal value, with
/// three exceptions the form cannot tell: a VK ID `expires_in` written with leading zeros comes back without
/// them, a VK ID 1.x payload's `user` object with no field comes back as no user, and a Sber ID failure whose
/// `error` equals its `error_code` (or status) and carries no description comes back without the typed error.
///
/// ```swift
/// let callback = try ProviderCallback(provider: .tid, parameters: FormParameters("code=c.1"))
/// let json = try JSONEncoder().encode(callback)
/// // {"provider":"tid","outcome":"success","code":"c.1"}
/// try JSONDecoder().decode(ProviderCallback.self, from: json) == callback  // true
/// ```
extension ProviderCallback: Codable {
  /// A key of the object: `provider`, `outcome`, `error` or a value's name.
  private struct Key: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { stringValue = value }
    init?(intValue: Int) { nil }
  }

  private enum ErrorKeys: String, CodingKey {
    case code, raw
    case descriptionEN = "description_en"
    case descriptionRU = "description_ru"
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    try c.encode(provider, forKey: "provider")
    let outcome = self.outcome
    try c.encode(outcome, forKey: "outcome")
    var lifetime: Int?
    if case .vk(.success(let s)) = self { lifetime = s.expiresIn }
    var failure: (any Error)?
    forEachValue { name, value in
      guard failure == nil else { return }
      do {
        if let lifetime, name == "expires_in" {
          try c.encode(lifetime, forKey: Key(stringValue: name))
        } else {
          try c.encode(String(value), forKey: Key(stringValue: name))
        }
      } catch { failure = error }
    }
    if let failure { throw failure }
    if outcome == .error, let error = providerError {
      var e = c.nestedContainer(keyedBy: ErrorKeys.self, forKey: "error")
      try e.encode(error.code, forKey: .code)
      try e.encode(error.code, forKey: .raw)
      try e.encode(error.descriptionEN, forKey: .descriptionEN)
      try e.encode(error.descriptionRU, forKey: .descriptionRU)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Key.self)
    let provider = try c.decode(Provider.self, forKey: "provider")
    let outcome = try c.decode(CallbackOutcome.self, forKey: "outcome")
    var values: [String: String] = [:]
    var lifetime: Int?
    for key in c.allKeys where !["provider", "outcome", "error"].contains(key.stringValue) {
      if key.stringValue == "expires_in", provider == .vk, let seconds = try? c.decode(Int.self, forKey: key) {
        lifetime = seconds
        values[key.stringValue] = String(seconds)
      } else {
        values[key.stringValue] = try c.decode(String.self, forKey: key)
      }
    }
    func value(_ name: String) -> Substring? { values[name].map { $0[...] } }
    func required(_ name: String) throws -> Substring {
      guard let v = value(name) else {
        throw DecodingError.keyNotFound(
          Key(stringValue: name), .init(codingPath: c.codingPath, debugDescription: "missing \(name)"))
      }
      return v
    }
    /// The provider's error an `error` outcome carries, with the description and URI the values hold.
    func providerError() throws -> ProviderError {
      let e = try c.nestedContainer(keyedBy: ErrorKeys.self, forKey: "error")
      return ProviderError(
        code: try e.decode(OAuthErrorCode.self, forKey: .code), errorDescription: values["error_description"],
        errorURI: values["error_uri"])
    }
    let mismatch = DecodingError.dataCorruptedError(
      forKey: "outcome", in: c, debugDescription: "outcome \(outcome.rawValue) is not one of \(provider)'s")
    switch (provider, outcome) {
    case (.sber, .success):
      // The partner's pass-through parameters (and `appToken`) are the values other than the three named ones.
      let extras = values.keys.filter { $0 != "code" && $0 != "state" && $0 != "status" }.sorted()
      let parameters = extras.map { FormParameters.formEncode($0) + "=" + FormParameters.formEncode(values[$0]!) }
        .joined(separator: "&")
      self = .sber(
        .success(
          SberIDSuccess(code: try required("code"), state: value("state"), status: value("status"), parameters: parameters[...])))
    case (.sber, .error):
      guard let encoding = values["encoding"].flatMap(SberIDFailure.Encoding.init(rawValue:)) else {
        throw DecodingError.dataCorruptedError(forKey: "encoding", in: c, debugDescription: "bad Sber encoding")
      }
      let reported = try providerError()
      let status = value("status") ?? value("result")
      // Without an `error`, the code reported is the `error_code`, else the status (`SberIDFailure.rawCode`).
      let fallback = values["error_code"] ?? status.map(String.init) ?? "fail"
      let typed = reported.code.rawValue != fallback || reported.errorDescription != nil || reported.errorURI != nil
      self = .sber(
        .failure(
          SberIDFailure(
            encoding: encoding, error: typed ? reported : nil, errorCode: value("error_code"), status: status,
            state: value("state"))))
    case (.sber, .seamless):
      self = .sberSeamless(SberSeamlessLogin(baseURL: String(try required("sso_base_url")), token: values["token"]))
    case (.vk, .success) where values["device_id"] != nil:
      self = .vk(
        .success(
          VKIDSuccess(
            code: try required("code"), state: try required("state"), deviceID: try required("device_id"),
            type: value("type"), expiresIn: lifetime, expiresInRaw: value("expires_in"), extID: value("ext_id"),
            isReturnFromVKApp: values["vkconnect_auth_provider_method"] != nil)))
    case (.vk, .success):
      // VK ID 1.x payloads have no device_id.
      let fields = ["user_id", "first_name", "last_name", "email", "avatar"]
      var user: VKIDLegacyPayload.User?
      if fields.contains(where: { values[$0] != nil }) {
        guard values["user_id"].map({ Int64($0) != nil }) ?? true else {
          throw DecodingError.dataCorruptedError(forKey: "user_id", in: c, debugDescription: "user_id is not an integer")
        }
        user = VKIDLegacyPayload.User(
          id: values["user_id"].flatMap { Int64($0) }, firstName: values["first_name"], lastName: values["last_name"],
          email: values["email"], avatar: values["avatar"])
      }
      self = .vk(.legacy(VKIDLegacyPayload(code: String(try required("code")), state: values["state"], user: user)))
    case (.vk, .error):
      self = .vk(.failure(try providerError(), state: value("state")))
    case (.tid, .success):
      self = .tid(.success(TIDSuccess(code: try required("code"), state: value("state"), sessionState: value("session_state"))))
    case (.tid, .cancelled): self = .tid(.cancelled)
    case (.tid, .unavailable): self = .tid(.unavailable)
    case (.tid, .debugSuccess): self = .tid(.debugResult("success"))
    case (.tid, .error) where values["result"] != nil: self = .tid(.debugResult(values["result"]!))
    case (.tid, .error): self = .tid(.failure(try providerError(), state: value("state")))
    case (.apple, .success):
      self = .apple(
        .success(
          AppleSuccess(
            code: try required("code"), state: value("state"), idToken: value("id_token"),
            rawUser: values["user"].map { FormParameters.formEncode($0)[...] })))
    case (.apple, .idTokenGrant):
      self = .apple(
        .idTokenGrant(
          AppleSuccess(
            code: nil, state: value("state"), idToken: try required("id_token"),
            rawUser: values["user"].map { FormParameters.formEncode($0)[...] })))
    case (.apple, .cancelled): self = .apple(.cancelled(state: value("state")))
    case (.apple, .error): self = .apple(.failure(try providerError(), state: value("state")))
    case (.oauth2, .success):
      self = .oauth2(
        .success(
          OAuth2Success(
            code: try required("code"), state: value("state"), issuer: value("iss"),
            sessionState: value("session_state"), idToken: value("id_token"))))
    case (.oauth2, .error):
      self = .oauth2(.failure(try providerError(), state: value("state"), issuer: value("iss")))
    case (.oauth2, .implicitGrant):
      var raw = values["expires_in"]
      self = .oauth2(
        .implicit(
          OAuth2ImplicitGrant(
            accessToken: try required("access_token"), tokenType: value("token_type"),
            expiresIn: raw?.withUTF8 { parseDecimalInt($0) }, expiresInRaw: value("expires_in"),
            scope: value("scope"), idToken: value("id_token"), state: value("state"))))
    default:
      throw mismatch
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
