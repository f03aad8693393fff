import LinkParseTestSupport
import Testing
import LinkParseBytes
@_spi(Bytes) @testable import LinkParseCore

/// A straightforward byte-based implementation of the URL Standard's application/x-www-form-urlencoded
/// parser, used as a reference: returns the percent-decoded (not yet UTF-8 decoded) name and value bytes.
private func referenceParse(_ bytes: [UInt8], form: Bool = true) -> [(name: [UInt8], value: [UInt8])] {
  func hex(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    default: return nil
    }
  }
  func decode(_ s: ArraySlice<UInt8>) -> [UInt8] {
    let s = form ? s.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 } : Array(s)
    var out: [UInt8] = []
    var i = 0
    while i < s.count {
      if s[i] == UInt8(ascii: "%"), i + 2 < s.count, let h = hex(s[i + 1]), let l = hex(s[i + 2]) {
        out.append(h << 4 | l)
        i += 3
      } else {
        out.append(s[i])
        i += 1
      }
    }
    return out
  }
  return bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { sequence in
    if let eq = sequence.firstIndex(of: UInt8(ascii: "=")) {
      return (decode(sequence[..<eq]), decode(sequence[(eq + 1)...]))
    }
    return (decode(sequence[...]), [])
  }
}

private func pairs(_ params: FormParameters, _ encoding: FormParameters.Encoding = .form) -> [[String?]] {
  params.map { [$0.name(encoding), $0.value(encoding)] }
}

@Suite struct FormParametersTests {

  // MARK: Splitting

  @Test func orderAndDuplicatesAreKept() {
    let params = FormParameters("b=2&a=1&b=3&c=&b")
    #expect(params.map(\.rawName) == ["b", "a", "b", "c", "b"])
    #expect(params.map(\.rawValue) == ["2", "1", "3", "", nil])
    #expect(params.count == 5)
    #expect(params.value(for: "b") == "2")
    #expect(params.values(for: "b") == ["2", "3", ""])
    #expect(params.all(named: "b").map(\.rawValue) == ["2", "3", nil])
  }

  @Test func bareNameVersusEmptyValue() {
    let params = FormParameters("cancelled&code=&state=s")
    let cancelled = params.first(named: "cancelled")
    #expect(cancelled?.rawValue == nil)
    #expect(cancelled?.value() == nil)
    #expect(params.value(for: "cancelled") == nil)
    #expect(params.contains(named: "cancelled"))
    #expect(params.values(for: "cancelled") == [""])

    let code = params.first(named: "code")
    #expect(code?.rawValue == "")
    #expect(code?.value() == "")
    #expect(params.value(for: "code") == "")
    #expect(params.contains(named: "code"))

    #expect(!params.contains(named: "missing"))
    #expect(params.value(for: "missing") == nil)
    #expect(params.values(for: "missing") == [])
  }

  @Test(arguments: [
    ("", 0), ("&", 0), ("&&&", 0), ("&&a=1&", 1), ("a", 1), ("=", 1), ("&=&", 1), ("a&b&&c", 3),
  ])
  func emptySequencesAreSkipped(source: String, expected: Int) {
    let params = FormParameters(source)
    #expect(params.count == expected)
    #expect(params.isEmpty == (expected == 0))
    #expect(Array(params).count == expected)
  }

  @Test func emptySequencesDoNotProduceParameters() {
    let params = FormParameters("&&a=1&")
    #expect(params.map(\.rawName) == ["a"])
    #expect(params.value(for: "a") == "1")
  }

  @Test(arguments: [
    ("=", "", ""), ("==", "", "="), ("a==b", "a", "=b"), ("=x", "", "x"), ("a=b=c", "a", "b=c"),
  ])
  func splitsAtFirstEquals(source: String, name: String, value: String) {
    let params = Array(FormParameters(source))
    #expect(params.count == 1)
    #expect(params.first?.rawName == name[...])
    #expect(params.first?.rawValue == value[...])
  }

  @Test func emptyNameIsFoundByEmptyKey() {
    let params = FormParameters("a=1&=2")
    #expect(params.value(for: "") == "2")
  }

