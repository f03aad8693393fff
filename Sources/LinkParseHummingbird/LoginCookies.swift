// Binding a web login to the browser that started it: one transaction cookie per login, whose keyed hash the
// pending authorization keeps (RFC 6749 §10.12, RFC 9700 §2.1 and §4.7.1).

import Crypto
import Foundation
import Hummingbird
import LinkParseAuthorization
import LinkParseBytes
import LinkParseProviders

/// The login (transaction) cookies of a ``LinkParseCallbackEndpoint``.
///
/// Starting a login with a state sets a cookie that carries the whole pending authorization (state, PKCE
/// verifier, nonce, provider, client, issuer, redirect URI, return path, expiry), sealed with AES-GCM under a
/// key derived from ``key`` (HKDF-SHA256), the cookie's name and purpose authenticated with it: the server
/// stores nothing at the start (the Auth.js model), so no flood of anonymous starts can fill anything. The
/// callback opens the cookie named for its state; the store only records, until the login expires, that it was
/// spent (one success however many callbacks carry it). A login without a state, or one that would seal larger
/// than a browser keeps (3,800 characters), is stored instead, and its cookie holds 32 random bytes whose
/// HMAC-SHA256 under ``key`` the stored authorization keeps (``PendingAuthorization/browserBinding``).
/// Each login has its own cookie, named by
/// a hash of its state (`__Host-lp-login-<22 characters>` over HTTPS, `lp-login-<…>` over plain HTTP, where
/// browsers refuse the `__Host-` prefix), so two tabs can log in at once. Attributes: `HttpOnly`, `Path=/`,
/// `Max-Age` the login's lifetime, `Secure` over HTTPS; `SameSite=Lax`, except for a login whose answer is a
/// `form_post` (Sign in with Apple): that callback is a cross-site POST, on which browsers send only
/// `SameSite=None` cookies, so its cookie is `SameSite=None; Secure`, over plain http too (browsers keep a
/// `SameSite=None` cookie only with `Secure`, and a `Secure` one over http only from `localhost`): a form_post
/// login needs https, as Apple requires anyway (the example server's `make serve-example-https`). The
/// callback looks up the one cookie named for its state (so any number of abandoned logins' cookies, which
/// browsers send oldest first, cannot hide it), compares it in constant time, and clears it on every answer
/// that uses the login up (success, provider error, `replayed`, `expired`).
///
/// ```swift
/// // Every instance behind one load balancer needs the same key:
/// let cookies = LoginCookies(key: Array(secret32Bytes), secure: true)
/// ```
public struct LoginCookies: Sendable {
  /// The HMAC key of the cookies' hashes, and the key the seal key is derived from (32 random bytes per process
  /// unless given: instances behind one load balancer must share it, or a callback reaching another instance
  /// than its start cannot open its cookie).
  let key: SymmetricKey
  /// Whether the public origin is HTTPS (`Secure`, `__Host-`).
  public let secure: Bool

  /// Cookies with `key` (at least 32 bytes); `secure` for an HTTPS origin.
  ///
  /// ```swift
  /// LoginCookies(key: Array(repeating: 7, count: 32), secure: false)
  /// ```
  public init(key: [UInt8], secure: Bool) {
    self.init(key: SymmetricKey(data: key), secure: secure)
  }

  /// Cookies with a fresh random key (one instance only).
  ///
  /// ```swift
  /// LoginCookies(secure: true)
  /// ```
  public init(secure: Bool) {
    self.init(key: SymmetricKey(size: .bits256), secure: secure)
  }

  private init(key: SymmetricKey, secure: Bool) {
    self.key = key
    self.secure = secure
    self.sealer = LoginSeal(cookieKey: key)
  }

  /// The sealing of carried logins (LinkParseAuthorization's `LoginSeal`).
  let sealer: LoginSeal

  /// The longest sealed value a cookie carries (a longer login is stored instead).
  static let maximumSealedSize = LoginSeal.maximumSealedSize

  /// `pending` sealed for its cookie (the one named for its state), or `nil` when too long for a cookie.
  func seal(_ pending: PendingAuthorization) -> String? {
    sealer.seal(pending, name: name(state: pending.state))
  }

  /// The pending authorization a cookie value seals for the cookie named for `state`, or `nil`.
  func open(_ value: Substring, state: [UInt8]) -> PendingAuthorization? {
    sealer.open(value, name: name(stateBytes: state))
  }

  var prefix: String { secure ? "__Host-lp-login-" : "lp-login-" }

  /// The cookie name of the login with `state` (`nil`: a login without state, which has one name).
  func name(state: String?) -> String {
    name(stateBytes: state.map { Array($0.utf8) })
  }

