// A relying party's settings checked when it is configured, not at the first login: each endpoint an absolute
// https URL (http only to a loopback host, for development and tests), each issuer too (without a query or a
// fragment, OIDC Core §2), each client id non-empty. The error names the setting.

public import LinkParseCore

/// A setting that cannot work, named: code `invalid-configuration`, the setting (`VKIDClient.tokenEndpoint`),
/// what it holds (shortened), and why.
///
/// ```swift
/// do { try VKIDClient(clientID: "7915193", tokenEndpoint: "not a url").validate() } catch {
///   print(error)  // invalid-configuration: VKIDClient.tokenEndpoint "not a url" is not a URL: …
/// }
/// ```
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The setting, as `Type.property` (`ProviderRelyingParty.issuer`).
  public var setting: String
  /// What the setting holds, shortened to 200 characters.
  public var value: String
  /// Why it cannot work.
  public var reason: String

  /// Creates the error.
  ///
  /// ```swift
  /// ConfigurationError(setting: "TIDClient.clientID", value: "", reason: "is empty")
  /// ```
  public init(setting: String, value: String, reason: String) {
    self.setting = setting
    self.value = String(value.prefix(200))
    self.reason = reason
  }

  /// The stable code, `invalid-configuration`.
  public var code: String { "invalid-configuration" }

  /// `invalid-configuration: <setting> "<value>" <reason>`.
  public var description: String { "\(code): \(setting) \"\(value)\" \(reason)" }
}

/// The checks every client's `validate()` runs.
package enum ConfigurationCheck {
  /// `value` is an absolute `https` URL, or `http` to a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`),
  /// with no fragment; an issuer has no query either.
  package static func url(_ value: String, setting: String, isIssuer: Bool = false) throws(ConfigurationError) {
    let url: ParsedURL
    do {
      url = try ParsedURL(value)
    } catch {
      throw ConfigurationError(setting: setting, value: value, reason: "is not a URL: \(error.message)")
    }
    let host = url.host.map(String.init) ?? ""
    let loopback = host == "localhost" || host.hasPrefix("127.") || host == "[::1]"
    guard url.scheme == "https" || (url.scheme == "http" && loopback) else {
      throw ConfigurationError(
        setting: setting, value: value,
        reason: "is not an https URL (http is allowed only to localhost, 127.0.0.0/8 or [::1])")
    }
    guard !host.isEmpty else { throw ConfigurationError(setting: setting, value: value, reason: "has no host") }
    guard url.fragment == nil else { throw ConfigurationError(setting: setting, value: value, reason: "has a fragment") }
    if isIssuer && url.query != nil {
      throw ConfigurationError(setting: setting, value: value, reason: "has a query (an issuer has none, OIDC Core §2)")
    }
  }

  /// `value` is not empty.
  package static func nonEmpty(_ value: String, setting: String) throws(ConfigurationError) {
    guard !value.isEmpty else { throw ConfigurationError(setting: setting, value: value, reason: "is empty") }
  }
}

extension VKIDClient {
  /// Checks the settings now: a non-empty client id and every endpoint an https URL (see
  /// ``ConfigurationError``). `ProviderRelyingParty.complete` checks them before each login too.
  ///
  /// ```swift
  /// try VKIDClient(clientID: "7915193").validate()
  /// ```
  public func validate() throws(ConfigurationError) {
    try ConfigurationCheck.nonEmpty(clientID, setting: "VKIDClient.clientID")
    try ConfigurationCheck.url(tokenEndpoint, setting: "VKIDClient.tokenEndpoint")
    try ConfigurationCheck.url(revokeEndpoint, setting: "VKIDClient.revokeEndpoint")
    try ConfigurationCheck.url(logoutEndpoint, setting: "VKIDClient.logoutEndpoint")
    try ConfigurationCheck.url(userInfoEndpoint, setting: "VKIDClient.userInfoEndpoint")
    try ConfigurationCheck.url(publicInfoEndpoint, setting: "VKIDClient.publicInfoEndpoint")
  }
}

extension SberIDClient {
  /// Checks the settings now: a non-empty client id and secret, every endpoint an https URL.
  ///
  /// ```swift
  /// try SberIDClient(clientID: "0A1B2C3D", clientSecret: secret).validate()
  /// ```
  public func validate() throws(ConfigurationError) {
    try ConfigurationCheck.nonEmpty(clientID, setting: "SberIDClient.clientID")
    try ConfigurationCheck.nonEmpty(clientSecret, setting: "SberIDClient.clientSecret")
    try ConfigurationCheck.url(tokenEndpoint, setting: "SberIDClient.tokenEndpoint")
    try ConfigurationCheck.url(userInfoEndpoint, setting: "SberIDClient.userInfoEndpoint")
  }
}

extension TIDClient {
  /// Checks the settings now: a non-empty client id, every endpoint an https URL.
  ///
  /// ```swift
  /// try TIDClient(clientID: "partner", clientSecret: secret).validate()
  /// ```
  public func validate() throws(ConfigurationError) {
    try ConfigurationCheck.nonEmpty(clientID, setting: "TIDClient.clientID")
    try ConfigurationCheck.url(tokenEndpoint, setting: "TIDClient.tokenEndpoint")
    try ConfigurationCheck.url(revokeEndpoint, setting: "TIDClient.revokeEndpoint")
    try ConfigurationCheck.url(introspectionEndpoint, setting: "TIDClient.introspectionEndpoint")
    try ConfigurationCheck.url(userInfoEndpoint, setting: "TIDClient.userInfoEndpoint")
  }
}

extension AppleClient {
  /// Checks the settings now: a non-empty client id (the Services ID), every endpoint an https URL.
  ///
  /// ```swift
  /// try AppleClient(clientID: "com.example.web").validate()
  /// ```
  public func validate() throws(ConfigurationError) {
    try ConfigurationCheck.nonEmpty(clientID, setting: "AppleClient.clientID")
    try ConfigurationCheck.url(tokenEndpoint, setting: "AppleClient.tokenEndpoint")
    try ConfigurationCheck.url(revokeEndpoint, setting: "AppleClient.revokeEndpoint")
  }
}
