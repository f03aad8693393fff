// A request to a provider's endpoint as a plain value: method, URL (with query fields), headers and a form or
// JSON body. Nothing here
// touches the network; `LinkParseHTTP` sends these, and `import LinkParse` turns one into a `URLRequest`.

public import LinkParseCore
import LinkParseProviders
import LinkParseBytes

/// An HTTP request to an identity provider (token exchange, refresh, revoke, user info, …), as a value.
///
/// The body is `application/x-www-form-urlencoded` (RFC 6749 §4.1.3), every name and value encoded with
/// ``FormParameters/encode(_:)`` (the T-ID iOS SDK's unencoded body is a known bug this never repeats), or,
/// where a provider documents it (VK ID's guide), a JSON object of string fields (``bodyFormat`` `.json`).
/// ``query`` fields go in the URL whatever the method. ``kind`` tells a sender which JSON the answer holds.
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
    /// The provider's JSON Web Key Set (a `GET` of its `jwks_uri`), for id_token signatures: answered by a
    /// JWKS that `IDTokenVerifier` (LinkParseIDToken) reads (LinkParseHTTP's `JWKSCache` sends it).
    case jwks
    /// An OpenID Connect discovery document (a `GET` of `.well-known/openid-configuration`; LinkParseHTTP's
    /// `OAuthHTTPClient.discover(issuer:)` sends it).
    case discovery
  }

  /// The HTTP method.
  public enum Method: String, Sendable, Hashable, Codable {
    case get = "GET"
    case post = "POST"
  }

  /// How ``form`` is sent as the body of a `POST`.
  public enum BodyFormat: String, Sendable, Hashable, Codable {
    /// `application/x-www-form-urlencoded` (RFC 6749 §4.1.3): the default.
    case form
    /// `application/json`: one JSON object whose members are the fields, as strings (VK ID's guide sends
    /// `{"code": …}`, `{"refresh_token": …}`, `{"client_id": …}`, `{"id_token": …}`).
    case json
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

    /// `Authorization: Bearer <token>` (RFC 6750 §2.1): the one spelling every request of the package uses.
    ///
    /// ```swift
    /// OAuthRequest.Header.bearer("vk2.a.token").value  // "Bearer vk2.a.token"
    /// ```
    public static func bearer(_ token: String) -> Header {
      Header("Authorization", "Bearer " + token)
    }

    /// `Authorization: Basic base64(id:secret)` (RFC 7617). With `formEncoded` (OAuth 2.0's
    /// `client_secret_basic`, RFC 6749 §2.3.1) the id and the secret are form-encoded first.
    ///
    /// ```swift
    /// OAuthRequest.Header.basic("app", "s3cret", formEncoded: true).value  // "Basic YXBwOnMzY3JldA=="
    /// ```
    public static func basic(_ id: String, _ secret: String, formEncoded: Bool) -> Header {
      let pair = formEncoded ? FormParameters.formEncode(id) + ":" + FormParameters.formEncode(secret) : id + ":" + secret
      return Header("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))
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
  /// The endpoint (without ``query`` and, for `GET`, without the form fields: ``fullURL`` adds them).
  public var url: String
  /// The header fields, in order. A `POST` with a form always starts with its `Content-Type`
  /// (`application/x-www-form-urlencoded`, or `application/json` for ``BodyFormat/json``), then
  /// `Accept: application/json`.
  public var headers: [Header]
  /// Fields sent in the URL's query whatever the method (VK ID's guide puts `grant_type`, `client_id`,
  /// `device_id`, … there), before the form fields of a `GET`.
  public var query: [Field]
  /// The body's fields, in order (the body of a `POST`, the query of a `GET`).
  public var form: [Field]
  /// How ``form`` is encoded as a `POST` body.
  public var bodyFormat: BodyFormat

  /// Creates a request. For a `POST` with form fields, `Content-Type` and `Accept` headers are added in front
  /// of `headers` unless `headers` already names them.
  ///
  /// ```swift
  /// OAuthRequest(kind: .userInfo, provider: .oauth2, method: .get, url: "https://as.example/userinfo",
  ///              headers: [.init("Authorization", "Bearer t")])
  /// ```
  public init(
    kind: Kind, provider: Provider = .oauth2, method: Method = .post, url: String, headers: [Header] = [],
    query: [Field] = [], form: [Field] = [], bodyFormat: BodyFormat = .form
  ) {
    self.kind = kind
    self.provider = provider
    self.method = method
    self.url = url
    self.query = query
    self.form = form
    self.bodyFormat = bodyFormat
    var all: [Header] = []
    func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name.lowercased() } }
    if method == .post && !form.isEmpty && !has("Content-Type") {
      all.append(
        Header("Content-Type", bodyFormat == .json ? "application/json" : "application/x-www-form-urlencoded"))
    }
    if !has("Accept") { all.append(Header("Accept", "application/json")) }
    self.headers = all + headers
  }

  /// The body of a `POST`: the form-encoded fields, or their JSON object (`nil` for a `GET` or an empty form).
  ///
  /// ```swift
  /// request.body  // "grant_type=authorization_code&code=c%26x", or {"code":"c&x"} for .json
  /// ```
  public var body: String? {
    guard method == .post, !form.isEmpty else { return nil }
    switch bodyFormat {
    case .form: return FormParameters.encode(form.map { ($0.name, $0.value) })
    case .json:
      return "{" + form.map { JSONText.quoted($0.name) + ":" + JSONText.quoted($0.value) }.joined(separator: ",") + "}"
    }
  }

  /// ``url`` with ``query`` and, for a `GET`, the form fields as its query.
  ///
  /// ```swift
  /// request.fullURL  // "https://as.example/userinfo?client_id=c"
  /// ```
  public var fullURL: String {
    let fields = method == .get ? query + form : query
    guard !fields.isEmpty else { return url }
    return url + (url.contains("?") ? "&" : "?") + FormParameters.encode(fields.map { ($0.name, $0.value) })
  }

  /// The first value of the field `name` sent in the body or the query, if any.
  ///
  /// ```swift
  /// request.formValue("grant_type")  // "authorization_code"
  /// ```
  public func formValue(_ name: String) -> String? { (form.first { $0.name == name } ?? query.first { $0.name == name })?.value }

  /// Every field sent, in the query and in the body (what a log or an error message must not repeat).
  ///
  /// ```swift
  /// request.fields.map(\.name)  // ["grant_type", "client_id", …, "code"]
  /// ```
  public var fields: [Field] { query + form }

  /// The first value of header `name` (case-insensitive), if any.
  ///
  /// ```swift
  /// request.headerValue("content-type")  // "application/x-www-form-urlencoded"
  /// ```
  public func headerValue(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }

  private enum CodingKeys: String, CodingKey {
    case kind, provider, method, url, headers, query, form, bodyFormat
  }

  /// Decodes a request; `query` and `bodyFormat` may be absent (a request encoded before they existed).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    kind = try c.decode(Kind.self, forKey: .kind)
    provider = try c.decode(Provider.self, forKey: .provider)
    method = try c.decode(Method.self, forKey: .method)
    url = try c.decode(String.self, forKey: .url)
    headers = try c.decode([Header].self, forKey: .headers)
    query = try c.decodeIfPresent([Field].self, forKey: .query) ?? []
    form = try c.decode([Field].self, forKey: .form)
    bodyFormat = try c.decodeIfPresent(BodyFormat.self, forKey: .bodyFormat) ?? .form
  }
}
