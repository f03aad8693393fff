import LinkParseAuthorization
import LinkParseCore
import LinkParseProviders
import Testing

/// The in-memory store through the async protocol (as a server generic over its store uses it).
@Suite struct PendingAuthorizationStoringTests {
  func flow(_ store: some PendingAuthorizationStoring) async throws -> [CallbackError.Code?] {
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s"))
    var codes: [CallbackError.Code?] = []
    for _ in 0..<2 {
      codes.append(
        await asyncRejection { try await store.consume(try ParsedURL("https://a.example/cb?code=x&state=s"), parameters: nil, now: 0) })
    }
    return codes
  }

  @Test func inMemoryStoreConforms() async throws {
    let store = PendingAuthorizationStore()
    #expect(try await flow(store) == [nil, .replayed])
    let any: any PendingAuthorizationStoring = store
    #expect(try await any.count == 0)
    #expect(try await any.removeExpired(now: 0) == 0)
  }
}

/// The in-memory store's indexes: many logins on one redirect URI, mixed with state-less T-ID ones, expiry
/// and replays, give the same answers as the scan they replaced.
@Suite struct PendingAuthorizationStoreIndexTests {
  @Test func manyLoginsOnOneRedirect() async throws {
    let store = PendingAuthorizationStore(consumedLimit: 4, now: { 0 })
    let redirect = try ParsedURL("https://app.example/cb")
    for i in 0..<5_000 {
      try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: redirect, state: "s\(i)", expiresAt: i < 100 ? 10 : nil))
    }
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
    #expect(store.count == 5_001)
    #expect(store.removeExpired(now: 10) == 100)
    #expect(store.count == 4_901)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://app.example/cb?code=c&state=s50"))).callback } == .stateMismatch)
    for i in stride(from: 4_999, through: 100, by: -1) {
      #expect(try (await store.consume(ParsedURL("https://app.example/cb?code=c\(i)&state=s\(i)"))).callback.code == "c\(i)")
    }
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://app.example/cb?code=c&state=s100"))).callback } == .replayed)
    // A port the redirect URI does not have: not this login's redirect.
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: redirect, state: "p"))
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://app.example:8443/cb?code=c&state=p"))).callback } == .redirectMismatch)
    #expect(try (await store.consume(ParsedURL("myapp://authorized?code=c.1"))).callback.code == "c.1")
    #expect(try (await store.consume(ParsedURL("https://app.example/cb?code=c&state=p"))).callback.code == "c")
    #expect(store.count == 0)
    #expect(await asyncRejection { try (await store.consume(ParsedURL("https://app.example/cb?code=c&state=zz"))).callback } == .notPending)
  }

  @Test func twoStatelessTIDLoginsAreAmbiguousUntilOneExpires() async throws {
    let store = PendingAuthorizationStore(now: { 0 })
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil, expiresAt: 5))
    try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("otherapp://authorized"), state: nil))
    #expect(await asyncRejection { try (await store.consume(ParsedURL("otherapp://authorized?code=c"), now: 1)).callback } == .ambiguousAuthorization)
    #expect(store.removeExpired(now: 5) == 1)
    #expect(try (await store.consume(ParsedURL("otherapp://authorized?code=c"), now: 6)).callback.code == "c")
  }
}

