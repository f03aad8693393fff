import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders
import LinkParseBytes
@_spi(Bytes) import LinkParseProviders

/// The one-pass field scan, zero-copy values, lazy JSON and the allocation-free checks behave exactly like
/// the per-key lookups and eager decoding they replace.
@Suite struct CallbackScanTests {

  @Test func fieldsMatchDecodedNamesAndKeepTheFirstOccurrence() {
    let fields = CallbackFields(FormParameters("c%6Fde=1&code=2&st+ate=x&state&%73tate=3&error_description=a+b%21"))
    #expect(fields[.code].count == 2)
    #expect(fields.value(.code) == "1")
    #expect(fields[.state].count == 2)  // `st ate` is another name
    #expect(fields.rawValue(.state) == nil)  // the first `state` is bare
    #expect(fields.value(.state) == nil)
    #expect(fields.value(.errorDescription) == "a b!")
    #expect(fields.string(.errorDescription) == "a b!")
    #expect(fields.value(.error, equals: "x") == false)
  }

  @Test func duplicatesAreReportedInSourceOrder() {
    for (query, expected) in [
      ("state=1&code=1&code=2&state=2", "code"), ("code=1&state=1&state=2&code=2", "state"),
      ("iss=a&iss=b&code=c", "iss"), ("device_id=a&code=c&device_id=b&code=d", "device_id"),
    ] {
      let parameters = FormParameters(query)
      #expect(parameters.firstDuplicate(among: criticalParameters) == expected)
      #expect(thrown { try OAuth2Callback(parameters) }?.parameter == expected, "\(query)")
    }
  }

  @Test func seamlessKeyIsFoundInAnyCaseAndEncoding() {
    for query in ["sberIDRedirect=x", "SBERIDREDIRECT=x", "sberid%52edirect=x", "a=1&sberidredirect"] {
      #expect(CallbackFields(FormParameters(query)).hasSberIDRedirect, "\(query)")
      #expect(FormParameters(query).firstCaseInsensitive("sberIDRedirect") != nil)
    }
    #expect(!CallbackFields(FormParameters("sberIDRedirect2=x&xsberIDRedirect=y")).hasSberIDRedirect)
  }

  /// Values without escapes are slices of the URL's own storage; escaped ones are decoded.
  @Test func valuesAreZeroCopyUnlessEncoded() throws {
    let url = try ParsedURL(
      "vk7915193://vk.ru/blank.html?code=vk2.a.0123456789abcdefghij&state=s%2Bt+u&device_id=D0123456789abcdefghij")
    guard case .success(let s) = try VKIDCallback(url.queryParameters) else { Issue.record("not a success"); return }
    #expect(s.code == "vk2.a.0123456789abcdefghij")
    #expect(s.state == "s+t u")
    var href = url.href
    var code = s.code.base
    let shared = href.withUTF8 { a in code.withUTF8 { b in a.baseAddress == b.baseAddress } }
    #expect(shared)
  }

  @Test func stateAndIssuerAreComparedDecoded() throws {
    let redirect = try ParsedURL("https://client.example/cb")
    let pending = PendingAuthorization(
      provider: .oauth2, redirectURI: redirect, state: "a b+c", issuer: "https://as.example/ü")
    // The issuer as `FormParameters.formEncode` writes it (compared raw), with lower-case escapes (the same
    // length, decoded to compare) and with `:` and `/` unescaped.
    for query in [
      "state=a+b%2Bc&code=x&iss=https%3A%2F%2Fas.example%2F%C3%BC",
      "state=a%20b%2bc&code=x&iss=https://as.example/%C3%BC",
      "state=a+b%2Bc&code=x&iss=https%3a%2f%2fas.example%2f%c3%bc",
    ] {
      let url = try ParsedURL("https://client.example/cb?\(query)")
      #expect(try pending.validate(url, now: 0).code == "x")
    }
    let forged = try ParsedURL("https://client.example/cb?state=a+b%2Bd&code=x&iss=https%3A%2F%2Fas.example%2F%C3%BC")
    #expect(rejection { try pending.validate(forged, now: 0) } == .stateMismatch)
    let otherIssuer = try ParsedURL("https://client.example/cb?state=a+b%2Bc&code=x&iss=https%3A%2F%2Fas.example%2Fu")
    #expect(thrown { try pending.validate(otherIssuer, now: 0) }?.found == "https://as.example/u")
    let sameLength = try ParsedURL(
      "https://client.example/cb?state=a+b%2Bc&code=x&iss=https%3A%2F%2Fas.example%2F%C3%BD")
    #expect(rejection { try pending.validate(sameLength, now: 0) } == .issuerMismatch)
    // Simple string comparison (RFC 9207): canonically equivalent spellings are different issuers, é
    // precomposed vs e + U+0301.
    let nfc = PendingAuthorization(provider: .oauth2, redirectURI: redirect, state: "s", issuer: "https://é.example")
    let nfd = try ParsedURL("https://client.example/cb?state=s&code=x&iss=https://e%CC%81.example")
    #expect(rejection { try nfc.validate(nfd, now: 0) } == .issuerMismatch)
  }

