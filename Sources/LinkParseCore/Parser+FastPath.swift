// The fast path: recognizes, in a handful of wide scans, an input that is already the canonical
// serialization of a URL with an authority (or a non-special one whose path starts with '/'), and returns
// its structure without running the state machine.
//
// Nearly every callback URL has this shape: `scheme://host[:port]/path?query#fragment`, lower-case scheme
// and host, nothing to percent-encode, no dot segments; the rest are mostly app schemes with an empty host
// (`vk123://?code=…`) or none (`com.example.app:/oauth2redirect?code=…`). For such an input the basic URL parser's output is
// the input itself, so all that is left to compute is where the components are. The state machine
// (`URLStateMachine`) spends most of its time proving exactly that byte by byte: trimming, a scan for tabs
// and newlines, a writer that checks each byte it "writes" against the input, per-segment bookkeeping.
//
// The fast path accepts only what it can prove canonical and answers `nil` for everything else — any byte
// it does not expect, upper case, userinfo, IPv4/IPv6 or non-ASCII hosts, a port with a leading zero or the
// default value, a segment that might be a dot segment, `file:`, a base URL — and the state machine then
// parses the input as before. It is conservative by construction: every check errs towards `nil`. Tests
// and the `parse` fuzz target check that whenever it answers, the state machine produces the same
// structure and a serialization equal to the input (`fastPathAgreesWithTheStateMachine`).
//
// Why each accepted input is canonical (the URL Standard's basic URL parser, no base, no state override):
// - No leading/trailing C0 control or space, no tab or newline: the scheme must start with a lower-case
//   letter, and every other byte accepted below is visible ASCII (the path, query and fragment scans stop
//   at C0 controls, space, DEL and non-ASCII; hosts and ports accept only letters, digits and `._-`).
// - Scheme: lower-case letters, digits, `+-.`, then `:` — unchanged by lower-casing.
// - Authority `//host[:port]`: no `@` (no credentials). A special URL's host of lower-case letters, digits
//   and `._-` whose last label is not a number is its own "domain to ASCII" (ASCII lower-casing) and not an
//   IPv4 address; an opaque host of those bytes needs no percent-encoding. A port of 1–5 digits without a
//   leading zero, at most 65535 and not the scheme's default, serializes as written. A non-special URL's
//   host may be empty when the path, query, fragment or the end follows at once (an empty host serializes
//   as nothing; with a port it is left to the state machine).
// - No authority (`scheme:/path`, non-special only): the path starts with exactly one '/', so it cannot read
//   as an authority and needs no "/." prefix; special URLs would gain "//" and are left to the state machine.
// - Path: special URLs need it to start with '/' (an empty one becomes "/"); segments contain nothing of
//   the path percent-encode set (nor `\` in special URLs), and none that starts with `.` or `%` and is at
//   most six bytes long (the longest dot segment is `%2e%2e`) is accepted, so no segment is removed.
// - Query and fragment: nothing of their percent-encode sets (the special-query set for special URLs).
internal import CByteScan
import LinkParseBytes

extension URLParser {

  /// Whether `input` (of any length: longer ones are left to the state machine, which rejects them) is a canonical
  /// URL with an authority (see above); when it is, `url` holds its structure, its flags started as `flags`.
  ///
  /// An `inout` into the caller's `ParsedURL` rather than a returned optional: a structure returned or built in
  /// a temporary was written field by field and then copied on in wide loads, which stalled on store forwarding
  /// (about 12 cycles each, several a URL: longer than the scans took).
  @inline(__always)
  static func fastPath(checking input: UnsafeBufferPointer<UInt8>, into url: inout URLStructure, flags: UInt8)
    -> Bool
  {
    guard input.count <= maximumInputLength, let start = input.baseAddress else { return false }
    // The input's cache lines are requested up front: an input that arrives cold (a server's, read from a
    // socket long ago) would otherwise miss one line at a time as the scan reaches it.
    linkparse_prefetch(start, input.count)
    return fastPath(input, into: &url, flags: flags)
  }

  /// The structure of `input` when it is a canonical URL with an authority (see above), else `nil`.
  static func fastPath(_ input: UnsafeBufferPointer<UInt8>) -> URLStructure? {
    var url = URLStructure()
    return fastPath(input, into: &url, flags: 0) ? url : nil
  }

  /// False when the fast path's host `base[start..<end]` (non-empty, of lower-case letters, digits and `._-`)
  /// cannot end in a number, read off its last byte before any trailing dot: a number (decimal, or `0x` and hex
  /// digits) ends in a digit, `a`–`f` or `x`. Most hosts end in another letter (`ru`, `com`), and skip the scan.
  @inline(__always)
  static func mayEndInNumber(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
    var last = base[end &- 1]
    if last == UInt8(ascii: ".") && end &- start > 1 { last = base[end &- 2] }
    return last &- 0x30 < 10 || last &- 0x61 < 6 || last == UInt8(ascii: "x")
  }

