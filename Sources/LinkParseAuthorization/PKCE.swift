// RFC 7636 Proof Key for Code Exchange (providers.md §6.4).

internal import Crypto
import LinkParseBytes
import LinkParseProviders

/// A PKCE verifier and its S256 challenge (RFC 7636).
///
/// The verifier is 32 random bytes, base64url-encoded without padding: 43 characters from
/// `[A-Za-z0-9_-]`, which also satisfies VK's narrower charset. Send ``challenge`` with
/// `code_challenge_method=S256` in the authorization request; keep ``verifier`` for the token request
/// and discard it after one use.
///
/// ```swift
/// let pkce = PKCE()
/// pkce.verifier.count  // 43
/// PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")!.challenge
/// // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
/// ```
public struct PKCE: Sendable, Hashable {
  /// The `code_verifier`.
  public let verifier: String
  /// The `code_challenge`: `BASE64URL(SHA256(ASCII(verifier)))`.
  public let challenge: String
  /// The method, always `S256`.
  public var method: String { "S256" }

  /// A fresh verifier from the system's secure random generator.
  ///
  /// ```swift
  /// let pkce = PKCE()
  /// ```
  public init() {
    var generator = SystemRandomNumberGenerator()
    self.init(generator: &generator)
  }

  /// A verifier from `generator` (for tests; use ``init()`` in production).
  ///
  /// ```swift
  /// var rng = SystemRandomNumberGenerator()
  /// let pkce = PKCE(generator: &rng)
  /// ```
  public init(generator: inout some RandomNumberGenerator) {
    let verifier = Base64URL.randomToken(using: &generator)
    self.verifier = verifier
    self.challenge = PKCE.s256Challenge(for: verifier)
  }

  /// Wraps an existing verifier; `nil` unless it is 43–128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
  ///
  /// ```swift
  /// PKCE(verifier: "too-short")  // nil
  /// ```
  public init?(verifier: String) {
    let utf8 = verifier.utf8
    guard (43...128).contains(utf8.count), utf8.allSatisfy(PKCE.isUnreserved) else { return nil }
    self.verifier = verifier
    self.challenge = PKCE.s256Challenge(for: verifier)
  }

  /// `BASE64URL(SHA256(ASCII(verifier)))`, no padding.
  ///
  /// ```swift
  /// PKCE.s256Challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
  /// // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
  /// ```
  public static func s256Challenge(for verifier: String) -> String {
    Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
  }

  static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }
}
