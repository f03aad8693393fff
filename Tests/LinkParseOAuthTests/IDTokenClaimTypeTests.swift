import Testing

@testable import LinkParseOAuth

/// RFC 7519 §2: a NumericDate is a JSON number. `exp`, `iat`, `nbf` and `auth_time` written as strings are
/// refused by the verifier and read as `nil` by the typed accessors, verified or not.
@Suite struct IDTokenClaimTypeTests {
  typealias F = IDTokenFixture

  @Test(arguments: ["exp", "iat", "nbf", "auth_time"])
  func aStringNumericDateIsMalformed(_ name: String) async throws {
    let f = try await F.get()
    let values: [String: Int64] = ["exp": 1_795_702_054, "iat": F.now - 10, "nbf": F.now - 10, "auth_time": F.now - 12]
    let token = try f.rs256(F.claims([name: "\"\(values[name]!)\""]))
    let error = f.error(token)
    #expect(error?.code == .malformed)
    #expect(error?.claim == name)
    #expect(error?.part == .payload)
    #expect(error?.message.contains("JSON number") == true)
    // The same value as a number verifies.
    #expect(f.error(try f.rs256(F.claims([name: String(values[name]!)]))) == nil)
  }

  @Test func theIssuesStringExpIsRefused() async throws {
    let f = try await F.get()
    let token = try f.es256(F.claims(["exp": #""1795702054""#]))
    #expect(f.error(token)?.code == .malformed)
  }

  @Test func accessorsReadOnlyNumbersAsNumericDates() throws {
    let claims = IDTokenClaims(
      .object([
        ("exp", .string("1700000600")), ("iat", .number("1699999990")), ("nbf", .string("1")),
        ("auth_time", .string("2")),
      ]))
    #expect(claims.expiresAt == nil)
    #expect(claims.issuedAt == 1_699_999_990)
    #expect(claims.notBefore == nil)
    #expect(claims.authTime == nil)
    #expect(claims.apple.authTime == nil)
  }

  // MARK: nonce

  @Test func aNonceIsRefusedWhenNoneWasSent() async throws {
    let f = try await F.get()
    let error = f.error(try f.rs256(), nonce: nil)
    #expect(error?.code == .nonceMismatch)
    #expect(error?.claim == "nonce")
    #expect(error?.message.contains("no nonce was sent") == true)
    // Without a nonce in the token, nothing is expected and nothing is refused.
    #expect(f.error(try f.rs256(F.claims(["nonce": nil])), nonce: nil) == nil)
  }
}
