// JWKSCache against LocalProvider's /jwks route (a real HTTP server on 127.0.0.1) that counts its requests:
// caching, TTLs, key rotation under 1,000 concurrent verifications, unknown-kid floods, and each failure of the
// endpoint. The cache's clock is a ManualClock the tests move, so no test sleeps for a TTL or a cooldown.

import Crypto
import Foundation
import LinkParseOAuth
import LinkParseIDToken
import Testing

@testable import LinkParseHTTP

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
  private let lock = NSLock()
  private let start = ContinuousClock.now
  private var offset = Duration.zero

  func now() -> ContinuousClock.Instant { lock.locked { start + offset } }
  func advance(by duration: Duration) { lock.locked { offset += duration } }
}

/// A P-256 key that signs ES256 test tokens under its `kid`.
struct TestSigningKey: Sendable {
  static let issuer = "https://issuer.test"
  static let clientID = "client-1"
  /// The time tokens are made for and verified at.
  static let now: Int64 = 1_700_000_000
  static let expected = IDTokenVerifier.Expectations(issuer: issuer, audience: clientID, nonce: nil)

  let kid: String
  let key = P256.Signing.PrivateKey()

  init(_ kid: String) { self.kid = kid }

  /// The public half as a JWK.
  var jwk: String {
    let point = Array(key.publicKey.x963Representation)  // 0x04 ‖ x ‖ y
    let x = base64URL(point[1..<33])
    let y = base64URL(point[33..<65])
    return #"{"kty":"EC","crv":"P-256","use":"sig","kid":"\#(kid)","x":"\#(x)","y":"\#(y)"}"#
  }

  /// A token valid at ``now`` for ``clientID``, signed by this key; `kid` overrides the header's.
  func token(subject: String = "user-1", kid: String? = nil) throws -> String {
    let payload =
      #"{"iss":"\#(Self.issuer)","aud":"\#(Self.clientID)","sub":"\#(subject)","#
      + #""iat":\#(Self.now - 10),"exp":\#(Self.now + 600)}"#
    return try signed(payload, kid: kid)
  }

  /// `payload` (JSON text) as an ES256 token signed by this key; `kid` overrides the header's.
  func signed(_ payload: String, kid: String? = nil) throws -> String {
    let header = #"{"alg":"ES256","kid":"\#(kid ?? self.kid)","typ":"JWT"}"#
    let input = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
    let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
    return input + "." + base64URL(Array(signature))
  }

  static func jwks(_ keys: TestSigningKey...) -> String {
    #"{"keys":["# + keys.map(\.jwk).joined(separator: ",") + "]}"
  }
}

