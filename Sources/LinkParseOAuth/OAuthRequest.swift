// A request to a provider's endpoint as a plain value: method, URL, headers and form body. Nothing here
// touches the network; `LinkParseHTTP` sends these, and `import LinkParse` turns one into a `URLRequest`.

internal import LinkParseCore
public import LinkParseProviders

/// An HTTP request to an identity provider (token exchange, refresh, revoke, user info, …), as a value.
///
/// The body is `application/x-www-form-urlencoded`, every name and value encoded with
/// ``FormParameters/encode(_:)`` (the T-ID iOS SDK's unencoded body is a known bug this never repeats).
/// ``kind`` tells a sender which JSON the answer holds.
///
/// ```swift
/// let request = OAuthRequest(
///   kind: .tokenExchange, method: .post, url: "https://id.vk.ru/oauth2/auth",
///   form: [.init("grant_type", "authorization_code"), .init("code", "vk2.a.x")])
/// request.body          // "grant_type=authorization_code&code=vk2.a.x"
/// request.headers.first // Content-Type: application/x-www-form-urlencoded
/// ```
public struct OAuthRequest: Sendable, Hashable, Codable {

  /// What the request asks for, and so what its answer decodes to.
  public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
    /// `grant_type=authorization_code`: answered by a ``TokenResponse``.
    case tokenExchange = "token-exchange"
    /// `grant_type=refresh_token`: answered by a ``TokenResponse``.
    case refresh
    /// Token revocation (RFC 7009 and providers' variants): an empty or small JSON answer.
    case revoke
    /// Ending the provider session (VK ID `logout`).
    case logout
    /// The user's profile (OIDC `userinfo`, VK `user_info`/`public_info`, Sber user info).
    case userInfo = "user-info"
    /// Token introspection (RFC 7662; T-ID).
    case introspection
  }

  /// The HTTP method.
  public enum Method: String, Sendable, Hashable, Codable {
    case get = "GET"
    case post = "POST"
  }

  /// One header field. Names are compared case-insensitively by HTTP; they are kept as written.
  public struct Header: Sendable, Hashable, Codable {
    /// The field name, e.g. `Authorization`.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header field.
    ///
    /// ```swift
    /// OAuthRequest.Header("Accept", "application/json")
    /// ```
    public init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  /// One form field of the body (or of the query of a `GET`).
  public struct Field: Sendable, Hashable, Codable {
    /// The parameter name.
    public var name: String
    /// The parameter value (not yet encoded).
    public var value: String

    /// Creates a form field.
    ///
    /// ```swift
    /// OAuthRequest.Field("grant_type", "refresh_token")
    /// ```
    public init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  /// What the request asks for.
  public var kind: Kind
  /// The provider it goes to.
  public var provider: Provider
  /// The HTTP method.
  public var method: Method
  /// The endpoint (for `GET`, without the form fields: ``fullURL`` adds them as the query).
  public var url: String
  /// The header fields, in order. A `POST` with a form always starts with
  /// `Content-Type: application/x-www-form-urlencoded`, then `Accept: application/json`.
  public var headers: [Header]
  /// The form fields, in order (the body of a `POST`, the query of a `GET`).
  public var form: [Field]

  /// Creates a request. For a `POST` with form fields, `Content-Type` and `Accept` headers are added in front
  /// of `headers` unless `headers` already names them.
  ///
  /// ```swift
  /// OAuthRequest(kind: .userInfo, provider: .oauth2, method: .get, url: "https://as.example/userinfo",
  ///              headers: [.init("Authorization", "Bearer t")])
  /// ```
  public init(
    kind: Kind, provider: Provider = .oauth2, method: Method = .post, url: String, headers: [Header] = [],
    form: [Field] = []
  ) {
    self.kind = kind
    self.provider = provider
    self.method = method
    self.url = url
    self.form = form
    var all: [Header] = []
    func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name.lowercased() } }
    if method == .post && !form.isEmpty && !has("Content-Type") {
      all.append(Header("Content-Type", "application/x-www-form-urlencoded"))
    }
    if !has("Accept") { all.append(Header("Accept", "application/json")) }
    self.headers = all + headers
  }

  /// The form-encoded body of a `POST` (`nil` for a `GET` or an empty form).
  ///
  /// ```swift
  /// request.body  // "grant_type=authorization_code&code=c%26x"
  /// ```
  public var body: String? {
    guard method == .post, !form.isEmpty else { return nil }
    return FormParameters.encode(form.map { ($0.name, $0.value) })
  }

  /// ``url`` with the form fields as its query for a `GET`; ``url`` itself for a `POST`.
  ///
  /// ```swift
  /// request.fullURL  // "https://as.example/userinfo?client_id=c"
  /// ```
  public var fullURL: String {
    guard method == .get, !form.isEmpty else { return url }
    let query = FormParameters.encode(form.map { ($0.name, $0.value) })
    return url + (url.contains("?") ? "&" : "?") + query
  }

  /// The first value of the form field `name`, if any.
  ///
  /// ```swift
  /// request.formValue("grant_type")  // "authorization_code"
  /// ```
  public func formValue(_ name: String) -> String? { form.first { $0.name == name }?.value }

  /// The first value of header `name` (case-insensitive), if any.
  ///
  /// ```swift
  /// request.headerValue("content-type")  // "application/x-www-form-urlencoded"
  /// ```
  public func headerValue(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }
}
