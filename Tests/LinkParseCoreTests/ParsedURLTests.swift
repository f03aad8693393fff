import LinkParseTestSupport
import Testing
import LinkParseBytes
#if arch(x86_64)
import CByteScan
#endif

@_spi(Testing) @testable import LinkParseCore

/// Whether two strings use the same UTF-8 storage (not merely equal bytes).
func sameStorage(_ a: String, _ b: String) -> Bool {
  var a = a
  var b = b
  return a.withUTF8 { pa in b.withUTF8 { pb in pa.baseAddress == pb.baseAddress && pa.count == pb.count } }
}

func parseError(_ input: String, base: ParsedURL? = nil) -> URLParseError? {
  do {
    _ = try ParsedURL(input, base: base)
    return nil
  } catch {
    return error
  }
}

@Suite("ParsedURL: components")
struct ParsedURLComponentTests {

  @Test func callbackComponents() throws {
    let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=abc&state=xyz&device_id=42#frag")
    #expect(url.scheme == "vk7915193")
    #expect(url.username == "" && url.password == "")
    #expect(url.host == "vk.ru")
    #expect(url.hostKind == .opaque)
    #expect(url.port == nil)
    #expect(url.path == "/blank.html")
    #expect(url.query == "code=abc&state=xyz&device_id=42")
    #expect(url.fragment == "frag")
    #expect(!url.isSpecial && !url.hasOpaquePath)
    #expect(url.checkInvariants() == [])
  }

  @Test func credentialsAndPort() throws {
    let url = try ParsedURL("HTTPS://us%65r:p@ss@Example.COM:8443/a/./b/../c?x#y")
    #expect(url.href == "https://us%65r:p%40ss@example.com:8443/a/c?x#y")
    #expect(url.username == "us%65r")
    #expect(url.password == "p%40ss")
    #expect(url.host == "example.com")
    #expect(url.port == 8443)
    #expect(url.path == "/a/c")
    #expect(url.checkInvariants() == [])
  }

  @Test func defaultPortIsElided() throws {
    #expect(try ParsedURL("https://a.ru:443/").port == nil)
    #expect(try ParsedURL("https://a.ru:443/").href == "https://a.ru/")
    #expect(try ParsedURL("http://a.ru:0080/").href == "http://a.ru/")
    #expect(try ParsedURL("ws://a.ru:443/").port == 443)
  }

  @Test(arguments: [
    ("myapp://sberidauth?code=1", "myapp://sberidauth?code=1"),
    ("com.example.app:/oauth2redirect?code=1", "com.example.app:/oauth2redirect?code=1"),
    ("mailto:User@Example.com", "mailto:User@Example.com"),
    ("javascript:alert(1)", "javascript:alert(1)"),
    ("http://[0:0:0:0:0:0:0:1]:8080/cb", "http://[::1]:8080/cb"),
    ("http://[2001:DB8::0:1]/", "http://[2001:db8::1]/"),
    ("http://0x7f.1/", "http://127.0.0.1/"),
    ("http://2130706433/", "http://127.0.0.1/"),
    ("http://0177.0.0.1/", "http://127.0.0.1/"),
    ("https://пример.рф/cb?code=1", "https://xn--e1afmkfd.xn--p1ai/cb?code=1"),
    ("https://EXAMPLE.com/%7e?q=a b#f g", "https://example.com/%7e?q=a%20b#f%20g"),
    ("file:///C|/x/../y", "file:///C:/y"),
    ("file://localhost/etc", "file:///etc"),
    ("web+demo:/.//not-a-host/", "web+demo:/.//not-a-host/"),
    ("web+demo://x/..//y", "web+demo://x//y"),
    ("  https://a.ru/\t\n ", "https://a.ru/"),
  ])
  func canonicalForms(input: String, href: String) throws {
    let url = try ParsedURL(input)
    #expect(url.href == href)
    #expect(url.checkInvariants() == [])
  }

