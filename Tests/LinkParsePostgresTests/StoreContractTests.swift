// One suite for every PendingAuthorizationStoring: the consume policy (redirect → duplicates → state → iss →
// expiry, single use, the T-ID single-pending rule, state-less callbacks that must not retire a login, put-back
// on mismatch) run against the in-memory store, a storage written here from the protocol alone (an actor: what an
// application's own Redis or SQL storage would be), and PostgreSQL (its own database, so that it never empties
// another suite's table). Without LINKPARSE_TEST_DATABASE_URL PostgreSQL is left out.

import Crypto
import LinkParseAuthorization
import LinkParseCore
import LinkParseOAuth
import LinkParsePostgres
import LinkParseProviders
import LinkParseServerTestSupport
import PostgresNIO
import Testing

/// The stores under test, each fresh: the in-memory one, the actor below, then PostgreSQL's when a server is
/// configured.
func withEveryStore(_ body: @Sendable (_ name: String, _ store: any PendingAuthorizationStoring) async throws -> Void)
  async throws
{
  try await body("memory", PendingAuthorizationStore())
  try await body("actor", ActorStorage())
  guard TestDatabase.url != nil else { return }
  try await TestDatabase.withStore(database: "linkparse_store_contract") { store, _ in try await body("postgres", store) }
}

/// A `PendingAuthorizationStorage` written from its documentation alone, as an application would for a store of
/// its own: the consume policy comes with the protocol. Records live in an actor; the state key is an HMAC.
actor ActorStorage: PendingAuthorizationStorage {
  private struct Record {
    var authorization: PendingAuthorization
    var stateKey: [UInt8]?
    var redirectKey: String
    var consumed: Bool
  }
  private var records: [Int: Record] = [:]
  private var nextID = 0
  private let key = SymmetricKey(size: .bits256)

  nonisolated func stateKey(_ state: [UInt8]) -> [UInt8] { Array(HMAC<SHA256>.authenticationCode(for: state, using: key)) }

  func add(_ authorization: PendingAuthorization, stateKey: [UInt8]?, redirectKey: String, now: Int64) throws {
    // The contract: a state already pending is refused.
    if let stateKey, records.values.contains(where: { $0.stateKey == stateKey && !$0.consumed }) {
      throw PendingAuthorizationConflict()
    }
    records[nextID] = Record(authorization: authorization, stateKey: stateKey, redirectKey: redirectKey, consumed: false)
    nextID += 1
  }

  func claim(stateKey: [UInt8], now: Int64) -> StoredAuthorization<Int>? {
    guard let (id, record) = records.first(where: { $0.value.stateKey == stateKey && !$0.value.consumed }) else { return nil }
    records[id]?.consumed = true
    return StoredAuthorization(id: id, authorization: record.authorization)
  }

  func release(_ id: Int) { records[id]?.consumed = false }

  func addSpent(_ authorization: PendingAuthorization, stateKey: [UInt8], redirectKey: String, now: Int64) -> Bool {
    // The contract: a state key already recorded, pending or spent, is refused.
    if records.values.contains(where: { $0.stateKey == stateKey }) { return false }
    records[nextID] = Record(authorization: authorization, stateKey: stateKey, redirectKey: redirectKey, consumed: true)
    nextID += 1
    return true
  }

  func retire(_ id: Int, now: Int64) -> Bool {
    guard records[id]?.consumed == false else { return false }
    records[id]?.consumed = true
    return true
  }

  func pending(redirectKey: String, withState: Bool?, limit: Int) -> [StoredAuthorization<Int>] {
    Array(
      records.filter { !$0.value.consumed && $0.value.redirectKey == redirectKey }
        .filter { withState == nil || withState == ($0.value.stateKey != nil) }
        .sorted { $0.key < $1.key }.prefix(limit)
        .map { StoredAuthorization(id: $0.key, authorization: $0.value.authorization) })
  }

  func consumed(stateKey: [UInt8]?, redirectKey: String) -> [PendingAuthorization] {
    records.values.filter { $0.consumed && $0.stateKey == stateKey && $0.redirectKey == redirectKey }.map(\.authorization)
  }

  func hasPending() -> Bool { records.values.contains { !$0.consumed } }

  func pendingWithoutState(provider: Provider) -> Int {
    records.values.filter { !$0.consumed && $0.stateKey == nil && $0.authorization.provider == provider }.count
  }

  func removeExpired(now: Int64) -> Int {
    // Pending records that have expired (consumed ones stay, to answer `replayed`).
    let expired = records.filter { !$0.value.consumed && ($0.value.authorization.expiresAt.map { now >= $0 } ?? false) }
      .map(\.key)
    for id in expired { records[id] = nil }
    return expired.count
  }

  var count: Int { records.values.filter { !$0.consumed }.count }
}

