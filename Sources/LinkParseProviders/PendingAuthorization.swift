// Binding a callback to the request that caused it (providers.md §7 steps 1 and 4, RFC 6749 §10.12,
// RFC 8252 §7.3, RFC 9207).

@_spi(Bytes) public import LinkParseCore
import LinkParseBytes

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
/// 3. `state-mismatch`: constant-time comparison of the decoded bytes with the state's UTF-8 bytes (a state
///    that decodes to invalid UTF-8 equals none); a missing state, or a state when none was sent, fails
///    too. The only state-less callbacks accepted are the T-ID app flow (pending ``state`` `nil`) and the
///    Sber apps' error grammars, which never carry one: Android `result=FAILURE&error_code=N` and iOS
///    `status=fail&error=X` (decoded as the provider's error). A VK SDK 1.x `payload` without a top-level
///    `state` is checked by the payload's `oauth.state` (the state its result reports). A `state-mismatch`
///    thrown for a callback that carries a provider error keeps that error in
///    ``CallbackError/providerError``.
/// 4. `issuer-mismatch`: when an issuer is expected, `iss` must equal it (simple string comparison: the
///    decoded bytes equal the issuer's UTF-8 bytes exactly, so an NFD spelling of an NFC issuer fails); when
///    none is expected, an `iss` is rejected too.
/// 5. `expired`: when ``expiresAt`` is set and `now` has reached it.
/// 6. the outcome, decoded by the provider's decoder (which may throw its own errors).
///
/// A pending authorization is a value; its properties live in one shared, immutable box (so a copy costs one
/// reference count, and setting a property makes a new box), together with what ``validate(_:parameters:now:)``
/// reads on every call: the redirect URI's component ranges, its matching rules, the expected state's bytes.
///
/// ```swift
/// let pending = PendingAuthorization(
///   provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "Qk7x2LmN9pRtVw3a",
///   expiresAt: PendingAuthorization.currentUnixTime() + 600)
/// let url = try ParsedURL("myapp://sberidauth?state=Qk7x2LmN9pRtVw3a&code=FA21")
/// let callback = try pending.validate(url)
/// callback.code  // "FA21"
/// ```
public struct PendingAuthorization: Sendable {
  /// Never written after it is made (a setter makes a new one).
  private var storage: Immutable<Box>
  private var box: Box {
    @inline(__always) get { storage.object }
    @inline(__always) set { storage = Immutable(newValue) }
  }

  /// The provider the request went to.
  ///
  /// ```swift
  /// var pending = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("myapp://cb"), state: "s")
  /// pending.provider = .tid  // a new box; copies made before keep .oauth2
  /// ```
  public var provider: Provider {
    get { box.provider }
    set { box = Box.make(newValue, box.redirectURI, box.state, box.issuer, box.expiresAt, box.extras) }
  }

  /// The redirect URI sent in the request.
  ///
  /// ```swift
  /// pending.redirectURI.href  // "myapp://cb"
  /// ```
  public var redirectURI: ParsedURL {
    get { box.redirectURI }
    set { box = Box.make(box.provider, newValue, box.state, box.issuer, box.expiresAt, box.extras.sentAnew()) }
  }

  /// The `state` sent, or `nil` for flows without one (the T-ID app flow).
  ///
  /// ```swift
  /// pending.state  // "s"
  /// ```
  public var state: String? {
    get { box.state }
    set { box = Box.make(box.provider, box.redirectURI, newValue, box.issuer, box.expiresAt, box.extras) }
  }

  /// The expected issuer (RFC 9207 `iss`), when the server is known to send it.
  ///
  /// ```swift
  /// pending.issuer = "https://as.example"
  /// ```
  public var issuer: String? {
    get { box.issuer }
    set { box = Box.make(box.provider, box.redirectURI, box.state, newValue, box.expiresAt, box.extras) }
  }