  @Test func rawSlicesShareTheSourceStorage() {
    let source = "first_parameter_is_long=value_that_is_not_small&x=y"
    let params = FormParameters(source)
    for p in params {
      #expect(p.rawName.base == source)
      #expect(p.rawValue?.base == source)
    }
    let slice = source.dropFirst(24)
    let sub = FormParameters(slice)
    #expect(sub.first?.rawName == "value_that_is_not_small")
    #expect(sub.first?.rawValue == nil)
    #expect(sub.value(for: "x") == "y")
  }

  @Test func substringSourceStartingMidString() {
    let url = "myapp://cb?code=1&state=%41#frag=2"
    let query = url[url.firstIndex(of: "?")!...].dropFirst().prefix { $0 != "#" }
    let params = FormParameters(query)
    #expect(params.count == 2)
    #expect(params.value(for: "state") == "A")
    #expect(params.first(named: "code")?.rawValue == "1")
  }

  /// A view keeps its source as UTF-8 offsets into the base string: a substring that starts after non-ASCII
  /// text (where UTF-8, UTF-16 and character offsets differ) and ends before the base does reads only its own
  /// bytes, in every reader, and gives back the same substring.
  @Test func substringAfterNonASCIITextKeepsItsBounds() {
    let text = "ключ=значение&ы=1&é=ü+x&tail=no"
    let start = text.range(of: "ы")!.lowerBound
    let end = text.range(of: "&tail")!.lowerBound
    let params = FormParameters(text[start..<end])
    #expect(params.source == "ы=1&é=ü+x")
    #expect(params.source.startIndex == start && params.source.endIndex == end)
    #expect(params.map(\.rawName) == ["ы", "é"])
    #expect(params.value(for: "é") == "ü x")
    #expect(params.value(for: "tail") == nil)
    #expect(params.count == 2)
    var names: [String] = []
    params.forEachDecoded { name, _ in names.append(name.string) }
    #expect(names == ["ы", "é"])
  }

  /// A URL's parameter views are its query and fragment, read in place.
  @Test func urlParameterViewsAreItsQueryAndFragment() throws {
    let url = try ParsedURL("https://a.ru/cb?code=1&state=%41#access_token=t&x")
    #expect(url.queryParameters.source == url.query!)
    #expect(url.fragmentParameters.source == url.fragment!)
    #expect(url.queryParameters.value(for: "state") == "A")
    #expect(url.fragmentParameters.map(\.rawName) == ["access_token", "x"])
    let bare = try ParsedURL("https://a.ru/cb")
    #expect(bare.queryParameters.isEmpty && bare.queryParameters.source == "")
    #expect(bare.fragmentParameters.isEmpty && bare.fragmentParameters.source == "")
    let queryOnly = try ParsedURL("https://a.ru/cb?a=1")
    #expect(queryOnly.queryParameters.map(\.rawName) == ["a"] && queryOnly.fragmentParameters.isEmpty)
  }

  @Test func iteratorIsRestartable() {
    let params = FormParameters("a=1&b=2")
    var it = params.makeIterator()
    #expect(it.next()?.rawName == "a")
    #expect(it.next()?.rawName == "b")
    #expect(it.next() == nil)
    #expect(it.next() == nil)
    #expect(params.map(\.rawName) == ["a", "b"])
  }

  @Test func sourceCanBeReplaced() {
    var params = FormParameters("a=1")
    params.source = "b=2&c"
    #expect(params.count == 2)
    #expect(params.value(for: "b") == "2")
  }

  // MARK: Decoding