/// The code `consume` throws (`nil` on success).
func consumeCode(_ store: any PendingAuthorizationStoring, _ url: String, now: Int64 = 1_000) async -> CallbackError.Code? {
  await code { try await store.consume(try ParsedURL(url), parameters: nil, now: now) }
}

@Suite(.serialized) struct StoreContractTests {
  @Test func singleUseThenReplayed() async throws {
    try await withEveryStore { name, store in
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s1"))
      #expect(try await store.consume(ParsedURL("https://a.example/cb?code=x&state=s1"), parameters: nil, now: 1).callback.code == "x", "\(name)")
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=s1") == .replayed, "\(name)")
      #expect(try await store.count == 0, "\(name)")
    }
  }

  @Test func nothingPendingAndMismatchesLeaveTheLogin() async throws {
    try await withEveryStore { name, store in
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=s1") == .notPending, "\(name)")
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "real"))
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=forged") == .stateMismatch, "\(name)")
      #expect(await consumeCode(store, "https://a.example/cb?code=x") == .stateMismatch, "\(name)")
      #expect(await consumeCode(store, "https://b.example/cb?code=x&state=real") == .redirectMismatch, "\(name)")
      #expect(await consumeCode(store, "https://a.example/cb?code=x&code=y&state=real") == .duplicateParameter, "\(name)")
      #expect(try await store.count == 1, "\(name)")
      #expect(try await store.consume(ParsedURL("https://a.example/cb?code=x&state=real"), parameters: nil, now: 1).callback.code == "x", "\(name)")
    }
  }

  /// A store holds at most its capacity of pending authorizations: one more is refused with `store-full`,
  /// the logins already pending are kept, and once they have expired an insert sweeps them and succeeds — no
  /// call from the app.
  @Test func boundedByCapacityAndSwept() async throws {
    @Sendable func check(_ name: String, _ store: some PendingAuthorizationStorage) async throws {
      let url = try ParsedURL("https://cap.example/cb")
      func add(_ state: String, expiresAt: Int64, now: Int64) async throws {
        let pending = PendingAuthorization(provider: .oauth2, redirectURI: url, state: state, expiresAt: expiresAt)
        try await store.add(
          pending, stateKey: store.stateKey(Array(state.utf8)), redirectKey: PendingAuthorization.redirectKey(url), now: now)
      }
      for i in 0..<3 { try await add("cap\(i)", expiresAt: 1_100, now: 1_000) }
      await #expect(throws: PendingAuthorizationStoreFull.self, "\(name)") { try await add("cap3", expiresAt: 1_100, now: 1_001) }
      #expect(try await store.count == 3, "\(name)")
      #expect(try await store.consume(ParsedURL("https://cap.example/cb?code=c&state=cap1"), parameters: nil, now: 1_002).callback.code == "c", "\(name)")
      try await add("cap4", expiresAt: 1_200, now: 1_003)  // a consumed one frees its place
      try await add("cap5", expiresAt: 1_200, now: 1_100)  // the expired go as it comes in
      #expect(try await store.count == 2, "\(name)")
      // A long-lived login inserted first does not keep the shorter ones behind it from being swept.
      try await add("cap6", expiresAt: 1_300, now: 1_150)
      await #expect(throws: PendingAuthorizationStoreFull.self, "\(name)") { try await add("long", expiresAt: 9_000, now: 1_150) }
      try await add("long", expiresAt: 9_000, now: 1_200)  // cap4 and cap5 expired
      try await add("cap7", expiresAt: 1_400, now: 1_200)
      await #expect(throws: PendingAuthorizationStoreFull.self, "\(name)") { try await add("cap8", expiresAt: 1_500, now: 1_250) }
      try await add("cap8", expiresAt: 1_500, now: 1_300)  // cap6 expired, behind "long" in insertion order
      #expect(try await store.count == 3, "\(name)")
    }
    try await check("memory", PendingAuthorizationStore(capacity: 3))
    guard TestDatabase.url != nil else { return }
    try await TestDatabase.withStore(database: "linkparse_store_contract", capacity: 3) { store, _ in
      try await check("postgres", store)
    }
  }

  /// A flood that expires leaves a store that works as new: every expired login goes with the next insert (from
  /// the expiry heap, no pass over the store), the indexes rebuilt at their present size still find what is
  /// pending, and the refused inserts of a full store leave it as it was.
  @Test func aFloodThatExpiresLeavesAWorkingStore() async throws {
    let store = PendingAuthorizationStore(capacity: 20_000)
    let url = try ParsedURL("https://flood.example/cb")
    func add(_ state: String, expiresAt: Int64, now: Int64) throws {
      let pending = PendingAuthorization(provider: .oauth2, redirectURI: url, state: state, expiresAt: expiresAt)
      try store.add(pending, stateKey: store.stateKey(Array(state.utf8)), redirectKey: PendingAuthorization.redirectKey(url), now: now)
    }
    try add("kept", expiresAt: 10_000, now: 1)
    for i in 0..<19_999 { try add("f\(i)", expiresAt: 100 + Int64(i % 7), now: 1) }
    for i in 0..<1_000 {
      #expect(throws: PendingAuthorizationStoreFull.self) { try add("more\(i)", expiresAt: 200, now: 2) }
    }
    #expect(store.count == 20_000)
    try add("after", expiresAt: 10_000, now: 107)
    #expect(store.count == 2)
    #expect(try await store.consume(ParsedURL("https://flood.example/cb?code=a&state=after"), parameters: nil, now: 108).callback.code == "a")
    #expect(try await store.consume(ParsedURL("https://flood.example/cb?code=k&state=kept"), parameters: nil, now: 108).callback.code == "k")
    #expect(store.count == 0)
  }

  /// A login bound to its browser binds only a callback that presents its cookie's hash: another browser's
  /// (none, a wrong one) is refused with `browser-mismatch` and spends nothing, and the login's own browser
  /// then succeeds; a login without a binding accepts any browser.
  @Test func browserBoundLogins() async throws {
    try await withEveryStore { name, store in
      var bound = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "b1")
      bound.browserBinding = "hash-of-cookie"
      try await store.insert(bound)
      let url = try ParsedURL("https://a.example/cb?code=x&state=b1")
      for browser in [nil, BrowserBinding(hashes: []), BrowserBinding(hashes: ["other", "hash-of-cookiE"])] {
        do {
          _ = try await store.consume(url, parameters: nil, browser: browser, now: 1)
          Issue.record("\(name): another browser bound the login")
        } catch let error as CallbackError {
          #expect(error.code == .browserMismatch, "\(name)")
        }
      }
      #expect(try await store.count == 1, "\(name)")
      let own = try await store.consume(url, parameters: nil, browser: BrowserBinding(hashes: ["x", "hash-of-cookie"]), now: 1)
      #expect(own.callback.code == "x" && own.authorization.browserBinding == "hash-of-cookie", "\(name)")
      // Replayed: `replayed` to its own browser only; any other browser learns nothing (browser-mismatch, as
      // for a login that is still pending).
      for browser in [nil, BrowserBinding(hashes: []), BrowserBinding(hashes: ["other"])] {
        do {
          _ = try await store.consume(url, parameters: nil, browser: browser, now: 1)
          Issue.record("\(name): a replay bound")
        } catch let error as CallbackError {
          #expect(error.code == .browserMismatch, "\(name)")
        }
      }
      do {
        _ = try await store.consume(url, parameters: nil, browser: BrowserBinding(hashes: ["hash-of-cookie"]), now: 1)
        Issue.record("\(name): a replay bound")
      } catch let error as CallbackError {
        #expect(error.code == .replayed, "\(name)")
      }
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "b2"))
      let any = try await store.consume(
        ParsedURL("https://a.example/cb?code=y&state=b2"), parameters: nil, browser: BrowserBinding(hashes: ["z"]), now: 1)
      #expect(any.callback.code == "y", "\(name)")
    }
  }

  /// A login the browser carried (sealed in its cookie, never inserted): of 8 concurrent callbacks carrying it,
  /// exactly one succeeds and the others are `replayed`; a replay without the carrier is `replayed` to its own
  /// browser and `browser-mismatch` to any other; nothing counts as pending; a callback whose state or
  /// redirect URI is not the carried one's binds nothing and spends nothing; an expired one is `expired`.
  @Test func carriedLoginsAreSpentOnce() async throws {
    try await withEveryStore { name, store in
      var sealed = PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "c1", expiresAt: 2_000)
      sealed.browserBinding = "hash-of-sealed-cookie"
      let carried = sealed
      let url = try ParsedURL("https://a.example/cb?code=x&state=c1")
      for (wrong, expected) in [
        ("https://a.example/cb?code=x&state=c2", CallbackError.Code.stateMismatch),
        ("https://b.example/cb?code=x&state=c1", .redirectMismatch),
        ("https://a.example/cb?code=x&state=c1&state=c1", .duplicateParameter),
      ] {
        let got = await code { try await store.consume(try ParsedURL(wrong), parameters: nil, carried: carried, now: 1_000) }
        #expect(got == expected, "\(name) \(wrong)")
      }
      let codes = await withTaskGroup(of: CallbackError.Code?.self) { group in
        for _ in 0..<8 {
          group.addTask { await code { try await store.consume(url, parameters: nil, carried: carried, now: 1_000) } }
        }
        var all: [CallbackError.Code?] = []
        for await c in group { all.append(c) }
        return all
      }
      #expect(codes.filter { $0 == nil }.count == 1 && codes.filter { $0 == .replayed }.count == 7, "\(name) \(codes)")
      #expect(try await store.count == 0, "\(name)")
      let ownReplay = await code {
        try await store.consume(url, parameters: nil, browser: BrowserBinding(hashes: ["hash-of-sealed-cookie"]), now: 1_000)
      }
      #expect(ownReplay == .replayed, "\(name)")
      #expect(await consumeCode(store, url.href) == .browserMismatch, "\(name)")
      // Given back (its code never reached the provider): spendable once more. A storage without
      // `removeSpent` (the actor's) gives nothing back: the login stays used up.
      let givesBack = name != "actor"
      #expect(try await store.restore(carried: carried) == givesBack, "\(name)")
      #expect(try await !store.restore(carried: carried), "\(name): restored twice")
      let again = await code { try await store.consume(url, parameters: nil, carried: carried, now: 1_000) }
      #expect(again == (givesBack ? nil : .replayed), "\(name)")
      #expect(await code { try await store.consume(url, parameters: nil, carried: carried, now: 1_000) } == .replayed)
      var neverSpent = carried
      neverSpent.state = "c9"
      #expect(try await !store.restore(carried: neverSpent), "\(name)")
      var late = carried
      late.state = "c3"
      let expired = await code {
        try await store.consume(try ParsedURL("https://a.example/cb?code=x&state=c3"), parameters: nil, carried: late, now: 2_000)
      }
      #expect(expired == .expired, "\(name)")
    }
  }

  /// The in-memory store keeps at most its capacity of spent keys: a replay of a live one is refused even when
  /// the set is full (nothing is dropped for room before the replay is known); a new one drops the key that
  /// expires first; an expired one goes by itself.
  @Test func spentKeysAreBoundedWithoutForgettingAReplay() throws {
    let store = PendingAuthorizationStore(capacity: 2)
    func spend(_ state: String, expiresAt: Int64, now: Int64) throws -> Bool {
      let pending = PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: state, expiresAt: expiresAt)
      return store.addSpent(pending, stateKey: store.stateKey(Array(state.utf8)), redirectKey: "https://a.example/cb", now: now)
    }
    #expect(try spend("a", expiresAt: 100, now: 1) && spend("b", expiresAt: 200, now: 1))
    #expect(try !spend("a", expiresAt: 100, now: 2))  // full, and `a` expires first: still a replay
    #expect(try spend("c", expiresAt: 300, now: 3))   // room made by dropping `a`
    #expect(try !spend("b", expiresAt: 200, now: 4) && !spend("c", expiresAt: 300, now: 4))
    #expect(try spend("a", expiresAt: 100, now: 5))   // dropped for room: known again
    #expect(try spend("d", expiresAt: 400, now: 250))  // `a` and `b` expired by themselves
    #expect(try !spend("c", expiresAt: 300, now: 250))
  }

  /// Bound by its state, a callback spends the login whatever it says: an error, or a decoder's rejection.
  @Test func boundCallbacksSpendTheLogin() async throws {
    try await withEveryStore { name, store in
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("https://e.example/cb"), state: "S"))
      let refused = try await store.consume(ParsedURL("https://e.example/cb?state=S&error=access_denied"), parameters: nil, now: 1).callback
      #expect(refused.outcome == .error && refused.providerError?.code.rawValue == "access_denied", "\(name)")
      #expect(try await store.count == 0, "\(name)")
      try await store.insert(PendingAuthorization(provider: .vk, redirectURI: ParsedURL("vk1://vk.ru/blank.html"), state: "V"))
      #expect(await consumeCode(store, "vk1://vk.ru/blank.html?code=c&state=V&device_id=d&type=code_v2&type=token") == .duplicateParameter, "\(name)")
      #expect(await consumeCode(store, "vk1://vk.ru/blank.html?code=c&state=V&device_id=d") == .replayed, "\(name)")
    }
  }

  @Test func issuerAndExpiry() async throws {
    try await withEveryStore { name, store in
      try await store.insert(
        PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "i", issuer: "https://as.example"))
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=i&iss=https%3A%2F%2Fevil.example") == .issuerMismatch, "\(name)")
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=i&iss=https%3A%2F%2Fas.example") == .replayed, "\(name)")
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "e", expiresAt: 10))
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=e", now: 20) == .expired, "\(name)")
      #expect(await consumeCode(store, "https://a.example/cb?code=x&state=e", now: 5) == .replayed, "\(name)")
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "f", expiresAt: 10))
      #expect(try await store.removeExpired(now: 10) == 1, "\(name)")
      #expect(try await store.count == 0, "\(name)")
    }
  }

  /// providers.md §1.6 and §3.6: state-less callbacks anyone can send are reported, but only a code spends a
  /// login, and only one without state.
  @Test func statelessCallbacks() async throws {
    try await withEveryStore { name, store in
      try await store.insert(PendingAuthorization(provider: .sber, redirectURI: ParsedURL("myapp://sberidauth"), state: "Qk7x"))
      for forged in ["myapp://sberidauth?error_code=5", "myapp://sberidauth?status=fail&error=access_denied"] {
        let reported = try await store.consume(ParsedURL(forged), parameters: nil, now: 1)
        // Reported with the login it was matched to, but not spent: anyone can send it.
        #expect(reported.callback.outcome == .error && !reported.isSpent, "\(name)")
        #expect(reported.authorization.state == "Qk7x", "\(name)")
        #expect(throws: TokenRequestError.self, "\(name)") { try reported.tokenRequest(clientSecret: "s") }
      }
      #expect(try await store.count == 1, "\(name)")
      #expect(try await store.consume(ParsedURL("myapp://sberidauth?state=Qk7x&code=FA21"), parameters: nil, now: 1).callback.code == "FA21", "\(name)")

      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
      for forged in ["cancelled", "unavailable", "result=failure", "result=garbage", "code=&cancelled"] {
        _ = await consumeCode(store, "myapp://authorized?\(forged)")
      }
      #expect(try await store.count == 1, "\(name)")
      #expect(try await store.consume(ParsedURL("myapp://authorized?code=c.9"), parameters: nil, now: 1).callback.code == "c.9", "\(name)")
      #expect(await consumeCode(store, "myapp://authorized?code=c.9") == .replayed, "\(name)")

      // Two T-ID logins without state: no callback can tell them apart.
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("myapp://authorized"), state: nil))
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: ParsedURL("otherapp://authorized"), state: nil))
      #expect(await consumeCode(store, "myapp://authorized?code=c.1") == .ambiguousAuthorization, "\(name)")
      #expect(try await store.count == 2, "\(name)")
    }
  }

  /// The same pending authorization inserted twice would be two records under one state, and one callback
  /// could consume each: the second insert is refused (`state-pending`), and 200 concurrent deliveries of the
  /// callback give exactly one success.
  @Test func aStateAlreadyPendingIsRefused() async throws {
    try await withEveryStore { name, store in
      let pending = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "dup")
      try await store.insert(pending)
      let error = await #expect(throws: PendingAuthorizationConflict.self, "\(name)") { try await store.insert(pending) }
      #expect(error?.code == "state-pending", "\(name)")
      #expect(try await store.count == 1, "\(name)")
      let url = try ParsedURL("https://a.example/cb?code=x&state=dup")
      let successes = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<200 {
          group.addTask { (try? await store.consume(url, parameters: nil, browser: nil, now: 1)) != nil }
        }
        var count = 0
        for await success in group where success { count += 1 }
        return count
      }
      #expect(successes == 1, "\(name)")
    }
  }

  /// T-ID's state-less app flow: a second login of the same client to the same redirect URI, started before the
  /// first returned (a double tap, a retry), replaces the first, so the real callback completes the newer one
  /// instead of failing with `ambiguous-authorization`. Another client's login is left alone.
  @Test func aNewerStatelessTIDLoginReplacesTheOlder() async throws {
    try await withEveryStore { name, store in
      let redirect = try ParsedURL("myapp://authorized")
      for verifier in ["v1", "v2", "v3"] {
        try await store.insert(
          PendingAuthorization(provider: .tid, redirectURI: redirect, state: nil, clientID: "partner", codeVerifier: verifier))
      }
      #expect(try await store.count == 1, "\(name)")
      let consumed = try await store.consume(ParsedURL("myapp://authorized?code=c.1"), parameters: nil, now: 1)
      #expect(consumed.authorization.codeVerifier == "v3", "\(name)")
      #expect(await consumeCode(store, "myapp://authorized?code=c.1") == .replayed, "\(name)")
      // Two clients: neither replaces the other, and a callback cannot tell them apart.
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: redirect, state: nil, clientID: "a"))
      try await store.insert(PendingAuthorization(provider: .tid, redirectURI: redirect, state: nil, clientID: "b"))
      #expect(try await store.count == 2, "\(name)")
      #expect(await consumeCode(store, "myapp://authorized?code=c.2") == .ambiguousAuthorization, "\(name)")
    }
  }

  /// A VK SDK 1.x payload is bound by its own `oauth.state`.
  @Test func legacyPayloadBindsByItsState() async throws {
    try await withEveryStore { name, store in
      try await store.insert(PendingAuthorization(provider: .vk, redirectURI: ParsedURL("vk1://vk.com/blank.html"), state: "s1"))
      let payload = "payload=%7B%22oauth%22%3A%7B%22code%22%3A%22c1%22%2C%22state%22%3A%22s1%22%7D%7D"
      #expect(try await store.consume(ParsedURL("vk1://vk.com/blank.html?\(payload)"), parameters: nil, now: 1).callback.code == "c1", "\(name)")
      #expect(await consumeCode(store, "vk1://vk.com/blank.html?\(payload)") == .replayed, "\(name)")
    }
  }
}