  @Test func relativeResolution() throws {
    let base = try ParsedURL("https://example.ru/a/c/d?q#f")
    #expect(try ParsedURL("../b?x=1", base: base).href == "https://example.ru/a/b?x=1")
    #expect(try ParsedURL("", base: base).href == "https://example.ru/a/c/d?q")
    #expect(try ParsedURL("#g", base: base).href == "https://example.ru/a/c/d?q#g")
    #expect(try ParsedURL("//other.ru", base: base).href == "https://other.ru/")
    #expect(try ParsedURL("/x", base: base).href == "https://example.ru/x")
    #expect(try ParsedURL("?y", base: base).href == "https://example.ru/a/c/d?y")
    #expect(try ParsedURL("https:z", base: base).href == "https://example.ru/a/c/z")
    let opaque = try ParsedURL("mailto:a@b.ru")
    #expect(try ParsedURL("#x", base: opaque).href == "mailto:a@b.ru#x")
    #expect(parseError("x", base: opaque)?.code == .missingSchemeNonRelativeURL)
  }

  @Test func protocolConformances() throws {
    let a = try ParsedURL("https://a.ru/x")
    let b = try ParsedURL("HTTPS://A.RU/x")
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(a.description == "https://a.ru/x")
    #expect(Set([a, b]).count == 1)
  }
}

@Suite("ParsedURL: zero-copy fast path")
struct FastPathTests {

  @Test(arguments: [
    "https://id.sber.ru/CSAFront/oidc/authorize.do?response_type=code&client_id=1&state=abcdefghijklmnop",
    "vk7915193://vk.ru/blank.html?code=abc&state=xyz&device_id=42&type=code_v2&expires_in=600",
    "com.example.app:/oauth2redirect/apple?code=c.0.abcdefghijklmnop&state=zzz#frag",
    "http://[::1]:8080/callback/with/a/long/path?code=x",
  ])
  func canonicalInputSharesStorage(input: String) throws {
    let url = try ParsedURL(input)
    #expect(url.href == input)
    #expect(url.sharesStorageWithInput)
    #expect(sameStorage(url.href, input))
  }

  @Test(arguments: [
    "HTTPS://id.sber.ru/path/that/is/long/enough?code=1",
    "https://id.sber.ru:443/path/that/is/long/enough?code=1",
    "https://id.sber.ru/path/./that/is/long/enough?code=1",
    "https://id.sber.ru/path that is long enough?code=1",
    " https://id.sber.ru/path/that/is/long/enough?code=1",
    "https://id.sber.ru/path/that/is/long/enough?code=1\t",
  ])
  func nonCanonicalInputIsCopied(input: String) throws {
    let url = try ParsedURL(input)
    #expect(url.href != input)
    #expect(!url.sharesStorageWithInput)
  }

  @Test func hrefRoundTripSharesStorage() throws {
    let first = try ParsedURL("HTTP://EXAMPLE.com:80/a/../b/c d?x y#z w")
    let again = try ParsedURL(first.href)
    #expect(again == first)
    #expect(again.sharesStorageWithInput)
    #expect(sameStorage(again.href, first.href))
  }

  @Test func substringAndBytesEntryPoints() throws {
    let line = "xx https://a.ru/cb?code=1 yy"
    let sub = line.dropFirst(3).dropLast(3)
    #expect(try ParsedURL(sub).href == "https://a.ru/cb?code=1")
    let whole = "https://a.ru/cb?code=1234567890"
    let wholeSub = whole[...]
    #expect(try ParsedURL(wholeSub).sharesStorageWithInput)
    #expect(try ParsedURL(utf8: Array("https://A.ru/cb".utf8)).href == "https://a.ru/cb")
    // A non-contiguous collection takes the fallback.
    let lazyBytes = "https://a.ru/cb?x=1".utf8.lazy.map { $0 }
    #expect(try ParsedURL(utf8: lazyBytes).href == "https://a.ru/cb?x=1")
  }
}

@Suite("ParsedURL: errors")
struct ParseErrorTests {

