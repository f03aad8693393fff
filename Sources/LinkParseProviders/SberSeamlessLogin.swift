// Sber ID inbound seamless (SSO) deeplinks (providers.md §1.1.3, §1.5 items 3–5, §1.6).

public import LinkParseCore

/// Which base URLs a Sber seamless-login link may point the outbound authorization request at.
///
/// The `sberIDRedirect` value is attacker-controllable: any app or page can open
/// `partner://…?sberIDRedirect=https://evil.example/phish`, and the vendor SDKs would send the user (with
/// `client_id`, `state`, `nonce`, `redirect_uri`) there. A base URL is trusted only when it has a host, no
/// userinfo, no port and no fragment, and either its scheme is in ``allowedSchemes`` or it is `https` with a
/// host in ``allowedHTTPSHosts``. Sber says the values change ("хардкодить нельзя"), so the lists are
/// configurable; update them from your own remote configuration if needed.
///
/// ```swift
/// var policy = SberSSOTrustPolicy.default
/// policy.allowedSchemes.insert("sbolidlogin2")
/// let link = try SberSeamlessLogin(url.queryParameters, policy: policy)
/// ```
public struct SberSSOTrustPolicy: Sendable, Hashable {
  /// Custom schemes of Sber apps (compared lower-cased). Stored lower-cased: entries set or inserted after
  /// creation are lower-cased as ``init(allowedSchemes:allowedHTTPSHosts:)`` lower-cases them.
  ///
  /// ```swift
  /// var policy = SberSSOTrustPolicy.default
  /// policy.allowedSchemes.insert("SbolIDLogin2")
  /// policy.allowedSchemes.contains("sbolidlogin2")  // true
  /// ```
  public var allowedSchemes: Set<String> {
    didSet { Self.normalize(&allowedSchemes) }
  }
  /// Hosts allowed for `https` base URLs (compared lower-cased, exactly; no subdomain wildcard). Stored
  /// lower-cased, like ``allowedSchemes``.
  ///
  /// ```swift
  /// policy.allowedHTTPSHosts.insert("ID.Example.RU")  // stored as "id.example.ru"
  /// ```
  public var allowedHTTPSHosts: Set<String> {
    didSet { Self.normalize(&allowedHTTPSHosts) }
  }

  /// Lower-cases the entries of `set` that are not lower-case yet (nothing is rebuilt when all are).
  private static func normalize(_ set: inout Set<String>) {
    guard set.contains(where: { $0 != $0.lowercased() }) else { return }
    set = Set(set.map { $0.lowercased() })
  }

  /// Creates a policy.
  ///
  /// ```swift
  /// let policy = SberSSOTrustPolicy(allowedSchemes: ["sberbankidlogin"], allowedHTTPSHosts: [])
  /// ```
  public init(allowedSchemes: Set<String>, allowedHTTPSHosts: Set<String>) {
    self.allowedSchemes = Set(allowedSchemes.map { $0.lowercased() })
    self.allowedHTTPSHosts = Set(allowedHTTPSHosts.map { $0.lowercased() })
  }

  /// The schemes and hosts seen in Sber's own material: `sberbankidlogin`, `sbolidlogin`,
  /// `sberbankidexternallogin`, `sbolidexternallogin`, `sberbankonline`; `https://id.sber.ru`,
  /// `https://online.sberbank.ru`.
  ///
  /// ```swift
  /// SberSSOTrustPolicy.default.allowedHTTPSHosts.contains("id.sber.ru")  // true
  /// ```
  public static let `default` = SberSSOTrustPolicy(
    allowedSchemes: [
      "sberbankidlogin", "sbolidlogin", "sberbankidexternallogin", "sbolidexternallogin", "sberbankonline",
    ],
    allowedHTTPSHosts: ["id.sber.ru", "online.sberbank.ru"])

  /// ``default`` plus Sber's test stands `id-ift.sber.ru` and `id-psi.sber.ru`. Opt in explicitly in test
  /// builds; never ship it.
  ///
  /// ```swift
  /// #if DEBUG
  /// let policy = SberSSOTrustPolicy.testStands
  /// #endif
  /// ```
  public static let testStands: SberSSOTrustPolicy = {
    var policy = SberSSOTrustPolicy.default
    policy.allowedHTTPSHosts.formUnion(["id-ift.sber.ru", "id-psi.sber.ru"])
    return policy
  }()

  /// Why `url` is not trusted, or `nil` when it is.
  func rejection(of url: ParsedURL) -> String? {
    guard url.username.isEmpty, url.password.isEmpty else { return "userinfo in \(url.scheme)://" }
    guard url.port == nil else { return "port \(url.port!) on \(url.host ?? "")" }
    guard url.fragment == nil else { return "fragment on \(url.scheme)://\(url.host ?? "")" }
    guard let host = url.host, !host.isEmpty else { return "\(url.scheme): without a host" }
    let scheme = url.scheme.lowercased()
    if allowedSchemes.contains(scheme) { return nil }
    if scheme == "https", allowedHTTPSHosts.contains(host.lowercased()) { return nil }
    return "\(scheme)://\(host)"
  }
}

