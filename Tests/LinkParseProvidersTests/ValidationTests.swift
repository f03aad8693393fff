import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders
import LinkParseBytes

@Suite struct PendingAuthorizationTests {
  static let redirect = "https://app.example/cb"

  func pending(state: String? = "S1", issuer: String? = "https://as.example", expiresAt: Int64? = 1000) throws
    -> PendingAuthorization
  {
    PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL(Self.redirect), state: state, issuer: issuer, expiresAt: expiresAt)
  }

  /// The documented order: each step is tested with every later rule also violated, so removing a rule (or
  /// moving it later) changes the reported error.
  @Test func orderOfChecks() throws {
    let p = try pending()
    let allBad = "https://other.example/cb?state=S1&state=S1&iss=https%3A%2F%2Fevil&code=c"
    #expect(rejection { try p.validate(ParsedURL(allBad), now: 2000) } == .redirectMismatch)
    let dupStateBadIssuer = "https://app.example/cb?state=X&state=X&iss=https%3A%2F%2Fevil&code=c"
    #expect(rejection { try p.validate(ParsedURL(dupStateBadIssuer), now: 2000) } == .duplicateParameter)
    let badStateBadIssuer = "https://app.example/cb?state=X&iss=https%3A%2F%2Fevil&code=c"
    #expect(rejection { try p.validate(ParsedURL(badStateBadIssuer), now: 2000) } == .stateMismatch)
    let badIssuerExpired = "https://app.example/cb?state=S1&iss=https%3A%2F%2Fevil&code="
    #expect(rejection { try p.validate(ParsedURL(badIssuerExpired), now: 2000) } == .issuerMismatch)
    let expiredNoCode = "https://app.example/cb?state=S1&iss=https%3A%2F%2Fas.example&code="
    #expect(rejection { try p.validate(ParsedURL(expiredNoCode), now: 2000) } == .expired)
    #expect(rejection { try p.validate(ParsedURL(expiredNoCode), now: 999) } == .missingParameter)
    let good = "https://app.example/cb?state=S1&iss=https%3A%2F%2Fas.example&code=c"
    #expect(try p.validate(ParsedURL(good), now: 999).code == "c")
  }

  @Test(arguments: ["code", "state", "error", "iss", "device_id"])
  func everyCriticalParameterIsCheckedForDuplicates(name: String) throws {
    let p = try pending(state: "S1", issuer: nil, expiresAt: nil)
    let url = try ParsedURL("\(Self.redirect)?state=S1&code=c&\(name)=v&\(name)=v")
    let error = thrown { try p.validate(url) }
    #expect(error?.code == .duplicateParameter)
    #expect(error?.parameter == name)
  }

  @Test func redirectMatching() throws {
    let p = try pending(issuer: nil, expiresAt: nil)
    let ok = ["HTTPS://APP.example/cb?state=S1&code=c", "https://app.example/cb?state=S1&code=c&utm_source=x#frag"]
    for url in ok { #expect(try p.validate(ParsedURL(url)).code == "c", "\(url)") }
    let bad = [
      "https://app.example/cb/?state=S1&code=c", "https://app.example/CB?state=S1&code=c",
      "http://app.example/cb?state=S1&code=c", "https://app.example:8443/cb?state=S1&code=c",
      "https://u:p@app.example/cb?state=S1&code=c", "https://app.example.evil/cb?state=S1&code=c",
      "https://app.example/cbx?state=S1&code=c",
    ]
    for url in bad { #expect(rejection { try p.validate(ParsedURL(url)) } == .redirectMismatch, "\(url)") }
    let custom = PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "S")
    #expect(custom.matchesRedirect(try ParsedURL("MyApp://sberidauth?code=c")))  // scheme case-insensitive
    #expect(!custom.matchesRedirect(try ParsedURL("myapp://SberIDAuth?code=c")))  // host exact
    #expect(!custom.matchesRedirect(try ParsedURL("myapp://sberidauth/x?code=c")))  // path exact
    #expect(!custom.matchesRedirect(try ParsedURL("otherapp://sberidauth?code=c")))
    let rfc8252 = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("com.example.app:/oauth2redirect/example-provider"), state: nil)
    #expect(rfc8252.matchesRedirect(try ParsedURL("com.example.app:/oauth2redirect/example-provider?code=x")))
    #expect(!rfc8252.matchesRedirect(try ParsedURL("com.example.app:/oauth2redirect/other?code=x")))
  }

  /// RFC 8252 §7.3: loopback redirects match with any port; other hosts need the same port.
  @Test func loopbackAnyPort() throws {
    let cases = [
      ("http://127.0.0.1:8080/cb", "http://127.0.0.1/cb", "http://127.0.0.1:51234/cb", "http://127.0.0.1:8080/other"),
      ("http://[::1]:8080/cb", "http://[::1]/cb", "http://[::1]:51234/cb", "http://[::1]:8080/other"),
      ("http://127.0.0.1/cb", "http://127.0.0.1:80/cb", "http://127.0.0.1:51234/cb", "http://127.0.0.1/other"),
    ]
    for (base, noPort, otherPort, otherPath) in cases {
      let p = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL(base), state: "s")
      #expect(p.matchesRedirect(try ParsedURL(noPort)), "\(noPort)")
      #expect(p.matchesRedirect(try ParsedURL(otherPort)), "\(otherPort)")
      #expect(!p.matchesRedirect(try ParsedURL(otherPath)), "\(otherPath)")
    }
    let localhost = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("http://localhost:8080/cb"), state: "s")
    #expect(!localhost.matchesRedirect(try ParsedURL("http://localhost:9090/cb")))
    let https = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://127.0.0.1:8080/cb"), state: "s")
    #expect(!https.matchesRedirect(try ParsedURL("https://127.0.0.1:9090/cb")))
  }

  @Test func stateRules() throws {
    let p = try pending(issuer: nil, expiresAt: nil)
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?code=c")) } == .stateMismatch)
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?code=c&state=")) } == .stateMismatch)
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?code=c&state=S")) } == .stateMismatch)
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?code=c&state=S1x")) } == .stateMismatch)
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?code=c&state=s1")) } == .stateMismatch)
    // Errors are bound by state too.
    #expect(rejection { try p.validate(ParsedURL("\(Self.redirect)?error=access_denied&state=X")) } == .stateMismatch)
    #expect(try p.validate(ParsedURL("\(Self.redirect)?error=access_denied&state=S1")).outcome == .error)
    // No state sent: none may come back.
    let stateless = try pending(state: nil, issuer: nil, expiresAt: nil)
    #expect(try stateless.validate(ParsedURL("\(Self.redirect)?code=c")).code == "c")
    #expect(rejection { try stateless.validate(ParsedURL("\(Self.redirect)?code=c&state=injected")) } == .stateMismatch)
  }

  @Test func constantTimeComparison() {
    #expect(constantTimeEquals("abc", "abc"))
    #expect(constantTimeEquals("", ""))
    #expect(!constantTimeEquals("abc", "abd"))
    #expect(!constantTimeEquals("abc", "ab"))
    #expect(!constantTimeEquals("ab", "abc"))
    #expect(!constantTimeEquals("", "a"))
    #expect(!constantTimeEquals("a\u{0}", "a"))
    #expect(constantTimeEquals("Qk7x2LmN9pRtVw3a"[...], "Qk7x2LmN9pRtVw3a"))
  }

  /// The Sber Android app's error grammar never carries `state`; it is reported, not hidden as a mismatch.
  @Test func sberAndroidErrorWithoutState() throws {
    let p = PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("app://merchant_app/"), state: "S")
    let callback = try p.validate(ParsedURL("app://merchant_app/?result=FAILURE&error_code=5"))
    #expect(callback.providerError?.code.rawValue == "5")
    // The iOS grammar carries no state either: its error is kept.
    let iOS = try p.validate(ParsedURL("app://merchant_app/?status=fail&error=invalid_scope"))
    #expect(iOS.outcome == .error && iOS.providerError?.code.rawValue == "invalid_scope")
    #expect(rejection { try p.validate(ParsedURL("app://merchant_app/?code=c")) } == .stateMismatch)
  }

  @Test func issuerRules() throws {
    let expecting = try pending(state: "S1", issuer: "https://as.example", expiresAt: nil)
    #expect(rejection { try expecting.validate(ParsedURL("\(Self.redirect)?state=S1&code=c")) } == .issuerMismatch)
    #expect(
      rejection { try expecting.validate(ParsedURL("\(Self.redirect)?state=S1&code=c&iss=https%3A%2F%2Fas.example%2F")) }
        == .issuerMismatch)  // simple string comparison: no normalisation
    #expect(try expecting.validate(ParsedURL("\(Self.redirect)?state=S1&code=c&iss=https%3A%2F%2Fas.example")).code == "c")
    // An error response is checked as well (RFC 9207: success and error responses).
    #expect(
      rejection { try expecting.validate(ParsedURL("\(Self.redirect)?state=S1&error=access_denied&iss=https%3A%2F%2Fevil")) }
        == .issuerMismatch)
    let notExpecting = try pending(state: "S1", issuer: nil, expiresAt: nil)
    let error = thrown { try notExpecting.validate(ParsedURL("\(Self.redirect)?state=S1&code=c&iss=https%3A%2F%2Fevil")) }
    #expect(error?.code == .issuerMismatch)
    #expect(error?.found == "https://evil")
  }

  @Test func expiry() throws {
    let p = try pending(state: "S1", issuer: nil, expiresAt: 1000)
    let url = try ParsedURL("\(Self.redirect)?state=S1&code=c")
    #expect(try p.validate(url, now: 999).code == "c")
    #expect(rejection { try p.validate(url, now: 1000) } == .expired)
    #expect(rejection { try p.validate(url, now: 5000) } == .expired)
    let forever = try pending(state: "S1", issuer: nil, expiresAt: nil)
    #expect(try forever.validate(url, now: .max).code == "c")
    #expect(PendingAuthorization.currentUnixTime() > 1_700_000_000)
  }

  @Test func formPostBodyIsValidatedAgainstTheRedirectURI() throws {
    let p = PendingAuthorization(provider: .apple, redirectURI: try ParsedURL("https://example.com/auth/apple/callback"), state: "8f3c1e2a")
    let body = FormParameters(utf8: Array("state=8f3c1e2a&code=c1".utf8))
    #expect(try p.validate(ParsedURL("https://example.com/auth/apple/callback"), parameters: body).code == "c1")
    #expect(rejection { try p.validate(ParsedURL("https://example.com/other"), parameters: body) } == .redirectMismatch)
  }

  @Test func seamlessLinkIsNotACallback() throws {
    let p = PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("partner://partner.host/auth"), state: nil)
    #expect(
      rejection { try p.validate(ParsedURL("partner://partner.host/auth?sberIDRedirect=sbolidlogin%3A%2F%2Fx")) }
        == .unrecognizedCallback)
  }

}