  @Test func schemeIsComparedIgnoringCase() throws {
    let pending = PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("MyApp://authorized"), state: nil)
    #expect(pending.matchesRedirect(try ParsedURL("myapp://authorized?code=c")))
    #expect(!pending.matchesRedirect(try ParsedURL("myapq://authorized?code=c")))
  }

  /// The `user` decoder gives JSONDecoder's answer on strict JSON, accepts nothing JSONDecoder refused, and
  /// the callback accepts exactly what it decodes.
  @Test(arguments: [
    "{}", #"{"name":null}"#, #"{"name":{"firstName":"A","lastName":null}}"#, #"{"name":"x"}"#, #"{"email":5}"#,
    #"{"email":"\u0041"}"#, #"{"email":"\ud800"}"#, "[1]", "42", "null", #" {"a":[1,2,{"b":null}],"email":"x"} "#,
    #"{"email":"x"}x"#, #"{"email":"x",}"#, #"{"n":01}"#, #"{"n":-0.5e+3,"t":true,"f":false}"#,
    #"{"email":"a","email":"b"}"#, #"{"name":{"firstName":"Иван"}}"#, #"{"email":"a\"b\\c\/\n"}"#, "{broken",
    #"{"name":{"firstName":1}}"#, #"{"name":[]}"#, "",
    #"{"email":"a","email":5}"#, #"{"email":5,"email":"a"}"#, #"{"\u0065mail":5}"#, #"{"n\u0061me":{"lastName":"L"}}"#,
    #"{"name":{"firstName":"A","firstName":1}}"#, #"{"x":"\ud800"}"#, "\u{FEFF}{}", #"{"x":[1,]}"#,
  ])
  func userJSONCheckAgreesWithJSONDecoder(json: String) {
    let decoded = JSONSupport.decodeAppleUser(json)
    let oracle = JSONDecoderOracle.appleUser(json)
    if JSONDecoderOracle.isStrictJSON(Array(json.utf8)) {
      #expect(decoded == oracle, "\(json)")
    } else {
      #expect(decoded == nil || decoded == oracle, "\(json)")
    }
    let body = "code=c&user=" + FormParameters.formEncode(json)
    let accepted = rejection { try AppleCallback(FormParameters(body)) } == nil
    #expect(accepted == (decoded != nil || json.isEmpty), "\(json)")
  }

  /// JSON strings are skipped sixteen bytes at a time up to the next `"`, `\`, control or non-ASCII byte:
  /// strings of every length around the block size, with those bytes at every position, against JSONDecoder.
  @Test func longStringsAgreeWithJSONDecoder() {
    var rng = SystemRandomNumberGenerator()
    let valid = ["a", "Z", "é", #"\""#, #"\\"#, #"\n"#, "Иван", "\u{1F600}", "/", " ", #"\u0041"#, #"\uD83D\uDE00"#]
    let invalid = ["\u{01}", "\"", #"\x"#, #"\ud800"#]
    for _ in 0..<3_000 {
      var value = ""
      var isValid = true
      for _ in 0..<Int.random(in: 0...40, using: &rng) {
        if Int.random(in: 0..<30, using: &rng) == 0 {
          value += invalid.randomElement(using: &rng)!
          isValid = false
        } else {
          value += valid.randomElement(using: &rng)!
        }
      }
      let json = #"{"email":""# + value + #"","name":{"firstName":""# + value + #""}}"#
      let decoded = JSONSupport.decodeAppleUser(json)
      if isValid {
        #expect(decoded != nil && decoded == JSONDecoderOracle.appleUser(json), "\(json)")
      } else if let decoded {
        #expect(decoded == JSONDecoderOracle.appleUser(json), "\(json)")
      }
    }
  }

  @Test(arguments: [
    #"{"iss":"https://appleid.apple.com","aud":["a"],"exp":"1","email_verified":"true"}"#, #"{"iss":5}"#,
    #"{"sub":null,"nonce":{}}"#, #"{"aud":{"x":1},"exp":{},"real_user_status":[1]}"#, "[]", #"{"email":"\u00e9"}"#,
  ])
  func claimsCheckAgreesWithJSONDecoder(json: String) throws {
    let token = jwt(json)
    let decodes = UnverifiedAppleIDTokenClaims(jwt: token) != nil
    #expect(UnverifiedAppleIDTokenClaims.isDecodable(jwt: token[...]) == decodes, "\(json)")
    let accepted = rejection { try AppleCallback(FormParameters("code=c&id_token=\(token)")) } == nil
    #expect(accepted == decodes, "\(json)")
    #expect(UnverifiedAppleIDTokenClaims(jwt: token) == JSONDecoderOracle.claims(Array(json.utf8)), "\(json)")
  }

  /// The claims' lenient scalars read numbers, strings and Booleans as JSONDecoder did.
  @Test(arguments: [
    "1", "-1", "1.0", "1.5", "-1.5", "1e3", "1E3", "1e-3", "9.1e18", "9e18", "8.99e18", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e19", #""12""#, #""+12""#, #"" 12""#,
    #""1.5""#, "true", "false", "null", "[]", "{}", "0.99999999999999999999", "-0", "-0.0", "4.9e-324", "1e400",
    "123456789012345678901234567890", "9223372036854775807.0", "9223372036854775806.9", "0", "2", #""1""#,
    #""0""#, #""TRUE""#, #""False""#, #""yes""#, #"["a","b"]"#, #"["a",1]"#, #"["a",null]"#, #""a""#, "[]",
  ])
  func lenientClaimsAgreeWithJSONDecoder(value: String) {
    for name in ["exp", "iat", "auth_time", "real_user_status", "email_verified", "is_private_email", "nonce_supported", "aud"] {
      let json = #"{"\#(name)":\#(value),"iss":"i"}"#
      #expect(JSONSupport.decodeClaims(Array(json.utf8)) == JSONDecoderOracle.claims(Array(json.utf8)), "\(json)")
    }
  }

  /// Random claims objects (known and unknown keys, repeated keys, values of every type, nesting) decode as
  /// JSONDecoder decoded them.
  @Test func randomClaimsAgreeWithJSONDecoder() {
    var rng = SystemRandomNumberGenerator()
    let keys = [
      "iss", "aud", "sub", "exp", "iat", "auth_time", "nonce", "nonce_supported", "email", "email_verified",
      "is_private_email", "real_user_status", "transfer_sub", "x", #"\u0065mail"#, "Email",
    ]
    let values = [
      "null", "true", "false", "0", "1", "-7", "2.5", "1e3", "1E-2", "9223372036854775808", #""""#, #""a""#,
      #""1""#, #""true""#, #""0""#, #""\u00e9\n""#, "[]", #"["a"]"#, #"["a","b"]"#, #"["a",2]"#, "{}",
      #"{"a":[1,{"b":null}]}"#, #"[[["deep"]]]"#,
    ]
    for _ in 0..<2_000 {
      var members: [String] = []
      for _ in 0..<Int.random(in: 0...8, using: &rng) {
        members.append("\"\(keys.randomElement(using: &rng)!)\": \(values.randomElement(using: &rng)!)")
      }
      let json = " {" + members.joined(separator: ", ") + "} "
      let bytes = Array(json.utf8)
      #expect(JSONSupport.decodeClaims(bytes) == JSONDecoderOracle.claims(bytes), "\(json)")
    }
  }

  /// VK's legacy payload: the same values as JSONDecoder gave, and nothing it refused.
  @Test(arguments: [
    #"{"oauth":{"code":"c1","state":"s1"},"user":{"id":1,"first_name":"Ivan","avatar":"https://a/x.png"}}"#,
    #"{"oauth":{"code":"c1"},"user":{"id":"42"}}"#, #"{"oauth":{"code":5}}"#, #"{"oauth":"c"}"#, #"{"user":[]}"#,
    #"{"user":{"id":1.5,"email":null}}"#, #"{"user":{"id":true}}"#, #"{"user":{"first_name":1}}"#, "[]", "",
    #"{"oauth":{"code":"a","code":"b"}}"#, #"{"oauth":{"code":"c"},"oauth":5}"#, #"{"oauth":null,"user":null}"#,
    #"{"oauth":{"code":"c"}} x"#, #"{"oauth":{"code":"\ud83d\ude00"}}"#,
  ])
  func vkPayloadAgreesWithJSONDecoder(json: String) {
    let decoded = JSONSupport.decodeVKPayload(json).map { d in
      [
        d.code, d.state, d.user == nil ? nil : "user", d.user?.id.map { String($0) }, d.user?.firstName,
        d.user?.lastName, d.user?.email, d.user?.avatar,
      ]
    }
    let oracle = JSONDecoderOracle.vkPayload(json)
    if JSONDecoderOracle.isStrictJSON(Array(json.utf8)) {
      #expect(decoded == oracle, "\(json)")
    } else {
      #expect(decoded == nil || decoded == oracle, "\(json)")
    }
  }

  /// Claims and `user` are decoded when read, and equality compares decoded values.
  @Test func appleValuesAreDecodedOnRead() throws {
    let token = jwt(#"{"iss":"https://appleid.apple.com","sub":"001.x"}"#)
    let a = try AppleCallback(FormParameters("code=c&id_token=\(token)&user=%7B%22email%22%3A%22a%40b.c%22%7D"))
    let b = try AppleCallback(FormParameters("user=%7B%22email%22:%22a@b.c%22%7D&id_token=\(token)&code=c"))
    guard case .success(let s) = a else { Issue.record("not a success"); return }
    #expect(s.idTokenClaims?.subject == "001.x")
    #expect(s.userJSON == #"{"email":"a@b.c"}"#)
    #expect(s.user?.email == "a@b.c")
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
  }

  @Test func sberExtrasAreReadOnAccess() throws {
    let a = try SberIDCallback(FormParameters("utm_source=x&code=c&option1=p&utm_source=y"))
    let b = try SberIDCallback(FormParameters("option1=p&code=c&utm_%73ource=x"))
    guard case .success(let s) = a else { Issue.record("not a success"); return }
    #expect(s.extras == ["utm_source": "x", "option1": "p"])
    #expect(a == b)
    let c = try SberIDCallback(FormParameters("code=c&option1=q"))
    #expect(a != c)
  }

  @Test func sberStatusFlagsIgnoreCaseLikeUnicode() throws {
    #expect(SberIDCallback.isFailureResult("failure"))
    #expect(SberIDCallback.isFailureResult("FaIlUrE"))
    #expect(SberIDCallback.isFailureResult("fa\u{131}lure"))  // dotless ı uppercases to I
    #expect(!SberIDCallback.isFailureResult("failures"))
    #expect(SberIDCallback.isFailStatus("FAIL"))
    #expect(!SberIDCallback.isFailStatus("fai"))
  }

  @Test func tidConflictsNameEverySignalInOrder() {
    let error = thrown { try TIDCallback(FormParameters("cancelled&code=x&result=unavailable")) }
    #expect(error?.found == "code + cancelled + result=unavailable")
  }

  @Test func constantTimeComparisonOverBytes() {
    #expect(constantTimeEquals("a\u{0}b"[...], "a\u{0}b"))
    #expect(!constantTimeEquals("é", "e\u{301}"))  // bytes, not canonical equivalence
  }
}

@Suite struct Base64ScanTests {
  /// The in-place decoder (four characters at a time, then the general loop) agrees with the array one.
  @Test func inPlaceDecodeAgrees() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=".utf8) + [0x21, 0x2E]
    for _ in 0..<2_000 {
      let length = Int.random(in: 0..<40, using: &generator)
      let input = (0..<length).map { _ in
        Bool.random(using: &generator) ? alphabet[Int.random(in: 0..<64, using: &generator)]
          : alphabet.randomElement(using: &generator)!
      }
      let expected = Base64URL.decode(String(decoding: input, as: UTF8.self))
      let got = input.withUnsafeBufferPointer { buffer in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: buffer.count / 4 * 3 + 3) { out -> [UInt8]? in
          try? Base64URL.decode(buffer, into: out, mode: .lenient).map { Array(out[..<$0]) }.get()
        }
      }
      #expect(got == expected, "\(String(decoding: input, as: UTF8.self))")
    }
  }
}

