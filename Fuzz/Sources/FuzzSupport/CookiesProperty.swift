import Crypto
import LinkParseAuthorization
import LinkParseCore
import LinkParseProviders

/// The `cookies` target: the sealed login cookie value (`LoginSeal`, what LinkParseHummingbird's login cookies
/// carry) and the choice of the login cookies a start expires.
///
/// Properties (besides "a result, never a crash"):
/// - the bytes as a cookie value never open (under the target's fixed key, nothing the fuzzer writes is a
///   sealed login: opening one would mean AES-GCM accepted a forgery);
/// - a pending authorization made from the bytes (its state, nonce, verifier, return path and client id are
///   slices of them) seals, when it fits a cookie, into base64url that opens to the same authorization under its
///   cookie's name only: not under another name, not with any one character changed, not truncated;
/// - of a Cookie header made of the bytes, the login cookies a start expires all are login cookies of the header,
///   and those it keeps are at most `maximumCount` − 1 and `maximumBytes` − `adding` bytes.
enum CookiesProperty {
  static let seal = LoginSeal(cookieKey: SymmetricKey(data: [UInt8](repeating: 0x5A, count: 32)))
  static let redirect = try! ParsedURL("https://example.com/auth/demo/callback")

  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    var problems = Problems()
    let text = String(decoding: data, as: UTF8.self)
    let name = "lp-login-fuzz"

    if seal.open(Substring(text), name: name) != nil {
      problems.add("cookies: the input opened as a sealed login (a forgery accepted)")
    }

    // A pending authorization from the input's pieces.
    let pieces = text.split(separator: "\u{0}", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
    func piece(_ i: Int) -> String? { i < pieces.count && !pieces[i].isEmpty ? String(pieces[i].prefix(600)) : nil }
    var pending = PendingAuthorization(
      provider: .oauth2, redirectURI: redirect, state: piece(0) ?? "s", expiresAt: 1_700_000_600, clientID: piece(1),
      codeVerifier: piece(2), nonce: piece(3))
    pending.returnPath = piece(4)
    if let sealed = seal.seal(pending, name: name) {
      if sealed.utf8.count > LoginSeal.maximumSealedSize { problems.add("cookies: a sealed value over the limit") }
      if sealed.utf8.contains(where: { !($0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")) }) {
        problems.add("cookies: a sealed value that is not base64url")
      }
      if seal.open(sealed[...], name: name) != pending { problems.add("cookies: a sealed login did not open to itself") }
      if seal.open(sealed[...], name: name + "x") != nil { problems.add("cookies: a sealed login opened under another name") }
      if seal.open(sealed.dropLast(), name: name) != nil { problems.add("cookies: a truncated sealed login opened") }
      var bytes = Array(sealed.utf8)
      let at = data.count % bytes.count
      bytes[at] = bytes[at] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
      if seal.open(Substring(decoding: bytes, as: UTF8.self), name: name) != nil {
        problems.add("cookies: a sealed login with character \(at) changed opened")
      }
    }

    // The login cookies a start expires.
    let headers = text.split(separator: "\n", maxSplits: 3).map(String.init)
    let (count, maxBytes, adding) = (Int(data.first ?? 12) % 20 + 1, 8 * 1024, 500)
    let stale = LoginSeal.stale(headers, prefix: "lp-login-", adding: adding, maximumCount: count, maximumBytes: maxBytes)
    var logins: [(name: Substring, size: Int)] = []
    for header in headers {
      for pair in header.split(separator: ";") {
        let pair = pair.drop { $0 == " " || $0 == "\t" }
        let cookieName = pair.prefix { $0 != "=" }
        if cookieName.hasPrefix("lp-login-") { logins.append((cookieName, pair.utf8.count)) }
      }
    }
    if stale.count > logins.count { problems.add("cookies: more cookies expired than the header has") }
    if !stale.allSatisfy({ s in s.hasPrefix("lp-login-") && logins.contains { $0.name == s } }) {
      problems.add("cookies: an expired cookie that is not a login cookie of the header")
    }
    // The kept ones are the newest that fit: count and bytes within the bounds.
    var unmatched = stale
    var keptCount = 0
    var keptBytes = adding
    for login in logins.reversed() {
      if let i = unmatched.firstIndex(where: { $0 == login.name }) {
        unmatched.remove(at: i)
      } else {
        keptCount += 1
        keptBytes += login.size
      }
    }
    if keptCount > max(0, count - 1) || (keptCount > 0 && keptBytes > maxBytes) {
      problems.add("cookies: kept \(keptCount) login cookies of \(keptBytes) bytes (bounds \(count - 1), \(maxBytes))")
    }
    return problems.list
  }
}

extension UInt8 {
  fileprivate var isASCIIAlphanumeric: Bool {
    (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
  }
}
