// The sealed value of a web login's cookie (LinkParseHummingbird's LoginCookies): the whole pending
// authorization under AES-GCM, the cookie's name in the associated data, base64url; and which of a browser's
// login cookies a new start expires. Here, below the HTTP layer, so the fuzz target `cookies` reaches it.

package import Crypto
package import LinkParseProviders
// JSONEncoder and JSONDecoder: FoundationEssentials has them and, unlike Foundation on Linux, brings no ICU and no
// startup cost (`linkparse` links this module; with Foundation it started in 11 ms, without it in 6).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LinkParseBytes

/// Seals and opens login cookie values with a key derived from the login cookies' key.
package struct LoginSeal: Sendable {
  /// The AES-GCM key: `HKDF-SHA256(cookie key, "linkparse login cookie seal v1")`.
  let key: SymmetricKey

  /// The longest sealed value a cookie carries (a longer login is stored instead).
  package static let maximumSealedSize = 3_800

  package init(cookieKey: SymmetricKey) {
    key = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: cookieKey, info: Array("linkparse login cookie seal v1".utf8), outputByteCount: 32)
  }

  /// `pending` sealed for the cookie `name`, base64url; `nil` when it would be longer than
  /// ``maximumSealedSize``.
  package func seal(_ pending: PendingAuthorization, name: String) -> String? {
    guard let json = try? JSONEncoder().encode(pending),
      let combined = try? AES.GCM.seal(json, using: key, authenticating: Self.associatedData(name)).combined
    else { return nil }
    let value = Base64URL.encode(combined)
    return value.utf8.count <= Self.maximumSealedSize ? value : nil
  }

  /// The pending authorization `value` seals for the cookie `name`; `nil` for anything else (another key,
  /// another name, a changed character, not canonical base64url, too long).
  package func open(_ value: Substring, name: String) -> PendingAuthorization? {
    guard value.utf8.count <= Self.maximumSealedSize,
      let bytes = try? Base64URL.decode(value.utf8, mode: .strict).get(),
      // Only the canonical spelling: the decoder ignores a last character's unused bits, so without this one
      // sealed login would have several cookie values (found by the `cookies` fuzz target).
      Base64URL.encode(bytes).utf8.elementsEqual(value.utf8),
      let box = try? AES.GCM.SealedBox(combined: bytes),
      let json = try? AES.GCM.open(box, using: key, authenticating: Self.associatedData(name))
    else { return nil }
    return try? JSONDecoder().decode(PendingAuthorization.self, from: json)
  }

  /// What binds a sealed value to its cookie: `linkparse login v1`, NUL, the cookie's name.
  static func associatedData(_ name: String) -> [UInt8] { Array("linkparse login v1\u{0}\(name)".utf8) }

  /// The login cookies (names starting with `prefix`) a start that adds one of `adding` bytes expires: of those
  /// `cookieHeaders` present (oldest first, as browsers send cookies of one path), every one beyond the newest
  /// that fit in `maximumCount` − 1 cookies and `maximumBytes` − `adding` bytes.
  package static func stale(
    _ cookieHeaders: [String], prefix: String, adding: Int, maximumCount: Int, maximumBytes: Int
  ) -> [String] {
    var logins: [(name: Substring, size: Int)] = []
    for header in cookieHeaders {
      for pair in header.split(separator: ";") {
        let pair = pair.drop { $0 == " " || $0 == "\t" }
        let name = pair.prefix { $0 != "=" }
        if name.hasPrefix(prefix) { logins.append((name, pair.utf8.count)) }
      }
    }
    var kept = 0
    var bytes = adding
    var stale: [String] = []
    for login in logins.reversed() {
      if kept < maximumCount - 1, bytes + login.size <= maximumBytes {
        kept += 1
        bytes += login.size
      } else {
        stale.append(String(login.name))
      }
    }
    return stale
  }
}