@Suite struct StateRepairTests {
  /// A state that decodes to invalid UTF-8 is compared as bytes, never as its repaired `String` (U+FFFD).
  @Test func invalidUTF8StateIsNotRepaired() throws {
    let pending = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://client.example/cb"), state: "a\u{FFFD}")
    let url = try ParsedURL("https://client.example/cb?code=c&state=a%FF")
    #expect(rejection { try pending.validate(url, now: 0) } == .stateMismatch)
    let other = try ParsedURL("https://client.example/cb?code=c&state=a%FE%FF")
    #expect(rejection { try pending.validate(other, now: 0) } == .stateMismatch)
  }
}

@Suite struct CallbackFieldsLayoutTests {
  /// The scan writes slots by key index and reads them by name: every key lands where it is read.
  @Test func everyKeyRoundTrips() {
    let keys = CallbackFields.Key.allCases
    let query = keys.enumerated().map { "\($1.name)=v\($0)" }.joined(separator: "&")
    let fields = CallbackFields(FormParameters(query + "&" + query))
    for (i, key) in keys.enumerated() {
      #expect(fields.value(key) == "v\(i)", "\(key.name)")
      #expect(fields[key].count == 2, "\(key.name)")
    }
    #expect(fields.firstDuplicate(.user, .code) == .code)
  }