  /// The bulk decoder (eight bytes at a time up to each escape) agrees with decoding byte by byte, in both
  /// encodings, for escapes and `+` at every position, truncated and invalid escapes, and non-ASCII bytes.
  @Test func bulkDecodeAgreesWithBytewise() {
    var generator = SystemRandomNumberGenerator()
    let pieces: [[UInt8]] = [
      Array("%".utf8), Array("+".utf8), Array("%2".utf8), Array("%41".utf8), Array("%e9".utf8), Array("%zz".utf8),
      Array("a".utf8), Array("bcdefgh".utf8), Array("é".utf8), [0xFF], Array("0123456789".utf8),
    ]
    for _ in 0..<3_000 {
      let count = Int.random(in: 0..<12, using: &generator)
      let raw = (0..<count).flatMap { _ in pieces.randomElement(using: &generator)! }
      for encoding in [FormParameters.Encoding.form, .percentEncoded] {
        raw.withUnsafeBufferPointer { buf in
          var expected: [UInt8] = []
          var i = 0
          while i < buf.count {
            expected.append(FormParameters.decodedByte(buf, at: &i, end: buf.count, form: encoding == .form))
          }
          let got = [UInt8](unsafeUninitializedCapacity: max(buf.count, 1)) { out, n in
            n = FormParameters.decode(buf, into: out, form: encoding == .form)
          }
          #expect(got == expected, "\(raw) \(encoding)")
        }
      }
    }
  }

  @Test func plusInBothEncodings() {
    let params = FormParameters("a+b=c+d%2B")
    let p = params.first!
    #expect(p.name() == "a b")
    #expect(p.value() == "c d+")
    #expect(p.name(.percentEncoded) == "a+b")
    #expect(p.value(.percentEncoded) == "c+d+")
    #expect(params.value(for: "a b") == "c d+")
    #expect(params.value(for: "a+b") == nil)
    #expect(params.value(for: "a+b", encoding: .percentEncoded) == "c+d+")
    #expect(params.value(for: "a b", encoding: .percentEncoded) == nil)
  }

  @Test(arguments: [
    ("%zz", "%zz"), ("%", "%"), ("%4", "%4"), ("%%41", "%A"), ("%4%41", "%4A"), ("%G1", "%G1"),
    ("%41%", "A%"), ("%a", "%a"), ("%1g", "%1g"), ("100%", "100%"), ("%%", "%%"), ("%2", "%2"),
    ("%6a%6A", "jj"), ("%00", "\u{0}"),
  ])
  func invalidEscapesStayLiteral(raw: String, decoded: String) {
    let params = FormParameters("k=\(raw)&\(raw)=v")
    #expect(params.value(for: "k") == decoded)
    #expect(Array(params)[1].name() == decoded)
    #expect(params.value(for: decoded) == "v")
    #expect(FormParameters.decode(raw[...]) == decoded)
    #expect(Array(FormParameters.PercentDecodedBytes(raw[...])) == Array(decoded.utf8))
  }

  @Test(arguments: [
    ("%E2%9C%93", "✓"),
    ("%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", "привет"),
    ("%F0%9F%98%80", "😀"),
    ("%FF", "\u{FFFD}"),
    ("%C3%28", "\u{FFFD}("),
    ("%E2%82", "\u{FFFD}"),
    ("%E2%82%41", "\u{FFFD}A"),
    ("%ED%A0%80", "\u{FFFD}\u{FFFD}\u{FFFD}"),  // surrogate
    ("%F0%80%80", "\u{FFFD}\u{FFFD}\u{FFFD}"),  // overlong lead
    ("%C0%AF", "\u{FFFD}\u{FFFD}"),  // overlong
    ("%F4%90%80%80", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),  // above U+10FFFF
    ("%80x", "\u{FFFD}x"),
    ("%EF%BB%BFx", "\u{FEFF}x"),  // no BOM stripping
    ("é%C3%A9", "éé"),
  ])
  func utf8DecodingWithReplacement(raw: String, decoded: String) {
    let params = FormParameters("k=\(raw)")
    #expect(params.value(for: "k") == decoded)
    #expect(params.first!.value()!.unicodeScalars.elementsEqual(decoded.unicodeScalars))
  }

  @Test func fastPathReturnsRawText() {
    let p = FormParameters("state=abc.DEF-_~*é").first!
    #expect(!p.needsDecoding)
    #expect(p.value() == "abc.DEF-_~*é")
    #expect(FormParameters("a=b%20").first!.needsDecoding)
    #expect(FormParameters("a=b+").first!.needsDecoding)
    #expect(FormParameters("a%41").first!.needsDecoding)
  }

