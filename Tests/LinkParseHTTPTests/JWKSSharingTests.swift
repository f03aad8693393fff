// JWKSCache with a JWKSSharing: two caches standing for two instances of an app share their fetches, so a key
// rotation costs one fetch for both; a sharing that fails, or holds something that is not a JWKS, costs nothing
// but the sharing.

import Foundation
import LinkParseOAuth
import LinkParseIDToken
import Testing

@testable import LinkParseHTTP

/// JWKSSharing in memory, with the lock a database would hold.
actor MemoryJWKSSharing: JWKSSharing {
  var document: SharedJWKS?
  var failing = false
  private(set) var stores = 0
  private var tail: Task<Void, Never>?

  func setDocument(_ document: SharedJWKS?) { self.document = document }
  func setFailing(_ failing: Bool) { self.failing = failing }

  func withJWKSLock<T: Sendable>(url: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    if failing { throw CancellationError() }
    let previous = tail
    let (released, release) = AsyncStream<Void>.makeStream()
    tail = Task { for await _ in released {} }
    await previous?.value
    defer { release.finish() }
    return try await body()
  }

  func loadJWKS(url: String) async throws -> SharedJWKS? {
    if failing { throw CancellationError() }
    return document
  }

  func storeJWKS(_ document: SharedJWKS, url: String) async throws {
    if failing { throw CancellationError() }
    self.document = document
    stores += 1
  }
}

@Suite("JWKSCache instances sharing their fetches")
struct JWKSSharingTests {
  /// Two caches (two instances) on one provider and one sharing, each with a clock of its own.
  func withTwoCaches<T>(
    serving document: String, sharing: MemoryJWKSSharing,
    _ body: (JWKSCache, JWKSCache, LocalProvider, ManualClock, ManualClock) async throws -> T
  ) async throws -> T {
    try await withLocalProvider { provider in
      provider.jwks.serve(document)
      return try await withClient(provider) { client in
        let (clockA, clockB) = (ManualClock(), ManualClock())
        let configuration = JWKSCache.Configuration(refetchCooldown: .seconds(60))
        let a = JWKSCache(
          url: provider.baseURL + "/jwks", client: client, configuration: configuration, sharing: sharing,
          clock: { clockA.now() })
        let b = JWKSCache(
          url: provider.baseURL + "/jwks", client: client, configuration: configuration, sharing: sharing,
          clock: { clockB.now() })
        return try await body(a, b, provider, clockA, clockB)
      }
    }
  }

  @Test func aRotationCostsOneFetchForBothInstances() async throws {
    let old = TestSigningKey("old")
    let new = TestSigningKey("new")
    let sharing = MemoryJWKSSharing()
    try await withTwoCaches(serving: TestSigningKey.jwks(old), sharing: sharing) { a, b, provider, clockA, clockB in
      _ = try await a.verifyTest(try old.token())
      _ = try await b.verifyTest(try old.token())  // the document A shared
      #expect(provider.jwks.fetches == 1)
      #expect(await sharing.stores == 1)

      // The provider rotates; past the cooldown, 500 tokens of the new key reach each instance at once.
      provider.jwks.serve(TestSigningKey.jwks(new))
      clockA.advance(by: .seconds(61))
      clockB.advance(by: .seconds(61))
      let token = try new.token()
      let verified = try await withThrowingTaskGroup(of: Bool.self) { group in
        for index in 0..<1_000 {
          let cache = index % 2 == 0 ? a : b
          group.addTask { try await cache.verifyTest(token).claims.subject == "user-1" }
        }
        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
      #expect(verified == 1_000)
      #expect(provider.jwks.fetches == 2)
      #expect(try await a.verifier().keys.map(\.keyID) == ["new"])
      #expect(try await b.verifier().keys.map(\.keyID) == ["new"])
    }
  }

  /// Keys taken from the sharing start no cooldown: an instance that adopted another's (older) document can
  /// still fetch at once for a kid it lacks.
  @Test func sharedKeysDoNotStartTheCooldown() async throws {
    let old = TestSigningKey("old")
    let new = TestSigningKey("new")
    let sharing = MemoryJWKSSharing()
    try await withTwoCaches(serving: TestSigningKey.jwks(old), sharing: sharing) { a, b, provider, clockA, _ in
      _ = try await a.verifyTest(try old.token())
      provider.jwks.serve(TestSigningKey.jwks(new))
      // B's first need: A's document (old keys), then at once a fetch for the new kid.
      #expect(try await b.verifyTest(try new.token()).claims.subject == "user-1")
      #expect(provider.jwks.fetches == 2)
      // A is in the cooldown of its own fetch: the unknown kid fails there, as without sharing (a flood of made-up
      // kids costs neither the provider nor the database anything).
      let early = await caught(IDTokenError.self) { _ = try await a.verifyTest(try new.token()) }
      #expect(early?.code == .unknownKey)
      // Past it, A takes B's newer document without asking the provider.
      clockA.advance(by: .seconds(61))
      #expect(try await a.verifyTest(try new.token()).claims.subject == "user-1")
      #expect(provider.jwks.fetches == 2)
    }
  }

  @Test func aSharingThatFailsIsFetchedAround() async throws {
    let key = TestSigningKey("k1")
    let sharing = MemoryJWKSSharing()
    await sharing.setFailing(true)
    try await withTwoCaches(serving: TestSigningKey.jwks(key), sharing: sharing) { a, b, provider, _, _ in
      _ = try await a.verifyTest(try key.token())
      _ = try await b.verifyTest(try key.token())
      #expect(provider.jwks.fetches == 2)  // each on its own, as without sharing
    }
  }

  @Test func aSharedDocumentThatIsNotAJWKSIsIgnored() async throws {
    let key = TestSigningKey("k1")
    let sharing = MemoryJWKSSharing()
    let now = IDTokenVerifier.currentUnixTime
    await sharing.setDocument(
      SharedJWKS(json: Array(#"{"keys":"nonsense"}"#.utf8), fetchedAt: now, expiresAt: now + 600, fetchID: 7))
    try await withTwoCaches(serving: TestSigningKey.jwks(key), sharing: sharing) { a, _, provider, _, _ in
      let verified = try await a.verifyTest(try key.token())
      #expect(verified.claims.subject == "user-1")
      #expect(provider.jwks.fetches == 1)
      let shared = await sharing.document
      #expect(shared?.fetchID != 7)  // replaced by the real one
    }
  }

  @Test func anExpiredSharedDocumentIsFetchedAnew() async throws {
    let key = TestSigningKey("k1")
    let sharing = MemoryJWKSSharing()
    let now = IDTokenVerifier.currentUnixTime
    await sharing.setDocument(
      SharedJWKS(json: Array(TestSigningKey.jwks(key).utf8), fetchedAt: now - 700, expiresAt: now - 100, fetchID: 9))
    try await withTwoCaches(serving: TestSigningKey.jwks(key), sharing: sharing) { a, _, provider, _, _ in
      _ = try await a.verifyTest(try key.token())
      #expect(provider.jwks.fetches == 1)
    }
  }
}