/// An inbound Sber seamless-login link: the Sber app (or Sber Online web) opened the partner with a
/// `sberIDRedirect` base URL to use for the outbound authorization request.
///
/// Decoding: the key is matched case-insensitively (`sberIDRedirect`, `sberIdRedirect`); the value is
/// percent-decoded once, and a second time only if the result is still an encoded `scheme%3A…`; its query
/// is dropped; the base URL must pass a ``SberSSOTrustPolicy``. The optional `token` (sbol2web) must be
/// sent back in the outbound request.
///
/// ```swift
/// let url = try ParsedURL("partner://partner.host/auth?&sberIDRedirect=sberbankidlogin%3A%2F%2Fsberbankidsso")
/// let link = try SberSeamlessLogin(url.queryParameters)
/// link.baseURL  // "sberbankidlogin://sberbankidsso"
/// link.token    // nil
/// ```
public struct SberSeamlessLogin: Sendable, Hashable {
  /// The trusted base URL (`scheme://host[/path]`), query stripped.
  public var baseURL: String
  /// The sbol2web `token`, when present.
  public var token: String?

  /// A link with these values (already checked), as decoded earlier (``ProviderCallback``'s `Codable`).
  init(baseURL: String, token: String?) {
    self.baseURL = baseURL
    self.token = token
  }

  /// Whether `parameters` carry a `sberIDRedirect` key (any letter case).
  ///
  /// ```swift
  /// SberSeamlessLogin.isSeamlessLogin(FormParameters("sberidredirect=x"))  // true
  /// ```
  public static func isSeamlessLogin(_ parameters: FormParameters) -> Bool {
    CallbackFields(parameters).hasSberIDRedirect
  }

  /// Extracts and checks the base URL.
  ///
  /// ```swift
  /// let link = try SberSeamlessLogin(FormParameters("sberIDRedirect=https%3A%2F%2Fevil.example%2Fphish"))
  /// // throws CallbackError untrusted-sso-host, found "https://evil.example"
  /// ```
  ///
  /// - Throws: ``CallbackError`` `missing-parameter` (no or empty `sberIDRedirect`), `duplicate-parameter`
  ///   (two of them, any case), `untrusted-sso-host` (not a URL, or not allowed by `policy`).
  public init(_ parameters: FormParameters, policy: SberSSOTrustPolicy = .default) throws(CallbackError) {
    let matches = parameters.filter { $0.name().lowercased() == "sberidredirect" }
    guard let parameter = matches.first, let raw = parameter.rawValue, !raw.isEmpty else {
      throw CallbackError(.missingParameter, parameter: "sberIDRedirect")
    }
    guard matches.count == 1 else { throw CallbackError(.duplicateParameter, parameter: "sberIDRedirect") }
    var value = FormParameters.decode(raw, encoding: .percentEncoded)
    if Self.isEncodedSchemePrefix(value) {
      value = FormParameters.decode(value, encoding: .percentEncoded)
    }
    guard let url = try? ParsedURL(value) else {
      throw CallbackError(.untrustedSSOHost, parameter: "sberIDRedirect", found: Self.shortened(value))
    }
    if let reason = policy.rejection(of: url) {
      throw CallbackError(.untrustedSSOHost, parameter: "sberIDRedirect", found: reason)
    }
    let href = url.href
    let end = href.firstIndex(of: "?") ?? href.endIndex
    self.baseURL = String(href[..<end])
    if let tokens = Optional(parameters.all(named: "token")), tokens.count > 1 {
      throw CallbackError(.duplicateParameter, parameter: "token")
    }
    self.token = parameters.nonEmptyValue("token")
  }

  /// `scheme%3A…`: an ASCII scheme followed by an encoded colon.
  static func isEncodedSchemePrefix(_ value: String) -> Bool {
    let bytes = Array(value.utf8)
    guard let first = bytes.first, Self.isAlpha(first) else { return false }
    var i = 1
    while i < bytes.count, Self.isAlpha(bytes[i]) || (bytes[i] >= 0x30 && bytes[i] <= 0x39)
      || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: ".")
    {
      i += 1
    }
    guard i + 2 < bytes.count, bytes[i] == UInt8(ascii: "%"), bytes[i + 1] == UInt8(ascii: "3") else {
      return false
    }
    return bytes[i + 2] == UInt8(ascii: "A") || bytes[i + 2] == UInt8(ascii: "a")
  }

  private static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

  private static func shortened(_ value: String) -> String {
    value.count > 64 ? String(value.prefix(64)) + "…" : value
  }
}
