// The URL Standard's basic URL parser as a state machine over the input's bytes
// (<https://url.spec.whatwg.org/#concept-basic-url-parser>), writing the serialization as it goes.

internal import CByteScan
import LinkParseBytes

// MARK: - The state machine

private let EOF: UInt8 = 0  // never compared as a byte: every read checks `p < end` first

struct URLStateMachine: ~Copyable {
  let input: UnsafeBufferPointer<UInt8>
  let end: Int
  let base: BaseURL?
  var writer: URLWriter
  var url = URLStructure()
  var scheme: SchemeKind = .other

  init(input: UnsafeBufferPointer<UInt8>, base: BaseURL?) {
    self.input = input
    self.end = input.count
    self.base = base
    self.writer = URLWriter(input: input)
  }

  var special: Bool { scheme.isSpecial }

  @inline(__always) func at(_ p: Int) -> UInt8? { p < end ? input[p] : nil }

  @inline(__always) func isSlash(_ c: UInt8?) -> Bool {
    c == UInt8(ascii: "/") || (special && c == UInt8(ascii: "\\"))
  }

  func error(_ code: URLParseError.Code, _ offset: Int?, _ message: String) -> URLParseError {
    URLParseError(code: code, offset: offset, message: message)
  }

  /// Runs the machine; returns an error, or nil with `writer` and `url` complete.
  mutating func run() -> URLParseError? {
    // scheme start state, scheme state
    if let c = at(0), isASCIIAlpha(c) {
      var q = 1
      while q < end && isSchemeByte(input[q]) { q &+= 1 }
      if q < end && input[q] == UInt8(ascii: ":") {
        writer.appendLowercased(0..<q)
        writer.append(UInt8(ascii: ":"))
        url.schemeEnd = UInt32(q)
        scheme = SchemeKind(UnsafeBufferPointer(rebasing: input[0..<q]))
        url.isSpecial = special
        let p = q &+ 1
        if scheme == .file {
          return fileState(p)
        }
        if special {
          if let base, base.scheme == scheme {
            // special relative or authority state
            if at(p) == UInt8(ascii: "/") && at(p &+ 1) == UInt8(ascii: "/") {
              return authorityState(skippingSlashesFrom: p &+ 2)
            }
            return relativeState(p)
          }
          // special authority slashes state, special authority ignore slashes state
          return authorityState(skippingSlashesFrom: p)
        }
        if at(p) == UInt8(ascii: "/") {
          // path or authority state
          if at(p &+ 1) == UInt8(ascii: "/") {
            return authorityState(p &+ 2)
          }
          setNoHost()
          return pathState(p &+ 1)
        }
        return opaquePathState(p)
      }
    }
    return noSchemeState()
  }

  // MARK: No scheme, relative

  mutating func noSchemeState() -> URLParseError? {
    guard let base else { return missingSchemeError() }
    if base.structure.hasOpaquePath {
      guard at(0) == UInt8(ascii: "#") else {
        return error(
          .missingSchemeNonRelativeURL, 0,
          "the input has no scheme, and the base URL (with an opaque path) can only take a fragment")
      }
      // Scheme, path and query of the base, then this fragment.
      url = base.structure
      url.fragmentStart = URLStructure.absent
      url.sharesInput = false
      scheme = base.scheme
      writer.append(bytes: base.range(0, base.queryEnd))
      return fragmentState(0)
    }
    scheme = base.scheme
    url.isSpecial = special
    writer.append(bytes: base.range(0, base.structure.schemeEnd &+ 1))
    url.schemeEnd = base.structure.schemeEnd
    if scheme == .file {
      return fileState(0)
    }
    return relativeState(0)
  }

  func missingSchemeError() -> URLParseError {
    // Point at the first byte that keeps a scheme-like prefix ("my_app://") from being a scheme.
    var i = 0
    while i < end && isSchemeByte(input[i]) { i &+= 1 }
    if i < end && input[i] != UInt8(ascii: ":") && i > 0 && isASCIIAlpha(input[0]) {
      var j = i
      while j < end, input[j] != UInt8(ascii: ":"), input[j] != UInt8(ascii: "/"), input[j] != UInt8(ascii: "?"),
        input[j] != UInt8(ascii: "#")
      {
        j &+= 1
      }
      if j < end && input[j] == UInt8(ascii: ":") {
        return error(
          .invalidScheme, i,
          "a scheme may contain only ASCII letters, digits, '+', '-' and '.'; found byte 0x\(hex(input[i]))")
      }
    }
    if end == 0 {
      return error(.missingSchemeNonRelativeURL, 0, "the input is empty and no base URL was given")
    }
    return error(
      .missingSchemeNonRelativeURL, 0,
      "the input has no scheme (such as 'https:') and no base URL was given to resolve it against")
  }

