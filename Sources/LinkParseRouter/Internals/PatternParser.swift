// Route pattern grammar (documented on `Router`):
//
//   pattern   = scheme ":" ( "//" host )? path ( "?" query )?
//   scheme    = component                        -- up to the first ':' outside braces
//   host      = component                        -- up to '/', '?' or the end
//   path      = ( "/" segment )*                 -- `scheme:/a/b` has no host
//   segment   = "*" | "{" name "...}" | component   -- the rest capture only as the last segment
//   component = ( literal | "{" name ( ":" regex )? "}" )+, with literal text between captures
//   query     = name ( "&" name )*               -- parameters that must be present
//
// The parser works on UTF-8 bytes and reports positions as byte offsets into the pattern.

import LinkParseCore
import LinkParseBytes

/// One piece of a component: literal bytes or a capture.
enum PartSpec: Hashable {
  case literal([UInt8])
  /// `regexOffset` is the byte offset of the regex in the pattern, for PCRE2's error offsets.
  case capture(name: String, regex: String?, position: Int, regexOffset: Int)
}

/// One path segment of a pattern.
enum SegmentSpec: Hashable {
  case parts([PartSpec])
  case wildcard
}

/// A parsed (not yet compiled) pattern.
struct PatternSpec {
  var scheme: [PartSpec] = []
  /// `nil`: the pattern has no host (`scheme:/path`).
  var host: [PartSpec]?
  var segments: [SegmentSpec] = []
  /// The `{name...}` capture closing the path, and its position.
  var rest: (name: String, position: Int)?
  var query: [String] = []
}

struct PatternSyntaxError: Error {
  var code: RouteError.Code
  var position: Int
  var message: String
}

struct PatternParser {
  let bytes: [UInt8]
  var i = 0

  init(_ pattern: String) { bytes = Array(pattern.utf8) }

  static let specialSchemes: Set<[UInt8]> = Set(["http", "https", "ws", "wss", "ftp", "file"].map { Array($0.utf8) })

