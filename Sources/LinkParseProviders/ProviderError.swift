// OAuth 2.0 / OIDC error codes and the provider-reported error value.

public import LinkParseCore

/// An OAuth 2.0 / OIDC `error` value, typed where it is a known code and kept raw otherwise.
///
/// Known values: RFC 6749 §4.1.2.1 (`invalid_request` … `temporarily_unavailable`), RFC 6749 §5.2
/// (`invalid_client`, `invalid_grant`, `unsupported_grant_type`), OIDC Core §3.1.2.6 (`login_required`,
/// `consent_required`, …) and Sign in with Apple's `user_cancelled_authorize`. Anything else is kept as it
/// came, with ``isKnown`` `false`; comparing with the static members works either way.
///
/// ```swift
/// let code = OAuthErrorCode(rawValue: "access_denied")
/// code == .accessDenied   // true
/// code.isKnown            // true
/// OAuthErrorCode(rawValue: "limit_exceeded").isKnown  // false
/// ```
public struct OAuthErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  /// The value exactly as the provider sent it (after form decoding).
  public let rawValue: String

  /// Wraps a raw `error` value.
  ///
  /// ```swift
  /// OAuthErrorCode(rawValue: "invalid_scope") == .invalidScope  // true
  /// ```
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The raw value.
  public var description: String { rawValue }

  // RFC 6749 §4.1.2.1
  /// The request is missing a parameter or is otherwise malformed.
  public static let invalidRequest = OAuthErrorCode(rawValue: "invalid_request")
  /// The client is not authorized to use this method.
  public static let unauthorizedClient = OAuthErrorCode(rawValue: "unauthorized_client")
  /// The user or the server denied the request.
  public static let accessDenied = OAuthErrorCode(rawValue: "access_denied")
  /// The server does not support this `response_type`.
  public static let unsupportedResponseType = OAuthErrorCode(rawValue: "unsupported_response_type")
  /// The requested scope is invalid or unknown.
  public static let invalidScope = OAuthErrorCode(rawValue: "invalid_scope")
  /// The server hit an unexpected condition.
  public static let serverError = OAuthErrorCode(rawValue: "server_error")
  /// The server is temporarily overloaded or down.
  public static let temporarilyUnavailable = OAuthErrorCode(rawValue: "temporarily_unavailable")
  // RFC 6749 §5.2
  /// Client authentication failed.
  public static let invalidClient = OAuthErrorCode(rawValue: "invalid_client")
  /// The grant (code, refresh token, verifier) is invalid or expired.
  public static let invalidGrant = OAuthErrorCode(rawValue: "invalid_grant")
  /// The grant type is not supported.
  public static let unsupportedGrantType = OAuthErrorCode(rawValue: "unsupported_grant_type")
  // OIDC Core §3.1.2.6
  /// The user must interact with the server.
  public static let interactionRequired = OAuthErrorCode(rawValue: "interaction_required")
  /// The user must log in.
  public static let loginRequired = OAuthErrorCode(rawValue: "login_required")
  /// The user must select an account.
  public static let accountSelectionRequired = OAuthErrorCode(rawValue: "account_selection_required")
  /// The user must consent.
  public static let consentRequired = OAuthErrorCode(rawValue: "consent_required")
  /// The `request_uri` is invalid.
  public static let invalidRequestURI = OAuthErrorCode(rawValue: "invalid_request_uri")
  /// The request object is invalid.
  public static let invalidRequestObject = OAuthErrorCode(rawValue: "invalid_request_object")
  /// The `request` parameter is not supported.
  public static let requestNotSupported = OAuthErrorCode(rawValue: "request_not_supported")
  /// The `request_uri` parameter is not supported.
  public static let requestURINotSupported = OAuthErrorCode(rawValue: "request_uri_not_supported")
  /// The `registration` parameter is not supported.
  public static let registrationNotSupported = OAuthErrorCode(rawValue: "registration_not_supported")
  // Sign in with Apple
  /// The user cancelled Sign in with Apple.
  public static let userCancelledAuthorize = OAuthErrorCode(rawValue: "user_cancelled_authorize")

  /// Whether this is one of the codes listed above.
  ///
  /// ```swift
  /// OAuthErrorCode.loginRequired.isKnown  // true
  /// ```
  public var isKnown: Bool { Self.texts[rawValue] != nil }

  /// What the code means, in English; unknown codes get a generic sentence naming the raw value.
  ///
  /// ```swift
  /// OAuthErrorCode.accessDenied.descriptionEN  // "The user or the server denied access."
  /// ```
  public var descriptionEN: String {
    Self.texts[rawValue]?.en ?? "The provider returned the error “\(rawValue)”."
  }

  /// What the code means, in Russian; unknown codes get a generic sentence naming the raw value.
  ///
  /// ```swift
  /// OAuthErrorCode.accessDenied.descriptionRU  // "Пользователь или сервер отказал в доступе."
  /// ```
  public var descriptionRU: String {
    Self.texts[rawValue]?.ru ?? "Провайдер вернул ошибку «\(rawValue)»."
  }

  static let texts: [String: (en: String, ru: String)] = [
    "invalid_request": (
      "The request is missing a required parameter or is otherwise malformed.",
      "В запросе нет обязательного параметра, или он составлен неверно."
    ),
    "unauthorized_client": (
      "The client is not registered, is blocked, or may not use this method.",
      "Клиент не зарегистрирован, заблокирован или не может использовать этот способ."
    ),
    "access_denied": ("The user or the server denied access.", "Пользователь или сервер отказал в доступе."),
    "unsupported_response_type": (
      "The server does not support this response_type.", "Сервер не поддерживает этот response_type."
    ),
    "invalid_scope": (
      "The requested scope is invalid, unknown or not allowed.",
      "Запрошенный scope неверен, неизвестен или не разрешён."
    ),
    "server_error": (
      "The authorization server hit an unexpected error.", "На сервере авторизации произошла непредвиденная ошибка."
    ),
    "temporarily_unavailable": (
      "The authorization server is temporarily unavailable.", "Сервер авторизации временно недоступен."
    ),
    "invalid_client": ("Client authentication failed.", "Не удалось аутентифицировать клиента."),
    "invalid_grant": (
      "The authorization code, refresh token or verifier is invalid or expired.",
      "Код авторизации, refresh-токен или верификатор неверен или просрочен."
    ),
    "unsupported_grant_type": (
      "The server does not support this grant type.", "Сервер не поддерживает этот тип гранта."
    ),
    "interaction_required": (
      "The user must interact with the authorization server.",
      "Пользователь должен взаимодействовать с сервером авторизации."
    ),
    "login_required": ("The user must log in.", "Пользователь должен войти в систему."),
    "account_selection_required": ("The user must select an account.", "Пользователь должен выбрать учётную запись."),
    "consent_required": ("The user must give consent.", "Пользователь должен дать согласие."),
    "invalid_request_uri": ("The request_uri is invalid.", "Параметр request_uri неверен."),
    "invalid_request_object": ("The request object is invalid.", "Объект запроса неверен."),
    "request_not_supported": (
      "The server does not support the request parameter.", "Сервер не поддерживает параметр request."
    ),
    "request_uri_not_supported": (
      "The server does not support the request_uri parameter.", "Сервер не поддерживает параметр request_uri."
    ),
    "registration_not_supported": (
      "The server does not support the registration parameter.", "Сервер не поддерживает параметр registration."
    ),
    "user_cancelled_authorize": (
      "The user cancelled Sign in with Apple.", "Пользователь отменил вход через Apple."
    ),
  ]
}