  /// ``fastPath(_:)`` writing into `url`, a new ``URLStructure``, whose flags start as `flags`; `url` is left partly
  /// written when the answer is false.
  static func fastPath(_ input: UnsafeBufferPointer<UInt8>, into url: inout URLStructure, flags: UInt8) -> Bool {
    guard let base = input.baseAddress else { return false }
    let end = input.count
    // Scheme: a lower-case letter, then scheme bytes other than upper case, up to ':'.
    guard end > 0, base[0] &- 0x61 < 26 else { return false }
    let q = Scan.lowerCaseScheme(base, 1, end)
    guard q &+ 2 <= end, base[q] == UInt8(ascii: ":"), base[q &+ 1] == UInt8(ascii: "/") else { return false }
    let scheme = SchemeKind.lowerCase(base, count: q)
    if scheme == .file { return false }
    let special = scheme.isSpecial
    url.schemeEnd = UInt32(truncatingIfNeeded: q)
    url.flags = special ? flags | URLStructure.specialFlag : flags
    var p: Int
    if q &+ 2 < end && base[q &+ 2] == UInt8(ascii: "/") {
      // Host: lower-case letters, digits, '.', '-', '_'; then ':' (a port) or the authority's end.
      let hostStart = q &+ 3
      let hostEnd = Scan.simpleHost(base, hostStart, end)
      if hostEnd == hostStart {
        // An empty host (`vk123://?code=…`): non-special URLs only, and without a port.
        guard !special,
          hostEnd == end || base[hostEnd] == UInt8(ascii: "/") || base[hostEnd] == UInt8(ascii: "?")
            || base[hostEnd] == UInt8(ascii: "#")
        else { return false }
        url.hostKind = .empty
      } else {
        if special && mayEndInNumber(base, hostStart, hostEnd)
          && endsInNumber(UnsafeBufferPointer(rebasing: input[hostStart..<hostEnd]))
        {
          return false
        }
        url.hostKind = special ? .domain : .opaque
      }
      url.usernameEnd = UInt32(truncatingIfNeeded: hostStart)
      url.hostStart = UInt32(truncatingIfNeeded: hostStart)
      url.hostEnd = UInt32(truncatingIfNeeded: hostEnd)
      p = hostEnd
      if p < end && base[p] == UInt8(ascii: ":") {
        p &+= 1
        let digitsStart = p
        var value: UInt32 = 0
        while p < end && base[p] &- 0x30 < 10 && p &- digitsStart < 5 {
          value = value &* 10 &+ UInt32(base[p] &- 0x30)
          p &+= 1
        }
        guard p > digitsStart, base[digitsStart] != UInt8(ascii: "0"), value <= 65535, value != scheme.defaultPort
        else { return false }
        url.port = value
      }
    } else {
      // No authority (`com.example.app:/oauth2redirect?code=…`): non-special URLs only; the path starts with
      // one '/' (two would have been an authority).
      guard !special else { return false }
      let afterColon = UInt32(truncatingIfNeeded: q &+ 1)
      url.usernameEnd = afterColon
      url.hostStart = afterColon
      url.hostEnd = afterColon
      p = q &+ 1
    }

    // Path: segments after '/', each free of bytes that need encoding and not possibly a dot segment.
    url.pathStart = UInt32(truncatingIfNeeded: p)
    if special && (p == end || base[p] != UInt8(ascii: "/")) { return false }
    if p < end && base[p] == UInt8(ascii: "/") {
      // One scan over the whole path; it stops early only at a segment starting with '.' or '%', which is
      // let through when it is longer than six bytes (see above).
      p = Scan.path(base, p &+ 1, end, special: special)
      while p < end && (base[p] == UInt8(ascii: ".") || base[p] == UInt8(ascii: "%")) {
        let segmentEnd = Scan.pathSegment(base, p, end, special: special)
        if segmentEnd &- p <= 6 { return false }
        p = segmentEnd
        if p < end && base[p] == UInt8(ascii: "/") { p = Scan.path(base, p &+ 1, end, special: special) }
      }
    }
    // Anything but the query, the fragment or the end ends the path here: the state machine decides.
    if p < end && base[p] == UInt8(ascii: "?") {
      url.queryStart = UInt32(truncatingIfNeeded: p)
      // Two calls with constant arguments: each inlined loop tests its own set (one `special` test per block
      // cost two instructions and a branch in the longest scan).
      p = special ? Scan.query(base, p &+ 1, end, special: true) : Scan.query(base, p &+ 1, end, special: false)
    }
    if p < end && base[p] == UInt8(ascii: "#") {
      url.fragmentStart = UInt32(truncatingIfNeeded: p)
      p = Scan.fragment(base, p &+ 1, end)
    }
    return p == end
  }
}
