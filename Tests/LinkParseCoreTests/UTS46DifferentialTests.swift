#if canImport(CICUShims)
import LinkParseTestSupport
import Testing

@_spi(Testing) @testable import LinkParseCore

/// The package's own UTS #46 ToASCII against ICU's (the system's ICU: 72, Unicode 15.0, on Debian 12) on
/// generated domains whose code points both Unicode versions assign (``IDNAOracle/pools``). Where the answers
/// differ for a reason a newer Unicode or UTS #46 version gives, the input holds one of
/// ``IDNAOracle/knownDifferences`` and is counted apart; every other difference fails the test.
@Suite("Core: own UTS #46 against ICU")
struct UTS46DifferentialTests {
  static func randomDomain(_ g: inout SplitMix64) -> [UInt8] {
    var s = String.UnicodeScalarView()
    if g.next() % 8 == 0 { s.append(contentsOf: "xn--".unicodeScalars) }
    let length = 1 &+ Int(g.next() % 8)
    for _ in 0..<length {
      let cp = IDNAOracle.pick(UInt8(truncatingIfNeeded: g.next()), UInt8(truncatingIfNeeded: g.next()))
      if let scalar = Unicode.Scalar(cp) { s.append(scalar) }
    }
    if g.next() % 2 == 0 { s.append(contentsOf: ".example".unicodeScalars) }
    return Array(String(s).utf8)
  }

  @Test func ownAnswersAsICU() {
    var g = SplitMix64(state: 0x1D4A_0046)
    var compared = 0
    var known = 0
    var differences: [String] = []
    for _ in 0..<5_000 {
      let domain = Self.randomDomain(&g)
      if IDNAOracle.holdsKnownDifference(domain) {
        known += 1
        continue
      }
      compared += 1
      if let difference = IDNAOracle.disagreement(domain) { differences.append(difference) }
    }
    print("own UTS #46 against ICU: \(compared) compared, \(known) skipped (known version differences), \(differences.count) differ")
    #expect(compared > 4_000)
    #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(40).joined(separator: "\n"))")
  }

  /// Each listed difference is one: ICU 72 answers otherwise than the package's tables.
  @Test func knownDifferencesDiffer() {
    for (cp, why) in IDNAOracle.knownDifferences.sorted(by: { $0.key < $1.key }) {
      guard let scalar = Unicode.Scalar(cp) else { continue }
      let domain = Array("a\(Character(scalar))b.example".utf8)
      let own = IDNAOracle.own(domain)
      let icu = IDNAOracle.icu(domain)
      #expect(own != icu, "U+\(String(cp, radix: 16)): \(why)")
    }
  }
}
#endif
