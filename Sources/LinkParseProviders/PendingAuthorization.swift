// Binding a callback to the request that caused it (providers.md §7 steps 1 and 4, RFC 6749 §10.12,
// RFC 8252 §7.3, RFC 9207).

public import LinkParseCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An authorization request that was sent and whose callback is awaited.
///
/// ``validate(_:parameters:now:)`` checks a callback in this order, each failure a ``CallbackError``:
/// 1. `redirect-mismatch`: scheme case-insensitive; userinfo, host, port and path exact; the query is
///    ignored (Sber's `utm_*` extras ride on it). Relaxations: VK (`vk<digits>` schemes) accepts host
///    `vk.ru`, `vk.com` or none; RFC 8252 loopback (`http://127.0.0.1` / `http://[::1]`) accepts any port.
/// 2. `duplicate-parameter`: `code`, `state`, `error`, `iss` or `device_id` repeated.
/// 3. `state-mismatch`: constant-time comparison; a missing state, or a state when none was sent, fails
///    too. The only state-less callbacks accepted are the T-ID app flow (pending ``state`` `nil`) and the
///    Sber Android app's error grammar (`result=FAILURE&error_code=N`), which never carries one.
/// 4. `issuer-mismatch`: when an issuer is expected, `iss` must equal it (simple string comparison); when
///    none is expected, an `iss` is rejected too.
/// 5. `expired`: when ``expiresAt`` is set and `now` has reached it.
/// 6. the outcome, decoded by the provider's decoder (which may throw its own errors).
///
/// ```swift
/// let pending = PendingAuthorization(
///   provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "Qk7x2LmN9pRtVw3a",
///   expiresAt: PendingAuthorization.currentUnixTime() + 600)
/// let url = try ParsedURL("myapp://sberidauth?state=Qk7x2LmN9pRtVw3a&code=FA21")
/// let callback = try pending.validate(url)
/// callback.code  // "FA21"
/// ```
public struct PendingAuthorization: Sendable, Hashable, Codable {
  /// The provider the request went to.
  public var provider: Provider
  /// The redirect URI sent in the request.
  public var redirectURI: ParsedURL
  /// The `state` sent, or `nil` for flows without one (the T-ID app flow).
  public var state: String?
  /// The expected issuer (RFC 9207 `iss`), when the server is known to send it.
  public var issuer: String?
  /// When the authorization stops being acceptable, in Unix seconds.
  public var expiresAt: Int64?

  /// Creates a pending authorization.
  ///
  /// ```swift
  /// let pending = PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil)
  /// ```
  public init(
    provider: Provider, redirectURI: ParsedURL, state: String?, issuer: String? = nil, expiresAt: Int64? = nil
  ) {
    self.provider = provider
    self.redirectURI = redirectURI
    self.state = state
    self.issuer = issuer
    self.expiresAt = expiresAt
  }

  /// The current time in Unix seconds (the system's real-time clock).
  ///
  /// ```swift
  /// let expiresAt = PendingAuthorization.currentUnixTime() + 600
  /// ```
  public static func currentUnixTime() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec)
  }

  /// Whether `url` is a callback to this authorization's redirect URI (rule 1 above).
  ///
  /// ```swift
  /// let pending = PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk7915193://vk.ru/blank.html"), state: "s")
  /// pending.matchesRedirect(try ParsedURL("vk7915193://vk.com/blank.html?code=c"))  // true
  /// pending.matchesRedirect(try ParsedURL("vk7915193://?code=c"))                   // true
  /// ```
  public func matchesRedirect(_ url: ParsedURL) -> Bool {
    let expected = redirectURI
    guard url.scheme.lowercased() == expected.scheme.lowercased() else { return false }
    guard url.username == expected.username, url.password == expected.password else { return false }
    if provider == .vk, ProviderDetector.isVKScheme(expected.scheme) {
      let host = url.host ?? ""
      guard host == "vk.ru" || host == "vk.com" || host.isEmpty else { return false }
      guard url.port == nil else { return false }
      if host.isEmpty && (url.path.isEmpty || url.path == "/") { return true }
      return url.path == expected.path
    }
    guard url.host == expected.host, url.path == expected.path else { return false }
    if url.port == expected.port { return true }
    return url.scheme == "http" && (expected.host == "127.0.0.1" || expected.host == "[::1]")
  }

  /// Checks `url` (and its `parameters`) against this authorization in the documented order, then decodes
  /// the outcome.
  ///
  /// `parameters` defaults to ``ProviderDetector/callbackParameters(of:)`` (the query, or the fragment);
  /// pass the POST body for Apple's `form_post`, with `url` the redirect URI it was posted to.
  ///
  /// ```swift
  /// let callback = try pending.validate(url, parameters: FormParameters(utf8: body))
  /// ```
  ///
  /// - Throws: ``CallbackError``: `redirect-mismatch`, `duplicate-parameter`, `state-mismatch`,
  ///   `issuer-mismatch`, `expired`, or the decoder's own errors.
  public func validate(
    _ url: ParsedURL, parameters: FormParameters? = nil, now: Int64 = PendingAuthorization.currentUnixTime()
  ) throws(CallbackError) -> ProviderCallback {
    let parameters = parameters ?? ProviderDetector.callbackParameters(of: url)
    guard matchesRedirect(url) else {
      throw CallbackError(.redirectMismatch, found: Self.describe(url))
    }
    if let name = parameters.firstDuplicate(among: criticalParameters) {
      throw CallbackError(.duplicateParameter, parameter: name)
    }
    try checkState(parameters)
    let callbackIssuer = parameters.nonEmptyValue("iss")
    switch (issuer, callbackIssuer) {
    case (nil, nil): break
    case (let expected?, let found?) where expected == found: break
    case (_, let found): throw CallbackError(.issuerMismatch, parameter: "iss", found: found ?? "none")
    }
    if let expiresAt, now >= expiresAt { throw CallbackError(.expired) }
    if provider == .sber && SberSeamlessLogin.isSeamlessLogin(parameters) {
      // A seamless-login link is inbound, not a callback to this request.
      throw CallbackError(.unrecognizedCallback, parameter: "sberIDRedirect")
    }
    return try ProviderCallback(provider: provider, parameters: parameters)
  }

  func checkState(_ parameters: FormParameters) throws(CallbackError) {
    let found = parameters.nonEmptyValue("state")
    switch (state, found) {
    case (nil, nil):
      return
    case (let expected?, let found?):
      guard constantTimeEquals(expected, found) else { throw CallbackError(.stateMismatch, parameter: "state") }
    case (_?, nil):
      if provider == .sber, parameters.value(for: "result") == "FAILURE" || parameters.contains(named: "error_code") {
        return  // the Sber Android app's error grammar carries no state
      }
      throw CallbackError(.stateMismatch, parameter: "state", found: "none")
    case (nil, _?):
      throw CallbackError(.stateMismatch, parameter: "state", found: "unexpected")
    }
  }

  /// `scheme://host/path` of a URL, for error messages (no query: it may hold secrets).
  static func describe(_ url: ParsedURL) -> String {
    let href = url.href
    let end = href.firstIndex { $0 == "?" || $0 == "#" } ?? href.endIndex
    return String(href[..<end])
  }
}
