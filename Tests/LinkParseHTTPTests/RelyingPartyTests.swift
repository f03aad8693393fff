// From a consumed authorization to a verified identity against the demo OpenID Connect provider
// (Examples/DemoProvider/demo_provider.py) running as a real HTTP server on 127.0.0.1, and discovery documents
// that must be refused.

import AsyncHTTPClient
import Foundation
import LinkParseAuthorization
import LinkParseCore
import LinkParseHTTP
import LinkParseOAuth
import LinkParseProviders
import LinkParseTestSupport
import Testing

@Suite(.serialized) struct RelyingPartyTests {
  static let redirect = "http://127.0.0.1:9/cb"
  /// One client for the suite, for the life of the process (plain http: the provider is on loopback).
  static let client = OAuthHTTPClient(configuration: .init(allowsInsecureHTTP: true))

  /// Runs the demo provider on a free port for `body` (its issuer).
  static func withDemoProvider(_ body: (String) async throws -> Void) async throws {
    let port = freeLocalPorts(1)
    try await withChildProcess(
      "/usr/bin/env", ["python3", demoProviderScript, "--port", "\(port)", "--redirect-prefix", "http://127.0.0.1:9/"]
    ) {
      let issuer = "http://127.0.0.1:\(port)"
      for _ in 0..<100 where (try? await client.discover(issuer: issuer)) == nil {
        try await Task.sleep(for: .milliseconds(100))
      }
      try await body(issuer)
    }
  }
  /// A login started with `LoginStart`, approved by the provider, and its callback consumed from a store.
  static func consumedLogin(_ party: OIDCRelyingParty) async throws -> ConsumedAuthorization {
    let store = PendingAuthorizationStore()
    let (url, pending) = try party.loginStart(redirectURI: redirect).makeAuthorization()
    try await store.insert(pending)
    let response = try await party.client.httpClient.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
    _ = try await response.body.collect(upTo: 1 << 16)  // (a body left unread holds its connection)
    let callback = try #require(response.headers.first(name: "location"))
    return try await store.consume(try ParsedURL(callback))
  }

  @Test func aLoginEndsInAVerifiedIdentity() async throws {
    try await Self.withDemoProvider { issuer in
      let client = Self.client
      let party = try await OIDCRelyingParty.discover(
        issuer: issuer, clientID: "demo", clientSecret: "demo-secret", client: client)
      #expect(party.metadata.tokenEndpoint == issuer + "/token" && party.metadata.userinfoEndpoint == issuer + "/userinfo")
      let consumed = try await Self.consumedLogin(party)
      let identity = try await party.complete(consumed)
      #expect(identity.subject.hasPrefix("demo-user-") && identity.issuer == issuer)
      #expect(identity.idToken?.claims.subject == identity.subject)
      #expect(identity.userInfo?.sub == identity.subject)
      // Refreshing: new tokens for the refresh token; the provider rotates it, so the old one is refused.
      let first = try #require(identity.tokens?.refreshToken)
      let refreshed = try await party.refresh(refreshToken: first)
      #expect(refreshed.accessToken != identity.tokens?.accessToken && refreshed.refreshToken != first)
      do {
        _ = try await party.refresh(refreshToken: first)
        Issue.record("a used refresh token was accepted")
      } catch let error as OAuthResponseError {
        #expect(error.providerError?.error == .invalidGrant)
      }
      // The code again (a stolen code replayed into another login, or the same twice): the provider refuses
      // it, and nothing is verified.
      await #expect(throws: OAuthResponseError.self) { try await party.complete(consumed) }
      // A code delivered into another login (another verifier and nonce): refused by PKCE.
      let other = try await Self.consumedLogin(party)
      let stolen = ConsumedAuthorization(
        authorization: try await Self.consumedLogin(party).authorization, callback: other.callback)
      do {
        _ = try await party.complete(stolen)
        Issue.record("a code delivered into another login was exchanged")
      } catch let error as OAuthResponseError {
        #expect(error.providerError?.error == .invalidGrant)
      }
      // The wrong client secret: the provider's invalid_client, typed.
      let wrong = OIDCRelyingParty(metadata: party.metadata, clientID: "demo", clientSecret: "nope", client: client)
      do {
        _ = try await wrong.complete(try await Self.consumedLogin(party))
        Issue.record("a wrong client secret was accepted")
      } catch let error as OAuthResponseError {
        #expect(error.code == .providerError && error.providerError?.error == .invalidClient)
      }
      // A party of another client: the authorization is not its own, refused before anything is sent.
      let otherClient = OIDCRelyingParty(
        metadata: party.metadata, clientID: "someone-else", clientSecret: "demo-secret", client: client, keys: party.keys)
      let forDemo = try await Self.consumedLogin(party)
      let error = await expectError(IdentityError.self) { _ = try await otherClient.complete(forDemo) }
      #expect(error?.code == .authorizationMismatch)
      // The login is still good at its own party (nothing was spent at the provider).
      #expect(try await party.complete(forDemo).subject.hasPrefix("demo-user-"))
    }
  }