  @Test(arguments: [
    ("", URLParseError.Code.missingSchemeNonRelativeURL, 0),
    ("example.com/cb", .missingSchemeNonRelativeURL, 0),
    ("my_app://cb", .invalidScheme, 2),
    ("https://exa mple.com/", .forbiddenHostCodePoint, 11),
    ("https://", .hostMissing, 8),
    ("https://user@/x", .hostMissing, 13),
    ("https://a.ru:99999/", .invalidPort, 13),
    ("https://a.ru:12a/", .invalidPort, 15),
    ("http://[1:2:3:4:5:6:7:8:9]/", .invalidIPv6, 24),
    ("http://[::1/", .invalidIPv6, 7),
    ("http://1.2.3.256/", .invalidIPv4, 7),
    ("http://xn--a.ß/", .invalidDomain, 7),
    ("foo://h<st/", .forbiddenHostCodePoint, 7),
    ("\t https://a\t.ru:9x/", .invalidPort, 17),
  ])
  func codeAndOffset(input: String, code: URLParseError.Code, offset: Int) {
    let error = parseError(input)
    #expect(error?.code == code, "\(input)")
    #expect(error?.offset == offset, "\(input): \(String(describing: error))")
    #expect(error?.message.isEmpty == false)
  }

  @Test func codesAreKebabCase() {
    for code: URLParseError.Code in [
      .missingSchemeNonRelativeURL, .invalidScheme, .hostMissing, .invalidHost, .forbiddenHostCodePoint,
      .invalidDomain, .invalidIPv4, .invalidIPv6, .invalidPort, .inputTooLong,
    ] {
      #expect(code.rawValue.allSatisfy { $0 == "-" || ($0.isLowercase && $0.isASCII) || $0.isNumber })
    }
    let error = parseError("https://a.ru:x/")!
    #expect(error.description == "invalid-port at byte 13: a port may contain only the digits 0-9; found byte 0x78")
  }
}

@Suite("ParsedURL: hostile input")
struct HostileInputTests {

  @Test func invalidUTF8IsReplaced() throws {
    var bytes = Array("https://a.ru/p".utf8)
    bytes.append(0xFF)
    bytes.append(contentsOf: Array("?q=".utf8) + [0xC3])
    let url = try ParsedURL(utf8: bytes)
    #expect(url.href == "https://a.ru/p%EF%BF%BD?q=%EF%BF%BD")
    // In a host, the replacement character is not a valid domain.
    let hostBytes = Array("https://a".utf8) + [0xFF] + Array(".ru/".utf8)
    #expect(throws: URLParseError.self) { try ParsedURL(utf8: hostBytes) }
    // In an opaque host it is percent-encoded.
    let opaqueBytes = Array("vk1://a".utf8) + [0xFE] + Array("/".utf8)
    #expect(try ParsedURL(utf8: opaqueBytes).href == "vk1://a%EF%BF%BD/")
  }

  @Test func nulBytes() throws {
    #expect(try ParsedURL("https://a.ru/\0?\0#\0x").href == "https://a.ru/%00?%00#%00x")
    #expect(try ParsedURL("https://a.ru/x#\0").href == "https://a.ru/x#")  // a trailing C0 control is trimmed
    #expect(try ParsedURL("\0https://a.ru/\0").href == "https://a.ru/")
    let error = parseError("https://a\0b.ru/")
    #expect(error?.code == .forbiddenHostCodePoint && error?.offset == 9)
  }

  @Test func oneMegabyteURL() throws {
    let input = "https://a.ru/cb?state=" + String(repeating: "x", count: 1 << 20)
    let url = try ParsedURL(input)
    #expect(url.query?.utf8.count == (1 << 20) + 6)
    #expect(url.sharesStorageWithInput)
    let encoded = try ParsedURL("https://a.ru/" + String(repeating: " ", count: 1 << 20) + "x")
    #expect(encoded.path.utf8.count == 3 * (1 << 20) + 2)
  }

  @Test func hundredThousandQueryParameters() throws {
    var input = "https://a.ru/cb?"
    for i in 0..<100_000 { input += "k\(i)=v\(i)&" }
    let url = try ParsedURL(input)
    #expect(url.sharesStorageWithInput)
    #expect(url.query?.utf8.count == input.utf8.count - 16)
    let parameters = url.queryParameters
    #expect(parameters.count == 100_000)
    #expect(parameters.value(for: "k99999") == "v99999")
    var last: FormParameters.Parameter? = nil
    for parameter in parameters { last = parameter }
    #expect(last?.rawName == "k99999")
  }