  /// relative state. `base` is non-null, not a file URL, and has no opaque path; the scheme is written.
  mutating func relativeState(_ p: Int) -> URLParseError? {
    let base = base!
    if isSlash(at(p)) {
      // relative slash state
      if special && isSlash(at(p &+ 1)) {
        return authorityState(skippingSlashesFrom: p &+ 2)
      }
      if at(p &+ 1) == UInt8(ascii: "/") {
        return authorityState(p &+ 2)
      }
      copyBaseAuthority(base)
      url.pathStart = UInt32(writer.count)
      return pathState(p &+ 1)
    }
    copyBaseAuthority(base)
    url.pathStart = UInt32(writer.count)
    writer.append(bytes: base.path)
    switch at(p) {
    case nil:
      finishPath()
      writer.append(bytes: base.query)
      url.queryStart = base.structure.queryStart
      return nil
    case UInt8(ascii: "?"):
      finishPath()
      return queryState(p)
    case UInt8(ascii: "#"):
      finishPath()
      url.queryStart = base.structure.queryStart
      writer.append(bytes: base.query)
      return fragmentState(p)
    default:
      shortenPath()
      return pathState(p)
    }
  }

  /// Copies the base's userinfo, host and port (the scheme, equal to the base's, is written already).
  mutating func copyBaseAuthority(_ base: BaseURL) {
    writer.append(bytes: base.authority)
    let b = base.structure
    url.usernameEnd = b.usernameEnd
    url.hostStart = b.hostStart
    url.hostEnd = b.hostEnd
    url.port = b.port
    url.hostKind = b.hostKind
    url.hasPassword = b.hasPassword
  }

  mutating func setNoHost() {
    let afterScheme = url.schemeEnd &+ 1
    url.usernameEnd = afterScheme
    url.hostStart = afterScheme
    url.hostEnd = afterScheme
    url.hostKind = .none
    url.pathStart = UInt32(writer.count)
  }

  // MARK: Authority

  /// special authority ignore slashes state: skips any run of '/' and '\', then the authority state.
  mutating func authorityState(skippingSlashesFrom start: Int) -> URLParseError? {
    var p = start
    while let c = at(p), c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") { p &+= 1 }
    return authorityState(p)
  }

  /// authority state, host state, port state. `start` is just after the "//".
  mutating func authorityState(_ start: Int) -> URLParseError? {
    writer.append(UInt8(ascii: "/"))
    writer.append(UInt8(ascii: "/"))
    // One pass finds the authority's end (the first '/', '?', '#', or '\' in special URLs), its last '@'
    // (credentials end there; every earlier '@' belongs to them) and the first ':' after that '@' (where the
    // port starts, unless brackets make the host an IPv6 address).
    var authorityEnd = start
    var lastAt = -1
    var colonAfterAt = -1
    var sawBracket = false
    while authorityEnd < end {
      let c = input[authorityEnd]
      if c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
        || (c == UInt8(ascii: "\\") && special)
      {
        break
      }
      if c == UInt8(ascii: "@") {
        lastAt = authorityEnd
        colonAfterAt = -1
      } else if c == UInt8(ascii: ":") {
        if colonAfterAt < 0 { colonAfterAt = authorityEnd }
      } else if c == UInt8(ascii: "[") {
        sawBracket = true
      }
      authorityEnd &+= 1
    }
    var hostStart = start
    if lastAt >= 0 {
      let atSign = lastAt
      var colon = start
      while colon < atSign && input[colon] != UInt8(ascii: ":") { colon &+= 1 }
      let credentialsStart = writer.count
      writer.appendEncoding(start..<colon, .userinfo)
      url.usernameEnd = UInt32(writer.count)
      if colon < atSign {
        let passwordStart = writer.count
        writer.append(UInt8(ascii: ":"))
        writer.appendEncoding(colon &+ 1..<atSign, .userinfo)
        if writer.count == passwordStart &+ 1 {
          writer.truncate(to: passwordStart)
        } else {
          url.hasPassword = true
        }
      }
      if writer.count > credentialsStart {
        writer.append(UInt8(ascii: "@"))
      }
      hostStart = atSign &+ 1
      if hostStart == authorityEnd {
        return error(
          .hostMissing, hostStart, "credentials ('…@') must be followed by a host, and nothing follows the '@'")
      }
    } else {
      url.usernameEnd = UInt32(writer.count)
    }
    url.hostStart = UInt32(writer.count)

    // host state: the host ends at the first ':' outside brackets.
    var hostEnd = colonAfterAt >= 0 ? colonAfterAt : authorityEnd
    if sawBracket {
      hostEnd = hostStart
      var insideBrackets = false
      while hostEnd < authorityEnd {
        let c = input[hostEnd]
        if c == UInt8(ascii: ":") && !insideBrackets { break }
        if c == UInt8(ascii: "[") { insideBrackets = true }
        if c == UInt8(ascii: "]") { insideBrackets = false }
        hostEnd &+= 1
      }
    }
    if hostEnd == hostStart && (hostEnd < authorityEnd || special) {
      return error(.hostMissing, hostStart, "the URL needs a host here, and the host is empty")
    }
    if let failure = parseHost(hostStart..<hostEnd) { return failure }
    url.hostEnd = UInt32(writer.count)

    // port state
    if hostEnd < authorityEnd {
      let portStart = hostEnd &+ 1
      var value: UInt32 = 0
      var p = portStart
      while p < authorityEnd {
        let c = input[p]
        guard isASCIIDigit(c) else {
          return error(
            .invalidPort, p, "a port may contain only the digits 0-9; found byte 0x\(hex(c))")
        }
        value = value &* 10 &+ UInt32(c &- 0x30)
        if value > 65535 {
          return error(.invalidPort, portStart, "the port is greater than 65535")
        }
        p &+= 1
      }
      if p > portStart && value != scheme.defaultPort {
        writer.append(UInt8(ascii: ":"))
        writer.appendDecimal(value)
        url.port = value
      }
    }
    return pathStartState(authorityEnd)
  }

