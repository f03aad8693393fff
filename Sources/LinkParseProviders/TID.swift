// T-ID (Tinkoff ID) callbacks (providers.md §3).

public import LinkParseCore

/// A decoded T-ID (Tinkoff ID) callback.
///
/// Grammars: iOS `?code=…`, bare flags `?cancelled` and `?unavailable`; Android
/// `auth_status_code=success&code=…` or `auth_status_code=cancelled_by_user`; the iOS debug app's
/// `result=success|failure|cancelled|unavailable`; web `state`, `code`, `session_state`, and the web flow's
/// OAuth 2.0 error response (RFC 6749 §4.1.2.1: `state`, `error`, `error_description`, `error_uri`).
///
/// Each signal names one outcome. Two different outcomes in one callback (`?cancelled&code=x`,
/// `?cancelled&unavailable`, `?code=c.1&error=access_denied`) are a ``CallbackError`` `conflicting-outcome`,
/// never a random pick (the iOS SDK picks by `Dictionary` order). An empty `code=` is `missing-parameter`.
///
/// ```swift
/// let url = try ParsedURL("myapp://authorized?cancelled")
/// try TIDCallback(url.queryParameters)  // .cancelled
/// ```
public enum TIDCallback: Sendable, Hashable {
  /// `code`, with `state` and `session_state` in the web flow.
  case success(TIDSuccess)
  /// The user cancelled (`cancelled`, `auth_status_code=cancelled_by_user`, `result=cancelled`).
  case cancelled
  /// T-ID is not available to this user (`unavailable`, `result=unavailable`): offer another login method.
  case unavailable
  /// The debug app's `result=failure`, or its `result=success` stub that carries no code. The raw value
  /// is kept.
  case debugResult(String)
  /// The web flow's error response (`?state=ABCxyz&error=access_denied&error_description=User+denied`): the
  /// provider's `error` with its raw value, plus the echoed `state` if any.
  ///
  /// ```swift
  /// try TIDCallback(FormParameters("state=S&error=access_denied"))  // .failure(access_denied, state: "S")
  /// ```
  case failure(ProviderError, state: Substring?)

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// try TIDCallback(FormParameters("auth_status_code=success&code=c.9fQ"))  // .success(code: "c.9fQ")
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter` (a repeated `code`, `state`, `error`, `cancelled`,
  ///   `unavailable`, `auth_status_code` or `result`), `conflicting-outcome`, `missing-parameter` (empty
  ///   `code=`, or `auth_status_code=success` without a code), `malformed-parameter` (unknown
  ///   `auth_status_code` or `result` value), `unrecognized-callback` (no outcome at all).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    try self.init(&fields)
  }

  init(_ fields: inout CallbackFields) throws(CallbackError) {
    // Every parameter read to decide the outcome (providers.md §3.3).
    try fields.rejectDuplicates(
      also: CallbackFields.Key.authStatusCode.bit | CallbackFields.Key.result.bit | CallbackFields.Key.cancelled.bit
        | CallbackFields.Key.unavailable.bit)
    // The outcomes signalled, in the order they are checked (at most one each), without allocating.
    var signals = Signals()
    let hasCode = fields.contains(.code)
    if hasCode { signals.add(.success, "code") }
    if fields.contains(.cancelled) { signals.add(.cancelled, "cancelled") }
    if fields.contains(.unavailable) { signals.add(.unavailable, "unavailable") }
    // The web flow's error response (`error=null` and an empty `error=` count as absent, as everywhere).
    let providerError = fields.contains(.error) ? ProviderError(&fields) : nil
    if providerError != nil { signals.add(.error, "error") }
    if fields.contains(.authStatusCode) {
      if fields.value(.authStatusCode, equals: "success") {
        signals.add(.success, "auth_status_code=success")
      } else if fields.value(.authStatusCode, equals: "cancelled_by_user") {
        signals.add(.cancelled, "auth_status_code=cancelled_by_user")
      } else {
        throw CallbackError(
          .malformedParameter, parameter: "auth_status_code", found: fields.valueString(.authStatusCode) ?? "")
      }
    }
    var debugValue: String?
    if fields.contains(.result) {
      if fields.value(.result, equals: "success") {
        signals.add(.success, "result=success")
        debugValue = "success"
      } else if fields.value(.result, equals: "failure") {
        signals.add(.failure, "result=failure")
        debugValue = "failure"
      } else if fields.value(.result, equals: "cancelled") {
        signals.add(.cancelled, "result=cancelled")
        debugValue = "cancelled"
      } else if fields.value(.result, equals: "unavailable") {
        signals.add(.unavailable, "result=unavailable")
        debugValue = "unavailable"
      } else {
        throw CallbackError(.malformedParameter, parameter: "result", found: fields.valueString(.result) ?? "")
      }
    }
    guard let outcome = signals.first else { throw CallbackError(.unrecognizedCallback) }
    guard signals.count == 1 else {
      throw CallbackError(.conflictingOutcome, found: signals.description)
    }
    switch outcome {
    case .cancelled: self = .cancelled
    case .unavailable: self = .unavailable
    case .failure: self = .debugResult(debugValue ?? "failure")
    case .error: self = .failure(providerError!, state: fields.value(.state))
    case .success:
      if !hasCode, let debugValue {
        self = .debugResult(debugValue)
        return
      }
      let code = fields.span(.code)
      guard !code.isAbsent else { throw CallbackError(.missingParameter, parameter: "code") }
      let state = fields.span(.state)
      let sessionState = fields.span(.sessionState)
      self = .success(
        TIDSuccess(text: fields.takeText(), spans: (code: code, state: state, sessionState: sessionState)))
    }
  }

  private enum Outcome: UInt8 { case success = 1, cancelled = 2, unavailable = 4, failure = 8, error = 16 }

  /// The distinct outcomes a callback signals, in the order they were found, with the signal of each.
  private struct Signals {
    var seen: UInt8 = 0
    var first: Outcome?
    var count = 0
    var names: (StaticString, StaticString, StaticString, StaticString, StaticString) = ("", "", "", "", "")

    mutating func add(_ outcome: Outcome, _ signal: StaticString) {
      guard seen & outcome.rawValue == 0 else { return }
      seen |= outcome.rawValue
      switch count {
      case 0:
        first = outcome
        names.0 = signal
      case 1: names.1 = signal
      case 2: names.2 = signal
      case 3: names.3 = signal
      default: names.4 = signal
      }
      count += 1
    }

    /// `a + b + …`.
    var description: String {
      [names.0, names.1, names.2, names.3, names.4].prefix(count).map { $0.description }.joined(separator: " + ")
    }
  }

  /// The web flow's `state`, if any (the app flows carry none).
  ///
  /// ```swift
  /// try TIDCallback(FormParameters("state=ABC&code=c")).state  // "ABC"
  /// ```
  public var state: Substring? {
    switch self {
    case .success(let s): return s.state
    case .failure(_, let state): return state
    case .cancelled, .unavailable, .debugResult: return nil
    }
  }
}

