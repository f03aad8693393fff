// The host parser (https://url.spec.whatwg.org/#host-parsing): IPv6 in brackets, opaque hosts of
// non-special URLs, and domains — percent-decoded, mapped through UTS #46 (ICU), checked for forbidden code
// points, and read as IPv4 when they end in a number.

internal import CICUShims

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

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
    // percent-decode, UTF-8 decode (ICU treats ill-formed UTF-8 as U+FFFD, which UTS #46 disallows).
    let decoded = percentDecoded(raw)
    var ascii: [UInt8]
    if decoded.allSatisfy({ $0 < 0x80 }) {
      ascii = decoded.map(asciiLowercased)
    } else {
      switch domainToASCII(decoded) {
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

// MARK: - Pieces shared with tests

/// Eight 16-bit pieces.
struct IPv6Address {
  var pieces: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0, 0, 0, 0, 0)
  subscript(i: Int) -> UInt16 {
    get { withUnsafeBytes(of: pieces) { $0.load(fromByteOffset: i &* 2, as: UInt16.self) } }
    set { withUnsafeMutableBytes(of: &pieces) { $0.storeBytes(of: newValue, toByteOffset: i &* 2, as: UInt16.self) } }
  }
}

struct HostMessage: Error {
  var text: String
  init(_ text: String) { self.text = text }
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
  var numbers: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  var count = 0
  var start = 0
  while true {
    var partEnd = start
    while partEnd < end && domain[partEnd] != UInt8(ascii: ".") { partEnd &+= 1 }
    if count == 4 { return .failure(HostMessage("an IPv4 address has at most four parts")) }
    guard let number = parseIPv4Number(UnsafeBufferPointer(rebasing: domain[start..<partEnd])) else {
      return .failure(HostMessage("each part of an IPv4 address must be a decimal, octal (0…) or hex (0x…) number"))
    }
    withUnsafeMutableBytes(of: &numbers) { $0.storeBytes(of: number, toByteOffset: count &* 8, as: UInt64.self) }
    count &+= 1
    if partEnd >= end { break }
    start = partEnd &+ 1
  }
  return withUnsafeBytes(of: numbers) { raw -> Result<UInt32, HostMessage> in
    func n(_ i: Int) -> UInt64 { raw.load(fromByteOffset: i &* 8, as: UInt64.self) }
    var ipv4: UInt64 = 0
    for i in 0..<(count &- 1) {
      if n(i) > 255 { return .failure(HostMessage("each part of an IPv4 address but the last must be at most 255")) }
      ipv4 &+= n(i) << UInt64(8 &* (3 &- i))
    }
    let last = n(count &- 1)
    if last >= UInt64(1) << UInt64(8 &* (5 &- count)) {
      return .failure(HostMessage("the IPv4 address is out of range"))
    }
    return .success(UInt32(truncatingIfNeeded: ipv4 &+ last))
  }
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

/// UTS #46 ToASCII with the URL Standard's options, through ICU; the answers for the last few distinct
/// domains are kept (``IDNACache``).
func domainToASCII(_ domain: [UInt8]) -> Result<[UInt8], HostMessage> {
  if let cached = IDNACache.shared.answer(for: domain) { return cached }
  let answer = icuDomainToASCII(domain)
  IDNACache.shared.keep(answer, for: domain)
  return answer
}

/// The answers of ``domainToASCII(_:)`` for the last domains asked: 32 sets of two, the set chosen by a hash of
/// the domain, each set holding its two most recently used domains (a new domain replaces the less recent
/// one), under a lock.
///
/// A callback's host repeats from one URL to the next (a shop's `магазин.рф`), and ICU's UTS #46 pass costs
/// about 4,000 instructions where a hit costs a hash, a comparison and a copy. The function is
/// deterministic, so a hit answers exactly as ICU would. Two ways per set: with one, two hosts in turn whose
/// hashes met (`магазин.рф` and `bücher.example` do) replaced each other and missed every time. Bounded: 64
/// domains of at most 255 bytes (longer ones are not kept), whatever the input.
final class IDNACache: @unchecked Sendable {
  // @unchecked: `slots` is only read and written with `lock` held.
  static let shared = IDNACache()

  private struct Slot {
    var domain: [UInt8]
    var answer: Result<[UInt8], HostMessage>
  }

  private static let sets = 32
  private static let longestKept = 255
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  /// Set `k` is `slots[2k]` (its most recently used domain) and `slots[2k + 1]`.
  private var slots: [Slot?]

  /// An empty cache (``shared`` serves the parser; tests make their own).
  init() {
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
    slots = Array(repeating: nil, count: 2 &* Self.sets)
  }

  /// The first slot of `domain`'s set.
  private static func set(_ domain: [UInt8]) -> Int {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in domain { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return (Int(truncatingIfNeeded: h ^ (h &>> 32)) & (sets - 1)) &* 2
  }

  func answer(for domain: [UInt8]) -> Result<[UInt8], HostMessage>? {
    guard domain.count <= Self.longestKept else { return nil }
    let k = Self.set(domain)
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    if let first = slots[k], first.domain == domain { return first.answer }
    guard let second = slots[k &+ 1], second.domain == domain else { return nil }
    slots.swapAt(k, k &+ 1)  // now the most recently used
    return second.answer
  }

  func keep(_ answer: Result<[UInt8], HostMessage>, for domain: [UInt8]) {
    guard domain.count <= Self.longestKept else { return }
    let k = Self.set(domain)
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    if let first = slots[k], first.domain == domain { return }  // kept by another thread meanwhile
    slots[k &+ 1] = slots[k]
    slots[k] = Slot(domain: domain, answer: answer)
  }

  /// Whether two domains fall in the same set (for tests).
  func sameSet(_ a: [UInt8], _ b: [UInt8]) -> Bool { Self.set(a) == Self.set(b) }

  /// Whether `domain`'s answer is kept (for tests).
  func holds(_ domain: [UInt8]) -> Bool {
    let k = Self.set(domain)
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return slots[k]?.domain == domain || slots[k &+ 1]?.domain == domain
  }
}

/// UTS #46 ToASCII with the URL Standard's options, through ICU.
func icuDomainToASCII(_ domain: [UInt8]) -> Result<[UInt8], HostMessage> {
  if domain.isEmpty { return .failure(HostMessage("the domain is empty")) }
  var capacity = Swift.max(64, domain.count &* 4 &+ 16)
  while true {
    var out = [UInt8](repeating: 0, count: capacity)
    var outLength: Int32 = 0
    var errors: UInt32 = 0
    let rc = domain.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        src.withMemoryRebound(to: CChar.self) { s in
          dst.withMemoryRebound(to: CChar.self) { d in
            linkparse_idna_to_ascii(
              s.baseAddress, Int32(s.count), d.baseAddress, Int32(d.count), &outLength, &errors)
          }
        }
      }
    }
    switch Int(rc) {
    case Int(LINKPARSE_IDNA_OK):
      out.removeLast(capacity &- Int(outLength))
      return .success(out)
    case Int(LINKPARSE_IDNA_BUFFER_TOO_SMALL):
      capacity = Int(outLength) &+ 1
    case Int(LINKPARSE_IDNA_INVALID):
      return .failure(HostMessage("the domain is not valid under UTS #46 (IDNA): \(describeIDNAErrors(errors))"))
    default:
      return .failure(HostMessage("IDNA processing failed inside ICU"))
    }
  }
}

func describeIDNAErrors(_ errors: UInt32) -> String {
  let names: [(UInt32, String)] = [
    (0x40, "a label starts with a combining mark"),
    (0x80, "it contains a disallowed code point"),
    (0x100, "a label is not valid Punycode"),
    (0x200, "a label contains a dot"),
    (0x400, "an xn-- label does not round-trip"),
    (0x800, "it breaks the bidirectional rule"),
    (0x1000, "a zero-width joiner is out of context"),
  ]
  let found = names.filter { errors & $0.0 != 0 }.map(\.1)
  return found.isEmpty ? "error bits 0x\(String(errors, radix: 16))" : found.joined(separator: "; ")
}

/// A byte as a person would read it in a message.
func describe(_ b: UInt8) -> String {
  switch b {
  case 0x20: return "a space"
  case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(b)))'"
  default: return "byte 0x\(hex(b))"
  }
}