  @Test func queryAndFragmentParameters() throws {
    let url = try ParsedURL("https://a.ru/cb?code=x%2By&cancelled&state=#id_token=t.t.t&state=s+1")
    #expect(url.queryParameters.value(for: "code") == "x+y")
    #expect(url.queryParameters.first(named: "cancelled")?.rawValue == nil)
    #expect(url.queryParameters.value(for: "state") == "")
    #expect(url.fragmentParameters.value(for: "state") == "s 1")
    #expect(url.fragmentParameters.value(for: "state", encoding: .percentEncoded) == "s+1")
    #expect(try ParsedURL("https://a.ru/").queryParameters.isEmpty)
    #expect(try ParsedURL("https://a.ru/").fragmentParameters.isEmpty)
  }

  @Test(arguments: [
    ("https://a.ru/p%", "https://a.ru/p%"),
    ("https://a.ru/?a=%", "https://a.ru/?a=%"),
    ("https://a.ru/#%", "https://a.ru/#%"),
    ("https://a.ru/p%4", "https://a.ru/p%4"),
    ("https://a.ru/?a=%4&b=%zz", "https://a.ru/?a=%4&b=%zz"),
  ])
  func strayPercentIsKept(input: String, href: String) throws {
    let url = try ParsedURL(input)
    #expect(url.href == href)
    #expect(url.sharesStorageWithInput)
  }

  @Test func strayPercentInHost() {
    #expect(parseError("https://a%/")?.code == .forbiddenHostCodePoint)
    #expect(parseError("https://a%4/")?.code == .forbiddenHostCodePoint)
  }

  @Test func tenThousandLabelHost() throws {
    let ascii = String(repeating: "a.", count: 10_000) + "ru"
    let url = try ParsedURL("https://\(ascii)/cb")
    #expect(url.host?.utf8.count == 20_002)
    #expect(url.sharesStorageWithInput)
    let cyrillic = String(repeating: "б.", count: 10_000) + "рф"
    let idna = try ParsedURL("https://\(cyrillic)/cb")
    #expect(idna.host?.hasPrefix("xn--90a.xn--90a.") == true)
    #expect(idna.host?.hasSuffix(".xn--p1ai") == true)
  }

  @Test func hundredDigitPort() {
    let error = parseError("https://a.ru:" + String(repeating: "9", count: 100) + "/")
    #expect(error?.code == .invalidPort)
    #expect(error?.offset == 13)
    let zeros = "https://a.ru:" + String(repeating: "0", count: 100) + "8080/"
    #expect((try? ParsedURL(zeros))?.port == 8080)
  }

  @Test func ipv6WithNineGroups() {
    let error = parseError("http://[1:2:3:4:5:6:7:8:9]/")
    #expect(error?.code == .invalidIPv6)
    #expect(parseError("http://[1:2:3:4:5:6:7:8]/") == nil)
  }

  @Test func fourThousandDotSegments() throws {
    let up = try ParsedURL("https://a.ru/x/" + String(repeating: "../", count: 4000) + "b")
    #expect(up.href == "https://a.ru/b")
    let here = try ParsedURL("https://a.ru/" + String(repeating: "./", count: 4000) + "b")
    #expect(here.href == "https://a.ru/b")
    let mixed = try ParsedURL("https://a.ru/" + String(repeating: "c/%2e%2E/", count: 4000) + "b")
    #expect(mixed.href == "https://a.ru/b")
  }

  @Test func emptyLineAndSpaces() {
    let empty = parseError("")
    #expect(empty?.code == .missingSchemeNonRelativeURL && empty?.offset == 0)
    let spaces = parseError("     ")
    #expect(spaces?.code == .missingSchemeNonRelativeURL && spaces?.offset == 5)
  }

  @Test func emptyInputWithBaseIsTheBase() throws {
    let base = try ParsedURL("https://a.ru/x?y#z")
    #expect(try ParsedURL("   ", base: base).href == "https://a.ru/x?y")
  }
}