  @Test func percentDecodedBytesView() {
    let p = FormParameters("%FFn=a+%00%zz").first!
    #expect(Array(p.decodedNameBytes()) == [0xFF, 0x6E])
    #expect(Array(p.decodedValueBytes()!) == [0x61, 0x20, 0x00, 0x25, 0x7A, 0x7A])
    #expect(Array(p.decodedValueBytes(.percentEncoded)!) == [0x61, 0x2B, 0x00, 0x25, 0x7A, 0x7A])
    #expect(FormParameters("bare").first!.decodedValueBytes() == nil)
    #expect(FormParameters.PercentDecodedBytes("a+b").needsDecoding)
    #expect(!FormParameters.PercentDecodedBytes("a+b", encoding: .percentEncoded).needsDecoding)
    #expect(FormParameters.PercentDecodedBytes("%41%42%43").elementsEqual("ABC".utf8))
    #expect(Array(FormParameters.PercentDecodedBytes("")) == [])
  }

  // MARK: Lookup

  @Test(arguments: [
    ("c%6Fde=1", "code"), ("c%6fde=1", "code"), ("%63%6F%64%65=1", "code"), ("code=1", "code"),
    ("redirect%5Furi=1", "redirect_uri"), ("a+b=1", "a b"), ("%2B=1", "+"), ("%C3%A9=1", "é"), ("é=1", "é"),
    ("%26%3D=1", "&="), ("%FF=1", "\u{FFFD}"), ("x%FFy=1", "x\u{FFFD}y"), ("%E2%82=1", "\u{FFFD}"),
    ("%00=1", "\u{0}"),
  ])
  func lookupMatchesDecodedNames(source: String, key: String) {
    let params = FormParameters("other=0&\(source)&zzz=2")
    #expect(params.value(for: key) == "1")
    #expect(params.contains(named: key))
    #expect(params.first(named: key[...])?.value() == "1")
    #expect(params.first(named: [key]).first??.value() == "1")
    #expect(params.all(named: key).count == 1)
    #expect(params.first(named: key)!.hasName(key))
  }

  @Test(arguments: [
    ("cod=1", "code"), ("codee=1", "code"), ("%63od=1", "code"), ("Code=1", "code"), ("code%=1", "code"),
    ("%6=1", "\u{6}"), ("e%CC%81=1", "é"),  // no Unicode normalization: decomposed is not precomposed
    ("%FF%FF=1", "\u{FFFD}"), ("a=1", "\u{FFFD}"),
  ])
  func lookupRejectsOtherNames(source: String, key: String) {
    let params = FormParameters(source)
    #expect(params.value(for: key) == nil)
    #expect(!params.contains(named: key))
    #expect(params.first(named: [key]) == [nil])
  }

  @Test func lookupIsFirstMatch() {
    let params = FormParameters("code=1&c%6Fde=2&code=3")
    #expect(params.first(named: "code")?.rawName == "code")
    #expect(params.value(for: "code") == "1")
    #expect(params.values(for: "code") == ["1", "2", "3"])
    #expect(params.all(named: "code").map(\.rawName) == ["code", "c%6Fde", "code"])
  }

  @Test func multiKeyLookup() {
    let params = FormParameters("state=s&c%6Fde=c1&error&code=c2&iss=https%3A%2F%2Fa.ru")
    let found = params.first(named: ["code", "state", "error", "missing", "iss", "code"])
    #expect(found.count == 6)
    #expect(found[0]?.rawValue == "c1")
    #expect(found[1]?.value() == "s")
    #expect(found[2] != nil)
    #expect(found[2]?.rawValue == nil)
    #expect(found[3] == nil)
    #expect(found[4]?.value() == "https://a.ru")
    #expect(found[5] == found[0])
    #expect(params.firstValues(for: ["iss", "error", "state", "nope"]) == ["https://a.ru", nil, "s", nil])
    #expect(params.first(named: [String]()) == [])
    #expect(FormParameters("").first(named: ["a"]) == [nil])
  }

  @Test func multiKeyLookupRespectsEncoding() {
    let params = FormParameters("a+b=1&a b=2")
    #expect(params.firstValues(for: ["a b", "a+b"]) == ["1", nil])
    #expect(params.firstValues(for: ["a b", "a+b"], encoding: .percentEncoded) == ["2", "1"])
  }

