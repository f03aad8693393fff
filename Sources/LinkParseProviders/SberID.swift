// Sber ID callbacks (providers.md §1.2–1.5).

public import LinkParseCore

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
    try self.init(CallbackFields(parameters))
  }

  init(_ fields: borrowing CallbackFields) throws(CallbackError) {
    try fields.rejectDuplicates()
    let state = fields.value(.state)
    let status = fields.value(.status)
    let result = fields.value(.result)
    let errorCode = fields.value(.errorCode)
    if let error = ProviderError(fields) {
      let encoding: SberIDFailure.Encoding =
        status != nil ? .iOSApp : (result != nil || errorCode != nil ? .androidApp : .web)
      self = .failure(SberIDFailure(encoding: encoding, error: error, errorCode: errorCode, status: status ?? result, state: state))
      return
    }
    if result.map(Self.isFailureResult) == true || errorCode != nil {
      self = .failure(SberIDFailure(encoding: .androidApp, error: nil, errorCode: errorCode, status: result, state: state))
      return
    }
    if let status, Self.isFailStatus(status) {
      self = .failure(SberIDFailure(encoding: .iOSApp, error: nil, errorCode: nil, status: status, state: state))
      return
    }
    guard let code = fields.value(.code) else {
      throw CallbackError(.missingParameter, parameter: "code")
    }
    self = .success(SberIDSuccess(code: code, state: state, status: status, parameters: FormParameters(fields.source)))
  }

  /// `result.uppercased() == "FAILURE"`, without allocating for ASCII values.
  static func isFailureResult(_ result: Substring) -> Bool {
    guard result.utf8.allSatisfy({ $0 < 0x80 }) else { return result.uppercased() == "FAILURE" }
    return result.utf8.count == 7 && zip(result.utf8, "FAILURE".utf8).allSatisfy { a, b in a & 0xDF == b }
  }

  /// `status.lowercased() == "fail"`, without allocating for ASCII values.
  static func isFailStatus(_ status: Substring) -> Bool {
    guard status.utf8.allSatisfy({ $0 < 0x80 }) else { return status.lowercased() == "fail" }
    return status.utf8.count == 4 && zip(status.utf8, "fail".utf8).allSatisfy { a, b in a | 0x20 == b }
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
/// ```swift
/// if case .success(let s) = try SberIDCallback(FormParameters("code=c&state=s&option1=promo")) {
///   s.extras["option1"]  // "promo"
/// }
/// ```
public struct SberIDSuccess: Sendable, Hashable {
  /// The authorization code, exchanged on the backend at `/token.do` with the PKCE verifier.
  public var code: Substring
  /// The echoed `state`.
  public var state: Substring?
  /// The iOS app flow's `status` flag (`success`), if sent.
  public var status: Substring?
  /// The callback's parameters, read for ``extras`` on access.
  let parameters: FormParameters

  init(code: Substring, state: Substring?, status: Substring?, parameters: FormParameters) {
    self.code = code
    self.state = state
    self.status = status
    self.parameters = parameters
  }

  /// Partner pass-through parameters (`utm_*`, `option1`…`option3`), first occurrence of each; collected
  /// from the callback's parameters when read.
  public var extras: [String: String] {
    var extras: [String: String] = [:]
    for parameter in parameters {
      let name = parameter.name()
      if name.hasPrefix("utm_") || name == "option1" || name == "option2" || name == "option3" {
        extras[name] = extras[name] ?? parameter.value() ?? ""
      }
    }
    return extras
  }

  public static func == (lhs: SberIDSuccess, rhs: SberIDSuccess) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.status == rhs.status && lhs.extras == rhs.extras
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(status)
    hasher.combine(extras)
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
  /// The encoding.
  public var encoding: Encoding
  /// The server's `error` (typed when it is a known OAuth code), when sent.
  public var error: ProviderError?
  /// The Android app's numeric `error_code` (always `5` in the vendor material), when sent.
  public var errorCode: Substring?
  /// The raw status flag (`status=fail` or `result=FAILURE`), when sent.
  public var status: Substring?
  /// The echoed `state`, if any.
  public var state: Substring?

  /// The value reported as the error's code: the raw `error`, else `error_code=N`, else the status flag.
  ///
  /// ```swift
  /// // result=FAILURE&error_code=5 → "error_code=5"
  /// ```
  public var rawCode: String {
    if let error { return error.code.rawValue }
    if let errorCode { return "error_code=\(errorCode)" }
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
