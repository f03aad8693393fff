/// A URL parsed by the WHATWG URL Standard's basic URL parser, stored as its serialization plus offsets.
///
/// `ParsedURL` keeps exactly one string, the URL's canonical serialization (its ``href``), and a handful of
/// `UInt32` offsets into it. Every component accessor returns a `Substring` of that string, so reading a
/// component never allocates. When the input is already canonical (true of nearly every callback URL), the
/// stored string *is* the caller's string: parsing retains it instead of copying, and allocates nothing.
///
/// ```swift
/// let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=abc&state=xyz&device_id=42")
/// url.scheme                               // "vk7915193"
/// url.host                                 // "vk.ru"
/// url.path                                 // "/blank.html"
/// url.queryParameters.value(for: "code")   // "abc"
///
/// let relative = try ParsedURL("../b?x=1", base: ParsedURL("https://example.ru/a/c/d"))
/// relative.href                            // "https://example.ru/a/b?x=1"
/// ```
///
/// Parsing follows <https://url.spec.whatwg.org/#concept-basic-url-parser> and is checked against the
/// web-platform-tests data. Hosts that need IDNA go through ICU's UTS #46 implementation.
public struct ParsedURL: Sendable {

  /// The serialization. Always ASCII.
  @usableFromInline
  internal var storage: String

  /// Offsets into `storage`.
  @usableFromInline
  internal var structure: URLStructure

  @inlinable
  internal init(storage: String, structure: URLStructure) {
    self.storage = storage
    self.structure = structure
  }
}

// MARK: - Entry points

extension ParsedURL {

  /// Parses `string`, resolving it against `base` when it is relative.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://Example.COM:443/a/./b/../c")
  /// url.href  // "https://example.com/a/c"
  /// ```
  ///
  /// - Throws: ``URLParseError`` saying what was wrong and at which byte offset.
  @inlinable  // the fast path writes the offsets straight into the caller's URL (see `URLParser.parse(_:base:)`)
  public init(_ string: consuming String, base: borrowing ParsedURL? = nil) throws(URLParseError) {
    self.init(storage: string, structure: URLStructure())
    try URLParser.parse(&self, base: base)
  }

  /// Parses a substring, resolving it against `base` when it is relative.
  public init(_ string: Substring, base: ParsedURL? = nil) throws(URLParseError) {
    self = try URLParser.parse(substring: string, base: base)
  }

  /// Parses UTF-8 bytes, resolving them against `base` when they are relative.
  ///
  /// Bytes that are not valid UTF-8 are decoded with replacement (U+FFFD), as the URL Standard's callers do.
  /// Contiguous collections (`[UInt8]`, `UnsafeBufferPointer`, `Data`) are read in place.
  ///
  /// ```swift
  /// let url = try ParsedURL(utf8: Array("myapp://sberidauth?code=1".utf8))
  /// ```
  @inlinable  // specialized in the caller: a generic call dispatched through witness tables
  public init<Bytes: Collection<UInt8>>(utf8 bytes: Bytes, base: ParsedURL? = nil) throws(URLParseError) {
    self = try URLParser.parse(bytes: bytes, base: base)
  }
}

// MARK: - Components

extension ParsedURL {

  /// `storage[start..<end]` in UTF-8 offsets.
  ///
  /// The storage is always ASCII, so UTF-16 offsets equal UTF-8 offsets, and the UTF-16 view's ASCII fast path
  /// makes indices already known to be scalar-aligned: slicing with them skips the alignment check that
  /// indices from the UTF-8 view would need (which cost more than the rest of a component read).
  @inlinable
  internal func slice(_ start: UInt32, _ end: UInt32) -> Substring {
    let utf16 = storage.utf16
    let lower = utf16.index(utf16.startIndex, offsetBy: Int(start))
    let upper = utf16.index(lower, offsetBy: Int(end &- start))
    return storage[lower..<upper]
  }

  /// The URL's serialization, e.g. `https://example.com/a?b#c`.
  @inlinable  // read in place by other modules (a call returned it retained, and copied the URL to make it)
  public var href: String { storage }

  /// The scheme, lower-cased, without the trailing `:`, e.g. `https` or `vk7915193`.
  public var scheme: Substring { slice(0, structure.schemeEnd) }

  /// The percent-encoded username, or an empty string.
  public var username: Substring {
    guard structure.hostKind != .none else { return slice(0, 0) }
    return slice(structure.schemeEnd &+ 3, structure.usernameEnd)
  }

  /// The percent-encoded password, or an empty string.
  public var password: Substring {
    guard structure.hostKind != .none, structure.hasPassword else { return slice(0, 0) }
    return slice(structure.usernameEnd &+ 1, structure.hostStart &- 1)
  }

