import Testing

@testable import LinkParseOAuth
@testable import LinkParseIDToken
import LinkParseCore
import LinkParseAuthorization
import LinkParseProviders

/// `auth_time` against `max_age` (OpenID Connect Core §3.1.2.1, §3.1.3.7 step 11) and the age of `iat`
/// (§3.1.3.7 step 10). The fixture's token has `iat` = now − 10 and `auth_time` = now − 12.
@Suite struct IDTokenTimeTests {
  typealias F = IDTokenFixture

  @Test func aRecentAuthenticationPassesMaxAge() async throws {
    let f = try await F.get()
    #expect(f.error(try f.rs256()) { $0.maxAge = .seconds(300) } == nil)
    // 330 s ago, max_age 300, leeway 60: inside.
    #expect(f.error(try f.es256(F.claims(["auth_time": String(F.now - 330)]))) { $0.maxAge = .seconds(300) } == nil)
  }

  @Test func anAuthenticationOlderThanMaxAgeIsRefused() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["auth_time": String(F.now - 400)]))
    let error = f.error(token) { $0.maxAge = .seconds(300) }
    #expect(error?.code == .authenticationTooOld)
    #expect(error?.claim == "auth_time")
    // max_age 0 (RFC: force a fresh login) with no leeway: a login 12 s ago is too old.
    #expect(f.error(try f.rs256()) { $0.maxAge = .seconds(0); $0.leeway = .zero }?.code == .authenticationTooOld)
    // Without max_age, auth_time's age does not matter.
    #expect(f.error(token) { _ in } == nil)
  }

  @Test func maxAgeRequiresAuthTime() async throws {
    let f = try await F.get()
    let token = try f.es256(F.claims(["auth_time": nil]))
    #expect(f.error(token) { _ in } == nil)
    let error = f.error(token) { $0.maxAge = .seconds(3600) }
    #expect(error?.code == .missingClaim)
    #expect(error?.claim == "auth_time")
    let text = f.error(try f.es256(F.claims(["auth_time": #""1699999990""#]))) { $0.maxAge = .seconds(3600) }
    #expect(text?.code == .malformed)
  }

  @Test func anAuthenticationInTheFutureIsRefused() async throws {
    let f = try await F.get()
    let token = try f.rs256(F.claims(["auth_time": String(F.now + 120)]))
    let error = f.error(token) { _ in }
    #expect(error?.code == .authenticationInFuture)
    #expect(error?.claim == "auth_time")
    #expect(f.error(try f.rs256(F.claims(["auth_time": String(F.now + 30)]))) { _ in } == nil)
  }

  @Test func aTokenIssuedLongAgoIsRefused() async throws {
    let f = try await F.get()
    let old = try f.rs256(F.claims(["iat": String(F.now - 700), "auth_time": String(F.now - 700)]))
    let error = f.error(old) { _ in }
    #expect(error?.code == .issuedTooLongAgo)
    #expect(error?.claim == "iat")
    // 650 s: within 600 s plus the 60 s leeway.
    let recent = try f.es256(F.claims(["iat": String(F.now - 650)]))
    #expect(f.error(recent) { _ in } == nil)
    // The caller may widen the bound or turn it off (a stored token, still within its exp).
    #expect(f.error(old) { $0.maxIssuedAtAge = .seconds(3600) } == nil)
    #expect(f.error(old) { $0.maxIssuedAtAge = nil } == nil)
    #expect(f.error(old) { $0.maxIssuedAtAge = .seconds(100) }?.code == .issuedTooLongAgo)
  }

  @Test func presetsKeepTheDefaults() throws {
    let pending = try AppleAuthorizationRequest(
      clientID: F.clientID, redirectURI: "https://example.com/auth/apple/callback", state: "8f3c1e2a", nonce: "n"
    ).pendingAuthorization(expiresAt: nil)
    let all: [IDTokenVerifier.Expectations] = [
      .apple(clientID: "c", nonce: nil), .vk(clientID: "c", nonce: nil), .tid(clientID: "c", nonce: nil),
      .sber(clientID: "c", nonce: nil, issuer: "https://sber.example"), .generic(issuer: "i", clientID: "c", nonce: nil),
      try pending.idTokenExpectations(),
    ]
    for expected in all {
      #expect(expected.maxIssuedAtAge == .seconds(600) && expected.maxAge == nil)
      #expect(expected.authorizationCode == nil && expected.accessToken == nil)
      #expect(!expected.requiresCodeHash && !expected.requiresAccessTokenHash)
    }
  }
}
