// The `auto` detector: which provider a callback comes from, and the parameters to decode (the query, or the
// fragment), with one scan of the parameters.

@_spi(Bytes) public import LinkParseCore
import LinkParseBytes

/// What ``ProviderDetector/decode(url:ssoPolicy:)`` found: the detected provider, and its decoder's answer (the
/// callback, or why it was rejected).
///
/// ```swift
/// let detected = ProviderDetector.decode(url: try ParsedURL("myapp://authorized?cancelled"))!
/// detected.provider                  // .tid
/// try detected.result.get().outcome  // .cancelled
/// ```
public struct DetectedCallback: Sendable {
  /// The provider the callback's parameters and scheme point to.
  public let provider: Provider
  /// The decoded callback, or the decoder's error.
  public let result: Result<ProviderCallback, CallbackError>

  /// Pairs a provider with its decoder's answer.
  public init(provider: Provider, result: Result<ProviderCallback, CallbackError>) {
    self.provider = provider
    self.result = result
  }
}

/// Picks the provider of a callback (`--provider auto`) and the parameters to decode.
///
/// Rules, first match wins:
/// 1. scheme `vk<digits>`, or a `device_id`, `payload`, `type=code_v2` or `vkconnect_auth_provider_method`
///    parameter → ``Provider/vk``;
/// 2. a `sberIDRedirect` key (any case) → ``Provider/sber`` (seamless login);
/// 3. `status=fail` or `status=success` (the Sber iOS app's flags, any letter case), `result=FAILURE` or
///    `error_code` → ``Provider/sber``;
/// 4. a `cancelled` or `unavailable` flag, `auth_status_code`, or a debug-app `result`
///    (`success|failure|cancelled|unavailable`) → ``Provider/tid``;
/// 5. `error=user_cancelled_authorize`, `id_token` together with `user`, or scheme `signinwithapple` →
///    ``Provider/apple``;
/// 6. `code`, `error` or `access_token` (the implicit flow) → ``Provider/oauth2``;
/// 7. otherwise `nil`: nothing to decode.
///
/// ```swift
/// let url = try ParsedURL("myapp://authorized?cancelled")
/// ProviderDetector.detect(url: url, parameters: url.queryParameters)  // .tid
/// let sber = try ParsedURL("myapp://sberidauth?status=success&state=s&code=c")
/// ProviderDetector.detect(url: sber, parameters: sber.queryParameters)  // .sber
/// ```
public enum ProviderDetector {

  /// Applies the rules above.
  ///
  /// ```swift
  /// let url = try ParsedURL("app://merchant_app/?result=FAILURE&error_code=5")
  /// ProviderDetector.detect(url: url, parameters: url.queryParameters)  // .sber
  /// ```
  public static func detect(url: ParsedURL, parameters: FormParameters) -> Provider? {
    detect(url: url, fields: CallbackFields(parameters))
  }

  /// Detects the provider of a callback and decodes it with one scan of its parameters (what
  /// ``detect(url:parameters:)`` followed by ``ProviderCallback/init(provider:parameters:ssoPolicy:)`` do
  /// with two). `nil` when no provider is detected; otherwise the provider and the decoded callback or the
  /// decoder's error.
  ///
  /// ```swift
  /// let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d")
  /// let detected = ProviderDetector.decode(url: url, parameters: url.queryParameters)!
  /// detected.provider             // .vk
  /// try detected.result.get().code  // "c"
  /// ```
  public static func decode(
    url: ParsedURL, parameters: FormParameters, ssoPolicy: SberSSOTrustPolicy = .default
  ) -> DetectedCallback? {
    var fields = CallbackFields(parameters)
    guard let provider = detect(url: url, fields: fields) else { return nil }
    return DetectedCallback(
      provider: provider,
      result: Result { () throws(CallbackError) in
        try decode(provider, &fields, ssoPolicy: ssoPolicy, url: url, parameters: parameters)
      })
  }

