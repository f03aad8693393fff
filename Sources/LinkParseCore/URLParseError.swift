/// Why a string could not be parsed as a URL.
///
/// Every error carries a stable ``code`` (kebab-case, safe to match on and to log), the byte ``offset`` into
/// the input where parsing failed when there is one, and a ``message`` fit for a log line.
///
/// ```swift
/// do {
///   _ = try ParsedURL("https://exa mple.com/")
/// } catch {
///   print(error.code, error.offset ?? -1)  // forbidden-host-code-point 11
/// }
/// ```
public struct URLParseError: Error, Sendable, Hashable, CustomStringConvertible {

  /// A stable, machine-readable error code. New codes may be added; existing ones never change meaning.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The kebab-case spelling, e.g. `invalid-host`.
    public let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }


    /// The input has no scheme and no base URL was given, or the base cannot be used for it.
    public static let missingSchemeNonRelativeURL = Code("missing-scheme-non-relative-url")
    /// The scheme contains a code point that a scheme cannot contain.
    public static let invalidScheme = Code("invalid-scheme")
    /// A special URL (http, https, ws, wss, ftp) needs a host and has none.
    public static let hostMissing = Code("host-missing")
    /// The host is not a valid domain, opaque host, or IP address.
    public static let invalidHost = Code("invalid-host")
    /// The host contains a forbidden code point (space, `<`, `^`, `%`, …).
    public static let forbiddenHostCodePoint = Code("forbidden-host-code-point")
    /// The domain failed UTS #46 processing (IDNA).
    public static let invalidDomain = Code("invalid-domain")
    /// A host that ends in a number is not a valid IPv4 address.
    public static let invalidIPv4 = Code("invalid-ipv4")
    /// The IPv6 address in brackets is malformed.
    public static let invalidIPv6 = Code("invalid-ipv6")
    /// The port is not a number, or exceeds 65535.
    public static let invalidPort = Code("invalid-port")
    /// The input is larger than this parser accepts (4 GiB).
    public static let inputTooLong = Code("input-too-long")
  }

  /// What went wrong.
  public var code: Code
  /// The byte offset into the input (in UTF-8 code units, after nothing was removed) where the problem was
  /// found, or `nil` when it concerns the input as a whole.
  public var offset: Int?
  /// A sentence a person can act on.
  public var message: String

  /// Creates an error.
  public init(code: Code, offset: Int?, message: String) {
    self.code = code
    self.offset = offset
    self.message = message
  }

  public var description: String {
    if let offset { return "\(code) at byte \(offset): \(message)" }
    return "\(code): \(message)"
  }
}
