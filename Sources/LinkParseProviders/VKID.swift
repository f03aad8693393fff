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
  ///   missing or empty on success), `malformed-parameter` (a `device_id` with a control byte, such as `%00`;
  ///   invalid `payload` JSON, `type` other than
  ///   `code_v2`, `vkconnect_auth_provider_method` other than `external_auth`, `expires_in` other than 1 to
  ///   10 decimal digits), `conflicting-outcome` (a
  ///   top-level `state` or `code` beside a `payload` whose `oauth.state` / `oauth.code` differs:
  ///   `?payload={"oauth":{"code":"c1","state":"s1"}}&state=s2`).
  ///
  /// A legacy `payload` is bound to its pending authorization by its own `oauth.state`
  /// (``PendingAuthorization/validate(_:parameters:now:)`` checks it when there is no top-level `state`).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    // Every parameter read to decide the outcome: `type=code_v2&type=token` is rejected in either order.
    try fields.rejectDuplicates(
      also: CallbackFields.Key.payload.bit | CallbackFields.Key.type.bit | CallbackFields.Key.vkMethod.bit
        | CallbackFields.Key.expiresIn.bit)
    if fields.contains(.payload) {
      let payload = try VKIDLegacyPayload(json: fields.string(.payload) ?? "")
      try Self.rejectConflicts(payload, &fields)
      self = .legacy(payload)
      return
    }
    if let error = ProviderError(&fields) {
      self = .failure(error, state: fields.value(.state))
      return
    }
    let code = fields.span(.code)
    guard !code.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
    let state = fields.span(.state)
    guard !state.isAbsent else { throw CallbackError(.missingParameter, parameter: "state") }
    let deviceID = fields.span(.deviceID)
    guard !deviceID.isAbsent else { throw CallbackError(.missingParameter, parameter: "device_id") }
    // VK's device_id is an opaque, encrypted token; a decoded control byte (`%00`, a line break) is not part of
    // one, and would be sent on to the token endpoint, stored and logged.
    guard fields.withDecodedValue(.deviceID, Self.isDeviceIDText(_:)) else {
      throw CallbackError(.malformedParameter, parameter: "device_id")
    }
    let type = fields.span(.type)
    if !type.isAbsent && !fields.value(.type, equals: "code_v2") {
      throw CallbackError(.malformedParameter, parameter: "type", found: fields.string(.type))
    }
    var fromVKApp = false
    if !fields.span(.vkMethod).isAbsent {
      guard fields.value(.vkMethod, equals: "external_auth") else {
        throw CallbackError(.malformedParameter, parameter: "vkconnect_auth_provider_method", found: fields.string(.vkMethod))
      }
      fromVKApp = true
    }
    // `expires_in`, when present (an empty value counts as absent), is 1 to 10 ASCII digits as sent: a
    // sign, an exponent, a `+` or an escape makes the callback malformed.
    let expiresInRaw = fields.span(.expiresIn)
    var expiresIn: Int? = nil
    if !expiresInRaw.isAbsent {
      let seconds = fields.withBytes { bytes in
        Self.lifetime(UnsafeBufferPointer(rebasing: bytes[expiresInRaw.lowerBound..<expiresInRaw.upperBound]))
      }
      guard let seconds else {
        throw CallbackError(.malformedParameter, parameter: "expires_in", found: fields.string(.expiresIn))
      }
      expiresIn = seconds
    }
    let spans = (
      code: code, state: state, deviceID: deviceID, type: type, expiresInRaw: expiresInRaw, extID: fields.span(.extID)
    )
    self = .success(
      VKIDSuccess(text: fields.takeText(), spans: spans, expiresIn: expiresIn, isReturnFromVKApp: fromVKApp))
  }

  /// Whether a decoded `device_id` has no control byte (C0 or DEL). Eight bytes a step, without a branch per
  /// byte (the usual "has a byte below n" and "has a zero byte" word tests; a borrow can only flag a byte
  /// above one that is flagged already), then the tail byte by byte.
  static func isDeviceIDText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    var flagged: UInt64 = 0
    var i = 0
    while i &+ 8 <= bytes.count {
      let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      let del = word ^ (0x7F &* ones)
      flagged |= ((word &- 0x20 &* ones) & ~word & high) | ((del &- ones) & ~del & high)
      i &+= 8
    }
    while i < bytes.count {
      let byte = base[i]
      if byte < 0x20 || byte == 0x7F { return false }
      i &+= 1
    }
    return flagged == 0
  }

  /// `expires_in`'s raw bytes as seconds when they are 1 to 10 ASCII digits, else `nil` (the command line
  /// writes VK's `expires_in` as a number by the same rule).
  @inline(__always)
  @_spi(Bytes) public static func lifetime(_ raw: UnsafeBufferPointer<UInt8>) -> Int? {
    guard raw.count >= 1, raw.count <= 10 else { return nil }
    var value = 0
    for byte in raw {
      let digit = byte &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value &* 10 &+ Int(digit)
    }
    return value
  }

  /// A top-level `state` or `code` next to a `payload` must be the payload's own: the state a pending
  /// authorization checks and the code exchanged are then the ones the result reports. Any difference
  /// (including a top-level one the payload lacks) is `conflicting-outcome`.
  @inline(never)
  private static func rejectConflicts(_ payload: VKIDLegacyPayload, _ fields: inout CallbackFields) throws(CallbackError) {
    if let state = fields.string(.state), state != payload.state {
      throw CallbackError(.conflictingOutcome, parameter: "state", found: "state + payload.oauth.state")
    }
    if let code = fields.string(.code), code != payload.code {
      throw CallbackError(.conflictingOutcome, parameter: "code", found: "code + payload.oauth.code")
    }
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
/// The values are read from the callback's text when accessed (``code``, ``state`` and the others are
/// slices of the URL or body they came from, or decoded copies when they were percent-encoded), so decoding
/// allocates nothing; setting one stores the values in a text of their own.
///
/// ```swift
/// success.isReturnFromVKApp  // true for vkconnect_auth_provider_method=external_auth
/// let made = VKIDSuccess(code: "vk2.a.c", state: "s", deviceID: "d", expiresIn: 600, expiresInRaw: "600")
/// ```
public struct VKIDSuccess: Sendable, Hashable {
  /// Where each value lies in ``text``.
  typealias Spans = (
    code: ValueSpan, state: ValueSpan, deviceID: ValueSpan, type: ValueSpan, expiresInRaw: ValueSpan, extID: ValueSpan
  )

  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `code`, `state`, `device_id`, `type`, `expires_in` and `ext_id` lie in ``text``.
  private(set) var spans: Spans
  /// The code's lifetime in seconds, when sent (the decoder rejects anything but 1 to 10 decimal digits).
  public var expiresIn: Int?
  /// Whether the callback is a return from the VK app (`vkconnect_auth_provider_method=external_auth`).
  public var isReturnFromVKApp: Bool

  init(text: CallbackText, spans: Spans, expiresIn: Int?, isReturnFromVKApp: Bool) {
    self.text = text
    self.spans = spans
    self.expiresIn = expiresIn
    self.isReturnFromVKApp = isReturnFromVKApp
  }

  /// Creates a success from its values. `expiresInRaw` defaults to `expiresIn`'s digits.
  ///
  /// ```swift
  /// VKIDSuccess(code: "vk2.a.c", state: "s", deviceID: "d").type  // nil
  /// VKIDSuccess(code: "vk2.a.c", state: "s", deviceID: "d", expiresIn: 600).expiresInRaw  // "600"
  /// ```
  public init(
    code: Substring, state: Substring, deviceID: Substring, type: Substring? = nil, expiresIn: Int? = nil,
    expiresInRaw: Substring? = nil, extID: Substring? = nil, isReturnFromVKApp: Bool = false
  ) {
    var builder = CallbackText.Builder()
    let spans = (
      code: builder.append(code), state: builder.append(state), deviceID: builder.append(deviceID),
      type: builder.append(type), expiresInRaw: builder.append(expiresInRaw ?? expiresIn.map { String($0)[...] }),
      extID: builder.append(extID)
    )
    self.init(text: builder.text, spans: spans, expiresIn: expiresIn, isReturnFromVKApp: isReturnFromVKApp)
  }

  /// The authorization code (`vk2.a.…`), exchanged together with ``deviceID`` and the PKCE verifier.
  public var code: Substring {
    get { text.value(spans.code) ?? "" }
    set {
      self = VKIDSuccess(
        code: newValue, state: state, deviceID: deviceID, type: type, expiresIn: expiresIn,
        expiresInRaw: expiresInRaw, extID: extID, isReturnFromVKApp: isReturnFromVKApp)
    }
  }
  /// The echoed `state`.
  public var state: Substring {
    get { text.value(spans.state) ?? "" }
    set {
      self = VKIDSuccess(
        code: code, state: newValue, deviceID: deviceID, type: type, expiresIn: expiresIn,
        expiresInRaw: expiresInRaw, extID: extID, isReturnFromVKApp: isReturnFromVKApp)
    }
  }
  /// The server's encrypted device id: required for the token exchange and later refreshes.
  public var deviceID: Substring {
    get { text.value(spans.deviceID) ?? "" }
    set {
      self = VKIDSuccess(
        code: code, state: state, deviceID: newValue, type: type, expiresIn: expiresIn,
        expiresInRaw: expiresInRaw, extID: extID, isReturnFromVKApp: isReturnFromVKApp)
    }
  }
  /// The code type (`code_v2`), when sent.
  public var type: Substring? {
    get { text.value(spans.type) }
    set {
      self = VKIDSuccess(
        code: code, state: state, deviceID: deviceID, type: newValue, expiresIn: expiresIn,
        expiresInRaw: expiresInRaw, extID: extID, isReturnFromVKApp: isReturnFromVKApp)
    }
  }
  /// `expires_in` as sent.
  public var expiresInRaw: Substring? {
    get { text.value(spans.expiresInRaw) }
    set {
      self = VKIDSuccess(
        code: code, state: state, deviceID: deviceID, type: type, expiresIn: expiresIn,
        expiresInRaw: newValue, extID: extID, isReturnFromVKApp: isReturnFromVKApp)
    }
  }
  /// The internal `ext_id`, when sent.
  public var extID: Substring? {
    get { text.value(spans.extID) }
    set {
      self = VKIDSuccess(
        code: code, state: state, deviceID: deviceID, type: type, expiresIn: expiresIn,
        expiresInRaw: expiresInRaw, extID: newValue, isReturnFromVKApp: isReturnFromVKApp)
    }
  }

  public static func == (lhs: VKIDSuccess, rhs: VKIDSuccess) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.deviceID == rhs.deviceID && lhs.type == rhs.type
      && lhs.expiresIn == rhs.expiresIn && lhs.expiresInRaw == rhs.expiresInRaw && lhs.extID == rhs.extID
      && lhs.isReturnFromVKApp == rhs.isReturnFromVKApp
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(deviceID)
    hasher.combine(type)
    hasher.combine(expiresIn)
    hasher.combine(expiresInRaw)
    hasher.combine(extID)
    hasher.combine(isReturnFromVKApp)
  }
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

  /// A payload with these values, as decoded earlier (``ProviderCallback``'s `Codable`).
  init(code: String, state: String?, user: User?) {
    self.code = code
    self.state = state
    self.user = user
  }

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
