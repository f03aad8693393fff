/// Why a callback was rejected: it does not belong to a pending authorization, it is malformed, or it is
/// unsafe to act on.
///
/// Every error carries a stable kebab-case ``code`` (safe to match on, log and put in JSON), the
/// ``parameter`` it concerns when there is one, what was ``found`` (never a secret: codes, tokens and device
/// ids are not copied here), and descriptions in English and Russian.
///
/// A provider's *own* error (`error=access_denied`) is not a `CallbackError`: it is a decoded outcome
/// (``ProviderError``), so the server's code is never replaced by a synthetic one. When a callback carrying
/// one is rejected anyway (a `state-mismatch`), the rejection keeps it in ``providerError``: both are
/// reported.
///
/// ```swift
/// do {
///   _ = try pending.validate(url, parameters: url.queryParameters)
/// } catch {
///   print(error.code, error.descriptionEN)  // state-mismatch The callback's state does not match …
///   if error.code == .replayed { … }
/// }
/// ```
public struct CallbackError: Error, Sendable, Hashable, CustomStringConvertible {

  /// A stable, machine-readable error code. New codes may be added; existing ones never change meaning.
  ///
  /// ```swift
  /// CallbackError.Code.stateMismatch.rawValue  // "state-mismatch"
  /// ```
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The kebab-case spelling, e.g. `state-mismatch`.
    public let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    /// The kebab-case spelling.
    public var description: String { rawValue }