  /// Every name is found at the text's start and further in, and escaped; no name that differs from one in
  /// one byte, or by one byte more or less, is taken for it.
  @Test func namesAreMatchedExactly() {
    for key in CallbackFields.Key.allCases {
      let name = Array(key.name.utf8)
      for prefix in ["", "x=1&", "padding_padding=1&"] {
        let found = CallbackFields(FormParameters(prefix + key.name + "=v"))
        #expect(found.value(key) == "v", "\(prefix)\(key.name)")
        let escaped = "%" + String(name[0], radix: 16) + String(decoding: name.dropFirst(), as: UTF8.self)
        #expect(CallbackFields(FormParameters(prefix + escaped + "=v")).value(key) == "v", "\(escaped)")
        var variants = [Array(name.dropLast()), name + [UInt8(ascii: "s")], Array(name.dropFirst())]
        for i in name.indices {
          var variant = name
          variant[i] ^= 0x01
          variants.append(variant)
        }
        for variant in variants {
          let text = prefix + String(decoding: variant, as: UTF8.self) + "=v"
          let fields = CallbackFields(FormParameters(text))
          #expect(CallbackFields.Key.allCases.allSatisfy { !fields.contains($0) || Array($0.name.utf8) == variant }, "\(text)")
        }
      }
    }
  }
}

