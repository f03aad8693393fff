// IP addresses in hosts: the IPv6 parser (inside brackets), the "ends in a number" check and the IPv4 parser
// for domains, and the serializers of both.

import LinkParseBytes

extension URLStateMachine {

  /// Parses an ASCII domain that ends in a number as IPv4 and writes it.
  mutating func writeIPv4(_ domain: UnsafeBufferPointer<UInt8>, at offset: Int) -> URLParseError? {
    switch parseIPv4(domain) {
    case .success(let address):
      writer.appendDecimal(address >> 24)
      writer.append(UInt8(ascii: "."))
      writer.appendDecimal((address >> 16) & 0xFF)
      writer.append(UInt8(ascii: "."))
      writer.appendDecimal((address >> 8) & 0xFF)
      writer.append(UInt8(ascii: "."))
      writer.appendDecimal(address & 0xFF)
      url.hostKind = .ipv4
      return nil
    case .failure(let message):
      return error(.invalidIPv4, offset, message.text)
    }
  }

  mutating func writeIPv6(_ address: IPv6Address) {
    // The first longest run of two or more zero pieces is compressed to "::".
    var bestStart = -1
    var bestLength = 1
    var i = 0
    while i < 8 {
      if address[i] == 0 {
        var j = i
        while j < 8 && address[j] == 0 { j &+= 1 }
        if j &- i > bestLength {
          bestStart = i
          bestLength = j &- i
        }
        i = j
      } else {
        i &+= 1
      }
    }
    i = 0
    while i < 8 {
      if i == bestStart {
        writer.append(i == 0 ? "::" : ":")
        i &+= bestLength
        continue
      }
      let piece = address[i]
      var started = false
      for shift in stride(from: 12, through: 0, by: -4) {
        let nibble = UInt8(truncatingIfNeeded: piece >> UInt16(shift)) & 0xF
        if nibble != 0 || started || shift == 0 {
          started = true
          writer.append(nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x57)
        }
      }
      if i != 7 { writer.append(UInt8(ascii: ":")) }
      i &+= 1
    }
  }
}

/// Eight 16-bit pieces.
struct IPv6Address {
  var pieces = SIMD8<UInt16>()
  subscript(i: Int) -> UInt16 {
    get { pieces[i] }
    set { pieces[i] = newValue }
  }
}

struct HostFailure: Error {
  var offset: Int
  var message: String
}

/// The IPv6 parser (https://url.spec.whatwg.org/#concept-ipv6-parser), over the text inside the brackets.
func parseIPv6(_ input: UnsafeBufferPointer<UInt8>) -> Result<IPv6Address, HostFailure> {
  var address = IPv6Address()
  var pieceIndex = 0
  var compress: Int? = nil
  var p = 0
  let end = input.count
  func c(_ i: Int) -> UInt8? { i < end ? input[i] : nil }
  func fail(_ message: String) -> Result<IPv6Address, HostFailure> {
    .failure(HostFailure(offset: Swift.min(p, end), message: message))
  }

  if c(p) == UInt8(ascii: ":") {
    guard c(p &+ 1) == UInt8(ascii: ":") else { return fail("an IPv6 address cannot start with a single ':'") }
    p &+= 2
    pieceIndex &+= 1
    compress = pieceIndex
  }
  while let ch = c(p) {
    if pieceIndex == 8 { return fail("an IPv6 address has at most 8 pieces") }
    if ch == UInt8(ascii: ":") {
      if compress != nil { return fail("an IPv6 address can contain '::' only once") }
      p &+= 1
      pieceIndex &+= 1
      compress = pieceIndex
      continue
    }
    var value: UInt16 = 0
    var length = 0
    while length < 4, let h = c(p), isASCIIHexDigit(h) {
      value = value &* 0x10 &+ UInt16(hexValue(h))
      p &+= 1
      length &+= 1
    }
    if c(p) == UInt8(ascii: ".") {
      if length == 0 { return fail("an embedded IPv4 address must start with a digit") }
      p &-= length
      if pieceIndex > 6 { return fail("an embedded IPv4 address does not fit after 6 pieces") }
      var numbersSeen = 0
      while c(p) != nil {
        var ipv4Piece: Int? = nil
        if numbersSeen > 0 {
          if c(p) == UInt8(ascii: ".") && numbersSeen < 4 {
            p &+= 1
          } else {
            return fail("an embedded IPv4 address has four numbers separated by '.'")
          }
        }
        guard let d = c(p), isASCIIDigit(d) else {
          return fail("an embedded IPv4 address may contain only digits and '.'")
        }
        while let d = c(p), isASCIIDigit(d) {
          let number = Int(d &- 0x30)
          if ipv4Piece == nil {
            ipv4Piece = number
          } else if ipv4Piece == 0 {
            return fail("a number of an embedded IPv4 address cannot start with 0")
          } else {
            ipv4Piece = ipv4Piece! &* 10 &+ number
          }
          if ipv4Piece! > 255 { return fail("a number of an embedded IPv4 address is greater than 255") }
          p &+= 1
        }
        address[pieceIndex] = address[pieceIndex] &* 0x100 &+ UInt16(ipv4Piece!)
        numbersSeen &+= 1
        if numbersSeen == 2 || numbersSeen == 4 { pieceIndex &+= 1 }
      }
      if numbersSeen != 4 { return fail("an embedded IPv4 address needs four numbers") }
      break
    } else if c(p) == UInt8(ascii: ":") {
      p &+= 1
      if c(p) == nil { return fail("an IPv6 address cannot end with a single ':'") }
    } else if c(p) != nil {
      return fail("an IPv6 piece has at most four hex digits, separated by ':'")
    }
    address[pieceIndex] = value
    pieceIndex &+= 1
  }
  if let compress {
    var swaps = pieceIndex &- compress
    pieceIndex = 7
    while pieceIndex != 0 && swaps > 0 {
      let other = compress &+ swaps &- 1
      let t = address[pieceIndex]
      address[pieceIndex] = address[other]
      address[other] = t
      pieceIndex &-= 1
      swaps &-= 1
    }
  } else if pieceIndex != 8 {
    return fail("an IPv6 address without '::' needs 8 pieces")
  }
  return .success(address)
}