  @Test func parametersAreHashable() {
    let params = FormParameters("a=1&a=1&b")
    let set = Set(params)
    #expect(set.count == 2)
    #expect(set.contains(FormParameters.Parameter(rawName: "b", rawValue: nil)))
    #expect(!set.contains(FormParameters.Parameter(rawName: "b", rawValue: "")))
  }

  // MARK: Bodies

  @Test func validBodyIsUsedAsIs() {
    let body = Array("code=abc&user=%7B%22name%22%7D&é=ü".utf8)
    let params = FormParameters(utf8: body)
    #expect(params.source == "code=abc&user=%7B%22name%22%7D&é=ü")
    #expect(params.value(for: "user") == "{\"name\"}")
    #expect(params.value(for: "é") == "ü")
  }

  @Test(arguments: [
    [0xFF] as [UInt8], [0x80, 0x41], [0xC3], [0xE2, 0x82], [0xE2, 0x82, 0x41], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
    [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0x00, 0xFF, 0x00], [0xC3, 0xA9, 0xFF, 0xC3, 0xA9],
    [0x25, 0xFF], [0x25, 0x34, 0xFF], [0x25, 0x41, 0xFE], [0xFF, 0x34, 0x31], [0x2B, 0xFE, 0x2B],
  ])
  func bodyWithInvalidUTF8RoundTripsBytes(value: [UInt8]) {
    let body = Array("code=abc&v=".utf8) + value + Array("&".utf8) + value + Array("=x".utf8)
    let params = FormParameters(utf8: body)
    let reference = referenceParse(body)
    #expect(params.count == 3)
    #expect(params.count == reference.count)
    for (p, r) in zip(params, reference) {
      #expect(Array(p.decodedNameBytes()) == r.name)
      #expect(Array(p.decodedValueBytes() ?? PercentDecodedBytesEmpty.bytes) == r.value)
      #expect(p.name() == String(decoding: r.name, as: UTF8.self))
      #expect(p.value() == String(decoding: r.value, as: UTF8.self))
    }
    #expect(params.value(for: "code") == "abc")
  }

  @Test func bodyEscapesOnlyInvalidBytes() {
    let params = FormParameters(utf8: [0x61, 0x3D, 0xFF, 0xC3, 0xA9, 0x80, 0x00])
    #expect(params.source == "a=%FFé%80\u{0}")
    #expect(params.value(for: "a") == "\u{FFFD}é\u{FFFD}\u{0}")
  }

  @Test func bodyFromNonContiguousCollection() {
    let body: [UInt8] = Array("a=1&b=".utf8) + [0xFF]
    let params = FormParameters(utf8: body.lazy.map { $0 })
    #expect(params.source == "a=1&b=%FF")
    let params2 = FormParameters(utf8: "x=%41".utf8)
    #expect(params2.value(for: "x") == "A")
  }

  @Test func randomBodiesMatchTheByteBasedParser() {
    var rng = SplitMix64(state: 0x5EED)
    let alphabet: [UInt8] = Array("&=%+aF4z".utf8) + [0x00, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xED, 0xF0, 0x9F, 0xFF]
    for _ in 0..<2_000 {
      let length = Int.random(in: 0...24, using: &rng)
      let body = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
      for encoding in [FormParameters.Encoding.form, .percentEncoded] {
        let form = encoding == .form
        let reference = referenceParse(body, form: form)
        let params = FormParameters(utf8: body)
        let actual = params.map {
          (Array($0.decodedNameBytes(encoding)), Array($0.decodedValueBytes(encoding) ?? PercentDecodedBytesEmpty.bytes))
        }
        #expect(actual.count == reference.count, "body \(body)")
        for (a, r) in zip(actual, reference) {
          #expect(a.0 == r.name && a.1 == r.value, "body \(body)")
        }
        for (p, r) in zip(params, reference) {
          #expect(p.name(encoding) == String(decoding: r.name, as: UTF8.self), "body \(body)")
          #expect((p.value(encoding) ?? "") == String(decoding: r.value, as: UTF8.self), "body \(body)")
          // Lookup by the decoded name finds a parameter with that decoded name.
          let key = String(decoding: r.name, as: UTF8.self)
          #expect(params.first(named: key, encoding: encoding)?.name(encoding) == key, "body \(body)")
        }
      }
    }
  }

