// The host parser (https://url.spec.whatwg.org/#host-parsing): IPv6 in brackets, opaque hosts of
// non-special URLs, and domains — percent-decoded, mapped to ASCII (UTS #46, `IDNA.swift`), checked for
// forbidden code points, and read as IPv4 when they end in a number (`Parser+IP.swift`).

import LinkParseBytes

extension URLStateMachine {

  /// Parses `input[range]` as a host and writes its serialization; sets `url.hostKind`.
  mutating func parseHost(_ range: Range<Int>) -> URLParseError? {
    if range.isEmpty {
      // Only a non-special URL gets here with an empty host ("foo:///x").
      url.hostKind = .empty
      return nil
    }
    if input[range.lowerBound] == UInt8(ascii: "[") {
      guard range.count >= 2, input[range.upperBound &- 1] == UInt8(ascii: "]") else {
        return error(.invalidIPv6, range.lowerBound, "the IPv6 address has no closing ']'")
      }
      switch parseIPv6(UnsafeBufferPointer(rebasing: input[range.lowerBound &+ 1..<range.upperBound &- 1])) {
      case .success(let address):
        writer.append(UInt8(ascii: "["))
        writeIPv6(address)
        writer.append(UInt8(ascii: "]"))
        url.hostKind = .ipv6
        return nil
      case .failure(let failure):
        return error(.invalidIPv6, range.lowerBound &+ 1 &+ failure.offset, failure.message)
      }
    }
    if !special {
      return parseOpaqueHost(range)
    }
    return parseDomain(range)
  }

  /// opaque-host parser.
  mutating func parseOpaqueHost(_ range: Range<Int>) -> URLParseError? {
    let forbidden = ByteSet.forbiddenHost
    for i in range where forbidden.contains(input[i]) {
      return error(
        .forbiddenHostCodePoint, i,
        "a host cannot contain \(describe(input[i])); percent-encode it or remove it")
    }
    writer.appendEncoding(range, .c0Control)
    url.hostKind = .opaque
    return nil
  }

  /// The domain steps of the host parser, for special URLs.
  mutating func parseDomain(_ range: Range<Int>) -> URLParseError? {
    // One pass sorts the common case (ASCII, no '%': domain to ASCII is lower-casing) from the rest.
    let attention = ByteSet.domainAttention
    var simple = true
    var hasUpper = false
    var firstForbidden = -1
    var i = range.lowerBound
    while i < range.upperBound {
      let b = input[i]
      if attention.contains(b) {
        if b &- 0x41 < 26 {
          hasUpper = true
        } else if b == UInt8(ascii: "%") || b >= 0x80 {
          // Not simple. (A forbidden ASCII byte seen so far may still vanish: "<" followed by U+0338
          // normalizes to U+226E in UTS #46.)
          simple = false
          break
        } else if firstForbidden < 0 {
          firstForbidden = i
        }
      }
      i &+= 1
    }
    let raw = UnsafeBufferPointer(rebasing: input[range])
    if simple {
      if firstForbidden >= 0 {
        let b = input[firstForbidden]
        return error(.forbiddenHostCodePoint, firstForbidden, "a domain cannot contain \(describe(b)); remove it")
      }
      // domain to ASCII of an ASCII domain is ASCII lower-casing: the web-platform-tests data (and the
      // browsers) keep ASCII labels as they are, "xn--" ones included, without Punycode validation.
      if endsInNumber(raw) {
        return writeIPv4(raw, at: range.lowerBound)
      }
      if hasUpper {
        writer.appendLowercased(range)
      } else {
        writer.appendInput(range)
      }
      url.hostKind = .domain
      return nil
    }
    // percent-decode, then domain to ASCII (ill-formed UTF-8 fails there, as U+FFFD would: UTS #46 disallows it).
    let decoded = percentDecoded(raw)
    var ascii: [UInt8]
    if decoded.allSatisfy({ $0 < 0x80 }) {
      ascii = decoded.map(asciiLowercased)
    } else {
      switch IDNA.mapping.toASCII(decoded) {
      case .success(let result): ascii = result
      case .failure(let message):
        return error(.invalidDomain, range.lowerBound, message.text)
      }
    }
    if ascii.isEmpty {
      return error(.invalidDomain, range.lowerBound, "the domain is empty after IDNA processing")
    }
    let forbidden = ByteSet.forbiddenDomain
    for b in ascii where forbidden.contains(b) {
      return error(
        .forbiddenHostCodePoint, range.lowerBound,
        "the domain contains \(describe(b)) after percent-decoding and IDNA processing; remove it")
    }
    return ascii.withUnsafeBufferPointer { ascii in
      if endsInNumber(ascii) {
        return writeIPv4(ascii, at: range.lowerBound)
      }
      writer.append(bytes: ascii)
      url.hostKind = .domain
      return nil
    }
  }
}

// MARK: - Pieces shared with tests

struct HostMessage: Error {
  var text: String
  init(_ text: String) { self.text = text }
}

/// percent-decode: "%XX" with two hex digits becomes the byte; anything else is kept.
func percentDecoded(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
  var out: [UInt8] = []
  out.reserveCapacity(input.count)
  var i = 0
  let n = input.count
  while i < n {
    let b = input[i]
    if b == UInt8(ascii: "%") && i &+ 2 < n && isASCIIHexDigit(input[i &+ 1]) && isASCIIHexDigit(input[i &+ 2]) {
      out.append(hexValue(input[i &+ 1]) &<< 4 | hexValue(input[i &+ 2]))
      i &+= 3
    } else {
      out.append(b)
      i &+= 1
    }
  }
  return out
}

/// A byte as a person would read it in a message.
func describe(_ b: UInt8) -> String {
  switch b {
  case 0x20: return "a space"
  case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(b)))'"
  default: return "byte 0x\(hex(b))"
  }
}