@Suite("Byte sets")
struct ByteSetTests {
  /// Each percent-encode set written from the standard's text, for comparison with the masks.
  static var definitions: [(String, ByteSet, (UInt8) -> Bool)] {
    let c0: (UInt8) -> Bool = { $0 < 0x20 || $0 > 0x7E }
    let fragment: (UInt8) -> Bool = { c0($0) || " \"<>`".utf8.contains($0) }
    let query: (UInt8) -> Bool = { c0($0) || " \"#<>".utf8.contains($0) }
    let specialQuery: (UInt8) -> Bool = { query($0) || $0 == UInt8(ascii: "'") }
    let path: (UInt8) -> Bool = { query($0) || "?^`{}".utf8.contains($0) }
    let pathSegmentEnd: (UInt8) -> Bool = { path($0) || $0 == UInt8(ascii: "/") }
    let specialPathSegmentEnd: (UInt8) -> Bool = { pathSegmentEnd($0) || $0 == UInt8(ascii: "\\") }
    let userinfo: (UInt8) -> Bool = { path($0) || "/:;=@[\\]^|".utf8.contains($0) }
    let component: (UInt8) -> Bool = { userinfo($0) || "$%&+,".utf8.contains($0) }
    let form: (UInt8) -> Bool = { component($0) || "!'()~".utf8.contains($0) }
    let forbiddenHost: (UInt8) -> Bool = { [0, 9, 0xA, 0xD].contains($0) || " #/:<>?@[\\]^|".utf8.contains($0) }
    let forbiddenDomain: (UInt8) -> Bool = { forbiddenHost($0) || $0 < 0x20 || $0 == 0x25 || $0 == 0x7F }
    let domainAttention: (UInt8) -> Bool = { forbiddenDomain($0) || ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }
    return [
      ("c0Control", .c0Control, c0), ("fragment", .fragment, fragment), ("query", .query, query),
      ("specialQuery", .specialQuery, specialQuery), ("path", .path, path),
      ("pathSegmentEnd", .pathSegmentEnd, pathSegmentEnd),
      ("specialPathSegmentEnd", .specialPathSegmentEnd, specialPathSegmentEnd), ("userinfo", .userinfo, userinfo),
      ("component", .component, component), ("formURLEncoded", .formURLEncoded, form),
      ("forbiddenHost", .forbiddenHost, forbiddenHost), ("forbiddenDomain", .forbiddenDomain, forbiddenDomain),
      ("domainAttention", .domainAttention, domainAttention),
    ]
  }

  @Test func masksEqualDefinitions() {
    for (name, set, predicate) in Self.definitions {
      for b in 0...255 {
        let byte = UInt8(b)
        #expect(set.contains(byte) == predicate(byte), "\(name): byte \(b)")
      }
    }
  }
}

/// The parser's fast path (canonical URLs with an authority, recognized by wide scans) against the state
/// machine: whatever it accepts must parse to the same structure with the input as serialization.
@Suite struct ParserFastPathTests {
  @Test(arguments: [
    "https://a.ru/cb?code=1&state=2",
    "https://id.sber.ru/CSAFront/oidc/authorize.do?x=1#frag",
    "vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d",
    "myapp://sberidauth?state=s&code=c",
    "myapp://host",
    "myapp://host#",
    "myapp://host?",
    "http://localhost:8080/cb?code=1",
    "wss://a.b-c_d.ru:65535/x/.well-known/y?q=1#f'",
    "ftp://a.ru:21000/",
    "vk7915193://?code=c&device_id=d",
    "myapp://#f",
    "myapp://",
    "myapp:///x",
    "myapp:/x",
    "myapp:/",
    "com.example.app:/oauth2redirect?code=c&state=s",
    "com.example.app:/a//b/?q#f",
    // Hosts whose last byte says they cannot end in a number, and ones that might but do not.
    "https://a.f/", "https://a.de/", "https://a.x/", "https://a.0y/", "https://a.ru./", "https://a.f./",
    // Every special scheme's word, and schemes that only start like one.
    "ws://a.ru/", "wss://a.ru/", "ftp://a.ru/", "http://a.ru/", "httpx://a.ru/", "wsx://a.ru/", "ft://a.ru/",
  ])
  func canonicalURLsTakeTheFastPath(_ input: String) throws {
    var bytes = input
    let fast = bytes.withUTF8 { URLParser.fastPath($0) }
    #expect(fast != nil, "expected the fast path to accept \(input)")
    #expect(ParsedURL.fastPathDisagreement(input) == nil)
    let url = try ParsedURL(input)
    #expect(url.href == input)
    let canonical = bytes.withUTF8 { CanonicalURLBytes($0) }
    #expect(canonical.isCanonical && canonical.ranges == url.utf8Ranges && canonical.port == url.port)
    #expect(url.sharesStorageWithInput)
    #expect(url.checkInvariants().isEmpty)
  }