  /// When the authorization stops being acceptable, in Unix seconds.
  ///
  /// ```swift
  /// pending.expiresAt = PendingAuthorization.currentUnixTime() + 600
  /// ```
  public var expiresAt: Int64? {
    get { box.expiresAt }
    set { box = Box.make(box.provider, box.redirectURI, box.state, box.issuer, newValue, box.extras) }
  }

  /// The `client_id` the request was sent with, for the token request.
  ///
  /// ```swift
  /// pending.clientID  // "7915193"
  /// ```
  public var clientID: String? {
    get { box.extras.clientID }
    set { box = box.with { $0.clientID = newValue } }
  }

  /// The PKCE `code_verifier` whose challenge the request carried, for the token request.
  ///
  /// ```swift
  /// pending.codeVerifier  // "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
  /// ```
  public var codeVerifier: String? {
    get { box.extras.codeVerifier }
    set { box = box.with { $0.codeVerifier = newValue } }
  }

  /// The keyed hash of the transaction cookie set in the browser that started this login (a web login's
  /// binding to its browser, RFC 9700 §4.7.1), or `nil` for a login that is not bound to a browser (an app's).
  /// A store's `consume` accepts a callback for a bound login only when the browser presents the cookie whose
  /// hash this is (``PendingAuthorizationStoring``); the cookie itself is never stored.
  ///
  /// ```swift
  /// pending.browserBinding  // "Yk3…" (base64url of an HMAC-SHA256), or nil
  /// ```
  public var browserBinding: String? {
    get { box.extras.browserBinding }
    set { box = box.with { $0.browserBinding = newValue } }
  }

  /// The issuer identifier of the authorization server the login was started at, recorded at the start, so that
  /// completing it anywhere else is refused (RFC 9700 §4.4, mix-up): a relying party completes only an
  /// authorization whose recorded server is its own. Unlike ``issuer`` (the RFC 9207 `iss` the callback must
  /// carry), nothing is required of the callback.
  ///
  /// ```swift
  /// pending.authorizationServer  // "https://id.example"
  /// ```
  public var authorizationServer: String? {
    get { box.extras.authorizationServer }
    set { box = box.with { $0.authorizationServer = newValue } }
  }

  /// Where the browser goes once this web login has ended in a session: a same-site path (`/account?tab=1`),
  /// already validated where the login started (LinkParseHummingbird's start endpoint reads `return_to` and
  /// keeps only a path its `ReturnPath` accepts), or `nil` (the app's default page).
  ///
  /// ```swift
  /// pending.returnPath ?? "/"  // "/account"
  /// ```
  public var returnPath: String? {
    get { box.extras.returnPath }
    set { box = box.with { $0.returnPath = newValue } }
  }

  /// The `nonce` the request carried, to check in the ID token.
  ///
  /// ```swift
  /// pending.nonce  // "TGfhfBxr5ak1"
  /// ```
  public var nonce: String? {
    get { box.extras.nonce }
    set { box = box.with { $0.nonce = newValue } }
  }

  /// The redirect URI exactly as the request spelled it, when it differs from `redirectURI.href` (which is
  /// normalised: `https://example.com` serializes as `https://example.com/`). The token request must repeat the
  /// spelling sent (RFC 6749 §4.1.3). Setting ``redirectURI`` clears it.
  ///
  /// ```swift
  /// pending.redirectURIAsSent ?? pending.redirectURI.href
  /// ```
  public var redirectURIAsSent: String? {
    get { box.extras.redirectURIAsSent }
    set {
      let sent = newValue == box.redirectURI.href ? nil : newValue
      box = box.with { $0.redirectURIAsSent = sent }
    }
  }

