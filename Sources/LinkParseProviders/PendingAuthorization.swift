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
    matchesRedirect(url, ranges: url.utf8Ranges)
  }

  /// ``matchesRedirect(_:)`` with `url`'s byte ranges already read.
  func matchesRedirect(_ url: ParsedURL, ranges u: ParsedURL.UTF8Ranges) -> Bool {
    // Over the serializations' bytes: they are ASCII, so byte equality is `String` equality.
    let expected = redirectURI
    let e = expected.utf8Ranges
    let provider = self.provider
    // `String.withUTF8` (inlinable) rather than the generic `ParsedURL.withUnsafeUTF8`, which is not.
    var urlHref = url.href
    var expectedHref = expected.href
    return urlHref.withUTF8 { ub in
      expectedHref.withUTF8 { eb in
        func bytes(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?) -> UnsafeBufferPointer<UInt8> {
          range.map { UnsafeBufferPointer(rebasing: buf[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
        }
        func same(_ a: Range<Int>?, _ b: Range<Int>?) -> Bool {
          guard let a, let b else { return a == nil && b == nil }
          return a.count == b.count && (a.isEmpty || memcmp(ub.baseAddress! + a.lowerBound, eb.baseAddress! + b.lowerBound, a.count) == 0)
        }
        guard Self.equalIgnoringASCIICase(bytes(ub, u.scheme), bytes(eb, e.scheme)) else { return false }
        guard same(u.username, e.username), same(u.password, e.password) else { return false }
        if provider == .vk, ProviderDetector.isVKScheme(bytes(eb, e.scheme)) {
          let host = bytes(ub, u.host)
          guard host.isEmpty || Self.equals(host, "vk.ru") || Self.equals(host, "vk.com") else { return false }
          guard url.port == nil else { return false }
          let path = bytes(ub, u.path)
          if host.isEmpty && (path.isEmpty || Self.equals(path, "/")) { return true }
          return same(u.path, e.path)
        }
        guard same(u.host, e.host), same(u.path, e.path) else { return false }
        if url.port == expected.port { return true }
        let expectedHost = bytes(eb, e.host)
        return Self.equals(bytes(ub, u.scheme), "http") && e.host != nil
          && (Self.equals(expectedHost, "127.0.0.1") || Self.equals(expectedHost, "[::1]"))
      }
    }
  }

  static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    guard bytes.count == literal.utf8CodeUnitCount else { return false }
    let l = literal.utf8Start
    for i in 0..<bytes.count where bytes[i] != l[i] { return false }
    return true
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
    // One scan of the parameters serves every check and the decoder.
    let ranges = url.utf8Ranges
    let fields: CallbackFields
    if let parameters {
      fields = CallbackFields(parameters)
    } else {
      fields = ProviderDetector.callbackFields(of: url, ranges: ranges)
    }
    guard matchesRedirect(url, ranges: ranges) else {
      throw CallbackError(.redirectMismatch, found: Self.describe(url))
    }
    try fields.rejectDuplicates()
    try checkState(fields)
    try checkIssuer(fields)
    if let expiresAt, now >= expiresAt { throw CallbackError(.expired) }
    if provider == .sber && fields.hasSberIDRedirect {
      // A seamless-login link is inbound, not a callback to this request.
      throw CallbackError(.unrecognizedCallback, parameter: "sberIDRedirect")
    }
    return try ProviderCallback(provider: provider, fields: fields)
  }

  /// `state`, compared in constant time over the decoded bytes, without allocating.
  func checkState(_ fields: borrowing CallbackFields) throws(CallbackError) {
    switch (state, fields.isNonEmpty(.state)) {
    case (nil, false):
      return
    case (let expected?, true):
      // Raw bytes sliced from a `String` are valid UTF-8; only percent-decoding can make them invalid.
      let mayBeInvalid = fields[.state].needsDecoding
      var valid = true
      var equal = withUTF8Bytes(expected) { expectedBytes in
        fields.withDecodedValue(.state) { found -> Bool in
          if mayBeInvalid && !isValidUTF8(found) {
            valid = false
            return false
          }
          return constantTimeEquals(expectedBytes, found)
        }
      }
      if !valid {
        // A decoded state that is not valid UTF-8 is compared as `String` decoding repairs it (U+FFFD).
        equal = constantTimeEquals(expected, fields.string(.state) ?? "")
      }
      guard equal else { throw CallbackError(.stateMismatch, parameter: "state") }
    case (_?, false):
      if provider == .sber, fields.value(.result, equals: "FAILURE") || fields.contains(.errorCode) {
        return  // the Sber Android app's error grammar carries no state
      }
      throw CallbackError(.stateMismatch, parameter: "state", found: "none")
    case (nil, true):
      throw CallbackError(.stateMismatch, parameter: "state", found: "unexpected")
    }
  }

  /// `iss` against ``issuer`` (simple comparison of the decoded bytes), without allocating.
  func checkIssuer(_ fields: borrowing CallbackFields) throws(CallbackError) {
    let present = fields.isNonEmpty(.iss)
    switch (issuer, present) {
    case (nil, false): return
    case (let expected?, true):
      // `String ==` compares canonical equivalence; equal bytes imply it, and non-ASCII falls back to it.
      let equalBytes = withUTF8Bytes(expected) { expected in
        fields.withDecodedValue(.iss) { found in expected.elementsEqual(found) }
      }
      if equalBytes || (!expected.utf8.allSatisfy { $0 < 0x80 } || !fields.valueIsASCII(.iss))
        && fields.string(.iss) == expected
      {
        return
      }
      throw CallbackError(.issuerMismatch, parameter: "iss", found: fields.string(.iss) ?? "none")
    case (_, let present):
      throw CallbackError(.issuerMismatch, parameter: "iss", found: present ? fields.string(.iss) ?? "none" : "none")
    }
  }

  /// Whether two schemes are equal ignoring ASCII letter case (parsed schemes are ASCII).
  static func equalIgnoringASCIICase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    for i in 0..<a.count where a[i] != b[i] {
      let x = a[i] >= 0x41 && a[i] <= 0x5A ? a[i] | 0x20 : a[i]
      let y = b[i] >= 0x41 && b[i] <= 0x5A ? b[i] | 0x20 : b[i]
      if x != y { return false }
    }
    return true
  }

  /// `scheme://host/path` of a URL, for error messages (no query: it may hold secrets).
  static func describe(_ url: ParsedURL) -> String {
    let href = url.href
    let end = href.firstIndex { $0 == "?" || $0 == "#" } ?? href.endIndex
    return String(href[..<end])
  }
}
