// Zero-cost access to a URL's components as byte ranges of its serialization, for hot paths (routers,
// decoders, log pipelines) where even a `Substring` (a few dozen instructions to make) is too much.

extension ParsedURL {

  /// Where each component lies in the serialization's UTF-8 bytes (`href.utf8`), without delimiters.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://a.ru:8443/cb?code=1#f")
  /// let r = url.utf8Ranges
  /// r.host      // 8..<12 ("a.ru")
  /// r.query     // 21..<27 ("code=1")
  /// url.withUnsafeUTF8 { bytes in bytes[r.query!.lowerBound] }  // UInt8(ascii: "c")
  /// ```
  public struct UTF8Ranges: Sendable, Hashable {
    /// The scheme, without ':'.
    public var scheme: Range<Int>
    /// The username; empty when there is none.
    public var username: Range<Int>
    /// The password; empty when there is none.
    public var password: Range<Int>
    /// The serialized host, or `nil` when the URL has none.
    public var host: Range<Int>?
    /// The port's digits, or `nil` when there is no port (or it is the scheme's default).
    public var port: Range<Int>?
    /// The path (opaque or not).
    public var path: Range<Int>
    /// The query, without '?', or `nil` when there is none.
    public var query: Range<Int>?
    /// The fragment, without '#', or `nil` when there is none.
    public var fragment: Range<Int>?

    @usableFromInline
    init(
      scheme: Range<Int>, username: Range<Int>, password: Range<Int>, host: Range<Int>?, port: Range<Int>?,
      path: Range<Int>, query: Range<Int>?, fragment: Range<Int>?
    ) {
      self.scheme = scheme
      self.username = username
      self.password = password
      self.host = host
      self.port = port
      self.path = path
      self.query = query
      self.fragment = fragment
    }
  }

  /// The byte ranges of every component, read from the stored offsets: no scanning, no allocation.
  ///
  /// ```swift
  /// let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=abc")
  /// url.utf8Ranges.path  // 17..<28
  /// ```
  @inlinable
  public var utf8Ranges: UTF8Ranges {
    @inline(__always) get { Self.utf8Ranges(structure, count: storage.utf8.count) }
  }

  /// The ranges of the serialization of `count` bytes whose structure is `s` (``utf8Ranges``, and the same for
  /// bytes that are their own serialization: ``CanonicalURLBytes``).
  @inlinable @inline(__always)  // a call returned the eight ranges through memory; inlined, only those read are made
  static func utf8Ranges(_ s: URLStructure, count: Int) -> UTF8Ranges {
    let absent = URLStructure.absent
    let hasHost = s.hostKind != .none
    let usernameStart = hasHost ? Int(s.schemeEnd) &+ 3 : Int(s.usernameEnd)
    let passwordRange =
      hasHost && s.hasPassword
      ? Int(s.usernameEnd) &+ 1..<Int(s.hostStart) &- 1 : Int(s.usernameEnd)..<Int(s.usernameEnd)
    let (query, fragment) = Self.queryAndFragmentRanges(s, count: count)
    // Unchecked: the parser's offsets are ordered (an invariant the tests and the fuzz target check), and the
    // eight bound checks were half of this getter's cost.
    @inline(__always) func range(_ lower: Int, _ upper: Int) -> Range<Int> { Range(uncheckedBounds: (lower, upper)) }
    return UTF8Ranges(
      scheme: range(0, Int(s.schemeEnd)),
      username: range(usernameStart, Int(s.usernameEnd)),
      password: passwordRange,
      host: hasHost ? range(Int(s.hostStart), Int(s.hostEnd)) : nil,
      port: s.port != absent ? range(Int(s.hostEnd) &+ 1, Int(s.pathStart)) : nil,
      path: range(Int(s.pathStart), Int(s.pathEnd(count: count))),
      query: query,
      fragment: fragment)
  }

  /// The scheme's end (its ':'), the host's start (after any userinfo; `nil` without a host), the path's
  /// start and end, as UTF-8 offsets: the stored offsets as they are, for the router (`utf8Ranges` computes every
  /// range).
  @inlinable
  package var schemeHostPathOffsets: (schemeEnd: Int, hostStart: Int?, pathStart: Int, pathEnd: Int) {
    (
      Int(structure.schemeEnd), structure.hostKind == .none ? nil : Int(structure.hostStart),
      Int(structure.pathStart), Int(structure.pathEnd(count: storage.utf8.count))
    )
  }

  /// Where a URL's components before its query lie, packed for comparison: two URLs with equal layouts have
  /// the same scheme end, userinfo, host kind and bounds, port and path bounds, so their ``utf8Ranges`` agree
  /// on everything but the query and the fragment (the converse does not hold: equal ranges with different
  /// host kinds, say). For a caller that compares URLs with a known one (`PendingAuthorization`'s redirect
  /// check keeps its redirect URI's layout).
  @usableFromInline
  package struct LayoutThroughPath: Equatable, Sendable {
    @usableFromInline let schemeAndUser: UInt64
    @usableFromInline let host: UInt64
    @usableFromInline let pathStartAndPort: UInt64
    /// The path's end (low 32 bits), the host kind and the password flag.
    @usableFromInline let pathEndAndKinds: UInt64

    @inlinable
    internal init(_ s: URLStructure, count: Int) {
      schemeAndUser = UInt64(s.schemeEnd) | UInt64(s.usernameEnd) &<< 32
      host = UInt64(s.hostStart) | UInt64(s.hostEnd) &<< 32
      pathStartAndPort = UInt64(s.pathStart) | UInt64(s.port) &<< 32
      pathEndAndKinds =
        UInt64(s.pathEnd(count: count)) | UInt64(s.hostKind.rawValue) &<< 32 | (s.hasPassword ? 1 &<< 40 : 0)
    }

    /// Where the path ends (a UTF-8 offset).
    @inlinable
    package var pathEnd: Int { Int(truncatingIfNeeded: pathEndAndKinds & 0xFFFF_FFFF) }

    @inlinable
    package static func == (a: LayoutThroughPath, b: LayoutThroughPath) -> Bool {
      a.schemeAndUser == b.schemeAndUser && a.host == b.host && a.pathStartAndPort == b.pathStartAndPort
        && a.pathEndAndKinds == b.pathEndAndKinds
    }
  }