  // MARK: File

  /// file state. The scheme ("file:") is written.
  mutating func fileState(_ p: Int) -> URLParseError? {
    let c = at(p)
    if c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") {
      return fileSlashState(p &+ 1)
    }
    if let base, base.scheme == .file {
      copyBaseAuthority(base)
      url.pathStart = UInt32(writer.count)
      switch c {
      case nil:
        writer.append(bytes: base.path)
        finishPath()
        url.queryStart = base.structure.queryStart
        writer.append(bytes: base.query)
        return nil
      case UInt8(ascii: "?"):
        writer.append(bytes: base.path)
        finishPath()
        return queryState(p)
      case UInt8(ascii: "#"):
        writer.append(bytes: base.path)
        finishPath()
        url.queryStart = base.structure.queryStart
        writer.append(bytes: base.query)
        return fragmentState(p)
      default:
        if !startsWithWindowsDriveLetter(p) {
          writer.append(bytes: base.path)
          shortenPath()
        }
        return pathState(p)
      }
    }
    writeEmptyHost()
    return pathState(p)
  }

  /// file slash state.
  mutating func fileSlashState(_ p: Int) -> URLParseError? {
    let c = at(p)
    if c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") {
      return fileHostState(p &+ 1)
    }
    if let base, base.scheme == .file {
      copyBaseAuthority(base)
      url.pathStart = UInt32(writer.count)
      if !startsWithWindowsDriveLetter(p) {
        // Keep the base's drive letter: "/C:".
        let path = base.path
        if path.count >= 3 && isASCIIAlpha(path[1]) && path[2] == UInt8(ascii: ":")
          && (path.count == 3 || path[3] == UInt8(ascii: "/"))
        {
          writer.append(bytes: UnsafeBufferPointer(rebasing: path[0..<3]))
          return pathState(p)
        }
      }
      return pathState(p)
    }
    writeEmptyHost()
    return pathState(p)
  }

  /// file host state.
  mutating func fileHostState(_ start: Int) -> URLParseError? {
    var hostEnd = start
    while let c = at(hostEnd), c != UInt8(ascii: "/"), c != UInt8(ascii: "\\"), c != UInt8(ascii: "?"),
      c != UInt8(ascii: "#")
    {
      hostEnd &+= 1
    }
    if hostEnd &- start == 2 && isWindowsDriveLetter(input[start], input[start &+ 1]) {
      // "file://C:/x": the drive letter is the path's first segment, not a host.
      writeEmptyHost()
      return pathState(start)
    }
    writer.append(UInt8(ascii: "/"))
    writer.append(UInt8(ascii: "/"))
    url.usernameEnd = UInt32(writer.count)
    url.hostStart = url.usernameEnd
    if hostEnd > start {
      if let failure = parseHost(start..<hostEnd) { return failure }
      if writer.count &- Int(url.hostStart) == 9 && isLocalhost(at: Int(url.hostStart)) {
        writer.truncate(to: Int(url.hostStart))
        url.hostKind = .empty
      }
    } else {
      url.hostKind = .empty
    }
    url.hostEnd = UInt32(writer.count)
    return pathStartState(hostEnd)
  }

  mutating func writeEmptyHost() {
    writer.append(UInt8(ascii: "/"))
    writer.append(UInt8(ascii: "/"))
    url.usernameEnd = UInt32(writer.count)
    url.hostStart = url.usernameEnd
    url.hostEnd = url.usernameEnd
    url.hostKind = .empty
    url.pathStart = url.usernameEnd
  }

  func isLocalhost(at i: Int) -> Bool {
    let word: StaticString = "localhost"
    return word.withUTF8Buffer { w in
      for k in 0..<9 where writer.byte(at: i &+ k) != w[k] { return false }
      return true
    }
  }

  @inline(__always) func isWindowsDriveLetter(_ a: UInt8, _ b: UInt8) -> Bool {
    isASCIIAlpha(a) && (b == UInt8(ascii: ":") || b == UInt8(ascii: "|"))
  }

  /// Whether the input from `p` starts with a Windows drive letter: two code points that are one, followed
  /// by the end or by '/', '\', '?' or '#'.
  func startsWithWindowsDriveLetter(_ p: Int) -> Bool {
    guard p &+ 1 < end, isWindowsDriveLetter(input[p], input[p &+ 1]) else { return false }
    guard let c = at(p &+ 2) else { return true }
    return c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
  }

  // MARK: Path

  /// path start state.
  mutating func pathStartState(_ p: Int) -> URLParseError? {
    url.pathStart = UInt32(writer.count)
    let c = at(p)
    if special {
      return pathState(isSlash(c) ? p &+ 1 : p)
    }
    switch c {
    case nil:
      return nil
    case UInt8(ascii: "?"):
      return queryState(p)
    case UInt8(ascii: "#"):
      return fragmentState(p)
    case UInt8(ascii: "/"):
      return pathState(p &+ 1)
    default:
      return pathState(p)
    }
  }

  /// path state, from `p` (just after the '/' that started the current segment) to the end of the path.
  /// `url.pathStart` is set; the output may already hold segments (copied from a base).
  mutating func pathState(_ start: Int) -> URLParseError? {
    var p = start
    let base = input.baseAddress!
    let backslashEnds = special
    while true {
      // One segment: write "/" and its bytes, then look at what it was.
      let segmentStart = writer.count
      writer.append(UInt8(ascii: "/"))
      var c: UInt8? = nil
      while p < end {
        let runStart = p
        p = Scan.pathSegment(base, p, end, special: backslashEnds)
        writer.appendInput(runStart..<p)
        if p == end { break }
        let b = input[p]
        if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
          || (b == UInt8(ascii: "\\") && backslashEnds)
        {
          c = b
          break
        }
        writer.appendPercentEncoded(b)
        p &+= 1
      }
      let endsWithSlash = c == UInt8(ascii: "/") || c == UInt8(ascii: "\\")
      let length = writer.count &- segmentStart &- 1
      // The segment's bytes, read in place. (Through methods on `self`, each segment copied the whole
      // machine to borrow it.)
      let segment = writer.bytes(from: segmentStart &+ 1)
      if Self.isDoubleDotSegment(segment, length) {
        writer.truncate(to: segmentStart)
        shortenPath()
        if !endsWithSlash { writer.append(UInt8(ascii: "/")) }
      } else if Self.isSingleDotSegment(segment, length) {
        writer.truncate(to: segmentStart)
        if !endsWithSlash { writer.append(UInt8(ascii: "/")) }
      } else if scheme == .file && segmentStart == Int(url.pathStart) && length == 2
        && isWindowsDriveLetter(segment[0], segment[1])
      {
        writer.replace(at: segmentStart &+ 2, with: UInt8(ascii: ":"))
      }
      if !endsWithSlash { break }
      p &+= 1
    }
    finishPath()
    switch at(p) {
    case UInt8(ascii: "?"): return queryState(p)
    case UInt8(ascii: "#"): return fragmentState(p)
    default: return nil
    }
  }

  /// Whether the `length` bytes at `p` are a single-dot segment ("." or "%2e").
  @inline(__always)
  static func isSingleDotSegment(_ p: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    if length == 1 { return p[0] == UInt8(ascii: ".") }
    if length == 3 { return isPercent2E(p) }
    return false
  }

  /// Whether the `length` bytes at `p` are a double-dot segment ("..", ".%2e", "%2e.", "%2e%2e").
  @inline(__always)
  static func isDoubleDotSegment(_ p: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    switch length {
    case 2: return p[0] == UInt8(ascii: ".") && p[1] == UInt8(ascii: ".")
    case 4: return (p[0] == UInt8(ascii: ".") && isPercent2E(p, at: 1)) || (isPercent2E(p) && p[3] == UInt8(ascii: "."))
    case 6: return isPercent2E(p) && isPercent2E(p, at: 3)
    default: return false
    }
  }

  /// Whether the three bytes at `p[k...]` are "%2e" or "%2E".
  @inline(__always)
  static func isPercent2E(_ p: UnsafePointer<UInt8>, at k: Int = 0) -> Bool {
    p[k] == UInt8(ascii: "%") && p[k &+ 1] == UInt8(ascii: "2") && p[k &+ 2] | 0x20 == UInt8(ascii: "e")
  }

  /// shorten a URL's path: removes the last segment, except a file URL's lone normalized drive letter.
  mutating func shortenPath() {
    let pathStart = Int(url.pathStart)
    guard writer.count > pathStart else { return }
    var lastSlash = writer.count &- 1
    while lastSlash > pathStart && writer.byte(at: lastSlash) != UInt8(ascii: "/") { lastSlash &-= 1 }
    if scheme == .file && lastSlash == pathStart && writer.count &- pathStart == 3
      && isASCIIAlpha(writer.byte(at: pathStart &+ 1)) && writer.byte(at: pathStart &+ 2) == UInt8(ascii: ":")
    {
      return
    }
    writer.truncate(to: lastSlash)
  }

  /// Once the path is final: a URL without a host whose path starts with an empty segment ("//x") gets the
  /// "/." prefix, so that its serialization does not read as an authority.
  mutating func finishPath() {
    let pathStart = Int(url.pathStart)
    if url.hostKind == .none && writer.count &- pathStart >= 2 && writer.byte(at: pathStart) == UInt8(ascii: "/")
      && writer.byte(at: pathStart &+ 1) == UInt8(ascii: "/")
    {
      writer.insert("/.", at: pathStart)
      url.pathStart &+= 2
    }
  }

  /// opaque path state.
  mutating func opaquePathState(_ start: Int) -> URLParseError? {
    setNoHost()
    url.hasOpaquePath = true
    var p = start
    let set = ByteSet.c0Control
    while p < end {
      let runStart = p
      while p < end {
        let b = input[p]
        if set.contains(b) || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b == UInt8(ascii: " ") { break }
        p &+= 1
      }
      writer.appendInput(runStart..<p)
      guard p < end else { break }
      let b = input[p]
      if b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
      if b == UInt8(ascii: " ") {
        // A space right before the query or fragment is encoded, so that it cannot be lost at the end.
        let next = at(p &+ 1)
        if next == UInt8(ascii: "?") || next == UInt8(ascii: "#") {
          writer.appendPercentEncoded(b)
        } else {
          writer.append(b)
        }
      } else {
        writer.appendPercentEncoded(b)
      }
      p &+= 1
    }
    switch at(p) {
    case UInt8(ascii: "?"): return queryState(p)
    case UInt8(ascii: "#"): return fragmentState(p)
    default: return nil
    }
  }

  // MARK: Query, fragment

  /// query state; `p` is at the '?'.
  mutating func queryState(_ start: Int) -> URLParseError? {
    url.queryStart = UInt32(writer.count)
    writer.append(UInt8(ascii: "?"))
    let base = input.baseAddress!
    let special = self.special
    var p = start &+ 1
    while p < end {
      let runStart = p
      p = Scan.query(base, p, end, special: special)
      writer.appendInput(runStart..<p)
      if p == end { break }
      if input[p] == UInt8(ascii: "#") { return fragmentState(p) }
      writer.appendPercentEncoded(input[p])
      p &+= 1
    }
    return nil
  }

  /// fragment state; `p` is at the '#'.
  mutating func fragmentState(_ start: Int) -> URLParseError? {
    url.fragmentStart = UInt32(writer.count)
    writer.append(UInt8(ascii: "#"))
    let base = input.baseAddress!
    var p = start &+ 1
    while p < end {
      let runStart = p
      p = Scan.fragment(base, p, end)
      writer.appendInput(runStart..<p)
      if p == end { break }
      writer.appendPercentEncoded(input[p])
      p &+= 1
    }
    return nil
  }
}

@inline(__always)
func hex(_ b: UInt8) -> String {
  String(decoding: [hexDigit(b >> 4), hexDigit(b & 0xF)], as: UTF8.self)
}