  /// ``decode(url:parameters:ssoPolicy:)`` with the URL's own callback parameters
  /// (``callbackParameters(of:)``: the query, or the fragment), scanned straight from its serialization.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://example.com/cb#state=s&code=c")
  /// ProviderDetector.decode(url: url)?.provider  // .oauth2
  /// ```
  public static func decode(url: ParsedURL, ssoPolicy: SberSSOTrustPolicy = .default) -> DetectedCallback? {
    var fields = callbackFields(of: url)
    let traits = schemeTraits(url, 0..<url.schemeHostPathOffsets.schemeEnd)
    guard let provider = detect(vkScheme: traits.vk, appleScheme: traits.apple, fields: fields) else { return nil }
    return DetectedCallback(
      provider: provider,
      result: Result { () throws(CallbackError) in
        try decode(provider, &fields, ssoPolicy: ssoPolicy, url: url, parameters: nil)
      })
  }

  /// ``decode(url:ssoPolicy:)`` for a caller that writes the answer out at once (the command line tool), with
  /// the URL's query already scanned by it as it split the pairs for its own use (see ``CallbackQueryScan``;
  /// the fragment is still scanned here when the query holds no callback key). The callback goes to
  /// `decoded`, or the detected provider and the decoder's error to `rejected`; `false` when no provider is
  /// detected.
  ///
  /// The public functions' answer holds a `Result`, and destroying it goes through the standard library's
  /// generic value witnesses (about 290 instructions per line of the tool): here nothing wraps the callback,
  /// which is destroyed as the concrete type it is. (`inout`: the scan, ~370 bytes, is read in place, not
  /// copied.)
  @_spi(Bytes) public static func decode(
    url: ParsedURL, scannedQuery: inout CallbackQueryScan, ssoPolicy: SberSSOTrustPolicy = .default,
    decoded: (ProviderCallback) -> Void, rejected: (Provider, CallbackError) -> Void
  ) -> Bool {
    let traits = schemeTraits(url, 0..<url.schemeHostPathOffsets.schemeEnd)
    var fields: CallbackFields
    if scannedQuery.isUsable {
      fields = CallbackFields(url: url.href, scannedQuery: &scannedQuery, fragment: url.queryAndFragmentRanges.fragment)
    } else {
      fields = callbackFields(of: url)
    }
    guard let provider = detect(vkScheme: traits.vk, appleScheme: traits.apple, fields: fields) else { return false }
    let callback: ProviderCallback
    do throws(CallbackError) {
      callback = try decode(provider, &fields, ssoPolicy: ssoPolicy, url: url, parameters: nil)
    } catch {
      rejected(provider, error)
      return true
    }
    decoded(callback)
    return true
  }

  /// The decoding step of the `decode` functions: a Sber seamless-login link is read from its parameters
  /// (`parameters`, or when `nil` the URL's own, made only then), any other callback from the scanned
  /// `fields`. (The URL is borrowed, not captured: a closure capturing it cost a copy of it per call.)
  private static func decode(
    _ provider: Provider, _ fields: inout CallbackFields, ssoPolicy: SberSSOTrustPolicy, url: ParsedURL,
    parameters: FormParameters?
  ) throws(CallbackError) -> ProviderCallback {
    if provider == .sber && fields.hasSberIDRedirect {
      return .sberSeamless(try seamlessLogin(parameters, url: url, ssoPolicy: ssoPolicy))
    }
    return try ProviderCallback(provider: provider, fields: &fields)
  }

  /// A Sber seamless-login link read from `parameters`, or when `nil` from the URL's own. Out of line: `??`'s
  /// closure, in the caller, copied the URL on every call.
  @inline(never)
  private static func seamlessLogin(
    _ parameters: FormParameters?, url: ParsedURL, ssoPolicy: SberSSOTrustPolicy
  ) throws(CallbackError) -> SberSeamlessLogin {
    if let parameters { return try SberSeamlessLogin(parameters, policy: ssoPolicy) }
    return try SberSeamlessLogin(callbackParameters(of: url), policy: ssoPolicy)
  }