/// A successful T-ID callback.
///
/// The values are read from the callback's text when accessed (see ``VKIDSuccess``).
///
/// ```swift
/// success.sessionState  // the web flow's technical session_state, when sent
/// TIDSuccess(code: "c.9fQ")  // made from values
/// ```
public struct TIDSuccess: Sendable, Hashable {
  /// The callback's text (or one holding the values set), read on access.
  private(set) var text: CallbackText
  /// Where `code`, `state` and `session_state` lie in ``text``.
  private(set) var spans: (code: ValueSpan, state: ValueSpan, sessionState: ValueSpan)

  init(text: CallbackText, spans: (code: ValueSpan, state: ValueSpan, sessionState: ValueSpan)) {
    self.text = text
    self.spans = spans
  }

  /// Creates a success from its values.
  ///
  /// ```swift
  /// TIDSuccess(code: "c.1", state: "ABC").state  // "ABC"
  /// ```
  public init(code: Substring, state: Substring? = nil, sessionState: Substring? = nil) {
    var builder = CallbackText.Builder()
    let spans = (code: builder.append(code), state: builder.append(state), sessionState: builder.append(sessionState))
    self.init(text: builder.text, spans: spans)
  }

  /// The authorization code, exchanged at `https://id.tbank.ru/auth/token` with the PKCE verifier.
  public var code: Substring {
    get { text.value(spans.code) ?? "" }
    set { self = TIDSuccess(code: newValue, state: state, sessionState: sessionState) }
  }
  /// The web flow's `state`.
  public var state: Substring? {
    get { text.value(spans.state) }
    set { self = TIDSuccess(code: code, state: newValue, sessionState: sessionState) }
  }
  /// The web flow's `session_state`.
  public var sessionState: Substring? {
    get { text.value(spans.sessionState) }
    set { self = TIDSuccess(code: code, state: state, sessionState: newValue) }
  }

  public static func == (lhs: TIDSuccess, rhs: TIDSuccess) -> Bool {
    lhs.code == rhs.code && lhs.state == rhs.state && lhs.sessionState == rhs.sessionState
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(state)
    hasher.combine(sessionState)
  }
}