  /// Creates a pending authorization.
  ///
  /// ```swift
  /// let pending = PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil)
  /// ```
  public init(
    provider: Provider, redirectURI: ParsedURL, state: String?, issuer: String? = nil, expiresAt: Int64? = nil,
    clientID: String? = nil, codeVerifier: String? = nil, nonce: String? = nil, redirectURIAsSent: String? = nil
  ) {
    let extras = PendingExtras(
      clientID: clientID, codeVerifier: codeVerifier, nonce: nonce,
      redirectURIAsSent: redirectURIAsSent == redirectURI.href ? nil : redirectURIAsSent)
    storage = Immutable(Box.make(provider, redirectURI, state, issuer, expiresAt, extras))
  }

  /// The properties and the bytes `validate` reads, in one object (see the extension below).
  private typealias Box = HeaderedBytes<BoxHeader>

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
    // The closures capture plain values (the layout, the ranges), not `url`: capturing it copied it (a
    // retain, through value witnesses).
    let expected = box
    // The usual callback: the redirect URI itself up to the end of its path, then a query or fragment. With
    // the same components at the same offsets (compared as packed offsets, without computing ranges) and
    // the same bytes up to there, every comparison below answers as it does for the redirect URI against
    // itself.
    let layout = url.layoutThroughPath
    let eb = expected.hrefBytes
    if layout == expected.layout {
      let same = withHrefBytes(url) { ub in Self.equalBytes(ub.baseAddress, 0, eb.baseAddress, 0, layout.pathEnd) }
      if same { return expected.matchesItself }
    }
    let ranges = url.utf8Ranges
    return withHrefBytes(url) { ub in
      Self.matchesRedirect(
        ranges, ub, expected: expected.ranges, eb, isVKApp: expected.isVKApp, isLoopback: expected.isLoopback)
    }
  }

  /// Rule 1 over two serializations' bytes and component ranges: the URL's (`u`, `ub`) and the redirect URI's
  /// (`e`, `eb`, whose VK app and loopback relaxations are given).
  fileprivate static func matchesRedirect(
    _ u: ParsedURL.UTF8Ranges, _ ub: UnsafeBufferPointer<UInt8>, expected e: ParsedURL.UTF8Ranges,
    _ eb: UnsafeBufferPointer<UInt8>, isVKApp: Bool, isLoopback: Bool
  ) -> Bool {
    // Over the serializations' bytes: they are ASCII, so byte equality is `String` equality.
    @inline(__always) func bytes(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?) -> UnsafeBufferPointer<UInt8> {
      range.map { UnsafeBufferPointer(rebasing: buf[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
    }
    @inline(__always) func same(_ a: Range<Int>?, _ b: Range<Int>?) -> Bool {
      guard let a, let b else { return a == nil && b == nil }
      return a.count == b.count && Self.equalBytes(ub.baseAddress, a.lowerBound, eb.baseAddress, b.lowerBound, a.count)
    }
    // Parsed schemes are lower-cased, so equal bytes are the common case.
    guard same(u.scheme, e.scheme) || Self.equalIgnoringASCIICase(bytes(ub, u.scheme), bytes(eb, e.scheme)) else {
      return false
    }
    guard same(u.username, e.username), same(u.password, e.password) else { return false }
    if isVKApp {
      // `vk<id>://vk.ru/blank.html`, `vk<id>://vk.com/blank.html`, or the VK app's host-less return
      // `vk<id>://?…` (an empty host and no path, providers.md §2.1). Not `vk<id>:?…` (no host at all) nor
      // `vk<id>:///?…` (a path after an empty host): no VK SDK sends those.
      guard u.host != nil else { return false }
      let host = bytes(ub, u.host)
      guard host.isEmpty || bytesEqual(host, "vk.ru") || bytesEqual(host, "vk.com") else { return false }
      guard u.port == nil else { return false }
      if host.isEmpty { return bytes(ub, u.path).isEmpty }
      return same(u.path, e.path)
    }
    guard same(u.host, e.host), same(u.path, e.path) else { return false }
    // Serialized ports are canonical (decimal, no leading zeros, the scheme's default omitted): equal digits
    // are equal ports.
    if same(u.port, e.port) { return true }
    return isLoopback && bytesEqual(bytes(ub, u.scheme), "http")
  }

  /// Whether `count` bytes at `a + i` and `b + j` are equal (eight at a time, the bytes layer's `Words.equal`; no call
  /// into libc). Absent buffers hold no bytes.
  @inline(__always)
  static func equalBytes(
    _ a: UnsafePointer<UInt8>?, _ i: Int, _ b: UnsafePointer<UInt8>?, _ j: Int, _ count: Int
  ) -> Bool {
    guard count > 0, let a, let b else { return true }
    return Words.equal(a, at: i, b, at: j, count: count)
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
    // One scan of the parameters serves every check and the decoder (and the result keeps the URL's
    // serialization when the parameters are the URL's own). The redirect is matched before the scan: a
    // closure over the scanned fields would copy them. The rest takes the fields alone: passing `url` on
    // as well made a copy of it.
    box.prefetch()
    guard matchesRedirect(url) else {
      throw CallbackError(.redirectMismatch, found: Self.describe(url))
    }
    let callback: ProviderCallback
    if let parameters {
      var fields = CallbackFields(parameters)
      callback = try validate(&fields, now: now)
    } else {
      var fields = ProviderDetector.callbackFields(of: url)
      callback = try validate(&fields, now: now)
    }
    if box.isVKApp { try Self.checkVKAppReturn(url, callback) }
    return callback
  }

  /// The VK app's host-less return (`vk<id>://?…`) must say it is one: a success there carries
  /// `vkconnect_auth_provider_method=external_auth`, as the iOS SDK checks (providers.md §2.6); without it the
  /// callback is refused (`missing-parameter`).
  @inline(never)
  private static func checkVKAppReturn(_ url: ParsedURL, _ callback: ProviderCallback) throws(CallbackError) {
    guard url.host?.isEmpty == true, case .vk(.success(let success)) = callback, !success.isReturnFromVKApp else {
      return
    }
    throw CallbackError(.missingParameter, parameter: "vkconnect_auth_provider_method")
  }

  /// The checks after the redirect's, then the decoder.
  private func validate(_ fields: inout CallbackFields, now: Int64) throws(CallbackError) -> ProviderCallback {
    if box.provider == .sber && fields.hasSberIDRedirect {
      // A seamless-login link is inbound, not a callback to this request: said before any check of a
      // callback's parameters (its missing state is not a state mismatch).
      throw CallbackError(.unrecognizedCallback, parameter: "sberIDRedirect")
    }
    try fields.rejectDuplicates()
    try checkState(&fields)
    try checkIssuer(&fields)
    if let expiresAt = box.expiresAt, now >= expiresAt { throw CallbackError(.expired) }
    let callback = try ProviderCallback(provider: box.provider, fields: &fields)
    if case .apple(.idTokenGrant(let grant)) = callback { try checkGrantNonce(grant) }
    return callback
  }

  /// An id_token-only callback (Apple's `response_type=id_token`) has no code for PKCE or a token endpoint to
  /// bind it to this request: the token's `nonce` does. So the authorization must have sent one, and the token
  /// (still unverified here: `c_hash` does not apply, the signature is checked when the login completes) must
  /// carry exactly its bytes.
  @inline(never)
  private func checkGrantNonce(_ grant: AppleSuccess) throws(CallbackError) {
    guard let expected = box.extras.nonce else {
      throw CallbackError(.nonceMismatch, parameter: "nonce", found: "the authorization sent no nonce")
    }
    guard let found = grant.idTokenClaims?.nonce else {
      throw CallbackError(.nonceMismatch, parameter: "id_token")
    }
    // Exact bytes (no canonical equivalence), as for `state`.
    guard found.utf8.elementsEqual(expected.utf8) else { throw CallbackError(.nonceMismatch, parameter: "id_token") }
  }

  /// `state`, compared in constant time over the decoded bytes, without allocating.
  ///
  /// This and ``checkIssuer(_:)`` are inlined into `validate`: a call would copy the fields (~400 bytes) for
  /// the callee to borrow.
  @inline(__always)
  func checkState(_ fields: inout CallbackFields) throws(CallbackError) {
    let box = self.box
    // The expected bytes, not the box or the `String`, are what the closure below captures: capturing either
    // cost atomic reference-count operations on every callback.
    let expected = box.stateBytes
    switch (expected != nil, fields.isNonEmpty(.state)) {
    case (false, false):
      // A VK SDK 1.x `payload` carries its state inside (`oauth.state`): that one is checked.
      if box.provider == .vk && fields.contains(.payload) { try checkPayloadState(&fields) }
      return
    case (true, true):
      // The decoded bytes against the expected state's UTF-8 bytes, and nothing else: a decoded state that is
      // not valid UTF-8 (`%FF`) is never repaired (to U+FFFD) before the comparison, so it equals no state.
      // The fields' method outermost: a closure capturing `fields` would copy them.
      let equal = fields.withDecodedValue(.state) { found in constantTimeEquals(expected!, found) }
      guard equal else { throw fields.stateMismatch(found: nil) }
    case (true, false):
      if box.provider == .sber && fields.isStatelessSberError() {
        return  // the Sber apps' error grammars carry no state
      }
      if box.provider == .vk && fields.contains(.payload) {
        try checkPayloadState(&fields)
        return
      }
      throw fields.stateMismatch(found: nil)
    case (false, true):
      throw fields.stateMismatch(found: "unexpected")
    }
  }

  /// The state check of a VK SDK 1.x `payload` callback without a top-level `state`: the payload's
  /// `oauth.state` (the state the result reports) against the expected one, in constant time. A payload
  /// without a readable state is `state-mismatch` (`none`) when a state is expected. (A top-level `state` or
  /// `code` that differs from the payload's is the decoder's `conflicting-outcome`.) Off the common path: only
  /// when `payload` is present.
  @inline(never)
  private func checkPayloadState(_ fields: inout CallbackFields) throws(CallbackError) {
    let found = fields.legacyPayloadState()
    switch (box.stateBytes, found) {
    case (nil, nil): return
    case (let expected?, let found?):
      let equal = withUTF8Bytes(found) { constantTimeEquals(expected, $0) }
      guard equal else { throw fields.stateMismatch(found: nil) }
    case (_?, nil):
      // No readable state: a payload that is not VK's JSON is malformed, not a mismatch.
      if !fields.legacyPayloadIsJSON() { throw CallbackError(.malformedParameter, parameter: "payload") }
      throw fields.stateMismatch(found: nil)
    case (nil, _?): throw fields.stateMismatch(found: "unexpected")
    }
  }

  /// `iss` against ``issuer`` (simple comparison of the decoded bytes), without allocating.
  @inline(__always)
  func checkIssuer(_ fields: inout CallbackFields) throws(CallbackError) {
    if box.issuer == nil && !fields.isNonEmpty(.iss) { return }  // the common case, inline
    try checkIssuerSent(&fields)
  }

  /// ``checkIssuer(_:)`` when an issuer is expected or `iss` is present.
  @inline(never)
  private func checkIssuerSent(_ fields: inout CallbackFields) throws(CallbackError) {
    let present = fields.isNonEmpty(.iss)
    switch (box.issuer, present) {
    case (nil, false): return
    case (let expected?, true):
      // The usual `iss`: exactly the expected issuer's form-encoding, which decodes to it. (Decoding it first
      // cost about 700 instructions.)
      if let encoded = box.issuerEncodedBytes, fields.rawValue(.iss, is: encoded) { return }
      // Simple string comparison (RFC 9207 §2.4, RFC 3986 §6.2.1): the decoded bytes against the expected
      // issuer's UTF-8 bytes, exactly. No canonical equivalence (`String ==` would take an NFD spelling of an
      // NFC issuer), no repair of invalid UTF-8. (Eight bytes at a time: `elementsEqual` walked both through
      // generic iterators, ~20 instructions a byte.)
      let equalBytes = withUTF8Bytes(expected) { expected in
        fields.withDecodedValue(.iss) { found in
          found.count == expected.count
            && Self.equalBytes(found.baseAddress, 0, expected.baseAddress, 0, expected.count)
        }
      }
      if equalBytes { return }
      throw CallbackError(.issuerMismatch, parameter: "iss", found: fields.string(.iss))
    case (_, let present):
      throw CallbackError(.issuerMismatch, parameter: "iss", found: present ? fields.string(.iss) : nil)
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

  /// The key a store indexes pending authorizations by: the lower-cased scheme, host and path (port and
  /// userinfo are left to ``matchesRedirect(_:)``, which every candidate is checked with); the scheme alone for
  /// the VK apps' `vk<digits>` schemes, whose host and path the callback may drop. Whenever
  /// `pending.matchesRedirect(url)`, `redirectKey(url) == redirectKey(pending.redirectURI)`.
  ///
  /// ```swift
  /// PendingAuthorization.redirectKey(try ParsedURL("https://a.example:8443/cb?x=1"))  // "https://a.example/cb"
  /// ```
  package static func redirectKey(_ url: ParsedURL) -> String {
    let scheme = url.scheme.lowercased()
    if scheme.count > 2, scheme.hasPrefix("vk"), scheme.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber }) {
      return scheme + ":"
    }
    return scheme + "://" + String(url.host ?? "") + String(url.path)
  }

  /// `scheme://host/path` of a URL, for error messages (no query: it may hold secrets).
  static func describe(_ url: ParsedURL) -> String {
    let href = url.href
    let end = href.firstIndex { $0 == "?" || $0 == "#" } ?? href.endIndex
    return String(href[..<end])
  }
}

// MARK: - Value semantics

extension PendingAuthorization: Hashable {
  public static func == (lhs: PendingAuthorization, rhs: PendingAuthorization) -> Bool {
    if lhs.box === rhs.box { return true }
    return lhs.provider == rhs.provider && lhs.redirectURI == rhs.redirectURI && lhs.state == rhs.state
      && lhs.issuer == rhs.issuer && lhs.expiresAt == rhs.expiresAt && lhs.box.extras == rhs.box.extras
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(provider)
    hasher.combine(redirectURI)
    hasher.combine(state)
    hasher.combine(issuer)
    hasher.combine(expiresAt)
    hasher.combine(box.extras)
  }
}

/// Encoded as the properties, under their names (those that are `nil` left out).
extension PendingAuthorization: Codable {
  private enum CodingKeys: String, CodingKey {
    case provider, redirectURI, state, issuer, expiresAt, clientID, codeVerifier, nonce, redirectURIAsSent
    case browserBinding, returnPath, authorizationServer
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      provider: try c.decode(Provider.self, forKey: .provider),
      redirectURI: try c.decode(ParsedURL.self, forKey: .redirectURI),
      state: try c.decodeIfPresent(String.self, forKey: .state),
      issuer: try c.decodeIfPresent(String.self, forKey: .issuer),
      expiresAt: try c.decodeIfPresent(Int64.self, forKey: .expiresAt),
      clientID: try c.decodeIfPresent(String.self, forKey: .clientID),
      codeVerifier: try c.decodeIfPresent(String.self, forKey: .codeVerifier),
      nonce: try c.decodeIfPresent(String.self, forKey: .nonce),
      redirectURIAsSent: try c.decodeIfPresent(String.self, forKey: .redirectURIAsSent))
    if let binding = try c.decodeIfPresent(String.self, forKey: .browserBinding) { browserBinding = binding }
    if let path = try c.decodeIfPresent(String.self, forKey: .returnPath) { returnPath = path }
    if let server = try c.decodeIfPresent(String.self, forKey: .authorizationServer) { authorizationServer = server }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(provider, forKey: .provider)
    try c.encode(redirectURI, forKey: .redirectURI)
    try c.encodeIfPresent(state, forKey: .state)
    try c.encodeIfPresent(issuer, forKey: .issuer)
    try c.encodeIfPresent(expiresAt, forKey: .expiresAt)
    try c.encodeIfPresent(clientID, forKey: .clientID)
    try c.encodeIfPresent(codeVerifier, forKey: .codeVerifier)
    try c.encodeIfPresent(nonce, forKey: .nonce)
    try c.encodeIfPresent(redirectURIAsSent, forKey: .redirectURIAsSent)
    try c.encodeIfPresent(browserBinding, forKey: .browserBinding)
    try c.encodeIfPresent(returnPath, forKey: .returnPath)
    try c.encodeIfPresent(authorizationServer, forKey: .authorizationServer)
  }
}

/// ``PendingAuthorization``'s box: the properties, and what matching reads from them, computed once — one
/// object, its header followed by the bytes `validate` compares (the redirect URI's serialization, then the
/// state's, then the issuer's form-encoding).
///
/// A pending authorization looked up among many is cold in the cache, and each cache line `validate` touches
/// is a miss: so what it reads on every call is the header, near those bytes, and the rest (the redirect URI
/// as a value, the state as a `String`, the URI's component ranges) waits in a second object.
fileprivate extension HeaderedBytes where Header == BoxHeader {

  static func make(
    _ provider: Provider, _ redirectURI: ParsedURL, _ state: String?, _ issuer: String?, _ expiresAt: Int64?,
    _ extras: PendingExtras
  ) -> HeaderedBytes<BoxHeader> {
    let href = redirectURI.href
    let hrefCount = href.utf8.count
    let stateCount = state?.utf8.count ?? 0
    var bytes = Array(href.utf8)
    if let state { bytes += state.utf8 }
    let issuerEncoded = issuer.map { Array(FormParameters.formEncode($0).utf8) }
    if let issuerEncoded { bytes += issuerEncoded }
    let ranges = redirectURI.utf8Ranges
    let (isVKApp, isLoopback, matchesItself) = bytes.withUnsafeBufferPointer { all in
      let hrefBytes = UnsafeBufferPointer(rebasing: all[0..<hrefCount])
      let host = ranges.host.map { UnsafeBufferPointer(rebasing: hrefBytes[$0]) }
      let isVKApp =
        provider == .vk && ProviderDetector.isVKScheme(UnsafeBufferPointer(rebasing: hrefBytes[ranges.scheme]))
      let isLoopback = host.map { bytesEqual($0, "127.0.0.1") || bytesEqual($0, "[::1]") } ?? false
      let matchesItself = PendingAuthorization.matchesRedirect(
        ranges, hrefBytes, expected: ranges, hrefBytes, isVKApp: isVKApp, isLoopback: isLoopback)
      return (isVKApp, isLoopback, matchesItself)
    }
    let header = BoxHeader(
      layout: redirectURI.layoutThroughPath, expiresAt: expiresAt, hrefCount: hrefCount,
      stateCount: state == nil ? -1 : stateCount, issuerEncodedCount: issuerEncoded?.count ?? -1,
      provider: provider, matchesItself: matchesItself,
      isVKApp: isVKApp, isLoopback: isLoopback, issuer: issuer,
      cold: BoxCold(redirectURI: redirectURI, state: state, ranges: ranges, extras: extras))
    return make(header, bytes: bytes)
  }

  // The stored values, read from the header in place.
  var layout: ParsedURL.LayoutThroughPath { fields.layout }
  var expiresAt: Int64? { fields.expiresAt }
  var provider: Provider { fields.provider }
  var matchesItself: Bool { fields.matchesItself }
  var isVKApp: Bool { fields.isVKApp }
  var isLoopback: Bool { fields.isLoopback }
  var issuer: String? { fields.issuer }
  var redirectURI: ParsedURL { fields.cold.redirectURI }
  var state: String? { fields.cold.state }
  var ranges: ParsedURL.UTF8Ranges { fields.cold.ranges }
  var extras: PendingExtras { fields.cold.extras }

  /// A new box with the same values but ``extras`` changed by `change`.
  func with(_ change: (inout PendingExtras) -> Void) -> HeaderedBytes<BoxHeader> {
    var extras = self.extras
    change(&extras)
    return Self.make(provider, redirectURI, state, issuer, expiresAt, extras)
  }

  /// ``redirectURI``'s serialization's bytes.
  var hrefBytes: UnsafeBufferPointer<UInt8> { bytes(0, fields.hrefCount)! }

  /// ``state``'s UTF-8 bytes, which the state check reads without retaining the `String` (a copy of it, in
  /// the comparison's closure, cost two atomic reference-count operations).
  var stateBytes: UnsafeBufferPointer<UInt8>? { bytes(fields.hrefCount, fields.stateCount) }

  /// ``issuer`` form-encoded (`FormParameters.formEncode`: how a server that encodes its parameters with the
  /// standard's serializer sends it), or nil when no issuer is expected.
  var issuerEncodedBytes: UnsafeBufferPointer<UInt8>? {
    bytes(fields.hrefCount &+ max(fields.stateCount, 0), fields.issuerEncodedCount)
  }
}

/// What ``PendingAuthorization``'s box holds in its header: what `validate` reads on every call first.
fileprivate struct BoxHeader: Sendable {
  /// The redirect URI's layout up to its path's end.
  let layout: ParsedURL.LayoutThroughPath
  let expiresAt: Int64?
  /// The redirect URI's serialization's length, then the state's, then the issuer's form-encoding's (-1 for
  /// none): the box's bytes.
  let hrefCount: Int
  let stateCount: Int
  let issuerEncodedCount: Int
  let provider: Provider
  /// Whether the redirect URI matches itself under rule 1 (false only for a VK app URI whose host VK never
  /// sends): the answer for every URL whose serialization up to the end of its path is the same.
  let matchesItself: Bool
  /// VK's relaxed host rules apply: the provider is VK and the scheme is `vk<digits>`.
  let isVKApp: Bool
  /// RFC 8252 loopback: the host is `127.0.0.1` or `[::1]` (any port matches over `http`).
  let isLoopback: Bool
  let issuer: String?
  /// What only the properties' getters and the redirect check's slow path read.
  let cold: BoxCold
}

/// The rest of a ``PendingAuthorization``'s box.
fileprivate final class BoxCold: Sendable {
  let redirectURI: ParsedURL
  let state: String?
  /// The redirect URI's component ranges.
  let ranges: ParsedURL.UTF8Ranges
  /// What only the token request reads.
  let extras: PendingExtras

  init(redirectURI: ParsedURL, state: String?, ranges: ParsedURL.UTF8Ranges, extras: PendingExtras) {
    self.redirectURI = redirectURI
    self.state = state
    self.ranges = ranges
    self.extras = extras
  }
}

/// What a ``PendingAuthorization`` keeps for the token request (never read by `validate`).
fileprivate struct PendingExtras: Sendable, Hashable {
  var clientID: String?
  var codeVerifier: String?
  var nonce: String?
  var redirectURIAsSent: String?
  var browserBinding: String?
  var returnPath: String?
  var authorizationServer: String?

  /// The same, for a redirect URI set anew (its spelling as sent no longer applies).
  func sentAnew() -> PendingExtras {
    var copy = self
    copy.redirectURIAsSent = nil
    return copy
  }
}
