// Sber ID callbacks (providers.md §1.2–1.5).

@_spi(Bytes) public import LinkParseCore

/// A decoded Sber ID callback to the partner's `redirect_uri`.
///
/// Classification order (providers.md §7.3): `error` first (kept raw, never replaced by a synthetic
/// `internal_error`), then the Android `result=FAILURE` / `error_code`, then the iOS `status=fail`, then
/// `code`. `error=null` and an empty `error=` count as absent.
///
/// ```swift
/// let url = try ParsedURL("myapp://sberidauth?status=fail&error=invalid_scope&state=Qk7x")
/// switch try SberIDCallback(url.queryParameters) {
/// case .success(let success): print(success.code)
/// case .failure(let failure): print(failure.error?.code.rawValue ?? "-")  // invalid_scope
/// }
/// ```
public enum SberIDCallback: Sendable, Hashable {
  /// `code` (+ `state`) with the partner's pass-through parameters.
  case success(SberIDSuccess)
  /// An error in one of the three encodings.
  case failure(SberIDFailure)

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// let result = try SberIDCallback(FormParameters("state=s&code=C0DE&utm_source=sbol"))
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` for a repeated `code`/`state`/`error`,
  ///   `missing-parameter` when there is neither an error nor a non-empty `code`.
  public init(_ parameters: FormParameters) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    // Every parameter read to decide the outcome: `status=success&status=fail` is rejected in either order.
    try fields.rejectDuplicates(
      also: CallbackFields.Key.status.bit | CallbackFields.Key.result.bit | CallbackFields.Key.errorCode.bit)
    let state = fields.span(.state)
    let status = fields.span(.status)
    let result = fields.span(.result)
    let errorCode = fields.span(.errorCode)
    if let error = ProviderError(&fields) {
      let encoding: SberIDFailure.Encoding =
        !status.isAbsent ? .iOSApp : (!result.isAbsent || !errorCode.isAbsent ? .androidApp : .web)
      let spans = (errorCode: errorCode, status: status.isAbsent ? result : status, state: state)
      self = .failure(SberIDFailure(encoding: encoding, error: error, text: fields.takeText(), spans: spans))
      return
    }
    let failureResult = !result.isAbsent && fields.withDecodedValue(.result, Self.isFailureResult(bytes:))
    if failureResult || !errorCode.isAbsent {
      let spans = (errorCode: errorCode, status: result, state: state)
      self = .failure(SberIDFailure(encoding: .androidApp, error: nil, text: fields.takeText(), spans: spans))
      return
    }
    if !status.isAbsent && fields.withDecodedValue(.status, Self.isFailStatus(bytes:)) {
      let spans = (errorCode: ValueSpan.absent, status: status, state: state)
      self = .failure(SberIDFailure(encoding: .iOSApp, error: nil, text: fields.takeText(), spans: spans))
      return
    }
    let code = fields.span(.code)
    guard !code.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
    let spans = (code: code, state: state, status: status, parameters: fields.sourceSpan)
    self = .success(SberIDSuccess(text: fields.takeText(), spans: spans))
  }

  /// `result.uppercased() == "FAILURE"`, without allocating for ASCII values.
  static func isFailureResult(_ result: Substring) -> Bool {
    var result = result
    return result.withUTF8 { isFailureResult(bytes: $0) }
  }

  /// ``isFailureResult(_:)`` over a value's UTF-8 bytes.
  static func isFailureResult(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.allSatisfy({ $0 < 0x80 }) else {
      return String(decoding: bytes, as: UTF8.self).uppercased() == "FAILURE"
    }
    return bytes.count == 7 && zip(bytes, "FAILURE".utf8).allSatisfy { a, b in a & 0xDF == b }
  }

  /// `status.lowercased() == "fail"`, without allocating for ASCII values.
  static func isFailStatus(_ status: Substring) -> Bool {
    var status = status
    return status.withUTF8 { isFailStatus(bytes: $0) }
  }

  /// Whether a decoded `status` value is one of the Sber iOS app's flags, `fail` or `success` (ASCII letter case
  /// ignored): what makes ``ProviderDetector`` pick Sber.
  static func isSberStatus(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if bytes.count == 7 && bytes.allSatisfy({ $0 < 0x80 }) {
      return zip(bytes, "success".utf8).allSatisfy { a, b in a | 0x20 == b }
    }
    return isFailStatus(bytes: bytes)
  }

  /// ``isFailStatus(_:)`` over a value's UTF-8 bytes.
  static func isFailStatus(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self).lowercased() == "fail" }
    return bytes.count == 4 && zip(bytes, "fail".utf8).allSatisfy { a, b in a | 0x20 == b }
  }

  /// The echoed `state`, if any.
  ///
  /// ```swift
  /// try SberIDCallback(FormParameters("code=c&state=s")).state  // "s"
  /// ```
  public var state: Substring? {
    switch self {
    case .success(let s): return s.state
    case .failure(let f): return f.state
    }
  }
}