  @Test(arguments: [
    "HTTPS://a.ru/", "https://A.ru/", "https://a.ru", "https://a.ru:443/", "https://a.ru:0443/",
    "https://a.ru:65536/", "https://a.ru:/", "https://u@a.ru/", "https://1.2.3.4/", "https://a.0x1/",
    "https://[::1]/", "https://xn--p1ai.рф/", "https://a.ru/./b", "https://a.ru/%2e/b", "https://a.ru/b/..",
    "https://a.ru/a b", "https://a.ru/a\\b", "https://a.ru/?a b", "https://a.ru/#a b", " https://a.ru/",
    "https://a.ru/\t", "file:///tmp/x", "https:a.ru/", "https:/a.ru/", "myapp:opaque", "myapp://:80/",
    "myapp://:80", "myapp://:", "myapp:/./x", "myapp:/..", "file:/x", "myapp:/a b",
    "myapp://h\\x/", "https://a.ru/?'", "https://a.ru/x`", "https://a.ru/a^b", "http://a.ru:80/",
    "https://a.0x/", "https://a.1./", "https://a.09/", "https://a.0xf/", "ws://a.ru:80/", "wss://a.ru:443/",
    "ftp://a.ru:21/", "https://a.ru:0/",
  ])
  func nonCanonicalURLsAreLeftToTheStateMachine(_ input: String) {
    var bytes = input
    let fast = bytes.withUTF8 { URLParser.fastPath($0) }
    #expect(fast == nil, "expected the fast path to decline \(input)")
    #expect(!bytes.withUTF8 { CanonicalURLBytes($0) }.isCanonical)
  }

