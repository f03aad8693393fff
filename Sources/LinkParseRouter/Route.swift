public import LinkParseCore


/// One entry of a routing table: a name, a URL pattern, and optionally the identity provider whose decoder
/// should read URLs that match it.
///
/// ```swift
/// let routes = [
///   Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
///   Route("sber", "myapp://sberidauth?code&state", provider: .sber),
///   Route("web", "https://{tenant}.example.ru/auth/{provider}/callback"),
///   Route("open", "myapp://open/{rest...}"),
/// ]
/// let router = try Router(routes)
/// ```
///
/// See ``Router`` for the pattern grammar and the priority rules.
public struct Route: Sendable, Hashable, CustomStringConvertible {

  /// How a route compares the URL's path.
  ///
  /// ```swift
  /// Route("help", "myapp://app/Help", options: .caseInsensitivePath)  // also matches myapp://app/HELP
  /// ```
  public struct Options: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt8

    /// Creates options from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Compare path literals ASCII-case-insensitively, and run path constraints caseless. Scheme and host
    /// are always compared case-insensitively.
    public static let caseInsensitivePath = Options(rawValue: 1)
  }

  /// The route's name, unique in a router. Reverse routing (``Router/url(for:captures:wildcards:query:)``)
  /// and match results refer to the route by it.
  public var name: String
  /// The URL pattern, e.g. `https://{tenant}.example.ru/auth/{provider}/callback?code&state`.
  public var pattern: String
  /// The identity provider whose decoder should read matching URLs (`.vk`, `.sber`…), or `nil`.
  public var provider: Provider?
  /// Comparison options.
  public var options: Options

  /// Creates a route.
  ///
  /// ```swift
  /// let route = Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk)
  /// ```
  public init(_ name: String, _ pattern: String, provider: Provider? = nil, options: Options = []) {
    self.name = name
    self.pattern = pattern
    self.provider = provider
    self.options = options
  }

  /// `name pattern [provider]`, the line format of a routes file.
  public var description: String {
    provider.map { "\(name) \(pattern) \($0.rawValue)" } ?? "\(name) \(pattern)"
  }
}