/// A successful Sber ID callback.
///
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``).
///
/// ```swift
/// if case .success(let s) = try SberIDCallback(FormParameters("code=c&state=s&option1=promo")) {
///   s.extras["option1"]  // "promo"
/// }
/// ```
public struct SberIDSuccess: Sendable, Hashable {
  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `code`, `state`, `status` and the callback's whole parameter text (raw, for ``extras``) lie in
  /// ``text``.
  private(set) var spans: (code: ValueSpan, state: ValueSpan, status: ValueSpan, parameters: ValueSpan)

  init(text: CallbackText, spans: (code: ValueSpan, state: ValueSpan, status: ValueSpan, parameters: ValueSpan)) {
    self.text = text
    self.spans = spans
  }

  /// A success with these values, whose extras are read from `parameters` (raw, still form-encoded).
  init(code: Substring, state: Substring?, status: Substring?, parameters: Substring) {
    var builder = CallbackText.Builder()
    let spans = (
      code: builder.append(code), state: builder.append(state), status: builder.append(status),
      parameters: builder.append(parameters)
    )
    self.init(text: builder.text, spans: spans)
  }

  /// The authorization code, exchanged on the backend at `/token.do` with the PKCE verifier.
  public var code: Substring {
    get { text.value(spans.code) ?? "" }
    set { self = SberIDSuccess(code: newValue, state: state, status: status, parameters: parameters) }
  }
  /// The echoed `state`.
  public var state: Substring? {
    get { text.value(spans.state) }
    set { self = SberIDSuccess(code: code, state: newValue, status: status, parameters: parameters) }
  }
  /// The iOS app flow's `status` flag (`success`), if sent.
  public var status: Substring? {
    get { text.value(spans.status) }
    set { self = SberIDSuccess(code: code, state: state, status: newValue, parameters: parameters) }
  }
  /// The callback's whole parameter text, raw (still form-encoded).
  private var parameters: Substring { text.raw(spans.parameters) ?? "" }

  /// The Sber ID SDK's `appToken` (its response model's `SIDAuthResponse.appToken`, for seamless login from
  /// the Sber app), when the callback carries one; read from the callback's parameters when accessed. A secret:
  /// keep it as you keep tokens (`linkparse --redact` hides it).
  ///
  /// ```swift
  /// if case .success(let s) = try SberIDCallback(FormParameters("code=c&state=s&appToken=AT-1")) {
  ///   s.appToken  // "AT-1"
  /// }
  /// ```
  public var appToken: Substring? {
    FormParameters(parameters).first(named: "appToken")?.value().map { $0[...] }
  }

  /// Partner pass-through parameters (`utm_*`, `option1`…`option3`), first occurrence of each; collected
  /// from the callback's parameters when read.
  public var extras: [String: String] {
    var extras: [String: String] = [:]
    for parameter in FormParameters(parameters) {
      let name = parameter.name()
      if name.hasPrefix("utm_") || name == "option1" || name == "option2" || name == "option3" {
        extras[name] = extras[name] ?? parameter.value() ?? ""
      }
    }
    return extras
  }

  /// Whether ``extras`` is non-empty or ``appToken`` present, found without building either: one byte-level
  /// pass over the parameters' decoded names, no `String` or dictionary (most callbacks carry neither, and the
  /// command line writes the values of every Sber callback).
  var hasExtras: Bool {
    var found = false
    FormParameters(parameters).forEachDecoded { name, _ in
      if !found { found = name.withDecodedBytes { Self.isExtraName($0) || Self.isAppTokenName($0) } }
    }
    return found
  }

  /// `appToken`, exactly.
  private static func isAppTokenName(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    b.count == 8 && b.elementsEqual("appToken".utf8)
  }

  /// `utm_…`, `option1`, `option2` or `option3`, compared byte by byte (the generic `starts(with:)` and `==`
  /// over a `String` cost more than the whole pass).
  private static func isExtraName(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    if b.count >= 4 && b[0] == 0x75 && b[1] == 0x74 && b[2] == 0x6D && b[3] == 0x5F { return true }  // utm_
    guard b.count == 7, b[6] >= 0x31, b[6] <= 0x33 else { return false }  // option[1-3]
    return b[0] == 0x6F && b[1] == 0x70 && b[2] == 0x74 && b[3] == 0x69 && b[4] == 0x6F && b[5] == 0x6E
  }