  /// `forEachDecoded` splits in one wide pass (sixteen-byte blocks, an overlapping last block): lengths around
  /// the block size, delimiters at every position, against the reference parser.
  @Test func forEachDecodedMatchesTheByteBasedParser() {
    var rng = SplitMix64(state: 0xB10C)
    let alphabet: [UInt8] = Array("&&==%%++aF4z".utf8) + [0x00, 0x80, 0xC3, 0xA9]
    for _ in 0..<4_000 {
      let length = Int.random(in: 0...70, using: &rng)
      let body = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
      for encoding in [FormParameters.Encoding.form, .percentEncoded] {
        let reference = referenceParse(body, form: encoding == .form)
        var index = 0
        FormParameters(utf8: body).forEachDecoded(encoding: encoding) { name, value in
          defer { index += 1 }
          guard index < reference.count else {
            Issue.record("more pairs than the reference for \(body)")
            return
          }
          #expect(Array(name) == reference[index].name, "body \(body)")
          #expect(name.count == reference[index].name.count, "body \(body)")
          #expect((value.map(Array.init) ?? []) == reference[index].value, "body \(body)")
          #expect((value?.count ?? 0) == reference[index].value.count, "body \(body)")
          // The per-view flags are exact: a view needs decoding only when its raw bytes hold '%' (or '+').
          for view in [name] + (value.map { [$0] } ?? []) {
            let raw = Array(view.raw)
            let expected = raw.contains(0x25) || (encoding == .form && raw.contains(0x2B))
            #expect(view.needsDecoding == expected, "body \(body)")
          }
        }
        #expect(index == reference.count, "body \(body)")
      }
    }
  }

  /// The scanner's two forms agree, and continue each other: `forEach` (bitmaps of up to 1 KiB) gives the
  /// pairs `next()` (a block at a time) gives, for texts around and across the bitmap's chunk size, and after
  /// any number of `next()` calls `forEach` gives exactly the rest.
  @Test func scannerFormsAgreeAcrossChunks() {
    var rng = SplitMix64(state: 0xC4A7)
    let alphabet = Array("&=%+abcdefgh".utf8)
    func pairs(_ pair: FormPair) -> [Int] {
      [pair.nameStart, pair.nameEnd, pair.end, pair.hasValue ? 1 : 0, Int(pair.nameFlags), Int(pair.valueFlags)]
    }
    for length in [1, 15, 16, 17, 63, 64, 65, 1_000, 1_023, 1_024, 1_025, 1_100, 2_048, 2_049, 3_000] {
      for _ in 0..<4 {
        let body = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
        body.withUnsafeBufferPointer { buffer in
          var iterated: [[Int]] = []
          var scanner = FormPairScanner(buffer)
          while let pair = scanner.next() { iterated.append(pairs(pair)) }
          for split in [0, 1, iterated.count / 2, iterated.count] {
            var mixed = FormPairScanner(buffer)
            var got: [[Int]] = []
            for _ in 0..<split { if let pair = mixed.next() { got.append(pairs(pair)) } }
            mixed.forEach { got.append(pairs($0)) }
            #expect(got == iterated, "length \(length), \(split) pairs by next() first")
          }
        }
      }
    }
  }

  // MARK: Hostile input

  @Test func hundredThousandParameters() {
    let n = 100_000
    var source = ""
    source.reserveCapacity(n * 14)
    for i in 0..<n {
      if i > 0 { source += "&" }
      source += "k\(i)=v\(i)"
    }
    let params = FormParameters(source)
    #expect(params.count == n)
    #expect(!params.isEmpty)
    var last: FormParameters.Parameter?
    var seen = 0
    for p in params {
      last = p
      seen += 1
    }
    #expect(seen == n)
    #expect(last?.value() == "v\(n - 1)")
    #expect(params.value(for: "k\(n - 1)") == "v\(n - 1)")
    #expect(params.firstValues(for: ["k\(n - 1)", "k0", "nope"]) == ["v\(n - 1)", "v0", nil])
    #expect(params.all(named: "k5").count == 1)
  }

