import LinkParseTestSupport
import Testing

@testable import LinkParseCore

/// The package's own UTS #46 ToASCII (``UTS46DomainToASCII``): its pieces (Punycode, NFC), hostile input, and
/// ICU's answers as the oracle where ICU is linked.
@Suite("Core: the package's own UTS #46")
struct UTS46Tests {
  static let own = UTS46DomainToASCII()

  static func ascii(_ s: String) -> Result<String, HostMessage> {
    own.toASCII(Array(s.utf8)).map { String(decoding: $0, as: UTF8.self) }
  }

  static func succeeds(_ s: String, _ expected: String) -> Bool {
    if case .success(let got) = ascii(s) { return got == expected }
    return false
  }

  static func fails(_ s: String) -> Bool {
    if case .failure = ascii(s) { return true }
    return false
  }

  /// RFC 3492 section 7.1's samples (A, B, L) both ways.
  @Test(arguments: [
    ("\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}", "egbpdaj6bu4bxfgehfvwxn"),
    ("\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}", "ihqwcrb4cv8a8dqg056pqjye"),
    ("3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}", "3B-ww4c5e180e575a65lsy2b"),
  ])
  func punycodeSamples(_ unicode: String, _ encoded: String) {
    var out: [UInt8] = []
    let scalars = unicode.unicodeScalars.map(\.value)
    #expect(scalars.withUnsafeBufferPointer { Punycode.encode($0, into: &out) })
    #expect(String(decoding: out, as: UTF8.self) == encoded)
    #expect(Punycode.decode(encoded.unicodeScalars.map(\.value)) == scalars)
  }

  @Test func punycodeOverflowAndBadDigitsFail() {
    #expect(Punycode.decode(Array("99999999999999999999".unicodeScalars.map(\.value))) == nil)
    #expect(Punycode.decode(Array("a=".unicodeScalars.map(\.value))) == nil)
    #expect(Punycode.decode(Array("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz".unicodeScalars.map(\.value))) == nil)
  }

  @Test func mappingNFCAndValidity() {
    #expect(Self.succeeds("Bücher.example", "xn--bcher-kva.example"))
    #expect(Self.succeeds("u\u{0308}ber.example", "xn--ber-goa.example"))  // NFC composes u + U+0308
    #expect(Self.succeeds("faß.de", "xn--fa-hia.de"))  // a deviation, kept (nontransitional)
    // NFC decomposes a precomposed letter below U+0300 (ũ) too, so the mark below composes with its base
    // and the tilde moves after the marks of lower class (found by the idna fuzz target).
    #expect(Self.succeeds("\u{0169}\u{0337}\u{0330}.example", "xn--nsa7hr58f.example"))
    #expect(Self.succeeds("\u{0E01}aaa\u{0341}\u{0168}\u{0337}\u{0330}", "xn--aa-nia89sohu50drf1a"))
    #expect(Self.succeeds("ＡＢＣ。ｄｅ", "abc.de"))  // fullwidth letters and the ideographic full stop map
    #expect(Self.succeeds("a\u{00AD}b.de", "ab.de"))  // ignored
    #expect(Self.succeeds("한국.kr", "xn--3e0b707e.kr"))
    #expect(Self.succeeds("xn--bcher-kva.example", "xn--bcher-kva.example"))
    #expect(Self.fails("xn--a.example"))  // decodes to U+0080, not valid
    #expect(Self.fails("xn--.example"))  // empty
    #expect(Self.fails("xn--abc-.example"))  // ASCII only
    #expect(Self.fails("\u{0301}a.example"))  // a combining mark first
    #expect(Self.fails("a\u{200D}b.example"))  // ZWJ without a virama
    #expect(!Self.fails("\u{0915}\u{094D}\u{200D}.example"))  // ZWJ after a virama
    #expect(!Self.fails("\u{05D0}1.example"))  // an RTL label may end in a digit, but...
    #expect(Self.fails("1.\u{05D0}"))  // ... in a bidi domain a label may not start with a digit
    #expect(Self.fails("a\u{E000}b"))  // private use: disallowed
  }

  // MARK: - Hostile input

  /// Invalid UTF-8 (a lone surrogate encoded as three bytes, a truncated sequence, an overlong form, a value
  /// beyond U+10FFFF) is a typed failure, not a trap.
  @Test(arguments: [[0xED, 0xA0, 0x80], [0xE2, 0x82], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xFF]] as [[UInt8]])
  func invalidUTF8Fails(_ bytes: [UInt8]) {
    let domain = Array("a".utf8) + bytes + Array("b.example".utf8)
    guard case .failure(let message) = Self.own.toASCII(domain) else {
      Issue.record("expected a failure")
      return
    }
    #expect(message.text.contains("UTF-8"))
    #expect(throws: URLParseError.self) { try ParsedURL(utf8: Array("https://".utf8) + domain + Array("/x".utf8)) }
  }

  /// A 1 MB host, 10,000 labels, a 1 MB label of combining marks (NFC ordering) and long Punycode labels:
  /// each a result or a typed failure (the cost is linear: these run in well under a second).
  @Test func hugeHosts() {
    let megabyteLabel = String(repeating: "ж", count: 500_000)  // 1 MB of UTF-8, one label
    #expect(Self.fails(megabyteLabel + ".рф"))  // longer than Punycode takes
    let manyLabels = Array(repeating: "ж", count: 10_000).joined(separator: ".")
    guard case .success(let many) = Self.ascii(manyLabels) else {
      Issue.record("10,000 labels should map")
      return
    }
    #expect(many.split(separator: ".").count == 10_000 && many.hasPrefix("xn--f1a.xn--f1a."))
    let marks = "a" + String(repeating: "\u{0316}\u{0301}", count: 250_000) + ".example"
    #expect(Self.fails(marks))  // NFC reorders 500,000 marks; the label is then too long for Punycode
    let megabyteASCII = String(repeating: "a", count: 1_000_000) + ".ж"
    if case .success(let long) = Self.ascii(megabyteASCII) {
      #expect(long.utf8.count == 1_000_000 + ".xn--f1a".utf8.count)
    } else {
      Issue.record("a 1 MB ASCII label with a non-ASCII one should map")
    }
    // The longest label Punycode takes maps to an xn-- label that maps to itself (found by the idna fuzz
    // target: the encoded label is longer than the bound on code points).
    let longest = String(repeating: "\u{1D400}\u{4E00}\u{E9}", count: 85)  // 255 code points after mapping
    if case .success(let encoded) = Self.ascii(longest) {
      #expect(encoded.utf8.count > UTS46DomainToASCII.longestPunycodeLabel)
      #expect(Self.succeeds(encoded, encoded))
    } else {
      Issue.record("a label of 255 code points should map")
    }
    let url = "https://" + String(repeating: "ж.", count: 10_000) + "рф/x"
    #expect((try? ParsedURL(url))?.host?.hasSuffix("xn--f1a.xn--p1ai") == true)
  }

  /// Every code point of planes 0 and 1, alone between two letters: a result or a typed failure, and a
  /// success is ASCII.
  @Test func everyCodePointOfPlanesZeroAndOne() {
    var succeeded = 0
    for cp in UInt32(0)..<0x2_0000 {
      guard let scalar = Unicode.Scalar(cp) else { continue }
      switch Self.own.toASCII(Array("a\(Character(scalar))b".utf8)) {
      case .success(let ascii):
        succeeded += 1
        #expect(ascii.allSatisfy { $0 < 0x80 })
      case .failure: break
      }
    }
    #expect(succeeded > 50_000)
  }
}