  /// The serialized host (a domain, `1.2.3.4`, `[::1]`, an opaque host, or an empty string), or `nil` when
  /// the URL has no host (`mailto:a@b`, `myapp:/path`).
  public var host: Substring? {
    guard structure.hostKind != .none else { return nil }
    return slice(structure.hostStart, structure.hostEnd)
  }

  /// What kind of host the URL has, or `nil` when it has none.
  public var hostKind: HostKind? {
    structure.hostKind == .none ? nil : structure.hostKind
  }

  /// The port, or `nil` when there is none or it is the scheme's default (`https://a:443` has none).
  public var port: UInt16? { Self.port(of: structure) }

  /// ``port`` of a URL with structure `s`.
  @inline(__always)
  static func port(of s: URLStructure) -> UInt16? {
    s.port == URLStructure.absent ? nil : UInt16(truncatingIfNeeded: s.port)
  }

  /// The path: `/a/b` for hierarchical URLs, or the opaque path (`user@example.com` in
  /// `mailto:user@example.com`). Empty when the URL has none.
  public var path: Substring { slice(structure.pathStart, structure.pathEnd(count: storage.utf8.count)) }

  /// Whether the path is opaque (`mailto:…`, `javascript:…`, `myapp:open`) rather than a list of segments.
  public var hasOpaquePath: Bool { structure.hasOpaquePath }

  /// The query without its leading `?`, or `nil` when there is none. An empty query (`a:/b?`) is `""`.
  public var query: Substring? {
    guard structure.queryStart != URLStructure.absent else { return nil }
    let end = structure.fragmentStart != URLStructure.absent ? structure.fragmentStart : UInt32(storage.utf8.count)
    return slice(structure.queryStart &+ 1, end)
  }

  /// The fragment without its leading `#`, or `nil` when there is none.
  public var fragment: Substring? {
    guard structure.fragmentStart != URLStructure.absent else { return nil }
    return slice(structure.fragmentStart &+ 1, UInt32(storage.utf8.count))
  }

  /// Whether the scheme is one of the URL Standard's special schemes (http, https, ws, wss, ftp, file).
  public var isSpecial: Bool { structure.isSpecial }

  /// The query's `name=value` pairs, decoded on demand. Empty when there is no query.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://a.ru/cb?code=x%2By&state=s")
  /// url.queryParameters.value(for: "code")  // "x+y"
  /// ```
  @inlinable  // inlined, the view borrows the caller's URL: no retain and release of its storage
  public var queryParameters: FormParameters {
    // Offsets, not the `query` substring: no index arithmetic.
    let s = structure
    guard s.queryStart != URLStructure.absent else { return FormParameters(text: storage, start: 0, end: 0) }
    let end = s.fragmentStart != URLStructure.absent ? Int(s.fragmentStart) : storage.utf8.count
    return FormParameters(text: storage, start: Int(s.queryStart) &+ 1, end: end)
  }

  /// The fragment's `name=value` pairs (OAuth implicit and `response_mode=fragment` callbacks put their
  /// values there), decoded on demand. Empty when there is no fragment.
  @inlinable
  public var fragmentParameters: FormParameters {
    let s = structure
    guard s.fragmentStart != URLStructure.absent else { return FormParameters(text: storage, start: 0, end: 0) }
    return FormParameters(text: storage, start: Int(s.fragmentStart) &+ 1, end: storage.utf8.count)
  }

  /// Whether the serialization shares its storage with the string that was parsed (the zero-copy fast path).
  @_spi(Testing)
  public var sharesStorageWithInput: Bool { structure.sharesInput }
}

/// The kind of a URL's host.
public enum HostKind: UInt8, Sendable, Hashable {
  /// No host (internal).
  case none = 0
  /// A domain, after IDNA processing: `example.com`, `xn--e1afmkfd.xn--p1ai`.
  case domain
  /// An IPv4 address, serialized as four decimal numbers.
  case ipv4
  /// An IPv6 address, serialized in brackets, compressed.
  case ipv6
  /// An opaque host of a non-special URL (`vk.ru` in `vk123://vk.ru/`), percent-encoded.
  case opaque
  /// An empty host: `file:///tmp` or `myapp:///path`.
  case empty
}

// MARK: - Protocols

extension ParsedURL: Hashable {
  public static func == (lhs: ParsedURL, rhs: ParsedURL) -> Bool { lhs.storage == rhs.storage }
  public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

extension ParsedURL: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { storage }
  public var debugDescription: String { "ParsedURL(\"\(storage)\")" }
}

extension ParsedURL: Codable {
  /// Decodes a URL from its serialization (a single string), parsing it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let string = try container.decode(String.self)
    do {
      self = try ParsedURL(string)
    } catch {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
    }
  }

  /// Encodes the URL as its serialization (`href`).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(storage)
  }
}