/// `ProviderDetector.decode` (one scan) against `detect` followed by `ProviderCallback(provider:parameters:)`.
@Suite struct DetectAndDecodeTests {
  @Test(arguments: [
    "vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d&type=code_v2",
    "myapp://sberidauth?state=s&code=FA21",
    "myapp://sberidauth?status=fail&error=access_denied&state=s",
    "myapp://sberidauth?result=FAILURE&error_code=2",
    "myapp://sberidauth?sberIDRedirect=https%3A%2F%2Fid.sber.ru%2Fsso&token=t",
    "myapp://sberidauth?sberIDRedirect=https%3A%2F%2Fevil.example%2Fsso&token=t",
    "myapp://authorized?code=c&state=s&session_state=x",
    "myapp://authorized?cancelled",
    "myapp://authorized?result=unavailable",
    "https://a.ru/cb?error=user_cancelled_authorize&state=s",
    "https://a.ru/cb?code=c&state=s&id_token=x.y.z&user=%7B%7D",
    "https://a.ru/cb?code=c&state=s&iss=https%3A%2F%2Fi",
    "https://a.ru/cb?error=access_denied&error_description=no",
    "https://a.ru/cb#code=c&state=s",
    "https://a.ru/cb?code=a&code=b",
    "https://a.ru/cb?utm_source=x",
    "https://a.ru/cb",
  ])
  func oneScanAgreesWithTwo(_ input: String) throws {
    let url = try ParsedURL(input)
    let parameters = ProviderDetector.callbackParameters(of: url)
    let detected = ProviderDetector.detect(url: url, parameters: parameters)
    let combined = ProviderDetector.decode(url: url, parameters: parameters)
    #expect(combined?.provider == detected)
    // From the URL's own text: the same as from its callback parameters.
    let fromURL = ProviderDetector.decode(url: url)
    #expect(fromURL?.provider == combined?.provider)
    #expect(fromURL?.result == combined?.result, "\(input)")
    guard let detected, let combined else { return }
    let separate = Result { () throws(CallbackError) in try ProviderCallback(provider: detected, parameters: parameters) }
    #expect(combined.result == separate, "\(input)")
  }
}