func base64URL(_ bytes: some Collection<UInt8>) -> String {
  Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// A provider serving `keys`, a client, a manual clock and a cache over them; everything stopped afterwards.
func withJWKSCache<T>(
  serving document: String, cacheControl: String? = nil, configuration: JWKSCache.Configuration,
  timeout: Duration = .seconds(5),
  _ body: (JWKSCache, LocalProvider, ManualClock) async throws -> T
) async throws -> T {
  try await withLocalProvider { provider in
    provider.jwks.serve(document, cacheControl: cacheControl)
    return try await withClient(provider, timeout: timeout) { client in
      let clock = ManualClock()
      let cache = JWKSCache(
        url: provider.baseURL + "/jwks", client: client, configuration: configuration, clock: { clock.now() })
      return try await body(cache, provider, clock)
    }
  }
}

extension JWKSCache {
  /// Verifies at the test tokens' time.
  nonisolated func verifyTest(_ token: String) async throws -> VerifiedIDToken {
    try await verify(token, expecting: TestSigningKey.expected, now: TestSigningKey.now)
  }
}

/// The error `body` throws, as `E`, or `nil` (also when it throws something else).
func caught<E: Error>(_ type: E.Type, _ body: () async throws -> Void) async -> E? {
  do {
    try await body()
    return nil
  } catch {
    return error as? E
  }
}

@Suite("JWKSCache against a JWKS endpoint on 127.0.0.1")
struct JWKSCacheTests {

  @Test func firstUseFetchesOnceThenServesFromCache() async throws {
    let key = TestSigningKey("k1")
    try await withJWKSCache(serving: TestSigningKey.jwks(key), configuration: .init()) { cache, provider, clock in
      #expect(provider.jwks.fetches == 0)  // nothing before first use
      let token = try key.token()
      for _ in 0..<50 { #expect(try await cache.verifyTest(token).claims.subject == "user-1") }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<200 { group.addTask { _ = try await cache.verifyTest(token) } }
        try await group.waitForAll()
      }
      #expect(try await cache.verifier().keys.map(\.keyID) == ["k1"])
      clock.advance(by: .seconds(3599))  // within the default TTL (1 hour)
      _ = try await cache.verifyTest(token)
      #expect(provider.jwks.fetches == 1)
      #expect(provider.recorder.last?.method == "GET")
      #expect(provider.recorder.last?.header("Accept")?.contains("application/jwk-set+json") == true)
    }
  }

  @Test func expiredTTLRefetches() async throws {
    let key = TestSigningKey("k1")
    let configuration = JWKSCache.Configuration(defaultTTL: .seconds(120), minimumTTL: .seconds(1), refetchCooldown: .seconds(5))
    try await withJWKSCache(serving: TestSigningKey.jwks(key), configuration: configuration) { cache, provider, clock in
      let token = try key.token()
      _ = try await cache.verifyTest(token)
      clock.advance(by: .seconds(119))
      _ = try await cache.verifyTest(token)
      #expect(provider.jwks.fetches == 1)
      clock.advance(by: .seconds(2))
      _ = try await cache.verifyTest(token)
      _ = try await cache.verifyTest(token)
      #expect(provider.jwks.fetches == 2)
      clock.advance(by: .seconds(121))
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 3)
    }
  }

  @Test func cacheControlMaxAgeSetsTheTTL() async throws {
    let key = TestSigningKey("k1")
    let configuration = JWKSCache.Configuration(
      defaultTTL: .seconds(60), minimumTTL: .seconds(10), maximumTTL: .seconds(1000), refetchCooldown: .seconds(1))
    try await withJWKSCache(
      serving: TestSigningKey.jwks(key), cacheControl: "public, max-age=300, must-revalidate", configuration: configuration
    ) { cache, provider, clock in
      _ = try await cache.verifier()
      clock.advance(by: .seconds(299))  // past the default TTL, within max-age
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 1)
      clock.advance(by: .seconds(2))
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 2)
      // A max-age above the maximum is cut to it.
      provider.jwks.serve(TestSigningKey.jwks(key), cacheControl: "max-age=31536000")
      clock.advance(by: .seconds(301))
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 3)
      clock.advance(by: .seconds(999))
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 3)
      clock.advance(by: .seconds(2))
      _ = try await cache.verifier()
      #expect(provider.jwks.fetches == 4)
    }
  }

  @Test(arguments: [
    (nil, 60), ("max-age=300", 300), ("public, MAX-AGE=\"120\"", 120), ("max-age=0", 10), ("no-store", 10),
    ("no-cache, max-age=600", 10), ("max-age=99999999999999999999999", 1000), ("max-age=-5", 60),
    ("max-age=abc", 60), ("private", 60), (" max-age = 45 ", 45),
  ] as [(String?, Int64)])
  func timeToLiveFromCacheControl(header: String?, seconds: Int64) {
    let configuration = JWKSCache.Configuration(defaultTTL: .seconds(60), minimumTTL: .seconds(10), maximumTTL: .seconds(1000))
    #expect(JWKSCache.timeToLive(cacheControl: header, configuration: configuration) == .seconds(seconds))
  }

  @Test func rotationIsFollowedWithOneFetchFor1000ConcurrentVerifications() async throws {
    let old = TestSigningKey("2024-old")
    let new = TestSigningKey("2025-new")
    let configuration = JWKSCache.Configuration(refetchCooldown: .seconds(60))
    try await withJWKSCache(serving: TestSigningKey.jwks(old), configuration: configuration) { cache, provider, clock in
      _ = try await cache.verifyTest(try old.token())
      #expect(provider.jwks.fetches == 1)
      // The provider rotates (after the cooldown, within the TTL); 1,000 tokens signed by the new key arrive at once.
      provider.jwks.serve(TestSigningKey.jwks(new))
      clock.advance(by: .seconds(61))
      let token = try new.token()
      let verified = try await withThrowingTaskGroup(of: Bool.self) { group in
        for _ in 0..<1000 {
          group.addTask { try await cache.verifyTest(token).claims.subject == "user-1" }
        }
        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
      #expect(verified == 1000)
      #expect(provider.jwks.fetches == 2)
      #expect(try await cache.verifier().keys.map(\.keyID) == ["2025-new"])
      // Tokens of the retired key now fail as unknown-key, without another fetch (cooldown).
      let error = await caught(IDTokenError.self) { _ = try await cache.verifyTest(try old.token()) }
      #expect(error?.code == .unknownKey)
      #expect(provider.jwks.fetches == 2)
    }
  }

  /// A provider that rotates its keys right after a fetch: the first token of the new key is refused while the
  /// cache cools down, with an error that says so and until when (not "refetch the JWKS", which the cache just
  /// declined); 30 s after the fetch (the unknown-kid interval, below the 60 s cooldown) one refetch takes it.
  @Test func rotationInsideTheCooldownIsFollowedAfterTheUnknownKeyInterval() async throws {
    let old = TestSigningKey("k-old")
    let new = TestSigningKey("k-new")
    let configuration = JWKSCache.Configuration(refetchCooldown: .seconds(60))
    #expect(configuration.unknownKeyRefetchInterval == .seconds(30))
    try await withJWKSCache(serving: TestSigningKey.jwks(old), configuration: configuration) { cache, provider, clock in
      _ = try await cache.verifyTest(try old.token())
      provider.jwks.serve(TestSigningKey.jwks(new))
      clock.advance(by: .seconds(10))
      let early = await caught(IDTokenError.self) { _ = try await cache.verifyTest(try new.token()) }
      #expect(early?.code == .unknownKey)
      #expect(early?.message.contains("cooling down") == true, "\(early?.message ?? "")")
      #expect(early?.message.contains("(in 20 s)") == true, "\(early?.message ?? "")")
      #expect(early?.message.contains("refetch the JWKS if") == false)
      #expect(provider.jwks.fetches == 1)
      clock.advance(by: .seconds(21))
      #expect(try await cache.verifyTest(try new.token()).claims.subject == "user-1")
      #expect(provider.jwks.fetches == 2)
    }
  }

  @Test func unknownKidFloodFetchesAtMostOncePerCooldown() async throws {
    let key = TestSigningKey("k1")
    let attacker = TestSigningKey("attacker")
    let configuration = JWKSCache.Configuration(refetchCooldown: .seconds(30))
    try await withJWKSCache(serving: TestSigningKey.jwks(key), configuration: configuration) { cache, provider, clock in
      _ = try await cache.verifyTest(try key.token())
      // Within the cooldown of the first fetch: unknown kids fail without a fetch.
      let early = await caught(IDTokenError.self) { _ = try await cache.verifyTest(try attacker.token(kid: "ghost-0")) }
      #expect(early?.code == .unknownKey)
      #expect(provider.jwks.fetches == 1)

      func flood(_ round: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
          for index in 0..<300 {
            let token = try attacker.token(kid: "ghost-\(round)-\(index)")
            group.addTask {
              let error = await caught(IDTokenError.self) { _ = try await cache.verifyTest(token) }
              return error?.code == .unknownKey
            }
          }
          return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
      }
      clock.advance(by: .seconds(31))
      #expect(try await flood(1) == 300)
      #expect(provider.jwks.fetches == 2)
      for index in 0..<100 {  // one by one, still in the cooldown
        let error = await caught(IDTokenError.self) { _ = try await cache.verifyTest(try attacker.token(kid: "late-\(index)")) }
        #expect(error?.code == .unknownKey)
      }
      #expect(provider.jwks.fetches == 2)
      // Good tokens keep verifying during the flood.
      _ = try await cache.verifyTest(try key.token())
      clock.advance(by: .seconds(31))
      #expect(try await flood(2) == 300)
      #expect(provider.jwks.fetches == 3)
    }
  }

  @Test(arguments: [
    (JWKSEndpoint.Mode.serverError, OAuthResponseError.Code.httpStatus),
    (.garbage, .unexpectedShape),
    (.tenMegabytes, .bodyTooLarge),
    (.slow, .timeout),
  ])
  func failedFetchIsTypedAndKeepsThePreviousKeys(mode: JWKSEndpoint.Mode, code: OAuthResponseError.Code) async throws {
    let key = TestSigningKey("k1")
    let configuration = JWKSCache.Configuration(
      defaultTTL: .seconds(600), refetchCooldown: .seconds(60), maximumStaleness: .seconds(3600))
    // A short request limit only where the timeout is the point; the others get room on a loaded runner (a
    // 10 MB answer cut at the body limit took more than 500 ms in a full debug run).
    let timeout: Duration = mode == .slow ? .milliseconds(500) : .seconds(30)
    try await withJWKSCache(
      serving: TestSigningKey.jwks(key), configuration: configuration, timeout: timeout
    ) { cache, provider, clock in
      let token = try key.token()
      // No keys yet and the endpoint fails: the typed error, then the same error without a request (cooldown).
      provider.jwks.mode = mode
      let first = await caught(OAuthResponseError.self) { _ = try await cache.verifyTest(token) }
      #expect(first?.code == code)
      let again = await caught(OAuthResponseError.self) { _ = try await cache.verifier() }
      #expect(again?.code == code)
      #expect(provider.jwks.fetches == 1)

      // The endpoint recovers; after the cooldown the keys are fetched.
      provider.jwks.mode = .keys
      clock.advance(by: .seconds(61))
      _ = try await cache.verifyTest(token)
      #expect(provider.jwks.fetches == 2)

      // It fails again once the TTL is over: the previous keys stay in service, asked once per cooldown.
      provider.jwks.mode = mode
      clock.advance(by: .seconds(601))
      #expect(try await cache.verifyTest(token).claims.subject == "user-1")
      #expect(provider.jwks.fetches == 3)
      for _ in 0..<20 { _ = try await cache.verifyTest(token) }
      #expect(provider.jwks.fetches == 3)
      // An unknown kid during the failure: unknown-key, no fetch in the cooldown.
      let unknown = await caught(IDTokenError.self) { _ = try await cache.verifyTest(try key.token(kid: "k2")) }
      #expect(unknown?.code == .unknownKey)
      #expect(provider.jwks.fetches == 3)
      clock.advance(by: .seconds(61))
      _ = try await cache.verifyTest(token)
      #expect(provider.jwks.fetches == 4)

      // Past the maximum staleness, the failure is thrown.
      clock.advance(by: .seconds(3600))
      let stale = await caught(OAuthResponseError.self) { _ = try await cache.verifyTest(token) }
      #expect(stale?.code == code)
      #expect(provider.jwks.fetches == 5)
    }
  }

  @Test func plainHTTPToAnotherHostIsRefusedBeforeConnecting() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let cache = JWKSCache(url: "http://jwks.example/keys", client: client)
        let error = await caught(OAuthResponseError.self) { _ = try await cache.verifier() }
        #expect(error?.code == .transport)
      }
    }
  }
}