  /// `Scan.query` (thirty-two bytes a step with AVX2 where the CPU has it, sixteen otherwise) stops exactly where
  /// a byte-by-byte walk over the query percent-encode sets does: every length to 100, every start, bytes drawn
  /// mostly from the clean ones with each set member, the bytes around it and non-ASCII mixed in.
  @Test func queryScanAgreesWithTheSetsByteByByte() {
    let edges: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x26, 0x27, 0x28, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F,
      0x7E, 0x7F, 0x80, 0xA0, 0xDD, 0xDE, 0xFF]
    forEachScanInput(seed: 0x51AB, lengths: 0...100, edges: edges) { bytes, base, start in
      for special in [false, true] {
        let set: ByteSet = special ? .specialQuery : .query
        var expected = start
        while expected < bytes.count && !set.contains(bytes[expected]) { expected += 1 }
        let found = Scan.query(base, start, bytes.count, special: special)
        if found != expected {
          Issue.record("\(bytes) from \(start), special \(special): \(found), expected \(expected)")
          return false
        }
      }
      return true
    }
  }

  /// `Scan.simpleHost` and `Scan.lowerCaseScheme` (AVX2 where the CPU has it) stop where a byte-by-byte walk
  /// does, at every length to 80 and every start.
  @Test func hostAndSchemeScansAgreeByteByByte() {
    let edges: [UInt8] = [0x00, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x5A, 0x5E, 0x5F,
      0x60, 0x61, 0x7A, 0x7B, 0x80, 0x99, 0x9A, 0xFF]
    func expected(_ bytes: [UInt8], _ start: Int, _ extra: [UInt8]) -> Int {
      var i = start
      while i < bytes.count && (bytes[i] &- 0x61 < 26 || bytes[i] &- 0x30 < 10 || extra.contains(bytes[i])) { i += 1 }
      return i
    }
    forEachScanInput(seed: 0x40A7, lengths: 0...80, edges: edges) { bytes, base, start in
      let host = Scan.simpleHost(base, start, bytes.count)
      let scheme = Scan.lowerCaseScheme(base, start, bytes.count)
      let hostEnd = expected(bytes, start, [0x2E, 0x2D, 0x5F])
      let schemeEnd = expected(bytes, start, [0x2B, 0x2D, 0x2E])
      #expect(host == hostEnd, "\(bytes) from \(start)")
      #expect(scheme == schemeEnd, "\(bytes) from \(start)")
      return host == hostEnd && scheme == schemeEnd
    }
  }

  #if arch(x86_64)
  /// `Scan.formBitmap` (one call a query, 32 bytes a step with AVX2 where the CPU has it) marks exactly the bytes
  /// `&`, `=`, `%` and `+`, and nothing past the end: every length to 140 (whole words, a last partial word read
  /// back from the end, inputs shorter than a word through a padded copy), every start.
  @Test func formBitmapAgreesByteByByte() {
    let edges: [UInt8] = [0x00, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2C, 0x3C, 0x3D, 0x3E, 0x80, 0xFF]
    forEachScanInput(seed: 0xF0B1, lengths: 0...140, edges: edges) { bytes, base, start in
      let count = (bytes.count - start + 63) / 64
      var expected = [UInt64](repeating: 0, count: count)
      for i in start..<bytes.count where [0x26, 0x3D, 0x25, 0x2B].contains(bytes[i]) {
        expected[(i - start) / 64] |= 1 << UInt64((i - start) % 64)
      }
      // As the scanner calls it (AVX2 on this CPU when it has it), and the SSE2 version other CPUs get.
      for sse2Only in [false, true] {
        var words = [UInt64](repeating: 0xDEAD_BEEF, count: max(count, 1))
        words.withUnsafeMutableBufferPointer { out in
          if sse2Only {
            linkparse_form_bitmap_sse2(base, start, bytes.count, out.baseAddress!)
          } else {
            Scan.formBitmap(base, start, bytes.count, into: out.baseAddress!)
          }
        }
        let found = Array(words.prefix(count))
        #expect(found == expected, "\(bytes) from \(start), SSE2 only: \(sse2Only)")
        if found != expected { return false }
      }
      return true
    }
  }
  #endif

  /// The inputs of the scan tests: twenty of each length, of lower-case letters with up to two of `edges` put in
  /// at random places, each with every start; `body` answers false to stop.
  private func forEachScanInput(
    seed: UInt64, lengths: ClosedRange<Int>, edges: [UInt8],
    _ body: (_ bytes: [UInt8], _ base: UnsafePointer<UInt8>, _ start: Int) -> Bool
  ) {
    var rng = SplitMix64(state: seed)
    for length in lengths {
      for _ in 0..<20 {
        var bytes = (0..<length).map { _ in UInt8.random(in: 0x61...0x7A, using: &rng) }
        for _ in 0..<Int.random(in: 0...2, using: &rng) where length > 0 {
          bytes[Int.random(in: 0..<length, using: &rng)] = edges.randomElement(using: &rng)!
        }
        let stop = bytes.withUnsafeBufferPointer { buffer in
          let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
          return (0...length).contains { start in !body(bytes, base, start) }
        }
        if stop { return }
      }
    }
  }

  /// The structure stays at 32 bytes (the port in sixteen bits and a flag), so that it travels in registers.
  @Test func structureIsThirtyTwoBytesAndKeepsEveryPort() throws {
    #expect(MemoryLayout<URLStructure>.size == 32)
    for port in [0, 1, 80, 443, 8080, 65535] {
      let url = try ParsedURL("myapp://h:\(port)/x")
      #expect(url.port == UInt16(port))
      #expect(url.structure.port == UInt32(port))
    }
    #expect(try ParsedURL("HTTPS://A.ru:8443/").port == 8443)
    #expect(try ParsedURL("https://a.ru:443/").port == nil)
    var s = URLStructure()
    s.port = 12345
    s.port = URLStructure.absent
    #expect(s == URLStructure())
  }

  @Test func randomURLsAgree() {
    var rng = SplitMix64(state: 0xFA57)
    // Each part: canonical choices first (picked three times in four), then the ones that are not.
    func pick(_ good: [String], _ bad: [String]) -> String {
      Int.random(in: 0..<4, using: &rng) < 3 ? good.randomElement(using: &rng)! : bad.randomElement(using: &rng)!
    }
    var accepted = 0
    var acceptedEmptyHost = 0
    var acceptedWithoutHost = 0
    for _ in 0..<20_000 {
      var s = pick(["https", "http", "wss", "ftp", "myapp", "vk7915193", "a+b.c-d"], ["file", "Https", "x", "ws"])
      s += pick(["://", "://", ":/"], [":", ":///", "://u:p@", "://@"])
      s += pick(["a.ru", "id.sber.ru", "a_b", "a.ru.", "xn--p1ai", "a..b", ""], ["1.2.3.4", "a.1", "0x10", "A.ru", "[::1]", "a%41", "a.0x", "/"])
      s += pick(["", ":8080", ":65535", ":1"], [":", ":0", ":080", ":65536", ":443", ":80", ":21", ":123456", ":1a"])
      for _ in 0..<Int.random(in: 0...4, using: &rng) {
        s += "/" + pick(
          ["", "a", ".a", "..b", "a.b", "%41", "....", "a'b", ".well-known", "0123456789abcdefghij", ".0123456789abcdefgh"],
          [".", "..", "%2e", "%2E%2e", "a b", "a\\b", "^", "{x}", "é", "0123456789abcdef^"])
      }
      s += pick(["", "?", "?a=1&b=2", "?%zz", "?a=1/2?3"], ["?a b", "?'", "?a=\"", "?<>", "?é", "?a`b"])
      s += pick(["", "#", "#f", "#a#b", "#a?b"], ["#a b", "#`", "#é", "#<"])
      if let problem = ParsedURL.fastPathDisagreement(s) { Issue.record("\(s): \(problem)") }
      var bytes = s
      // `CanonicalURLBytes` (linkparse's records without a ParsedURL) takes exactly these, with the URL's ranges.
      let canonical = bytes.withUTF8 { CanonicalURLBytes($0) }
      if canonical.isCanonical {
        let url = try? ParsedURL(s)
        #expect(url?.href == s && url?.utf8Ranges == canonical.ranges && url?.port == canonical.port, "\(s)")
      }
      if let fast = bytes.withUTF8({ URLParser.fastPath($0) }) {
        #expect(canonical.isCanonical, "\(s)")
        accepted += 1
        if fast.hostKind == .empty { acceptedEmptyHost += 1 }
        if fast.hostKind == .none { acceptedWithoutHost += 1 }
      }
    }
    // Not vacuous: a fair share of the mix is canonical and goes the fast way, empty and absent hosts too.
    #expect(accepted > 500, "the fast path accepted \(accepted) of 20,000")
    #expect(acceptedEmptyHost > 100 && acceptedWithoutHost > 100, "\(acceptedEmptyHost), \(acceptedWithoutHost)")
  }
}

