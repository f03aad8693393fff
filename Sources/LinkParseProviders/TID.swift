// T-ID (Tinkoff ID) callbacks (providers.md §3).

public import LinkParseCore

/// A decoded T-ID (Tinkoff ID) callback.
///
/// Grammars: iOS `?code=…`, bare flags `?cancelled` and `?unavailable`; Android
/// `auth_status_code=success&code=…` or `auth_status_code=cancelled_by_user`; the iOS debug app's
/// `result=success|failure|cancelled|unavailable`; web `state`, `code`, `session_state`.
///
/// Each signal names one outcome. Two different outcomes in one callback (`?cancelled&code=x`,
/// `?cancelled&unavailable`) are a ``CallbackError`` `conflicting-outcome`, never a random pick (the iOS SDK
/// picks by `Dictionary` order). An empty `code=` is `missing-parameter`.
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

  /// Decodes a callback's parameters.
  ///
  /// ```swift
  /// try TIDCallback(FormParameters("auth_status_code=success&code=c.9fQ"))  // .success(code: "c.9fQ")
  /// ```
  ///
  /// - Throws: ``CallbackError`` `duplicate-parameter`, `conflicting-outcome`, `missing-parameter` (empty
  ///   `code=`, or `auth_status_code=success` without a code), `malformed-parameter` (unknown
  ///   `auth_status_code` or `result` value), `unrecognized-callback` (no outcome at all).
  public init(_ parameters: FormParameters) throws(CallbackError) {
    if let name = parameters.firstDuplicate(among: criticalParameters + ["auth_status_code", "result"]) {
      throw CallbackError(.duplicateParameter, parameter: name)
    }
    enum Outcome: String { case success, cancelled, unavailable, failure }
    var outcomes: [(Outcome, String)] = []
    func add(_ outcome: Outcome, _ signal: String) {
      if !outcomes.contains(where: { $0.0 == outcome }) { outcomes.append((outcome, signal)) }
    }
    let codeParameter = parameters.first(named: "code")
    if codeParameter != nil { add(.success, "code") }
    if parameters.contains(named: "cancelled") { add(.cancelled, "cancelled") }
    if parameters.contains(named: "unavailable") { add(.unavailable, "unavailable") }
    if let status = parameters.first(named: "auth_status_code") {
      switch status.value() ?? "" {
      case "success": add(.success, "auth_status_code=success")
      case "cancelled_by_user": add(.cancelled, "auth_status_code=cancelled_by_user")
      case let other:
        throw CallbackError(.malformedParameter, parameter: "auth_status_code", found: other)
      }
    }
    var debugValue: String?
    if let result = parameters.first(named: "result") {
      let value = result.value() ?? ""
      switch value {
      case "success": add(.success, "result=success")
      case "failure": add(.failure, "result=failure")
      case "cancelled": add(.cancelled, "result=cancelled")
      case "unavailable": add(.unavailable, "result=unavailable")
      default: throw CallbackError(.malformedParameter, parameter: "result", found: value)
      }
      debugValue = value
    }
    guard let (outcome, _) = outcomes.first else { throw CallbackError(.unrecognizedCallback) }
    guard outcomes.count == 1 else {
      throw CallbackError(.conflictingOutcome, found: outcomes.map(\.1).joined(separator: " + "))
    }
    switch outcome {
    case .cancelled: self = .cancelled
    case .unavailable: self = .unavailable
    case .failure: self = .debugResult(debugValue ?? "failure")
    case .success:
      if codeParameter == nil, let debugValue {
        self = .debugResult(debugValue)
        return
      }
      guard let code = parameters.nonEmptyValue("code") else {
        throw CallbackError(.missingParameter, parameter: "code")
      }
      self = .success(
        TIDSuccess(
          code: code, state: parameters.nonEmptyValue("state"),
          sessionState: parameters.nonEmptyValue("session_state")))
    }
  }

  /// The web flow's `state`, if any (the app flows carry none).
  ///
  /// ```swift
  /// try TIDCallback(FormParameters("state=ABC&code=c")).state  // "ABC"
  /// ```
  public var state: String? {
    if case .success(let s) = self { return s.state }
    return nil
  }
}

/// A successful T-ID callback.
///
/// ```swift
/// success.sessionState  // the web flow's technical session_state, when sent
/// ```
public struct TIDSuccess: Sendable, Hashable {
  /// The authorization code, exchanged at `https://id.tbank.ru/auth/token` with the PKCE verifier.
  public var code: String
  /// The web flow's `state`.
  public var state: String?
  /// The web flow's `session_state`.
  public var sessionState: String?
}
