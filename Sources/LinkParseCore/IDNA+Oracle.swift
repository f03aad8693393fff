// ICU as the differential oracle of the package's own UTS #46 (the Core tests and the `idna` fuzz target):
// where they may be compared, and what they may disagree on. Testing SPI, not API; ICU's side is compiled only
// where the `CICUShims` target is linked.

/// The package's own UTS #46 ToASCII against ICU's, on domains whose code points ICU's Unicode version assigns.
///
/// ```swift
/// IDNAOracle.disagreement(Array("bücher.example".utf8))  // nil: both answer "xn--bcher-kva.example"
/// ```
@_spi(Testing)
public enum IDNAOracle {
  /// (Besides these code points, one rule: see ``disagreement(_:assignedOnly:)``.)
  ///
  /// Code points whose UTS #46 treatment changed after Unicode 15.0 (ICU 72, Debian 12), up to the package's
  /// tables (Unicode 17.0), each with what changed. A domain holding one is not compared.
  public static let knownDifferences: [UInt32: String] = [
    0x1E9E: "ẞ: mapped to \"ss\" until 15.1, then to ß (a deviation, kept)",
    0x04C0: "Ӏ: valid (lower case of itself) until 16.0, then mapped to ӏ U+04CF",
    0x2183: "Ↄ: valid until 16.0, then mapped to ↄ U+2184",
    0x180E: "MONGOLIAN VOWEL SEPARATOR: disallowed until 16.0, then ignored",
    0x2061: "FUNCTION APPLICATION (U+2061..U+2063, invisible operators): disallowed until 16.0, then ignored",
    0x2062: "U+2061..U+2063: disallowed until 16.0, then ignored",
    0x2063: "U+2061..U+2063: disallowed until 16.0, then ignored",
    0x206A: "U+206A..U+206F (deprecated format characters): disallowed until 16.0, then ignored",
    0x206B: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206C: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206D: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206E: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x206F: "U+206A..U+206F: disallowed until 16.0, then ignored",
    0x2F868: "CJK COMPATIBILITY IDEOGRAPH-2F868: disallowed until 16.0, then mapped to U+36FC",
  ]

  /// Pools of code points that Unicode 15.0 already assigned (blocks complete since Unicode 6 or earlier),
  /// chosen to exercise mapping (upper case, fullwidth, compatibility forms), NFC (combining marks, Hangul),
  /// CONTEXTJ (joiners, viramas, Arabic joining types) and the Bidi Rule (Hebrew, Arabic, digits).
  public static let pools: [ClosedRange<UInt32>] = [
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

  /// The code point that two bytes pick from ``pools``: the first chooses the pool, the second the offset.
  public static func pick(_ pool: UInt8, _ offset: UInt8) -> UInt32 {
    let range = pools[Int(pool) % pools.count]
    return range.lowerBound &+ UInt32(offset) % UInt32(range.count)
  }

  /// The package's own answer (the ASCII domain, or `nil` for failure).
  public static func own(_ domain: [UInt8]) -> [UInt8]? {
    try? UTS46DomainToASCII().toASCII(domain).get()
  }

  /// Whether `domain` holds one of ``knownDifferences`` (ill-formed UTF-8 is read with U+FFFD, as both do).
  public static func holdsKnownDifference(_ domain: [UInt8]) -> Bool {
    String(decoding: domain, as: UTF8.self).unicodeScalars.contains { knownDifferences[$0.value] != nil }
  }

  #if canImport(CICUShims)
  /// ICU's answer (the ASCII domain, or `nil` for failure).
  public static func icu(_ domain: [UInt8]) -> [UInt8]? {
    try? ICUDomainToASCII().toASCII(domain).get()
  }

  /// How the two answers for `domain` differ, or `nil` when they agree or the domain holds a known
  /// difference. With `assignedOnly` false the domain may hold code points ICU's Unicode does not assign, so
  /// only an answer of ICU's is checked (a success of ICU must be the package's too: both versions assign its
  /// code points); with `assignedOnly` true a failure must be shared as well.
  public static func disagreement(_ domain: [UInt8], assignedOnly: Bool = true) -> String? {
    if holdsKnownDifference(domain) { return nil }
    let a = own(domain)
    let b = icu(domain)
    if a == b || (!assignedOnly && b == nil) { return nil }
    // UTS #46 15.1 added a validity criterion ICU 72 predates: with CheckHyphens off, a label must not start
    // with "xn--" (an xn-- label that decodes to one, "xn--xn--…", is refused).
    // And the package's own bound: a label longer than `UTS46DomainToASCII.longestPunycodeLabel` code points
    // is refused (it keeps Punycode's cost linear in the host), where ICU encodes it.
    if a == nil, b != nil, case .failure(let why) = UTS46DomainToASCII().toASCII(domain),
      why.text == UTS46DomainToASCII.startsWithACEPrefix || why.text.contains("longer than")
        || why.text.contains("more than")
    {
      return nil
    }
    let escaped = String(decoding: domain, as: UTF8.self).unicodeScalars.map {
      $0.value < 0x80 ? String($0) : "\\u{\(String($0.value, radix: 16))}"
    }
    func show(_ r: [UInt8]?) -> String { r.map { "\"\(String(decoding: $0, as: UTF8.self))\"" } ?? "failure" }
    return "\(escaped.joined()): own \(show(a)), ICU \(show(b))"
  }
  #endif
}
