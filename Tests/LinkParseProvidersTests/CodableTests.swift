import Foundation
import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders
import LinkParseBytes

/// `ProviderCallback` and `CallbackError` are `Codable`, and a JSON round trip gives back an equal value.
@Suite("Providers: Codable callbacks and errors")
struct CodableTests {
  static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
    let data = try JSONEncoder().encode(value)
    return try JSONDecoder().decode(T.self, from: data)
  }

  static let legacyJSON = #"{"oauth":{"code":"c1","state":"s1"},"user":{"id":1,"first_name":"Ivan","avatar":"https://a/x.png"}}"#

  /// (provider, parameters): every case of every provider, decoded from parameters.
  static let cases: [(Provider, String)] = [
    (.sber, "status=success&state=Qk7x&code=FA21&utm_source=sbol&option1=promo+42"),
    (.sber, "status=fail&error=invalid_scope&error_description=No+way&state=Qk7x"),
    (.sber, "result=FAILURE&error_code=5"),
    (.sber, "error=access_denied&state=s"),
    (.sber, "status=fail"),
    (.sber, "sberIDRedirect=sberbankidlogin%3A%2F%2Fsberbankidsso&token=T-1"),
    (.vk, "code=vk2.a.c&state=s&device_id=d&type=code_v2&expires_in=600&ext_id=e&vkconnect_auth_provider_method=external_auth"),
    (.vk, "code=vk2.a.c&state=s&device_id=d&expires_in=86400"),
    (.vk, "payload=" + FormParameters.formEncode(legacyJSON)),
    (.vk, "payload=" + FormParameters.formEncode(#"{"oauth":{"code":"c1"}}"#)),
    (.vk, "error=access_denied&error_description=d&error_uri=u&state=s"),
    (.tid, "code=c.1&state=s&session_state=ss"),
    (.tid, "cancelled"),
    (.tid, "unavailable"),
    (.tid, "result=success"),
    (.tid, "result=failure"),
    (.apple, "code=c&state=s&id_token=\(jwt(#"{"sub":"1"}"#))&user=%7B%22name%22%3A%7B%22firstName%22%3A%22A+B%22%7D%7D"),
    (.apple, "error=user_cancelled_authorize&state=s"),
    (.apple, "error=invalid_request&state=s"),
    (.oauth2, "code=c&state=s&iss=https%3A%2F%2Fas.example&session_state=ss&id_token=h.p.s"),
    (.oauth2, "error=login_required&state=s&iss=https%3A%2F%2Fas.example"),
    (.oauth2, "access_token=T&token_type=Bearer&expires_in=3600&scope=openid&id_token=h.p.s&state=s"),
  ]

  @Test func everyCaseRoundTrips() throws {
    for (provider, query) in Self.cases {
      let callback = try ProviderCallback(provider: provider, parameters: FormParameters(query))
      let decoded = try Self.roundTrip(callback)
      #expect(decoded == callback, "\(query)")
      #expect(decoded.outcome == callback.outcome && decoded.values.map(\.name) == callback.values.map(\.name), "\(query)")
    }
  }

  @Test func madeValuesRoundTrip() throws {
    let made: [ProviderCallback] = [
      .vk(.success(VKIDSuccess(code: "c", state: "s", deviceID: "d", expiresIn: 600))),
      .oauth2(.implicit(OAuth2ImplicitGrant(accessToken: "T", expiresIn: 60))),
      .vk(.failure(ProviderError(code: .accessDenied), state: nil)),
      .sber(.failure(SberIDFailure(encoding: .web, error: ProviderError(code: .serverError), state: "s"))),
      .tid(.debugResult("failure")),
    ]
    for callback in made { #expect(try Self.roundTrip(callback) == callback, "\(callback)") }
  }

  @Test func encodedShape() throws {
    let callback = try ProviderCallback(provider: .vk, parameters: FormParameters("error=access_denied&state=s"))
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(callback)) as? [String: Any]
    #expect(object?["provider"] as? String == "vk")
    #expect(object?["outcome"] as? String == "error")
    #expect(object?["state"] as? String == "s" && object?["values"] == nil && object?["kind"] == nil)
    #expect((object?["error"] as? [String: String])?["code"] == "access_denied")
    #expect((object?["error"] as? [String: String])?["raw"] == "access_denied")
    let vk = try ProviderCallback(provider: .vk, parameters: FormParameters("code=c&state=s&device_id=d&expires_in=600"))
    let lifetime = try JSONSerialization.jsonObject(with: JSONEncoder().encode(vk)) as? [String: Any]
    #expect(lifetime?["expires_in"] as? Int == 600)
    let tid = try JSONEncoder().encode(ProviderCallback.tid(.debugResult("success")))
    #expect(String(decoding: tid, as: UTF8.self).contains(#""outcome":"debug-success""#))
  }

  @Test func callbackErrorRoundTrips() throws {
    let errors = [
      CallbackError(.replayed),
      CallbackError(.malformedParameter, parameter: "type", found: "code_v3"),
      CallbackError(
        .stateMismatch, parameter: "state", found: "none",
        providerError: ProviderError(code: .accessDenied, errorDescription: "d", errorURI: "u")),
    ]
    for error in errors {
      #expect(try Self.roundTrip(error) == error, "\(error)")
    }
    let json = String(decoding: try JSONEncoder().encode(CallbackError(.replayed)), as: UTF8.self)
    #expect(json.contains(#""code":"replayed""#))
    #expect(json.contains("description_en"))
  }
}

/// The store's lock is a pthread mutex of its own (no `Synchronization.Mutex`, no OS-version floor).
@Suite("Providers: the store's lock")
struct StoreLockTests {
  @Test func incrementsAreNotLost() async {
    let counter = PThreadLocked(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { for _ in 0..<2_000 { counter.withLock { $0 += 1 } } }
      }
    }
    #expect(counter.withLock { $0 } == 16_000)
  }

  @Test func concurrentConsumersBindOnce() async throws {
    let store = PendingAuthorizationStore()
    try await store.insert(PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://c.example/cb"), state: "s"))
    let url = try ParsedURL("https://c.example/cb?code=c&state=s")
    let successes = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<16 { group.addTask { (try? (await store.consume(url)).callback) != nil } }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(successes == 1)
  }
}