  /// Whether a URL's scheme (at `range` of its serialization) is `vk<digits>`, and whether it is
  /// `signinwithapple`: read from the bytes, without making a `Substring`.
  static func schemeTraits(_ url: ParsedURL, _ range: Range<Int>) -> (vk: Bool, apple: Bool) {
    // (`withHrefBytes`: `withUnsafeUTF8`'s generic body, inlined here, copied the URL.)
    withHrefBytes(url) { bytes in
      let scheme = UnsafeBufferPointer(rebasing: bytes[range])
      return (isVKScheme(scheme), bytesEqual(scheme, "signinwithapple"))
    }
  }

  /// ``detect(url:parameters:)`` over already scanned parameters.
  static func detect(url: ParsedURL, fields f: borrowing CallbackFields) -> Provider? {
    let traits = schemeTraits(url, 0..<url.schemeHostPathOffsets.schemeEnd)
    return detect(vkScheme: traits.vk, appleScheme: traits.apple, fields: f)
  }

  /// ``detect(url:parameters:)`` given what the rules read from the scheme.
  static func detect(vkScheme: Bool, appleScheme: Bool, fields f: borrowing CallbackFields) -> Provider? {
    if vkScheme || f.contains(.deviceID) || f.contains(.payload) || f.value(.type, equals: "code_v2")
      || f.contains(.vkMethod)
    {
      return .vk
    }
    if f.hasSberIDRedirect { return .sber }
    if f.contains(.status) && f.withDecodedValue(.status, SberIDCallback.isSberStatus(bytes:))
      || f.value(.result, equals: "FAILURE") || f.contains(.errorCode)
    {
      return .sber
    }
    if f.contains(.cancelled) || f.contains(.unavailable) || f.contains(.authStatusCode) {
      return .tid
    }
    if f.rawValue(.result) != nil
      && (f.value(.result, equals: "success") || f.value(.result, equals: "failure")
        || f.value(.result, equals: "cancelled") || f.value(.result, equals: "unavailable"))
    {
      return .tid
    }
    if f.value(.error, equals: "user_cancelled_authorize") || (f.contains(.idToken) && f.contains(.user))
      || appleScheme
    {
      return .apple
    }
    if f.contains(.code) || f.contains(.error) || f.contains(.accessToken) { return .oauth2 }
    return nil
  }

  /// The parameters a callback URL carries: its query, unless the query has none of the callback keys
  /// (``callbackKeys``: `code`, `error`, `state`, `id_token`, `access_token`, …) and the fragment has some
  /// (`response_mode=fragment`, the implicit flow).
  ///
  /// ```swift
  /// let url = try ParsedURL("https://example.com/cb#state=s&code=c")
  /// ProviderDetector.callbackParameters(of: url).value(for: "code")  // "c"
  /// ```
  public static func callbackParameters(of url: ParsedURL) -> FormParameters {
    let query = url.queryParameters
    guard url.fragment != nil, !hasCallbackKey(query) else { return query }
    let fragment = url.fragmentParameters
    return hasCallbackKey(fragment) ? fragment : query
  }

  static let callbackKeys = [
    "code", "error", "state", "id_token", "cancelled", "unavailable", "auth_status_code", "result", "status",
    "device_id", "payload", "access_token",
  ]

  static func hasCallbackKey(_ parameters: FormParameters) -> Bool {
    !parameters.isEmpty && CallbackFields(parameters).hasCallbackKey
  }

  /// ``callbackParameters(of:)``, scanned; the fields' text is the URL's serialization.
  @inline(__always)
  static func callbackFields(of url: ParsedURL) -> CallbackFields {
    let (query, fragment) = url.queryAndFragmentRanges
    return CallbackFields(url: url.href, query: query, fragment: fragment)
  }

  static func isVKScheme(_ scheme: UnsafeBufferPointer<UInt8>) -> Bool {
    guard scheme.count > 2, scheme[0] == UInt8(ascii: "v"), scheme[1] == UInt8(ascii: "k") else { return false }
    for i in 2..<scheme.count where scheme[i] < 0x30 || scheme[i] > 0x39 { return false }
    return true
  }
}
