#if canImport(CICUShims)
import LinkParseTestSupport
import Testing

@testable import LinkParseCore

/// The package's own UTS #46 ToASCII against ICU's (the system's ICU: 72, Unicode 15.0, on Debian 12) on
/// generated domains whose code points both Unicode versions assign. Where the answers differ for a reason
/// the newer Unicode or UTS #46 version gives, the input holds one of ``knownDifferences`` and is counted
/// apart; every other difference fails the test.
@Suite("Core: own UTS #46 against ICU")
struct UTS46DifferentialTests {
  /// Code points whose UTS #46 treatment changed after Unicode 15.0 (the IDNA mapping table of 15.1, 16.0 and
  /// 17.0), each with what changed. An input holding one is not compared.
  static let knownDifferences: [UInt32: String] = [
    0x1E9E: "ẞ: mapped to \"ss\" until 15.1, then to ß (a deviation, kept)",
    0x04C0: "Ӏ: valid (lower case of itself) until 16.0, then mapped to ӏ U+04CF",
    0x2183: "Ↄ: valid until 16.0, then mapped to ↄ U+2184",
    0x180E: "MONGOLIAN VOWEL SEPARATOR: disallowed until 16.0, then ignored",
    0x206B: "ACTIVATE ARABIC FORM SHAPING (U+206A..U+206F): disallowed until 16.0, then ignored",
    0x206A: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206C: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206D: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206E: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206F: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x2061: "FUNCTION APPLICATION (U+2061..U+2063, invisible operators): disallowed until 16.0, then ignored",
    0x2062: "U+2061..U+2063: disallowed until 16.0, then ignored",
    0x2063: "U+2061..U+2063: disallowed until 16.0, then ignored",
    0x2F868: "CJK COMPATIBILITY IDEOGRAPH-2F868: mapped to U+36FC (㛼) from 16.0, disallowed before",
  ]

  /// Pools of code points that Unicode 15.0 already assigned (blocks complete since Unicode 6 or earlier),
  /// chosen to exercise mapping (upper case, fullwidth, compatibility forms), NFC (combining marks, Hangul),
  /// CONTEXTJ (joiners, viramas, Arabic joining types) and the Bidi Rule (Hebrew, Arabic, digits).
  static let pools: [ClosedRange<UInt32>] = [
    0x61...0x7A, 0x41...0x5A, 0x30...0x39, 0x2D...0x2D, 0x2E...0x2E,  // ASCII letters, digits, '-', '.'
    0xC0...0x17F,  // Latin-1 letters, Latin Extended-A
    0x300...0x36F,  // combining diacritics
    0x391...0x3C9,  // Greek
    0x410...0x44F,  // Cyrillic
    0x5D0...0x5EA, 0x5B0...0x5BD,  // Hebrew letters and points
    0x620...0x64A, 0x660...0x669, 0x6F0...0x6F9, 0x64B...0x652,  // Arabic letters, digits, marks
    0x915...0x939, 0x93E...0x94D,  // Devanagari, virama
    0xE01...0xE30,  // Thai
    0x200C...0x200D,  // ZWNJ, ZWJ
    0x3002...0x3002, 0xFF0E...0xFF0E,  // full stops that map to '.'
    0xFF21...0xFF3A,  // fullwidth capitals
    0xAC00...0xAC40, 0x1100...0x1112, 0x1161...0x1175,  // Hangul syllables and jamo
    0x4E00...0x4E40,  // CJK
    0x2160...0x216F,  // Roman numerals (mapped)
    0xFB00...0xFB06,  // Latin ligatures (mapped)
    0x1D400...0x1D433,  // mathematical bold letters (mapped)
    0x2000...0x206F,  // general punctuation: spaces, joiners, bidi controls (some known differences)
  ]

  static func randomDomain(_ g: inout SplitMix64) -> [UInt8] {
    var s = String.UnicodeScalarView()
    if g.next() % 8 == 0 { s.append(contentsOf: "xn--".unicodeScalars) }
    let length = 1 &+ Int(g.next() % 8)
    for _ in 0..<length {
      let pool = pools[Int(g.next() % UInt64(pools.count))]
      let cp = pool.lowerBound &+ UInt32(g.next() % UInt64(pool.count))
      if let scalar = Unicode.Scalar(cp) { s.append(scalar) }
    }
    if g.next() % 2 == 0 { s.append(contentsOf: ".example".unicodeScalars) }
    return Array(String(s).utf8)
  }

  @Test func ownAnswersAsICU() {
    let icu = ICUDomainToASCII()
    let own = UTS46DomainToASCII()
    var g = SplitMix64(state: 0x1D4A_0046)
    var compared = 0
    var known = 0
    var differences: [String] = []
    for _ in 0..<5_000 {
      let domain = Self.randomDomain(&g)
      let text = String(decoding: domain, as: UTF8.self)
      if text.unicodeScalars.contains(where: { Self.knownDifferences[$0.value] != nil }) {
        known += 1
        continue
      }
      compared += 1
      let a = own.toASCII(domain)
      let b = icu.toASCII(domain)
      switch (a, b) {
      case (.success(let x), .success(let y)) where x == y: break
      case (.failure, .failure): break
      default:
        let escaped = text.unicodeScalars.map { $0.value < 0x80 ? String($0) : "\\u{\(String($0.value, radix: 16))}" }
        differences.append("\(escaped.joined()): own \(Self.show(a)), ICU \(Self.show(b))")
      }
    }
    print("own UTS #46 against ICU: \(compared) compared, \(known) skipped (known version differences), \(differences.count) differ")
    #expect(compared > 4_000)
    #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(40).joined(separator: "\n"))")
  }

  /// Each listed difference is one: ICU 72 answers otherwise than the package's tables.
  @Test func knownDifferencesDiffer() {
    let icu = ICUDomainToASCII()
    let own = UTS46DomainToASCII()
    for (cp, why) in Self.knownDifferences.sorted(by: { $0.key < $1.key }) {
      let domain = Array("a\(Character(Unicode.Scalar(cp)!))b.example".utf8)
      let a = own.toASCII(domain)
      let b = icu.toASCII(domain)
      #expect(Self.show(a) != Self.show(b) && !(a.isFailure && b.isFailure), "U+\(String(cp, radix: 16)): \(why)")
    }
  }

  static func show(_ r: Result<[UInt8], HostMessage>) -> String {
    switch r {
    case .success(let bytes): return "\"\(String(decoding: bytes, as: UTF8.self))\""
    case .failure(let message): return "failure (\(message.text))"
    }
  }
}

extension Result {
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
#endif