  /// This URL's ``LayoutThroughPath``, from the stored offsets.
  @inlinable
  package var layoutThroughPath: LayoutThroughPath { LayoutThroughPath(structure, count: storage.utf8.count) }

  /// ``utf8Ranges``' query and fragment alone.
  @inlinable
  package var queryAndFragmentRanges: (query: Range<Int>?, fragment: Range<Int>?) {
    Self.queryAndFragmentRanges(structure, count: storage.utf8.count)
  }

  /// The query's and the fragment's ranges in a serialization of `count` bytes with structure `s`.
  @inlinable
  static func queryAndFragmentRanges(_ s: URLStructure, count: Int) -> (query: Range<Int>?, fragment: Range<Int>?) {
    let absent = URLStructure.absent
    let queryEnd = s.fragmentStart != absent ? Int(s.fragmentStart) : count
    return (
      s.queryStart != absent ? Int(s.queryStart) &+ 1..<queryEnd : nil,
      s.fragmentStart != absent ? Int(s.fragmentStart) &+ 1..<count : nil
    )
  }

  /// Calls `body` with the serialization's UTF-8 bytes, in place (no copy).
  ///
  /// The buffer is valid only for the duration of the call: do not store or return it.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://a.ru/cb")
  /// let first = url.withUnsafeUTF8 { $0[url.utf8Ranges.host!.lowerBound] }  // UInt8(ascii: "a")
  /// ```
  @inlinable
  public func withUnsafeUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    // Borrowed in place (copying it into a `var` for `withUTF8` cost a retain and a release per call), and
    // inlinable so that `R` is specialized in the caller (a generic call looked up its metadata each time).
    // The copy is only for storage that is not contiguous UTF-8, which a parsed URL's never is.
    if let result = try storage.utf8.withContiguousStorageIfAvailable(body) { return result }
    var storage = self.storage
    return try storage.withUTF8(body)
  }
}

/// ``ParsedURL/withUnsafeUTF8(_:)`` for the other modules' hot paths (the router, the redirect check), as a
/// function of the URL rather than a method: inlined, the method's generic body copied the URL (through its
/// value witnesses) in some callers. The copy for storage that is not contiguous is a function of its own, so
/// that its second read of `href` does not make the optimizer retain the URL around both paths.
@inlinable @inline(__always)
@_spi(Bytes) public func withHrefBytes<R>(_ url: ParsedURL, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  if let r = url.href.utf8.withContiguousStorageIfAvailable(body) { return r }
  return withCopiedHrefBytes(url, body)
}

@inlinable @inline(never)  // specialized in the caller's module, but not inlined
package func withCopiedHrefBytes<R>(_ url: ParsedURL, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  Array(url.href.utf8).withUnsafeBufferPointer(body)
}

/// Bytes that are already the canonical serialization of a URL, with where its components lie: what
/// ``ParsedURL``'s fast path recognizes (a URL with an authority, or a non-special one whose path starts with `/`,
/// nothing to percent-encode, lower-case, no base), read without making a ``ParsedURL`` — so without copying the
/// bytes into a `String`. For writers that need a URL's components as bytes and nothing else (`linkparse`'s records
/// without a callback: the `String` and its allocation were a sixth of such a record's instructions).
///
/// For bytes it recognizes (``isCanonical``), parsing them gives a URL whose `href` is the bytes and whose
/// ``ParsedURL/utf8Ranges`` and ``ParsedURL/port`` are these (the fast path is the parser's own first step); other
/// bytes are to be parsed. (Not an optional: a value this large was copied whole to wrap and unwrap it.)
///
/// ```swift
/// let bytes = Array("https://a.ru:8443/cb?code=1".utf8)
/// let url = bytes.withUnsafeBufferPointer { CanonicalURLBytes($0) }
/// url.isCanonical  // true
/// url.ranges.host  // 8..<12
/// url.port         // 8443
/// ```
package struct CanonicalURLBytes: Sendable {
  /// Whether the bytes are a canonical URL the parser's fast path takes (else nothing below applies).
  package let isCanonical: Bool
  /// Where each component lies in the bytes.
  package let ranges: ParsedURL.UTF8Ranges
  /// The port, when it is not the scheme's default.
  package let port: UInt16?

  /// Reads `bytes` with the parser's fast path.
  @inline(__always)
  package init(_ bytes: UnsafeBufferPointer<UInt8>) {
    var structure = URLStructure()
    isCanonical = URLParser.fastPath(checking: bytes, into: &structure, flags: 0)
    // (A structure the fast path declined may be partly written: its offsets are not used.)
    if !isCanonical { structure = URLStructure() }
    ranges = ParsedURL.utf8Ranges(structure, count: isCanonical ? bytes.count : 0)
    port = ParsedURL.port(of: structure)
  }
}