  /// The binding hash of a cookie value.
  func hash(_ value: Substring) -> String {
    Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Array(value.utf8), using: key))
  }

  /// A new login's cookie value and the hash its pending authorization keeps.
  func make() -> (value: String, hash: String) {
    var generator = SystemRandomNumberGenerator()
    let value = Base64URL.randomToken(using: &generator)
    return (value, hash(value[...]))
  }

  /// The cookie that sets a login's cookie (for at least a second).
  func setCookie(state: String?, value: String, maxAge: Int64, crossSitePost: Bool) -> Cookie {
    cookie(name: name(state: state), value: value, maxAge: max(maxAge, 1), crossSitePost: crossSitePost)
  }

  /// The cookie that clears a login's cookie.
  func clearCookie(state: String?, crossSitePost: Bool) -> Cookie {
    clearCookie(stateBytes: state.map { Array($0.utf8) }, crossSitePost: crossSitePost)
  }

  /// The cookie that clears the cookie of the login whose state is the bytes `state`.
  func clearCookie(stateBytes state: [UInt8]?, crossSitePost: Bool) -> Cookie {
    cookie(name: name(stateBytes: state), value: "", maxAge: 0, crossSitePost: crossSitePost)
  }

  /// A login cookie with its attributes (Hummingbird's `Cookie`, which writes the `Set-Cookie` value):
  /// `Path=/`, `Max-Age`, `HttpOnly`, `Secure` over HTTPS, `SameSite`.
  private func cookie(name: String, value: String, maxAge: Int64, crossSitePost: Bool) -> Cookie {
    // `SameSite=None` is kept by browsers only with `Secure` (over plain http they drop it either way, except
    // on http://localhost, where they keep `Secure` cookies): a form_post login needs https.
    Cookie(
      name: name, value: value, maxAge: Int(clamping: maxAge), path: "/", secure: secure || crossSitePost,
      httpOnly: true, sameSite: crossSitePost ? .none : .lax)
  }

  /// The largest `Cookie` header (all of a request's `Cookie` fields together, in bytes) a callback is read
  /// with: 32 KiB. A larger one is answered `431` (`cookie-header-too-large`): the browser holds more cookies for
  /// the site than it should, and only clearing them helps.
  public static let maximumCookieHeaderSize = 32 * 1024

  /// How many login cookies a browser keeps at once: a start expires the oldest beyond these (abandoned logins
  /// would otherwise pile up until the Cookie header is too large for any request of the site).
  public static let maximumLoginCookies = 12

  /// How many bytes of login cookies a browser keeps at once (a quarter of ``maximumCookieHeaderSize``).
  public static let maximumLoginCookieBytes = 8 * 1024

  /// The login cookies a start that adds one of `adding` bytes expires (`LoginSeal.stale`).
  func stale(_ cookieHeaders: [String], adding: Int) -> [String] {
    LoginSeal.stale(
      cookieHeaders, prefix: prefix, adding: adding, maximumCount: Self.maximumLoginCookies,
      maximumBytes: Self.maximumLoginCookieBytes)
  }

  /// The `Set-Cookie` that expires the login cookie `name`.
  func expire(name: String) -> Cookie {
    cookie(name: name, value: "", maxAge: 0, crossSitePost: false)
  }

  /// The cookie name of the login whose state is the bytes `state` (`nil`: a login without state).
  func name(stateBytes state: [UInt8]?) -> String {
    guard let state else { return prefix + "none" }
    return prefix + String(Base64URL.encode(SHA256.hash(data: state)).prefix(22))
  }

  /// What a request's `Cookie` headers present for the login with state `state` (the callback's decoded
  /// state, `nil` for none): the hash of the one cookie named for it (Hummingbird's `Cookies`), however many
  /// other cookies — other logins', abandoned or running in other tabs — the browser sends, and in whatever
  /// order; and the pending authorization it carries when it is a sealed login cookie that opens.
  func presented(_ cookieHeaders: [String], state: [UInt8]?) -> (
    binding: BrowserBinding, found: Bool, carried: PendingAuthorization?
  ) {
    guard let cookie = Cookies(from: cookieHeaders)[name(stateBytes: state)] else {
      return (BrowserBinding(hashes: []), false, nil)
    }
    let value = cookie.value[...]
    guard !value.isEmpty, value.utf8.count <= Self.maximumSealedSize else { return (BrowserBinding(hashes: []), true, nil) }
    let binding = hash(value)
    guard let state, var carried = open(value, state: state) else { return (BrowserBinding(hashes: [binding]), true, nil) }
    carried.browserBinding = binding
    return (BrowserBinding(hashes: [binding]), true, carried)
  }
}
