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
///
/// ## Cost
///
/// A match holds a reference to its router's compiled table, the URL (moved in by ``Router/match(_:)`` when
/// the caller does not use it afterwards), the route's index and the captures' byte ranges (up to six in
/// place), so making one allocates nothing and retains only the table. ``name``, ``provider``, ``route``
/// and the captures are read from the table when asked for: ``captures`` builds an array on each call,
/// while ``captureCount``, ``capture(at:)`` and the subscript do not allocate (beyond the decoded `String`).
public struct RouteMatch: Sendable {
  /// The router's compiled table: the routes and the capture names.
  let router: CompiledRouter
  /// The URL that was matched; the captures are slices of its `href`.
  public let url: ParsedURL
  /// The matched route's index in the router's routes.
  let index: Int32
  /// The captures' byte ranges (their names are the route's, in order).
  let slots: CaptureList

  init(router: CompiledRouter, url: ParsedURL, index: Int32, captures: CaptureList) {
    self.router = router
    self.url = url
    self.index = index
    self.slots = captures
  }

  /// The matched route.
  public var route: Route { router.programs[Int(index)].route }
  /// The matched route's name.
  public var name: String { router.programs[Int(index)].route.name }
  /// The matched route's provider, if it has one.
  public var provider: Provider? { router.programs[Int(index)].route.provider }

  /// The matched route's position in ``Router/routes`` (declaration order): a cheap key to switch on.
  ///
  /// ```swift
  /// let router = try Router([Route("vk", "vk{app:[0-9]+}://vk.ru/blank.html"), Route("sber", "myapp://sberidauth")])
  /// try router.match(ParsedURL("myapp://sberidauth?code=1"))?.routeIndex  // 1
  /// ```
  public var routeIndex: Int { Int(index) }

  /// The number of captures: ``captures``'s count, without building the array.
  ///
  /// ```swift
  /// let router = try Router([Route("web", "https://{tenant}.example.ru/auth/{provider}/callback")])
  /// try router.match(ParsedURL("https://acme.example.ru/auth/vk/callback"))?.captureCount  // 2
  /// ```
  public var captureCount: Int { slots.count }

  /// The capture at `index` (`0..<captureCount`), in pattern order: `captures[index]` without building the
  /// array.
  ///
  /// ```swift
  /// for k in 0..<match.captureCount {
  ///   let capture = match.capture(at: k)
  ///   print(capture.name, capture.value)  // tenant acme, then provider vk
  /// }
  /// ```
  public func capture(at index: Int) -> RouteCapture {
    precondition(index >= 0 && index < slots.count, "RouteMatch.capture(at:): index \(index) out of 0..<\(slots.count)")
    let slot = slots[index]
    let name = router.names[Int(router.programs[Int(self.index)].captureNames[index])]
    // The href is ASCII: UTF-16 offsets are UTF-8 offsets, and the UTF-16 view's indices are known to be
    // scalar-aligned, so slicing skips the alignment checks (as `ParsedURL` does for components).
    let href = url.href
    let utf16 = href.utf16
    let lower = utf16.index(utf16.startIndex, offsetBy: Int(slot.start))
    let upper = utf16.index(lower, offsetBy: Int(slot.end - slot.start))
    return RouteCapture(name: name, rawValue: href[lower..<upper], utf8Range: Int(slot.start)..<Int(slot.end))
  }

  /// The captures in pattern order (scheme, host, path segments, rest). `*` segments are not captured.
  ///
  /// Built on each call (an array and a `Substring` per capture): in a loop, prefer ``captureCount`` and
  /// ``capture(at:)``.
  public var captures: [RouteCapture] { (0..<slots.count).map(capture(at:)) }

  /// The percent-decoded value of the capture called `name`, or `nil` when the route has no such capture.
  ///
  /// ```swift
  /// match["provider"]  // "vk"
  /// ```
  public subscript(name: String) -> String? {
    let captureNames = router.programs[Int(index)].captureNames
    for k in 0..<slots.count where router.names[Int(captureNames[k])] == name {
      return capture(at: k).value
    }
    return nil
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
