// The client behind trusted reverse proxies: the right-most forwarded address no trusted proxy added.

import Hummingbird
import HTTPTypes
import HummingbirdTesting
import LinkParseAuthorization
import Testing

@testable import LinkParseHummingbird

@Suite struct ForwardedClientTests {
  @Test func xForwardedForTakesTheEntryTheOutermostProxyAdded() {
    let one = ForwardedClient(trustedProxies: 1)
    #expect(one.address(["198.51.100.7"]) == "198.51.100.7")
    // What the client wrote itself is to the left, and ignored.
    #expect(one.address(["10.0.0.1, 203.0.113.9, 198.51.100.7"]) == "198.51.100.7")
    // Several header lines are one list, in order.
    #expect(one.address(["1.1.1.1", "198.51.100.7"]) == "198.51.100.7")
    let two = ForwardedClient(trustedProxies: 2)
    #expect(two.address(["1.2.3.4, 198.51.100.7, 10.0.0.2"]) == "198.51.100.7")
    #expect(two.address(["10.0.0.2"]) == nil, "not through both proxies")
    #expect(one.address([]) == nil)
    #expect(one.address(["not-an-address"]) == nil)
    #expect(one.address(["198.51.100.7, "]) == nil, "an empty right-most entry")
    #expect(one.address(["2001:db8::1"]) == "2001:db8::1")
  }

  @Test func forwardedTakesItsForParameter() {
    let one = ForwardedClient(trustedProxies: 1, header: .forwarded)
    #expect(one.address(["for=192.0.2.60;proto=http;by=203.0.113.43"]) == "192.0.2.60")
    #expect(one.address([#"for=evil, For="[2001:db8:cafe::17]:4711""#]) == "2001:db8:cafe::17")
    #expect(one.address(["for=192.0.2.60:8080"]) == "192.0.2.60")
    #expect(one.address(["proto=https"]) == nil)
    #expect(one.address([#"for="_hidden""#]) == nil)
  }

  @Test func theKeyIsTheLimitersKey() throws {
    let one = ForwardedClient(trustedProxies: 1)
    let v4 = Request(
      head: .init(method: .get, scheme: "http", authority: "a", path: "/", headerFields: [
        HTTPField.Name("X-Forwarded-For")!: "6.6.6.6, 198.51.100.7"
      ]), body: .init(buffer: .init()))
    #expect(one.key(v4) == "4:198.51.100.7")
    let v6 = Request(
      head: .init(method: .get, scheme: "http", authority: "a", path: "/", headerFields: [
        HTTPField.Name("X-Forwarded-For")!: "2001:db8:1:2:3:4:5:6"
      ]), body: .init(buffer: .init()))
    #expect(one.key(v6) == "6:32.1.13.184.0.1.0.2")
  }

  /// Through the endpoint: clients behind one proxy are limited apart by their forwarded address, and what a
  /// client writes into the header itself does not give it a new key.
  @Test func startsAreLimitedPerForwardedClient() async throws {
    let forwarded = ForwardedClient(trustedProxies: 1)
    let endpoint = LinkParseCallbackEndpoint(
      store: PendingAuthorizationStore(), publicBaseURL: "https://example.com",
      startLimits: StartLimits(limit: 2, window: .seconds(3600)), clientKey: { request, _ in forwarded.key(request) })
    let router = Router(context: LoginRequestContext.self)
    endpoint.registerStart(on: router, path: "/login/vk", login: StartLimitsTests.vk)
    try await Application(router: router).test(.router) { client in
      func start(_ xff: String) async throws -> Int {
        let response = try await client.execute(
          uri: "/login/vk", method: .get, headers: [HTTPField.Name("X-Forwarded-For")!: xff])
        return Int(response.status.code)
      }
      var statuses: [Int] = []
      for xff in ["198.51.100.7", "spoof-1, 198.51.100.7", "10.9.9.9, 198.51.100.7", "198.51.100.8"] {
        statuses.append(try await start(xff))
      }
      #expect(statuses == [302, 302, 429, 302])
    }
  }
}