@Suite struct PendingAuthorizationStoreTests {

  @Test func consumeThenReplay() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "S1"))
    try await store.insert(PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.ru/blank.html"), state: "S2"))
    let url = try ParsedURL("vk1://vk.ru/blank.html?code=c&state=S2&device_id=d")
    #expect(try (await store.consume(url)).callback.state == "S2")
    #expect(store.count == 1)
    #expect(await asyncRejection { try (await store.consume(url)).callback } == .replayed)
    #expect(try (await store.consume(ParsedURL("vk1://vk.com/blank.html?code=c&state=S1&device_id=d"))).callback.state == "S1")
    #expect(await asyncRejection { try (await store.consume(ParsedURL("vk1://vk.ru/blank.html?code=c&state=S1&device_id=d"))).callback } == .replayed)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("vk1://vk.ru/blank.html?code=c&state=S3&device_id=d"))).callback } == .notPending)
  }

  @Test func forgedStateDoesNotConsume() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "real"))
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://a.example/cb?code=x&state=forged"))).callback } == .stateMismatch)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://b.example/cb?code=x&state=real"))).callback } == .redirectMismatch)
    #expect(store.count == 1)
    #expect(try (await store.consume(ParsedURL("https://a.example/cb?code=x&state=real"))).callback.code == "x")
  }

  @Test func boundButFailedCallbackIsConsumed() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "s", expiresAt: 10))
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://a.example/cb?code=x&state=s"), now: 20)).callback } == .expired)
    #expect(store.count == 0)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://a.example/cb?code=x&state=s"), now: 5)).callback } == .replayed)
  }

  @Test func concurrentCallbacksConsumeOnce() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "s"))
    let url = try ParsedURL("https://a.example/cb?code=x&state=s")
    let outcomes = await withTaskGroup(of: CallbackError.Code?.self) { group in
      for _ in 0..<16 { group.addTask { await asyncRejection { try (await store.consume(url)).callback } } }
      var all: [CallbackError.Code?] = []
      for await outcome in group { all.append(outcome) }
      return all
    }
    #expect(outcomes.filter { $0 == nil }.count == 1)
    #expect(outcomes.filter { $0 == .replayed }.count == 15)
  }

  /// providers.md §3.6: a state-less T-ID callback is accepted only while exactly one T-ID authorization is
  /// pending, and only once.
  @Test func tidStatelessRule() async throws {
    let store = PendingAuthorizationStore()
    let url = try ParsedURL("myapp://authorized?code=c.1")
    #expect(await asyncRejection { try (await store.consume(url)).callback } == .notPending)
    // Two clients on one redirect URI: no callback can tell them apart. (A second login of the same client
    // replaces the first: StoreContractTests.)
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil, clientID: "a"))
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil, clientID: "b"))
    #expect(await asyncRejection { try (await store.consume(url)).callback } == .ambiguousAuthorization)
    #expect(store.count == 2)

    let single = PendingAuthorizationStore()
    try await single.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
    try await single.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("otherapp://authorized"), state: nil))
    #expect(await asyncRejection { try (await single.consume(url)).callback } == .ambiguousAuthorization)  // two T-ID requests pending in all

    let one = PendingAuthorizationStore()
    try await one.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
    try await one.insert(PendingAuthorization(provider: .sber, redirectURI: try ParsedURL("myapp://sberidauth"), state: "s"))
    #expect(try (await one.consume(url)).callback == .tid(.success(TIDSuccess(code: "c.1"))))
    #expect(await asyncRejection { try (await one.consume(ParsedURL("myapp://authorized?cancelled"))).callback } == .replayed)
    #expect(one.count == 1)
  }

  @Test func removeExpired() async throws {
    let store = PendingAuthorizationStore(now: { 0 })  // (no sweep on insert: the test's clock is its own)
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a/cb"), state: "a", expiresAt: 10))
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a/cb"), state: "b", expiresAt: 30))
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a/cb"), state: "c"))
    #expect(store.removeExpired(now: 20) == 1)
    #expect(store.count == 2)
  }

  @Test func replayMemoryIsBounded() async throws {
    let store = PendingAuthorizationStore(consumedLimit: 2)
    for s in ["a", "b", "c"] {
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a/cb"), state: s))
      _ = try (await store.consume(ParsedURL("https://a/cb?code=x&state=\(s)"))).callback
    }
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://a/cb?code=x&state=c"))).callback } == .replayed)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://a/cb?code=x&state=a"))).callback } == .notPending)
  }
}
