import LinkParseCore
import LinkParseProviders
import Testing

/// The in-memory store through the async protocol (as a server generic over its store uses it).
@Suite struct PendingAuthorizationStoringTests {
  func flow(_ store: some PendingAuthorizationStoring) async throws -> [CallbackError.Code?] {
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: ParsedURL("https://a.example/cb"), state: "s"))
    var codes: [CallbackError.Code?] = []
    for _ in 0..<2 {
      do throws(CallbackError) {
        _ = try await store.consume(try! ParsedURL("https://a.example/cb?code=x&state=s"), parameters: nil, now: 0)
        codes.append(nil)
      } catch {
        codes.append(error.code)
      }
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

  @Test func storeUnavailableIsDescribed() {
    let error = CallbackError(.storeUnavailable, found: "timed out")
    #expect(error.code.rawValue == "store-unavailable")
    #expect(error.descriptionEN.contains("timed out"))
  }
}