/// ends in a number checker.
func endsInNumber(_ domain: UnsafeBufferPointer<UInt8>) -> Bool {
  var end = domain.count
  if end > 0 && domain[end &- 1] == UInt8(ascii: ".") {
    end &-= 1
  }
  var start = end
  while start > 0 && domain[start &- 1] != UInt8(ascii: ".") { start &-= 1 }
  if start == end { return false }
  var allDigits = true
  for i in start..<end where !isASCIIDigit(domain[i]) {
    allDigits = false
    break
  }
  if allDigits { return true }
  // "0x" followed by hex digits (or nothing) parses as an IPv4 number too.
  guard end &- start >= 2, domain[start] == UInt8(ascii: "0"), domain[start &+ 1] | 0x20 == UInt8(ascii: "x")
  else { return false }
  for i in (start &+ 2)..<end where !isASCIIHexDigit(domain[i]) { return false }
  return true
}

/// The IPv4 parser (https://url.spec.whatwg.org/#concept-ipv4-parser).
func parseIPv4(_ domain: UnsafeBufferPointer<UInt8>) -> Result<UInt32, HostMessage> {
  var end = domain.count
  if end > 0 && domain[end &- 1] == UInt8(ascii: ".") && end > 1 {
    end &-= 1  // a trailing dot ends the last part
  }
  var numbers = SIMD4<UInt64>()
  var count = 0
  var start = 0
  while true {
    var partEnd = start
    while partEnd < end && domain[partEnd] != UInt8(ascii: ".") { partEnd &+= 1 }
    if count == 4 { return .failure(HostMessage("an IPv4 address has at most four parts")) }
    guard let number = parseIPv4Number(UnsafeBufferPointer(rebasing: domain[start..<partEnd])) else {
      return .failure(HostMessage("each part of an IPv4 address must be a decimal, octal (0…) or hex (0x…) number"))
    }
    numbers[count] = number
    count &+= 1
    if partEnd >= end { break }
    start = partEnd &+ 1
  }
  var ipv4: UInt64 = 0
  for i in 0..<(count &- 1) {
    if numbers[i] > 255 { return .failure(HostMessage("each part of an IPv4 address but the last must be at most 255")) }
    ipv4 &+= numbers[i] << UInt64(8 &* (3 &- i))
  }
  let last = numbers[count &- 1]
  if last >= UInt64(1) << UInt64(8 &* (5 &- count)) {
    return .failure(HostMessage("the IPv4 address is out of range"))
  }
  return .success(UInt32(truncatingIfNeeded: ipv4 &+ last))
}

/// The IPv4 number parser; saturates above 2^40 (any such number is out of range anyway).
func parseIPv4Number(_ input: UnsafeBufferPointer<UInt8>) -> UInt64? {
  if input.isEmpty { return nil }
  var start = 0
  var radix: UInt64 = 10
  if input.count >= 2 && input[0] == UInt8(ascii: "0") && input[1] | 0x20 == UInt8(ascii: "x") {
    radix = 16
    start = 2
  } else if input.count >= 2 && input[0] == UInt8(ascii: "0") {
    radix = 8
    start = 1
  }
  var value: UInt64 = 0
  for i in start..<input.count {
    let b = input[i]
    let digit: UInt64
    switch radix {
    case 16:
      guard isASCIIHexDigit(b) else { return nil }
      digit = UInt64(hexValue(b))
    case 8:
      guard b &- 0x30 < 8 else { return nil }
      digit = UInt64(b &- 0x30)
    default:
      guard isASCIIDigit(b) else { return nil }
      digit = UInt64(b &- 0x30)
    }
    value = Swift.min(value &* radix &+ digit, UInt64(1) << 40)
  }
  return value
}