/// From a real start to the token request, for every provider, through each store: the consumed authorization
/// carries what the login sent (client id, redirect URI as sent, PKCE verifier, nonce), so the exchange is built
/// from it alone. (In the serialized suite above: both use the one contract database.)
extension StoreContractTests {
  struct Case: Sendable, CustomStringConvertible {
    var login: LoginStart
    var callbackQuery: @Sendable (_ state: String) -> String
    var clientSecret: String?
    var endpoint: String?
    var description: String { login.provider.rawValue }
  }

  static let cases: [Case] = [
    Case(
      login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback"),
      callbackQuery: { "code=vk2.a.c0de&state=\($0)&device_id=dev-1&type=code_v2" }),
    Case(
      login: .sberID(clientID: "0A1B2C3D", redirectURI: "https://example.com/auth/sber/callback"),
      callbackQuery: { "code=FA21&state=\($0)" }, clientSecret: "sber-secret"),
    Case(
      login: .tid(clientID: "partner", redirectURI: "https://example.com/auth/tid/callback"),
      callbackQuery: { "code=c.9fQ2&state=\($0)" }, clientSecret: "tid-secret"),
    Case(
      login: .apple(clientID: "com.example.web", redirectURI: "https://example.com/auth/apple/callback"),
      callbackQuery: { "code=c0a1&state=\($0)" }, clientSecret: "apple.client.secret.jwt"),
    Case(
      login: .oauth2(
        authorizeURL: "https://id.example/authorize", clientID: "app", redirectURI: "https://example.com/auth/oidc/callback"),
      callbackQuery: { "code=xyz&state=\($0)" }, endpoint: "https://id.example/token"),
  ]

