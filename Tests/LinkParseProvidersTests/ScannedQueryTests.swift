import Testing
@_spi(Bytes) import LinkParseCore
@testable import LinkParseProviders
@_spi(Bytes) import LinkParseProviders

/// `ProviderDetector.decode(url:scannedQuery:decoded:rejected:)` (the command line tool records the query's pairs as it lists
/// them) must answer exactly as `decode(url:)`, which scans the query itself.
@Suite("Providers: a query scanned by the caller")
struct ScannedQueryTests {
  /// `decode(url:)` and the scanned-query variant, fed the pairs `FormPairScanner` gives.
  static func both(_ string: String) throws -> (
    (Provider, Result<ProviderCallback, CallbackError>)?, (Provider, Result<ProviderCallback, CallbackError>)?
  ) {
    let url = try ParsedURL(string)
    let direct = ProviderDetector.decode(url: url)
    let ranges = url.utf8Ranges
    var scan = CallbackQueryScan(query: ranges.query)
    url.withUnsafeUTF8 { href in
      guard let query = ranges.query else { return }
      var pairs = FormPairScanner(href.baseAddress!, from: query.lowerBound, to: query.upperBound)
      while let pair = pairs.next() { scan.add(pair, href: href.baseAddress!) }
    }
    var fed: (Provider, Result<ProviderCallback, CallbackError>)?
    let detected = ProviderDetector.decode(
      url: url, scannedQuery: &scan, decoded: { fed = ($0.provider, .success($0)) },
      rejected: { fed = ($0, .failure($1)) })
    #expect(detected == (fed != nil))
    return (direct.map { ($0.provider, $0.result) }, fed)
  }

  static let cases = [
    "myapp://sberidauth?state=s&code=c",
    "myapp://sberidauth?code=c&state=s&code=d",
    "myapp://sberidauth?sberIDRedirect=x&code=c",
    "myapp://sberidauth?sberid%52edirect=x&code=c",
    "vk1://vk.ru/blank.html?code=c&state=s&device_id=d&type=code_v2&expires_in=600",
    "vk1://vk.ru/blank.html?payload=%7B%22code%22%3A1%7D",
    "https://a.ru/cb?error=access_denied&error_description=No+way&state=s",
    "https://a.ru/cb?c%6Fde=x&st%61te=y",
    "https://a.ru/cb?&&code=&state&=x&code=2",
    "https://a.ru/cb?code=a=b&state=c==d",
    "https://a.ru/cb#code=c&state=s",
    "https://a.ru/cb?utm_source=x#code=c&state=s",
    "https://a.ru/cb?code=c&state=s#code=d",
    "signinwithapple://callback?code=c&state=s&user=%7B%22email%22%3A%22a%40b.c%22%7D",
    "myapp://authorized?code=c&state=s&session_state=x",
    "myapp://authorized?auth_status_code=cancelled",
    "https://a.ru/cb?iss=https%3A%2F%2Fid&code=c&state=s",
    "https://a.ru/cb",
  ]

  @Test(arguments: cases)
  func answersAsTheDecodersOwnScan(_ string: String) throws {
    let (direct, fed) = try Self.both(string)
    #expect(direct?.0 == fed?.0, "\(string)")
    #expect(direct.map { "\($0.1)" } == fed.map { "\($0.1)" }, "\(string)")
  }

  @Test func randomQueries() throws {
    var generator = SystemRandomNumberGenerator()
    let names = ["code", "state", "error", "iss", "device_id", "type", "payload", "result", "status", "error_code",
                 "c%6Fde", "st+ate", "sberIDRedirect", "x", "", "id_token", "user", "expires_in"]
    let values = ["", "a", "code_v2", "FAILURE", "a%20b", "a+b", "%zz", "==", "%7B%7D", "success"]
    for _ in 0..<2000 {
      var pairs: [String] = []
      for _ in 0..<Int.random(in: 0...6, using: &generator) {
        let name = names.randomElement(using: &generator)!
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: pairs.append(name)
        case 1: pairs.append("")
        default: pairs.append(name + "=" + values.randomElement(using: &generator)!)
        }
      }
      let scheme = ["https://a.ru/cb", "vk7://vk.ru/blank.html", "myapp://sberidauth", "signinwithapple://callback"]
        .randomElement(using: &generator)!
      let string = scheme + "?" + pairs.joined(separator: "&")
      let (direct, fed) = try Self.both(string)
      #expect(direct?.0 == fed?.0, "\(string)")
      #expect(direct.map { "\($0.1)" } == fed.map { "\($0.1)" }, "\(string)")
    }
  }
}