    /// The callback's scheme, host, path, userinfo or port differ from the pending redirect URI.
    public static let redirectMismatch = Code("redirect-mismatch")
    /// A critical parameter (`code`, `state`, `error`, `iss`, `device_id`) occurs more than once.
    public static let duplicateParameter = Code("duplicate-parameter")
    /// The callback's `state` differs from the pending one, or is missing or unexpected.
    public static let stateMismatch = Code("state-mismatch")
    /// The callback's `iss` differs from the expected issuer, or is missing or unexpected (RFC 9207).
    public static let issuerMismatch = Code("issuer-mismatch")
    /// The pending authorization has expired.
    public static let expired = Code("expired")
    /// The pending authorization was already used by an earlier callback.
    public static let replayed = Code("replayed")
    /// No authorization is pending for this callback.
    public static let notPending = Code("not-pending")
    /// The login is bound to the browser that started it (``PendingAuthorization/browserBinding``) and the
    /// callback came without that browser's transaction cookie, or with another's (login CSRF, RFC 9700 §4.7.1).
    public static let browserMismatch = Code("browser-mismatch")
    /// More than one state-less authorization (T-ID app flow) is pending, so the callback cannot be bound.
    public static let ambiguousAuthorization = Code("ambiguous-authorization")
    /// A parameter the outcome needs is missing or empty.
    public static let missingParameter = Code("missing-parameter")
    /// A parameter has a value the provider never sends (bad JSON, unknown status value, …).
    public static let malformedParameter = Code("malformed-parameter")
    /// The callback carries more than one outcome (e.g. T-ID `cancelled` and `code`).
    public static let conflictingOutcome = Code("conflicting-outcome")
    /// The callback carries none of the provider's outcomes.
    public static let unrecognizedCallback = Code("unrecognized-callback")
    /// A Sber seamless-login base URL is not on the trust policy's allow-list.
    public static let untrustedSSOHost = Code("untrusted-sso-host")
    /// An id_token-only callback (Sign in with Apple's `response_type=id_token`) whose token does not carry the
    /// pending authorization's `nonce`, or an authorization that has no nonce to bind such a callback to.
    public static let nonceMismatch = Code("nonce-mismatch")
  }

  /// What went wrong.
  public var code: Code
  /// The parameter concerned (`state`, `device_id`, `sberIDRedirect`…), when there is one.
  public var parameter: String?
  /// What was found, when it is useful and safe to show (a scheme or host, a status value); never a secret.
  public var found: String?
  /// The error the provider reported in the rejected callback (`error=…`, or the Sber Android app's
  /// `error_code`), when it carried one: a rejection (a `state-mismatch`) never hides it. Both are reported:
  /// ``code`` says why the callback was rejected, this what the provider said. Included in the descriptions.
  ///
  /// ```swift
  /// // pending state "s1"; callback ?error=access_denied&state=forged
  /// error.code                           // .stateMismatch
  /// error.providerError?.code.rawValue   // "access_denied"
  /// ```
  public var providerError: ProviderError?

  /// Creates an error.
  ///
  /// ```swift
  /// let error = CallbackError(.missingParameter, parameter: "device_id")
  /// let both = CallbackError(.stateMismatch, parameter: "state", providerError: ProviderError(code: .accessDenied))
  /// ```
  public init(_ code: Code, parameter: String? = nil, found: String? = nil, providerError: ProviderError? = nil) {
    self.code = code
    self.parameter = parameter
    self.found = found
    self.providerError = providerError
  }

  /// An English sentence for a log line or a developer.
  ///
  /// ```swift
  /// CallbackError(.replayed).descriptionEN  // "This authorization was already used by an earlier callback."
  /// ```
  public var descriptionEN: String {
    guard let providerError else { return ownDescriptionEN }
    let meaning = providerError.code.isKnown ? ": " + providerError.code.descriptionEN : "."
    return ownDescriptionEN + " The provider reported the error “\(providerError.code.rawValue)”" + meaning
  }

  private var ownDescriptionEN: String {
    let p = parameter.map { "“\($0)”" } ?? "a parameter"
    let f = found.map { " (found “\($0)”)" } ?? ""
    switch code {
    case .redirectMismatch: return "The callback URL does not match the pending redirect URI\(f)."
    case .duplicateParameter: return "The callback repeats \(p); repeated parameters are rejected."
    case .stateMismatch: return "The callback's state does not match the pending authorization."
    case .issuerMismatch: return "The callback's issuer (iss) does not match the expected issuer\(f)."
    case .expired: return "The pending authorization has expired."
    case .replayed: return "This authorization was already used by an earlier callback."
    case .notPending: return "No authorization is pending for this callback."
    case .browserMismatch:
      return "The callback did not come from the browser that started this login (its login cookie is missing or wrong)."
    case .ambiguousAuthorization:
      return "More than one authorization without state is pending, so the callback cannot be matched."
    case .missingParameter: return "The callback lacks \(p) or it is empty."
    case .malformedParameter: return "The callback's \(p) has a value the provider does not send\(f)."
    case .conflictingOutcome: return "The callback carries more than one outcome\(f)."
    case .unrecognizedCallback: return "The callback carries none of the provider's outcomes."
    case .untrustedSSOHost: return "The seamless-login base URL is not trusted\(f)."
    case .nonceMismatch:
      return "The callback's id_token does not carry the pending authorization's nonce\(f); an id_token without a code "
        + "is accepted only for an authorization that sent a nonce."
    default: return "The callback was rejected (\(code.rawValue))\(f)."
    }
  }

  /// A Russian sentence for a log line or a developer.
  ///
  /// ```swift
  /// CallbackError(.replayed).descriptionRU  // "Эта авторизация уже использована предыдущим обратным вызовом."
  /// ```
  public var descriptionRU: String {
    guard let providerError else { return ownDescriptionRU }
    let meaning = providerError.code.isKnown ? ": " + providerError.code.descriptionRU : "."
    return ownDescriptionRU + " Провайдер сообщил об ошибке «\(providerError.code.rawValue)»" + meaning
  }

  private var ownDescriptionRU: String {
    let p = parameter.map { "«\($0)»" } ?? "параметр"
    let f = found.map { " (получено «\($0)»)" } ?? ""
    switch code {
    case .redirectMismatch: return "URL обратного вызова не совпадает с ожидаемым redirect URI\(f)."
    case .duplicateParameter: return "Параметр \(p) повторяется; повторяющиеся параметры отклоняются."
    case .stateMismatch: return "Параметр state не совпадает с ожидающей авторизацией."
    case .issuerMismatch: return "Издатель (iss) не совпадает с ожидаемым\(f)."
    case .expired: return "Срок ожидающей авторизации истёк."
    case .replayed: return "Эта авторизация уже использована предыдущим обратным вызовом."
    case .notPending: return "Для этого обратного вызова нет ожидающей авторизации."
    case .browserMismatch:
      return "Обратный вызов пришёл не из браузера, начавшего этот вход (cookie входа нет или она чужая)."
    case .ambiguousAuthorization:
      return "Ожидает несколько авторизаций без state, поэтому обратный вызов нельзя сопоставить."
    case .missingParameter: return "В обратном вызове нет параметра \(p) или он пуст."
    case .malformedParameter: return "Параметр \(p) имеет значение, которое провайдер не присылает\(f)."
    case .conflictingOutcome: return "Обратный вызов содержит больше одного результата\(f)."
    case .unrecognizedCallback: return "Обратный вызов не содержит ни одного из результатов провайдера."
    case .untrustedSSOHost: return "Базовый URL бесшовного входа не является доверенным\(f)."
    case .nonceMismatch:
      return "id_token в обратном вызове не содержит nonce ожидающей авторизации\(f); id_token без кода принимается "
        + "только для авторизации, отправившей nonce."
    default: return "Обратный вызов отклонён (\(code.rawValue))\(f)."
    }
  }

  /// `code: English description`.
  public var description: String { "\(code): \(descriptionEN)" }
}