  @Test func hundredThousandDuplicatesAndSeparators() {
    let n = 100_000
    let dup = FormParameters(String(repeating: "a=1&", count: n))
    #expect(dup.count == n)
    #expect(dup.values(for: "a").count == n)
    let amps = FormParameters(String(repeating: "&", count: 1 << 20))
    #expect(amps.isEmpty)
    #expect(amps.count == 0)
    #expect(amps.first(named: "a") == nil)
    let eqs = FormParameters(String(repeating: "=", count: 1 << 20))
    #expect(eqs.count == 1)
    #expect(eqs.first?.rawValue?.count == (1 << 20) - 1)
  }

  @Test func oneMegabyteValues() {
    let size = 1 << 20
    let plain = FormParameters("a=1&big=" + String(repeating: "x", count: size) + "&z=2")
    #expect(plain.value(for: "big")?.utf8.count == size)
    #expect(plain.value(for: "z") == "2")

    let escaped = FormParameters("big=" + String(repeating: "%41", count: size / 3) + "+")
    let value = escaped.value(for: "big")
    #expect(value?.utf8.count == size / 3 + 1)
    #expect(value?.hasSuffix("A ") == true)
    #expect(escaped.first!.decodedValueBytes()!.reduce(0) { $0 + Int($1) } == 0x41 * (size / 3) + 0x20)

    let percents = FormParameters("p=" + String(repeating: "%", count: size))
    #expect(percents.value(for: "p")?.utf8.count == size)

    let invalid = FormParameters("p=" + String(repeating: "%FF", count: size / 3))
    #expect(invalid.value(for: "p")?.unicodeScalars.count == size / 3)

    let nuls = FormParameters(utf8: [UInt8](repeating: 0, count: size) + [0xFF])
    #expect(nuls.count == 1)
    #expect(nuls.first?.name().utf8.count == size + 3)  // NULs, then U+FFFD

    // A 1 MB name that almost matches the key.
    let key = String(repeating: "k", count: size)
    let near = FormParameters(String(repeating: "k", count: size - 1) + "j=1&" + key + "=2")
    #expect(near.value(for: key) == "2")
  }