  mutating func parse() throws(PatternSyntaxError) -> PatternSpec {
    var spec = PatternSpec()
    guard let colon = findTopLevel(UInt8(ascii: ":"), from: 0) else {
      throw PatternSyntaxError(code: .unknownSyntax, position: bytes.count, message: "missing ':' after the scheme")
    }
    spec.scheme = try parseComponent(0, colon, kind: .scheme)
    if spec.scheme.isEmpty {
      throw PatternSyntaxError(code: .unknownSyntax, position: 0, message: "the scheme is empty")
    }
    i = colon + 1
    if at("//") {
      i += 2
      let end = scanTo(["/", "?", "#"])
      spec.host = try parseComponent(i, end, kind: .host)
      i = end
    } else if i < bytes.count && bytes[i] != UInt8(ascii: "/") && bytes[i] != UInt8(ascii: "?") {
      throw PatternSyntaxError(
        code: .unknownSyntax, position: i,
        message: "expected '//' or '/' after the scheme (URLs with an opaque path are not routable)")
    }
    while i < bytes.count && bytes[i] == UInt8(ascii: "/") {
      if spec.rest != nil {
        throw PatternSyntaxError(code: .unknownSyntax, position: i, message: "'{name...}' must be the last path segment")
      }
      i += 1
      let start = i
      let end = scanTo(["/", "?", "#"])
      i = end
      let text = bytes[start..<end]
      if text.elementsEqual("*".utf8) {
        spec.segments.append(.wildcard)
      } else if let name = restName(start, end) {
        spec.rest = (name, start)
      } else {
        let parts = try parseComponent(start, end, kind: .segment)
        if case .literal(let lit)? = parts.first, parts.count == 1, Self.isDotSegment(lit) {
          throw PatternSyntaxError(code: .unknownSyntax, position: start, message: "dot segments ('.', '..') never match a parsed URL")
        }
        spec.segments.append(.parts(parts))
      }
    }
    if spec.host == nil && spec.segments.isEmpty && spec.rest == nil {
      throw PatternSyntaxError(code: .unknownSyntax, position: i, message: "a pattern without a host needs a path ('scheme:/path')")
    }
    if spec.host != nil, spec.segments.isEmpty, spec.rest == nil, Self.isSpecial(spec.scheme) {
      spec.segments = [.parts([])]  // `https://a.ru` is `https://a.ru/`
    }
    if i < bytes.count && bytes[i] == UInt8(ascii: "?") {
      i += 1
      var start = i
      while true {
        let end = scanTo(["&", "#"])
        let name = bytes[start..<end]
        if name.isEmpty {
          throw PatternSyntaxError(code: .unknownSyntax, position: start, message: "empty query parameter name")
        }
        if let bad = name.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") || $0 <= 0x20 }) {
          throw PatternSyntaxError(
            code: .unknownSyntax, position: bad,
            message: "a query requirement is a parameter name; values and captures are not supported")
        }
        spec.query.append(String(decoding: name, as: UTF8.self))
        i = end
        if i < bytes.count && bytes[i] == UInt8(ascii: "&") { i += 1; start = i; continue }
        break
      }
    }
    if i < bytes.count {
      let message = bytes[i] == UInt8(ascii: "#") ? "fragments are not part of a route" : "unexpected '\(Character(Unicode.Scalar(bytes[i])))'"
      throw PatternSyntaxError(code: .unknownSyntax, position: i, message: message)
    }
    return spec
  }

  static func isSpecial(_ scheme: [PartSpec]) -> Bool {
    guard scheme.count == 1, case .literal(let lit) = scheme[0] else { return false }
    return specialSchemes.contains(lit)
  }

  static func isDotSegment(_ lit: [UInt8]) -> Bool {
    let lowered = lit.map { $0 | ($0 &- 0x41 < 26 ? 0x20 : 0) }
    return [".", "..", "%2e", ".%2e", "%2e.", "%2e%2e"].contains { lowered.elementsEqual($0.utf8) }
  }

  private func at(_ s: String) -> Bool {
    bytes.count - i >= s.utf8.count && bytes[i..<(i + s.utf8.count)].elementsEqual(s.utf8)
  }

  /// The first `byte` at or after `start` outside braces.
  private func findTopLevel(_ byte: UInt8, from start: Int) -> Int? {
    var j = start
    while j < bytes.count {
      if bytes[j] == UInt8(ascii: "{") { j = closingBrace(j) ?? bytes.count; continue }
      if bytes[j] == byte { return j }
      j += 1
    }
    return nil
  }

  /// From `i`, the first of `stops` outside braces, or the end.
  private func scanTo(_ stops: [Unicode.Scalar]) -> Int {
    var j = i
    while j < bytes.count {
      if bytes[j] == UInt8(ascii: "{") { j = closingBrace(j) ?? bytes.count; continue }
      if stops.contains(where: { UInt8(ascii: $0) == bytes[j] }) { return j }
      j += 1
    }
    return j
  }

  /// One past the `}` closing the `{` at `open`, skipping escapes, character classes and nested braces of a
  /// regex (`{id:[0-9]{4}}`), or `nil` when it is not closed.
  private func closingBrace(_ open: Int) -> Int? {
    var depth = 0
    var inClass = false
    var j = open
    while j < bytes.count {
      let b = bytes[j]
      if b == UInt8(ascii: "\\") { j += 2; continue }
      if inClass {
        if b == UInt8(ascii: "]") { inClass = false }
      } else if b == UInt8(ascii: "[") {
        inClass = true
        // A ']' right after '[' or '[^' is literal.
        if j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "^") { j += 1 }
        if j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "]") { j += 1 }
      } else if b == UInt8(ascii: "{") {
        depth += 1
      } else if b == UInt8(ascii: "}") {
        depth -= 1
        if depth == 0 { return j + 1 }
      }
      j += 1
    }
    return nil
  }

  /// The name of a `{name...}` segment spanning exactly `start..<end`.
  private func restName(_ start: Int, _ end: Int) -> String? {
    guard end - start >= 6, bytes[start] == UInt8(ascii: "{"), bytes[end - 1] == UInt8(ascii: "}"),
      bytes[(end - 4)..<(end - 1)].elementsEqual("...".utf8)
    else { return nil }
    let name = bytes[(start + 1)..<(end - 4)]
    guard Self.isName(name) else { return nil }
    return String(decoding: name, as: UTF8.self)
  }

  static func isName(_ name: ArraySlice<UInt8>) -> Bool {
    guard let first = name.first, first == UInt8(ascii: "_") || (first | 0x20) &- 0x61 < 26 else { return false }
    return name.allSatisfy { $0 == UInt8(ascii: "_") || ($0 | 0x20) &- 0x61 < 26 || $0 &- 0x30 < 10 }
  }

  enum Kind { case scheme, host, segment }

  private func parseComponent(_ start: Int, _ end: Int, kind: Kind) throws(PatternSyntaxError) -> [PartSpec] {
    var parts: [PartSpec] = []
    var literal: [UInt8] = []
    var j = start
    func flush() {
      if !literal.isEmpty { parts.append(.literal(literal)); literal = [] }
    }
    while j < end {
      let b = bytes[j]
      if b == UInt8(ascii: "{") {
        guard let close = closingBrace(j), close <= end else {
          throw PatternSyntaxError(code: .unknownSyntax, position: j, message: "'{' is not closed")
        }
        var k = j + 1
        while k < close - 1, bytes[k] != UInt8(ascii: ":"), bytes[k] != UInt8(ascii: "}"), bytes[k] != UInt8(ascii: ".") { k += 1 }
        let name = bytes[(j + 1)..<k]
        guard Self.isName(name) else {
          throw PatternSyntaxError(
            code: .unknownSyntax, position: j + 1, message: "a capture name is a letter or '_' followed by letters, digits or '_'")
        }
        var regex: String?
        if bytes[k] == UInt8(ascii: ":") {
          if k + 1 >= close - 1 {
            throw PatternSyntaxError(code: .unknownSyntax, position: k + 1, message: "empty constraint after ':'")
          }
          regex = String(decoding: bytes[(k + 1)..<(close - 1)], as: UTF8.self)
        } else if bytes[k] == UInt8(ascii: ".") {
          throw PatternSyntaxError(
            code: .unknownSyntax, position: k, message: "'{name...}' must be a whole path segment, the last one")
        } else if k != close - 1 {
          throw PatternSyntaxError(code: .unknownSyntax, position: k, message: "unexpected text in capture")
        }
        if literal.isEmpty, case .capture? = parts.last {
          throw PatternSyntaxError(
            code: .adjacentCaptures, position: j, message: "two captures need literal text between them")
        }
        flush()
        parts.append(.capture(name: String(decoding: name, as: UTF8.self), regex: regex, position: j, regexOffset: k + 1))
        j = close
        continue
      }
      if b == UInt8(ascii: "}") {
        throw PatternSyntaxError(code: .unknownSyntax, position: j, message: "'}' without '{'")
      }
      if b < 0x20 || b == 0x7F || b == UInt8(ascii: "\\") || b == UInt8(ascii: "#")
        || (b == UInt8(ascii: " ") && kind != .segment)
      {
        throw PatternSyntaxError(code: .unknownSyntax, position: j, message: "unexpected byte 0x\(String(b, radix: 16)) in pattern")
      }
      switch kind {
      case .scheme:
        let ok = (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        if !ok || (j == start && b &- 0x30 < 10) {
          throw PatternSyntaxError(code: .unknownSyntax, position: j, message: "not a scheme character")
        }
        literal.append(asciiLowercased(b))
      case .host:
        if b == UInt8(ascii: "@") || b >= 0x80 {
          throw PatternSyntaxError(
            code: .unknownSyntax, position: j, message: "host literals are ASCII (use Punycode) and carry no user info")
        }
        literal.append(asciiLowercased(b))
      case .segment:
        // Written the way the URL parser serializes a path, so literals compare byte for byte.
        if ByteSet.path.contains(b) {  // the URL Standard's path percent-encode set
          literal.append(UInt8(ascii: "%"))
          literal.append(hexDigit(b >> 4))
          literal.append(hexDigit(b & 15))
        } else {
          literal.append(b)
        }
      }
      j += 1
    }
    flush()
    return parts
  }


}