/// An error the provider itself reported in the callback, with its raw values kept.
///
/// ```swift
/// let params = FormParameters("error=access_denied&error_description=User+denied")
/// let error = ProviderError(params)!
/// error.code == .accessDenied  // true
/// error.errorDescription       // "User denied"
/// ```
public struct ProviderError: Sendable, Hashable, Codable {
  /// The `error` value, typed when known.
  public var code: OAuthErrorCode
  /// `error_description`, when present and non-empty.
  public var errorDescription: String?
  /// `error_uri`, when present and non-empty.
  public var errorURI: String?

  /// Creates a provider error.
  ///
  /// ```swift
  /// ProviderError(code: .serverError)
  /// ```
  public init(code: OAuthErrorCode, errorDescription: String? = nil, errorURI: String? = nil) {
    self.code = code
    self.errorDescription = errorDescription
    self.errorURI = errorURI
  }

  /// What the code means, in English (``OAuthErrorCode/descriptionEN``: a sentence naming the raw value
  /// for a code outside the OAuth 2.0 / OIDC tables, such as Sber's numeric `error_code`).
  ///
  /// ```swift
  /// ProviderError(code: .accessDenied).descriptionEN  // "The user or the server denied access."
  /// ```
  public var descriptionEN: String { code.descriptionEN }

  /// What the code means, in Russian (``OAuthErrorCode/descriptionRU``).
  ///
  /// ```swift
  /// ProviderError(code: .accessDenied).descriptionRU  // "Пользователь или сервер отказал в доступе."
  /// ```
  public var descriptionRU: String { code.descriptionRU }

  /// Reads `error`, `error_description` and `error_uri`; `nil` when `error` is absent, empty or the
  /// literal `null` (which the Sber Android SDK special-cases).
  ///
  /// ```swift
  /// ProviderError(FormParameters("error=null")) == nil  // true
  /// ```
  public init?(_ parameters: FormParameters) {
    var fields = CallbackFields(parameters)
    self.init(&fields)
  }

  /// Inlined, so that the common case (no `error`) costs one test: a call would copy the fields (~400
  /// bytes) for the callee to borrow.
  @inline(__always)
  init?(_ fields: inout CallbackFields) {
    guard fields.isNonEmpty(.error) else { return nil }
    self.init(present: &fields)
  }

  /// The initializer above, once `error` is known to be present and non-empty.
  @inline(never)
  private init?(present fields: inout CallbackFields) {
    guard !fields.value(.error, equals: "null"), let raw = fields.string(.error) else { return nil }
    self.init(
      code: OAuthErrorCode(rawValue: raw), errorDescription: fields.string(.errorDescription),
      errorURI: fields.string(.errorURI))
  }
}
