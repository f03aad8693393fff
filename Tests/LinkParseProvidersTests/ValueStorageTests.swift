import Foundation
import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders
import LinkParseBytes

/// A result's value property, by name: read, and set (for the setter checks).
typealias ValueProperty<R> = (name: String, get: (R) -> Substring?, set: (inout R, Substring?) -> Void)

/// Results hold their callback's text once plus value spans, and make their `Substring`s on access;
/// `PendingAuthorization` keeps its properties in a shared box. Both must still behave as plain values.
@Suite struct ValueStorageTests {

  // MARK: PendingAuthorization

  @Test func pendingAuthorizationCopiesAreIndependent() throws {
    let original = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://app.example/cb"), state: "S1",
      issuer: "https://as.example", expiresAt: 1000)
    var copy = original
    #expect(copy == original)
    #expect(copy.hashValue == original.hashValue)
    copy.state = "S2"
    copy.issuer = nil
    copy.expiresAt = nil
    copy.provider = .tid
    copy.redirectURI = try ParsedURL("myapp://authorized")
    #expect(original.state == "S1")
    #expect(original.issuer == "https://as.example")
    #expect(original.expiresAt == 1000)
    #expect(original.provider == .oauth2)
    #expect(original.redirectURI.href == "https://app.example/cb")
    #expect(copy != original)
    #expect(copy == PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: "S2"))
  }

  /// What matching precomputes follows the setters: VK's relaxed hosts, the redirect URI, the state.
  @Test func settersRecomputeWhatValidationReads() throws {
    var pending = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("vk7915193://vk.ru/blank.html"), state: "s")
    let vkHost = try ParsedURL("vk7915193://vk.com/blank.html?code=c&state=s&device_id=d")
    #expect(!pending.matchesRedirect(vkHost))
    pending.provider = .vk
    #expect(pending.matchesRedirect(vkHost))
    #expect(try pending.validate(vkHost, now: 0).outcome == .success)
    pending.state = "other"
    #expect(rejection { try pending.validate(vkHost, now: 0) } == .stateMismatch)
    pending.redirectURI = try ParsedURL("https://app.example/cb")
    #expect(rejection { try pending.validate(vkHost, now: 0) } == .redirectMismatch)
    pending.redirectURI = try ParsedURL("http://127.0.0.1:8080/cb")
    #expect(pending.matchesRedirect(try ParsedURL("http://127.0.0.1:9999/cb")))
    pending.expiresAt = 10
    #expect(rejection { try pending.validate(ParsedURL("http://127.0.0.1/cb?state=other&code=c"), now: 10) } == .expired)
  }

  @Test func pendingAuthorizationCodableKeepsItsShape() throws {
    let full = PendingAuthorization(
      provider: .apple, redirectURI: try ParsedURL("https://example.com/auth/apple/callback"), state: "8f3c",
      issuer: "https://appleid.apple.com", expiresAt: 1_700_000_000)
    let partial = PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    for pending in [full, partial] {
      let data = try encoder.encode(pending)
      #expect(try JSONDecoder().decode(PendingAuthorization.self, from: data) == pending)
    }
    let json = String(decoding: try encoder.encode(partial), as: UTF8.self)
    #expect(json == #"{"provider":"tid","redirectURI":"myapp:\/\/authorized"}"#)
  }

  // MARK: Results

  /// Every value read on access equals what the parameters decode to (percent-decoding and `+` included).
  @Test(arguments: [
    (Provider.vk, "vk7915193://vk.ru/blank.html?code=vk2.a.F%2B&state=S+1&device_id=D%3D&type=code_v2&expires_in=600&ext_id=E"),
    (.oauth2, "https://client.example/cb?code=c%2F1&state=s&iss=https%3A%2F%2Fas.example&session_state=x+y"),
    (.tid, "myapp://authorized?code=c.9fQ&state=ab%20c&session_state=ss"),
    (.apple, "https://example.com/auth/apple/callback#state=8f3c&code=c%2B1&id_token=eyJhbGciOiJSUzI1NiJ9.e30.sig"),
    (.sber, "myapp://sberidauth?status=success&code=C0DE%21&state=Qk7x&utm_source=sbol"),
  ])
  func valuesOnAccessEqualTheDecodedParameters(provider: Provider, url: String) throws {
    let parsed = try ParsedURL(url)
    let params = ProviderDetector.callbackParameters(of: parsed)
    func expected(_ name: String) -> Substring? { params.value(for: name).flatMap { $0.isEmpty ? nil : Substring($0) } }
    let callback = try ProviderCallback(provider: provider, parameters: params)
    #expect(callback.code == expected("code"))
    #expect(callback.state == expected("state"))
    switch callback {
    case .vk(.success(let s)):
      #expect(s.deviceID == expected("device_id"))
      #expect(s.type == expected("type"))
      #expect(s.expiresInRaw == expected("expires_in"))
      #expect(s.expiresIn == 600)
      #expect(s.extID == expected("ext_id"))
    case .oauth2(.success(let s)):
      #expect(s.issuer == expected("iss"))
      #expect(s.sessionState == expected("session_state"))
    case .tid(.success(let s)):
      #expect(s.sessionState == expected("session_state"))
    case .apple(.success(let s)):
      #expect(s.idToken == expected("id_token"))
    case .sber(.success(let s)):
      #expect(s.status == expected("status"))
      #expect(s.extras == ["utm_source": "sbol"])
    default:
      Issue.record("unexpected \(callback)")
    }
    // Through validate, from the URL's own text: the same values.
    let pending = PendingAuthorization(
      provider: provider, redirectURI: try ParsedURL(PendingAuthorization.describe(parsed)),
      state: expected("state").map(String.init), issuer: expected("iss").map(String.init))
    #expect(try pending.validate(parsed, now: 0) == callback)
  }

  /// Copies of a result are values: setting a property changes only that copy, and reads back what was set.
  @Test func resultSettersAndCopies() throws {
    let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=vk2.a.F&state=S&device_id=D&expires_in=600")
    guard case .success(let decoded) = try VKIDCallback(url.queryParameters) else { Issue.record("not a success"); return }
    var changed = decoded
    changed.code = "vk2.a.G"
    changed.type = "code_v2"
    #expect(decoded.code == "vk2.a.F" && decoded.type == nil)
    #expect(changed.code == "vk2.a.G" && changed.type == "code_v2")
    #expect(changed.state == "S" && changed.deviceID == "D" && changed.expiresInRaw == "600" && changed.expiresIn == 600)
    let made = VKIDSuccess(
      code: "vk2.a.G", state: "S", deviceID: "D", type: "code_v2", expiresIn: 600, expiresInRaw: "600")
    #expect(changed == made)
    #expect(changed.hashValue == made.hashValue)

    var tid = TIDSuccess(code: "c.1")
    tid.state = "ABC"
    #expect(tid == TIDSuccess(code: "c.1", state: "ABC"))
    var oauth = OAuth2Success(code: "c", state: "s", issuer: "i", sessionState: nil)
    oauth.sessionState = "ss"
    oauth.issuer = nil
    #expect(oauth == OAuth2Success(code: "c", state: "s", sessionState: "ss"))

    let apple = try AppleCallback(FormParameters("code=c&user=%7B%22email%22%3A%22a%40b.c%22%7D"))
    guard case .success(var s) = apple else { Issue.record("not a success"); return }
    s.state = "st"
    #expect(s.code == "c" && s.state == "st" && s.user?.email == "a@b.c")

    guard case .success(var sber) = try SberIDCallback(FormParameters("code=c&option1=p")) else {
      Issue.record("not a success"); return
    }
    sber.status = "success"
    #expect(sber.extras == ["option1": "p"] && sber.status == "success" && sber.code == "c")

    guard case .failure(var failure) = try SberIDCallback(FormParameters("result=FAILURE&error_code=5")) else {
      Issue.record("not a failure"); return
    }
    #expect(failure == SberIDFailure(encoding: .androidApp, errorCode: "5", status: "FAILURE"))
    failure.errorCode = "7"
    #expect(failure.rawCode == "7" && failure.status == "FAILURE")
  }

  /// Each setter of each result changes its own value and no other (the setters rebuild the text from all
  /// the values by name), on a decoded result and on one made from values.
  @Test func everySetterChangesOnlyItsValue() throws {
    func check<R: Equatable>(
      _ result: R, _ properties: [ValueProperty<R>],
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      for (k, property) in properties.enumerated() {
        var changed = result
        property.set(&changed, "new+%2F\(k)")
        #expect(property.get(changed) == "new+%2F\(k)", "\(property.name)", sourceLocation: sourceLocation)
        for (j, other) in properties.enumerated() where j != k {
          #expect(other.get(changed) == other.get(result), "\(property.name) changed \(other.name)", sourceLocation: sourceLocation)
        }
        var back = changed
        property.set(&back, property.get(result))
        #expect(back == result, "\(property.name) set back", sourceLocation: sourceLocation)
      }
    }
    let vkURL = try ParsedURL(
      "vk1://vk.ru/blank.html?code=c%2B1&state=s&device_id=d&type=code_v2&expires_in=600&ext_id=e")
    guard case .success(let vk) = try VKIDCallback(vkURL.queryParameters) else { Issue.record("vk"); return }
    let vkProperties: [ValueProperty<VKIDSuccess>] = [
      ("code", { $0.code }, { $0.code = $1 ?? "" }), ("state", { $0.state }, { $0.state = $1 ?? "" }),
      ("deviceID", { $0.deviceID }, { $0.deviceID = $1 ?? "" }), ("type", { $0.type }, { $0.type = $1 }),
      ("expiresInRaw", { $0.expiresInRaw }, { $0.expiresInRaw = $1 }), ("extID", { $0.extID }, { $0.extID = $1 }),
    ]
    check(vk, vkProperties)
    check(VKIDSuccess(code: "c", state: "s", deviceID: "d"), vkProperties)

    guard case .success(let tid) = try TIDCallback(FormParameters("code=c&state=s&session_state=ss")) else {
      Issue.record("tid"); return
    }
    let tidProperties: [ValueProperty<TIDSuccess>] = [
      ("code", { $0.code }, { $0.code = $1 ?? "" }),
      ("state", { $0.state }, { $0.state = $1 }),
      ("sessionState", { $0.sessionState }, { $0.sessionState = $1 }),
    ]
    check(tid, tidProperties)

    let oauthProperties: [ValueProperty<OAuth2Success>] = [
      ("code", { $0.code }, { $0.code = $1 ?? "" }), ("state", { $0.state }, { $0.state = $1 }),
      ("issuer", { $0.issuer }, { $0.issuer = $1 }), ("sessionState", { $0.sessionState }, { $0.sessionState = $1 }),
      ("idToken", { $0.idToken }, { $0.idToken = $1 }),
    ]
    guard case .success(let oauth) = try OAuth2Callback(FormParameters("code=c&state=s&iss=i&session_state=ss&id_token=t")) else {
      Issue.record("oauth2"); return
    }
    check(oauth, oauthProperties)
    check(OAuth2Success(code: "c"), oauthProperties)

    guard case .implicit(let grant) = try OAuth2Callback(
      FormParameters("access_token=a&token_type=Bearer&expires_in=60&scope=x+y&id_token=t&state=s"))
    else { Issue.record("implicit"); return }
    #expect(grant.scope == "x y")
    let grantProperties: [ValueProperty<OAuth2ImplicitGrant>] = [
      ("accessToken", { $0.accessToken }, { $0.accessToken = $1 ?? "" }),
      ("tokenType", { $0.tokenType }, { $0.tokenType = $1 }),
      ("expiresInRaw", { $0.expiresInRaw }, { $0.expiresInRaw = $1 }),
      ("scope", { $0.scope }, { $0.scope = $1 }),
      ("idToken", { $0.idToken }, { $0.idToken = $1 }),
      ("state", { $0.state }, { $0.state = $1 }),
    ]
    check(grant, grantProperties)

    // Apple's `user` stays as sent (still form-encoded) through every setter.
    guard case .success(let apple) = try AppleCallback(
      FormParameters("code=c&state=s&user=%7B%22email%22%3A%22a%2Bb%40c.d%22%7D"))
    else { Issue.record("apple"); return }
    let appleProperties: [ValueProperty<AppleSuccess>] = [
      ("code", { $0.code }, { $0.code = $1 ?? "" }),
      ("state", { $0.state }, { $0.state = $1 }),
      ("idToken", { $0.idToken }, { $0.idToken = $1 }),
    ]
    check(apple, appleProperties)
    var appleChanged = apple
    appleChanged.code = "c2"
    appleChanged.state = nil
    #expect(appleChanged.userJSON == #"{"email":"a+b@c.d"}"# && appleChanged.user?.email == "a+b@c.d")

    guard case .success(let sber) = try SberIDCallback(FormParameters("code=c&state=s&status=success&utm_source=u%2Bv")) else {
      Issue.record("sber"); return
    }
    let sberProperties: [ValueProperty<SberIDSuccess>] = [
      ("code", { $0.code }, { $0.code = $1 ?? "" }),
      ("state", { $0.state }, { $0.state = $1 }),
      ("status", { $0.status }, { $0.status = $1 }),
    ]
    check(sber, sberProperties)
    var sberChanged = sber
    sberChanged.code = "c2"
    #expect(sberChanged.extras == ["utm_source": "u+v"])

    guard case .failure(let failure) = try SberIDCallback(FormParameters("result=FAILURE&error_code=5&state=s")) else {
      Issue.record("sber failure"); return
    }
    let failureProperties: [ValueProperty<SberIDFailure>] = [
      ("errorCode", { $0.errorCode }, { $0.errorCode = $1 }),
      ("status", { $0.status }, { $0.status = $1 }),
      ("state", { $0.state }, { $0.state = $1 }),
    ]
    check(failure, failureProperties)
  }

  /// Sber's extras are the callback's own parameters: a fragment after the query is not one of them.
  @Test func sberExtrasStopAtTheQuery() throws {
    let url = try ParsedURL("myapp://sberidauth?code=c&state=s&utm_source=x#utm_medium=y")
    let pending = PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s")
    guard case .sber(.success(let s)) = try pending.validate(url, now: 0) else { Issue.record("not a success"); return }
    #expect(s.extras == ["utm_source": "x"])
  }

  // MARK: The scan

  /// The block scan agrees with `FormParameters` on every key's first value, count and duplicate order, for
  /// sources of every length (whole blocks, partial last blocks, tiny texts) and offsets into a larger text.
  @Test func scanAgreesWithFormParameters() {
    var generator = SystemRandomNumberGenerator()
    let pieces = [
      "code", "state", "error", "iss", "device_id", "user", "x", "st%61te", "co+de", "=", "&", "&&", "%2B", "+",
      "a", "abcdefghijklmnopqrstuvwxyz", "%", "é", "sberIDRedirect",
    ]
    for _ in 0..<3_000 {
      let count = Int.random(in: 0..<24, using: &generator)
      let query = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
      let prefix = String(repeating: "p", count: Int.random(in: 0..<20, using: &generator))
      let text = prefix + query + "#tail"
      let source = text.dropFirst(prefix.count).prefix(query.utf8.count)
      let parameters = FormParameters(source)
      var fields = CallbackFields(parameters)
      for key in CallbackFields.Key.allCases {
        let all = parameters.all(named: key.name)
        #expect(fields[key].count == min(all.count, Int(UInt16.max)), "\(query) \(key.name)")
        #expect(fields.rawValue(key) == all.first?.rawValue ?? nil, "\(query) \(key.name)")
        #expect(fields.valueString(key) == all.first?.value(), "\(query) \(key.name)")
      }
      let critical = parameters.firstDuplicate(among: criticalParameters)
      #expect(thrown { try fields.rejectDuplicates() }?.parameter == critical, "\(query)")
      #expect(fields.hasSberIDRedirect == (parameters.firstCaseInsensitive("sberIDRedirect") != nil), "\(query)")
    }
  }

  @Test func decimalParsingAgreesWithInt() {
    let cases = [
      "", "+", "-", "0", "-0", "+7", "007", "600", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "1e3", " 1", "1 ", "١", "12a", "--1",
    ]
    for text in cases {
      #expect(text.utf8.withContiguousStorageIfAvailable(parseDecimalInt) == Int(text), "\(text)")
    }
  }

  @Test func statusFlagsOverBytesAgree() {
    for value in ["FAILURE", "failure", "fa\u{131}lure", "failures", "fail", "FAIL", "fai", "FaIl", "ﬀail"] {
      var copy = value
      #expect(copy.withUTF8 { SberIDCallback.isFailureResult(bytes: $0) } == (value.uppercased() == "FAILURE"))
      #expect(copy.withUTF8 { SberIDCallback.isFailStatus(bytes: $0) } == (value.lowercased() == "fail"))
    }
  }
}