/// `forEachValueBytes` (byte views, for the CLI) hands out the same names and decoded values, in the same
/// order, as `forEachValue` (`Substring`s), for every kind of result.
@Suite struct ValueBytesTests {
  @Test(arguments: [
    (Provider.vk, "code=vk2.a.c&state=s%2B1&device_id=d+e&type=code_v2&expires_in=600&ext_id=x&vkconnect_auth_provider_method=external_auth"),
    (.vk, "payload=%7B%22oauth%22%3A%7B%22code%22%3A%22c1%22%2C%22state%22%3A%22s1%22%7D%2C%22user%22%3A%7B%22id%22%3A1%2C%22first_name%22%3A%22Ivan%22%7D%7D"),
    (.vk, "error=access_denied&error_description=No+way%21&state=s"),
    (.sber, "state=s&code=FA21&status=ok&utm_source=a+b&option1=%22o%22&other=1"),
    (.sber, "status=fail&error=access_denied&error_description=x%5Cy&state=s"),
    (.sber, "result=FAILURE&error_code=2"),
    (.sber, "sberIDRedirect=https%3A%2F%2Fid.sber.ru%2Fsso&token=t"),
    (.tid, "code=c&state=s&session_state=x%20y"),
    (.tid, "result=failure"),
    (.tid, "cancelled"),
    (.apple, "code=c&state=s&id_token=\(jwt(#"{"sub":"1"}"#))&user=%7B%22name%22%3A%7B%22firstName%22%3A%22A+%5C%22B%22%7D%7D"),
    (.apple, "error=user_cancelled_authorize&state=s"),
    (.oauth2, "code=c%2B%2B&state=s&iss=https%3A%2F%2Fi&session_state=z"),
    (.oauth2, "error=access_denied&error_description=no+%E2%9C%93&error_uri=u&state=s&iss=i"),
  ])
  func bytesAgreeWithSubstrings(_ provider: Provider, _ query: String) throws {
    let callback = try ProviderCallback(provider: provider, parameters: FormParameters(query))
    var substrings: [String] = []
    callback.forEachValue { name, value in substrings.append("\(name)=\(value)") }
    var bytes: [String] = []
    callback.forEachValueBytes { name, value in
      bytes.append("\(name)=" + String(decoding: Array(value), as: UTF8.self))
    }
    #expect(!substrings.isEmpty || provider == .tid)
    #expect(bytes == substrings, "\(query)")
  }
}

/// `VKIDCallback.isDeviceIDText` tests eight bytes at a time: every byte value at every position of texts of 1
/// to 24 bytes (words and tails, a flagged byte before and after others) agrees with the byte-by-byte rule.
@Suite struct DeviceIDTextTests {
  @Test func everyByteAtEveryPositionAgreesWithTheByteRule() {
    var disagreements: [String] = []  // one expectation at the end: 150,000 of them are slow in a debug build
    for length in 1...24 {
      for position in 0..<length {
        for value in 0...255 {
          var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
          bytes[position] = UInt8(value)
          // A byte above 0x80 after the flagged one: borrows must not hide or invent a flag.
          if position + 1 < length { bytes[position + 1] = 0xFF }
          let expected = bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
          let found = bytes.withUnsafeBufferPointer { VKIDCallback.isDeviceIDText($0) }
          if found != expected { disagreements.append("length \(length), byte \(value) at \(position)") }
        }
      }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    #expect(VKIDCallback.isDeviceIDText(UnsafeBufferPointer(start: nil, count: 0)))
  }
}

