public import LinkParseCore

/// The route a URL belongs to, with the captured parts of the URL.
///
/// Captures are slices of the URL's ``ParsedURL/href`` (no copy); ``RouteCapture/value`` percent-decodes on
/// demand.
///
/// ```swift
/// let router = try Router([Route("web", "https://{tenant}.example.ru/auth/{provider}/callback")])
/// let match = try router.match(ParsedURL("https://acme.example.ru/auth/vk/callback?code=1"))!
/// match.name                 // "web"
/// match["provider"]          // "vk"
/// match.captures[0].rawValue // "acme"
/// ```
public struct RouteMatch: Sendable {
  /// The matched route.
  public let route: Route
  /// The URL that was matched; the captures are slices of its `href`.
  public let url: ParsedURL
  /// The captures in pattern order (scheme, host, path segments, rest). `*` segments are not captured.
  public let captures: [RouteCapture]

  /// The matched route's name.
  public var name: String { route.name }
  /// The matched route's provider, if it has one.
  public var provider: String? { route.provider }

  /// The percent-decoded value of the capture called `name`, or `nil` when the route has no such capture.
  ///
  /// ```swift
  /// match["provider"]  // "vk"
  /// ```
  public subscript(name: String) -> String? {
    captures.first { $0.name == name }?.value
  }
}

/// One captured part of a matched URL.
///
/// ```swift
/// let capture = match.captures[0]
/// capture.name       // "id"
/// capture.rawValue   // "a%20b" (a slice of the URL's href)
/// capture.value      // "a b"
/// ```
public struct RouteCapture: Sendable, Hashable {
  /// The capture's name in the pattern.
  public let name: String
  /// The captured text as it appears in the URL (percent-encoded), a slice of its `href`.
  public let rawValue: Substring
  /// The captured bytes' position in the URL's `href`, in UTF-8 code units.
  public let utf8Range: Range<Int>

  /// Creates a capture.
  public init(name: String, rawValue: Substring, utf8Range: Range<Int>) {
    self.name = name
    self.rawValue = rawValue
    self.utf8Range = utf8Range
  }

  /// The captured text, percent-decoded (`+` stays a plus: a path is not form-encoded).
  public var value: String { FormParameters.decode(rawValue, encoding: .percentEncoded) }
}