  @Test(arguments: cases) func callbackToTokenRequest(_ c: Case) async throws {
    try await withEveryStore { name, store in
      let (_, pending) = try c.login.makeAuthorization(now: 1_000)
      try await store.insert(pending)
      let state = try #require(pending.state)
      let url = try ParsedURL(c.login.redirectURI + "?" + c.callbackQuery(state))
      let consumed = try await store.consume(url, parameters: nil, now: 1_001)
      #expect(consumed.isSpent, "\(name)")
      #expect(consumed.authorization == pending, "\(name): the consumed authorization is the one inserted")
      let request = try consumed.tokenRequest(clientSecret: c.clientSecret, endpoint: c.endpoint)
      #expect(request.kind == .tokenExchange && request.provider == c.login.provider, "\(name)")
      #expect(request.formValue("code") == consumed.callback.code.map(String.init), "\(name)")
      #expect(request.formValue("code_verifier") == pending.codeVerifier, "\(name): the PKCE verifier went along")
      #expect(request.formValue("redirect_uri") == c.login.redirectURI, "\(name): the redirect URI as sent")
      if c.login.provider == .vk {
        #expect(request.formValue("device_id") == "dev-1" && request.formValue("client_id") == "7915193", "\(name)")
      }
      // Single use: the same callback again is a replay, and builds nothing.
      #expect(await consumeCode(store, url.href, now: 1_002) == .replayed, "\(name)")
    }
  }
}
