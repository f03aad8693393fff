// Executable invariants of `ParsedURL`, for tests and fuzz targets. See `URLStructure` for the list.

import LinkParseBytes

extension ParsedURL {

  /// Checks every invariant of the storage and offsets, and that parsing ``href`` again gives the same URL.
  ///
  /// Returns the violations found (empty when all hold). The fuzz targets trap on a non-empty result.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://a.ru/cb?code=1")
  /// assert(url.checkInvariants().isEmpty)
  /// ```
  @_spi(Testing)
  public func checkInvariants() -> [String] {
    var problems: [String] = []
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
      if !condition { problems.append(what()) }
    }
    let bytes = Array(storage.utf8)
    let count = UInt32(bytes.count)
    let s = structure
    let absent = URLStructure.absent
    check(bytes.allSatisfy { $0 < 0x80 }, "the serialization is not ASCII")
    check(s.schemeEnd > 0 && s.schemeEnd < count && bytes[Int(s.schemeEnd)] == UInt8(ascii: ":"), "scheme end")
    guard problems.isEmpty else { return problems }
    let schemeBytes = bytes[0..<Int(s.schemeEnd)]
    check(isASCIIAlpha(schemeBytes.first!), "a scheme starts with a letter")
    check(schemeBytes.allSatisfy { isSchemeByte($0) && !($0 &- 0x41 < 26) }, "the scheme is lower-case scheme bytes")
    let kind = SchemeKind(schemeBytes.withUnsafeBufferPointer { $0 })
    check(kind.isSpecial == s.isSpecial, "the special flag matches the scheme")
    check(
      s.schemeEnd < s.usernameEnd && s.usernameEnd <= s.hostStart && s.hostStart <= s.hostEnd
        && s.hostEnd <= s.pathStart && s.pathStart <= count,
      "offsets are ordered")
    guard problems.isEmpty else { return problems }
    if s.hostKind == .none {
      let after = s.schemeEnd &+ 1
      check(s.usernameEnd == after && s.hostStart == after && s.hostEnd == after, "no host: empty authority")
      check(
        s.pathStart == after
          || (s.pathStart == after &+ 2 && bytes[Int(after)] == UInt8(ascii: "/")
            && bytes[Int(after) + 1] == UInt8(ascii: ".")),
        "no host: the path follows the scheme, or '/.' does")
      check(!s.isSpecial, "a special URL has a host")
      check(!s.hasPassword, "no host: no password")
    } else {
      check(
        s.schemeEnd &+ 3 <= s.usernameEnd && bytes[Int(s.schemeEnd) + 1] == UInt8(ascii: "/")
          && bytes[Int(s.schemeEnd) + 2] == UInt8(ascii: "/"),
        "with a host: '//' follows the scheme")
      check(!s.hasOpaquePath, "an opaque path has no host")
      if s.hostStart > s.usernameEnd {
        check(bytes[Int(s.hostStart) - 1] == UInt8(ascii: "@"), "credentials end with '@'")
        check(
          s.usernameEnd > s.schemeEnd &+ 3 || s.hasPassword, "credentials are not empty")
      } else {
        check(!s.hasPassword, "no credentials: no password")
      }
      if s.hasPassword {
        check(bytes[Int(s.usernameEnd)] == UInt8(ascii: ":"), "a password follows ':'")
        check(s.hostStart > s.usernameEnd &+ 2, "a password is not empty")
      }
      if s.isSpecial && kind != .file {
        check(s.hostKind != .empty && s.hostKind != .opaque, "a special URL's host is a domain or an address")
      }
      if !s.isSpecial { check(s.hostKind != .domain && s.hostKind != .ipv4, "a non-special host is opaque") }
      check((s.hostKind == .empty) == (s.hostStart == s.hostEnd), "only an empty host is empty")
    }
    if s.port == absent {
      check(s.hostEnd == s.pathStart || s.hostKind == .none, "no port: the path follows the host")
    } else {
      check(s.port < 65536 && s.port != kind.defaultPort, "the port is in range and not the default")
      let text = String(decoding: bytes[Int(s.hostEnd)..<Int(s.pathStart)], as: UTF8.self)
      check(text == ":\(s.port)", "the port's text is ':' and its decimal value")
    }
    let pathEnd = s.pathEnd(count: bytes.count)
    check(s.pathStart <= pathEnd, "the path is not negative")
    if s.queryStart != absent {
      check(s.queryStart < count && bytes[Int(s.queryStart)] == UInt8(ascii: "?"), "the query starts with '?'")
      check(s.fragmentStart == absent || s.queryStart < s.fragmentStart, "the query precedes the fragment")
    }
    if s.fragmentStart != absent {
      check(s.fragmentStart < count && bytes[Int(s.fragmentStart)] == UInt8(ascii: "#"), "the fragment starts with '#'")
    }
    let pathBytes = bytes[Int(s.pathStart)..<Int(pathEnd)]
    if s.hasOpaquePath {
      check(pathBytes.first != UInt8(ascii: "/"), "an opaque path does not start with '/'")
    } else if s.isSpecial {
      check(pathBytes.first == UInt8(ascii: "/"), "a special URL's path starts with '/'")
    } else {
      check(pathBytes.isEmpty || pathBytes.first == UInt8(ascii: "/"), "a hierarchical path starts with '/'")
    }
    // Parsing the serialization again changes nothing, and shares its storage.
    do {
      let again = try ParsedURL(storage)
      check(again.storage == storage, "parse(href).href == href")
      var a = again.structure
      var b = structure
      a.sharesInput = false
      b.sharesInput = false
      check(a == b, "parse(href) has the same structure")
      check(again.structure.sharesInput, "parse(href) shares its storage with href")
    } catch {
      problems.append("parse(href) fails: \(error)")
    }
    return problems
  }
}

extension ParsedURL {

  /// When the parser's fast path accepts `input`, whether the state machine agrees: it must parse `input` to
  /// the same structure, with a serialization equal to `input`. Returns the disagreement, or `nil` (also when
  /// the fast path declines, which is always allowed).
  ///
  /// ```swift
  /// assert(ParsedURL.fastPathDisagreement("https://a.ru/cb?code=1") == nil)
  /// ```
  @_spi(Testing)
  public static func fastPathDisagreement(_ input: String) -> String? {
    var input = input
    return input.withUTF8 { bytes -> String? in
      guard let fast = URLParser.fastPath(bytes) else { return nil }
      switch URLParser.parseWithStateMachine(bytes, base: nil) {
      case .failure(let error):
        return "the fast path accepted \(Array(bytes)) but the state machine failed: \(error)"
      case .success(let output):
        switch output.serialization {
        case .input: break
        case .string(let serialization):
          if !serialization.utf8.elementsEqual(bytes) {
            return "the fast path accepted \(Array(bytes)) but its serialization is \(serialization)"
          }
        }
        if output.structure != fast {
          return "the fast path's structure \(fast) differs from the state machine's \(output.structure)"
        }
        return nil
      }
    }
  }
}