  /// Two OpenID Connect parties with the same client id at two servers, on one callback path (RFC 9700 §4.4,
  /// mix-up): a login started at one is refused by the other, before its code and verifier reach the other's
  /// token endpoint, and still completes at its own; a login whose server was not recorded is not refused
  /// by that rule (the id_token's issuer still is checked).
  @Test func anotherServersLoginIsRefused() async throws {
    try await Self.withDemoProvider { first in
      try await Self.withDemoProvider { second in
        let a = try await OIDCRelyingParty.discover(issuer: first, clientID: "demo", clientSecret: "demo-secret", client: Self.client)
        let b = try await OIDCRelyingParty.discover(issuer: second, clientID: "demo", clientSecret: "demo-secret", client: Self.client)
        let atA = try await Self.consumedLogin(a)
        #expect(atA.authorization.authorizationServer == first)
        let error = await expectError(IdentityError.self) { _ = try await b.complete(atA) }
        #expect(error?.code == .authorizationMismatch)
        #expect(error.map { "\($0)" }?.contains(first) == true)
        #expect(try await a.complete(atA).issuer == first)
      }
    }
  }

  @Test func discoveryDocumentsThatAreRefused() throws {
    func read(_ json: String, insecure: Bool = false) throws -> OIDCProviderMetadata {
      try OIDCProviderMetadata(json: Array(json.utf8), issuer: "https://id.example", allowsInsecureHTTP: insecure)
    }
    let good = #"{"issuer":"https://id.example","authorization_endpoint":"https://id.example/a","token_endpoint":"https://id.example/t","jwks_uri":"https://id.example/k"}"#
    #expect(try read(good).jwksURI == "https://id.example/k")
    #expect(throws: IdentityError(.issuerMismatch, message: "the discovery document for https://id.example names another issuer (Discovery §4.3)")) {
      try read(good.replacingOccurrences(of: #""issuer":"https://id.example""#, with: #""issuer":"https://evil.example""#))
    }
    do {
      _ = try read(good.replacingOccurrences(of: #""token_endpoint":"https://id.example/t","#, with: ""))
      Issue.record("no token endpoint")
    } catch let error as IdentityError {
      #expect(error.code == .invalidMetadata)
    }
    do {
      _ = try read(good.replacingOccurrences(of: "https://id.example/k", with: "http://id.example/k"))
      Issue.record("a plain-http JWKS")
    } catch let error as IdentityError {
      #expect(error.code == .invalidMetadata)
    }
    #expect(try read(good.replacingOccurrences(of: "https://id.example/k", with: "http://id.example/k"), insecure: true).jwksURI == "http://id.example/k")
    #expect(throws: OAuthResponseError.self) { try read("[1,2]") }
    #expect(throws: OAuthResponseError.self) { try read("{\"issuer\":") }
  }
}
