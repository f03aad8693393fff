// Interop with Foundation's URL. Kept out of LinkParseCore, which does not depend on Foundation.

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ParsedURL {

  /// Parses a Foundation `URL`'s absolute string by the WHATWG URL Standard.
  ///
  /// Foundation and the URL Standard disagree on many inputs (hosts, dot segments, percent-encoding), so
  /// the result can differ from the `URL`'s own components; it is what a browser would make of the string.
  ///
  /// ```swift
  /// func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]) -> Bool {
  ///   guard let parsed = try? ParsedURL(url) else { return false }
  ///   return parsed.scheme == "vk7915193"
  /// }
  /// ```
  public init(_ url: URL) throws(URLParseError) {
    try self.init(url.absoluteString)
  }
}

extension URL {
  /// A Foundation `URL` for a parsed URL, made from its serialization (`nil` only if Foundation rejects it).
  ///
  /// ```swift
  /// let url = URL(try ParsedURL("https://example.com/a b"))  // https://example.com/a%20b
  /// ```
  public init?(_ url: ParsedURL) {
    self.init(string: url.href)
  }
}