  @Test func oneMegabyteInvalidBody() {
    let size = 1 << 20
    let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131) }
    let params = FormParameters(utf8: body)
    let reference = referenceParse(body)
    #expect(params.count == reference.count)
    #expect(params.map { Array($0.decodedNameBytes()) } == reference.map(\.name))
  }

  // MARK: Serializer

  @Test func encodeKnownOutput() {
    #expect(
      FormParameters.encode([("response_type", "code"), ("scope", "openid email"), ("q", "a&b=c")])
        == "response_type=code&scope=openid+email&q=a%26b%3Dc")
    #expect(FormParameters.encode([(String, String)]()) == "")
    #expect(FormParameters.encode([("", "")]) == "=")
    #expect(FormParameters.encode([("a", ""), ("", "b")]) == "a=&=b")
    #expect(FormParameters.formEncode("a b+c/é~") == "a+b%2Bc%2F%C3%A9%7E")
    #expect(FormParameters.formEncode("AZaz09*-._") == "AZaz09*-._")
    #expect(FormParameters.formEncode("😀") == "%F0%9F%98%80")
    #expect(FormParameters.formEncode("\u{0}\u{7F}") == "%00%7F")
    #expect(FormParameters.formEncode("") == "")
  }

  @Test func encodeKeyValuePairsKeepsOrder() {
    #expect(
      FormParameters.encode(["z": "1", "a": "x y", "z": "&"]) == "z=1&a=x+y&z=%26")
    #expect(FormParameters.encode(["client_id": "app", "redirect_uri": "myapp://cb"])
      == "client_id=app&redirect_uri=myapp%3A%2F%2Fcb")
  }

  @Test func stringOverloads() {
    let raw = "100%25+sure"
    #expect(FormParameters.decode(raw) == "100% sure")
    #expect(FormParameters.decode(raw, encoding: .percentEncoded) == "100%+sure")
    #expect(Array(FormParameters.PercentDecodedBytes(raw)) == Array("100% sure".utf8))
    #expect(FormParameters.PercentDecodedBytes("%41%42").underestimatedCount <= 2)
    let key: Substring = "xcode".dropFirst()
    #expect(FormParameters("code=1").value(for: key) == "1")
  }

  @Test(arguments: [
    [("a", "b")],
    [("code", "4/0Ad+x=y&z"), ("state", "100% sure"), ("redirect_uri", "https://a.ru/cb?x=1#f")],
    [("имя", "значение"), ("😀", "é\u{301}"), ("", ""), ("a b", " + "), ("%41", "%zz%"), ("=", "&")],
    [("\u{0}", "\u{FEFF}x"), ("a", ""), ("a", "dup"), ("*-._", "~!'()")],
  ])
  func serializerRoundTrips(input: [(String, String)]) {
    let encoded = FormParameters.encode(input)
    #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
    let parsed = FormParameters(encoded)
    #expect(parsed.count == input.count)
    let output = parsed.map { ($0.name(), $0.value() ?? "<bare>") }
    #expect(output.count == input.count)
    for (o, i) in zip(output, input) {
      #expect(o.0.utf8.elementsEqual(i.0.utf8))
      #expect(o.1.utf8.elementsEqual(i.1.utf8))
    }
  }

  @Test func randomSerializerRoundTrips() {
    var rng = SplitMix64(state: 42)
    let scalars: [Unicode.Scalar] = Array("aZ9 +%&=*-._~/?#é😀\u{0}\u{FFFD}".unicodeScalars)
    for _ in 0..<500 {
      let pairs = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
        (
          String(String.UnicodeScalarView((0..<Int.random(in: 0...6, using: &rng)).map { _ in scalars.randomElement(using: &rng)! })),
          String(String.UnicodeScalarView((0..<Int.random(in: 0...6, using: &rng)).map { _ in scalars.randomElement(using: &rng)! }))
        )
      }
      let parsed = FormParameters(FormParameters.encode(pairs))
      let output = parsed.map { ($0.name(), $0.value() ?? "<bare>") }
      #expect(output.count == pairs.count)
      #expect(zip(output, pairs).allSatisfy { $0.0.utf8.elementsEqual($1.0.utf8) && $0.1.utf8.elementsEqual($1.1.utf8) })
    }
  }

  @Test func serializerLeavesExactlyAlphanumericsAndStarDashDotUnderscore() {
    var unencoded = Set<UInt8>()
    for byte in UInt8(0)..<0x80 {
      let string = String(Unicode.Scalar(byte))
      let encoded = FormParameters.formEncode(string)
      if encoded == string {
        unencoded.insert(byte)
      } else if byte == 0x20 {
        #expect(encoded == "+")
      } else {
        let hex = "0123456789ABCDEF".map { $0 }
        #expect(encoded == "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)]))
      }
    }
    // Every non-ASCII scalar is written as %XX escapes of its UTF-8 bytes (each byte >= 0x80 encoded).
    for value in [0x80, 0xA0, 0xFF, 0x7FF, 0x800, 0xFFFD, 0x10000, 0x10FFFF] as [UInt32] {
      let string = String(Unicode.Scalar(value)!)
      let encoded = FormParameters.formEncode(string)
      #expect(encoded.utf8.count == string.utf8.count * 3)
      #expect(encoded.filter { $0 == "%" }.count == string.utf8.count)
    }
    var expected = Set<UInt8>("*-._".utf8)
    expected.formUnion(UInt8(ascii: "0")...UInt8(ascii: "9"))
    expected.formUnion(UInt8(ascii: "A")...UInt8(ascii: "Z"))
    expected.formUnion(UInt8(ascii: "a")...UInt8(ascii: "z"))
    #expect(unencoded == expected)
    #expect((0...UInt8.max).filter(FormParameters.isFormUnreserved) == expected.sorted())
  }
}

/// An empty decoded-bytes view, for comparing bare names with the reference parser's empty values.
private enum PercentDecodedBytesEmpty {
  static let bytes = FormParameters.PercentDecodedBytes("")
}
