// Where a web login sends the browser once it has ended in a session: a same-site path, never another site.

public import LinkParseCore

/// A same-site path to send the browser to after a login (`/account?tab=security`): what a `return_to`
/// parameter may name, checked so that it can never become an open redirect (RFC 9700 §4.11, OWASP's
/// "unvalidated redirects").
///
/// A path is accepted when, exactly:
/// - it is 1 to 2,048 bytes of printable ASCII (`!` to `~`: no space, control character, NUL or non-ASCII byte —
///   percent-encode them);
/// - it starts with one `/` followed by anything but `/` or `\` (`//evil.example` and `/\evil.example` are
///   other hosts to a browser), and contains no `\` at all (browsers read it as `/` in http(s) URLs);
/// - it has no fragment (`#`);
/// - resolved against an origin by the WHATWG URL parser it stays on that origin, and its serialization does
///   not start with `//` either (`/..//evil.example` resolves to `//evil.example`).
///
/// The value kept is the parser's serialization of the path and query (`/a/../b?x` becomes `/b?x`), which is
/// what a browser would request.
///
/// ```swift
/// ReturnPath("/account?tab=security")?.value  // "/account?tab=security"
/// ReturnPath("//evil.example/")                // nil
/// ReturnPath("https://evil.example/")          // nil
/// ReturnPath("/\\evil.example")                // nil
/// ```
public struct ReturnPath: Sendable, Hashable, CustomStringConvertible {
  /// The path and query, as a browser would request them.
  public let value: String

  /// The longest path accepted, in bytes.
  public static let maximumLength = 2048

  /// The path `raw` names, or `nil` when it is not a same-site path (see the type's rules).
  ///
  /// ```swift
  /// ReturnPath("/a/../b")?.value  // "/b"
  /// ```
  public init?(_ raw: some StringProtocol) {
    let bytes = Array(raw.utf8)
    guard (1...Self.maximumLength).contains(bytes.count), bytes[0] == UInt8(ascii: "/") else { return nil }
    // (`\` anywhere, so `/\evil.example` too; `#`, so no fragment.)
    for byte in bytes where byte < 0x21 || byte > 0x7E || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "#") {
      return nil
    }
    // The origin is a name that cannot be anyone's (RFC 6761 `.invalid`). Its serialization followed by `/` is
    // the whole check of scheme, user, password, host and port.
    let origin = "https://return-path.invalid"
    guard let url = try? ParsedURL(origin + String(decoding: bytes, as: UTF8.self)) else { return nil }
    let href = url.href
    guard href.hasPrefix(origin + "/") else { return nil }
    let path = href.dropFirst(origin.count)
    // A path that starts with `//` — given so (`//evil.example`) or made so by resolving dot segments
    // (`/..//evil.example`) — is another host as a Location.
    guard !path.hasPrefix("//") else { return nil }
    value = String(path)
  }

  /// ``value``.
  public var description: String { value }
}