@Suite struct LayoutThroughPathTests {
  /// Equal layouts mean equal ranges up to the path's end (and a URL's layout equals its own with any query
  /// or fragment added); `pathEnd` is the path's end.
  @Test func equalLayoutsMeanEqualRanges() throws {
    let inputs = [
      "https://a.ru/cb", "https://a.ru/cb?code=1", "https://a.ru/cb#code=1", "https://b.ru/cb?x", "https://a.ru:8443/cb",
      "https://u:p@a.ru/cb", "https://u@a.ru/cb", "myapp://cb?code=1", "myapp:/cb?code=1", "vk123://vk.ru/blank.html",
      "vk123://?code=1", "http://127.0.0.1:1/cb", "http://[::1]/cb", "https://a.ru/c?", "mailto:a@b.ru",
    ]
    let urls = try inputs.map { try ParsedURL($0) }
    for a in urls {
      #expect(a.layoutThroughPath.pathEnd == a.utf8Ranges.path.upperBound, "\(a.href)")
      for b in urls where a.layoutThroughPath == b.layoutThroughPath {
        let (ra, rb) = (a.utf8Ranges, b.utf8Ranges)
        #expect(
          ra.scheme == rb.scheme && ra.username == rb.username && ra.password == rb.password && ra.host == rb.host
            && ra.port == rb.port && ra.path == rb.path, "\(a.href) \(b.href)")
      }
    }
    #expect(try ParsedURL("https://a.ru/cb").layoutThroughPath == ParsedURL("https://a.ru/cb?code=1#f").layoutThroughPath)
    #expect(try ParsedURL("https://a.ru/cb").layoutThroughPath != ParsedURL("https://a.ru:1/cb").layoutThroughPath)
  }
}