  public static func == (lhs: SberIDSuccess, rhs: SberIDSuccess) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.status == rhs.status && lhs.extras == rhs.extras
      && lhs.appToken == rhs.appToken
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(status)
    hasher.combine(extras)
    hasher.combine(appToken)
  }
}

/// A Sber ID error callback, in whichever of the three encodings it came.
///
/// ```swift
/// if case .failure(let f) = try SberIDCallback(FormParameters("result=FAILURE&error_code=5")) {
///   f.encoding   // .androidApp
///   f.errorCode  // "5"
/// }
/// ```
public struct SberIDFailure: Sendable, Hashable {
  /// How the error was encoded.
  public enum Encoding: String, Sendable, Hashable {
    /// iOS app-to-app: `status=fail&error=…`.
    case iOSApp = "ios-app"
    /// Android app-to-app: `result=FAILURE&error_code=N`.
    case androidApp = "android-app"
    /// Web (`authorize.do`): `error=…&state=…`.
    case web
  }
  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `error_code`, the status flag and `state` lie in ``text``.
  private(set) var spans: (errorCode: ValueSpan, status: ValueSpan, state: ValueSpan)

  /// The encoding.
  public var encoding: Encoding
  /// The server's `error` (typed when it is a known OAuth code), when sent.
  public var error: ProviderError?

  init(
    encoding: Encoding, error: ProviderError?, text: CallbackText,
    spans: (errorCode: ValueSpan, status: ValueSpan, state: ValueSpan)
  ) {
    self.encoding = encoding
    self.error = error
    self.text = text
    self.spans = spans
  }

  /// Creates a failure from its values.
  ///
  /// ```swift
  /// SberIDFailure(encoding: .androidApp, errorCode: "5", status: "FAILURE").rawCode  // "5"
  /// ```
  public init(
    encoding: Encoding, error: ProviderError? = nil, errorCode: Substring? = nil, status: Substring? = nil,
    state: Substring? = nil
  ) {
    var builder = CallbackText.Builder()
    let spans = (errorCode: builder.append(errorCode), status: builder.append(status), state: builder.append(state))
    self.init(encoding: encoding, error: error, text: builder.text, spans: spans)
  }

  /// The Android app's numeric `error_code` (always `5` in the vendor material), when sent.
  public var errorCode: Substring? {
    get { text.value(spans.errorCode) }
    set {
      self = SberIDFailure(encoding: encoding, error: error, errorCode: newValue, status: status, state: state)
    }
  }
  /// The raw status flag (`status=fail` or `result=FAILURE`), when sent.
  public var status: Substring? {
    get { text.value(spans.status) }
    set {
      self = SberIDFailure(encoding: encoding, error: error, errorCode: errorCode, status: newValue, state: state)
    }
  }
  /// The echoed `state`, if any.
  public var state: Substring? {
    get { text.value(spans.state) }
    set {
      self = SberIDFailure(encoding: encoding, error: error, errorCode: errorCode, status: status, state: newValue)
    }
  }

  public static func == (lhs: SberIDFailure, rhs: SberIDFailure) -> Bool {
    lhs.encoding == rhs.encoding && lhs.error == rhs.error && lhs.errorCode == rhs.errorCode
      && lhs.status == rhs.status && lhs.state == rhs.state
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(encoding)
    hasher.combine(error)
    hasher.combine(errorCode)
    hasher.combine(status)
    hasher.combine(state)
  }

  /// The value reported as the error's code: the raw `error`, else the Android app's `error_code` value as
  /// sent (`5`), else the status flag.
  ///
  /// ```swift
  /// // result=FAILURE&error_code=5 → "5"
  /// // status=fail&error=invalid_scope → "invalid_scope"
  /// ```
  public var rawCode: String {
    if let error { return error.code.rawValue }
    if let errorCode { return String(errorCode) }
    return status.map(String.init) ?? "fail"
  }

  /// English description of the error.
  ///
  /// ```swift
  /// failure.descriptionEN  // "The user or the server denied access."
  /// ```
  public var descriptionEN: String {
    if let error { return error.code.descriptionEN }
    if let errorCode {
      return "The Sber app reported a failure without an error type (error_code \(errorCode))."
    }
    return "The Sber app reported a failure without an error code."
  }

  /// Russian description of the error.
  ///
  /// ```swift
  /// failure.descriptionRU  // "Пользователь или сервер отказал в доступе."
  /// ```
  public var descriptionRU: String {
    if let error { return error.code.descriptionRU }
    if let errorCode {
      return "Приложение Сбербанк Онлайн сообщило об ошибке без указания типа (error_code \(errorCode))."
    }
    return "Приложение Сбербанк Онлайн сообщило об ошибке без кода."
  }
}
