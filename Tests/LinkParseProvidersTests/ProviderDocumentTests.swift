// Callback shapes the providers' own documents allow or forbid, checked against the decoders and the pending
// authorization: Sign in with Apple's `response_type=id_token`, Sber ID's `appToken`, and VK ID's app return
// (host-less only with `vkconnect_auth_provider_method=external_auth`, a `device_id` of visible ASCII).

import Foundation
import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders

@Suite struct AppleIDTokenGrantTests {
  /// `{"iss":"https://appleid.apple.com","sub":"001.abc","nonce":"n-1"}` as an (unsigned) compact JWT.
  static let jwt =
    "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIiwic3ViIjoiMDAxLmFiYyIsIm5vbmNlIjoibi0xIn0.sig"
  static let redirect = "https://example.com/auth/apple"

  /// Apple's article: `response_type` is `code`, `id_token`, or both. With `id_token` alone the callback carries
  /// the token and the state and no code: an id-token grant, not a `missing-parameter code`.
  @Test func anIDTokenWithoutACodeIsAGrant() throws {
    let result = try AppleCallback(FormParameters("state=s1&id_token=\(Self.jwt)"))
    guard case .idTokenGrant(let grant) = result else {
      Issue.record("\(result)")
      return
    }
    #expect(grant.idToken == Self.jwt[...] && grant.state == "s1" && grant.code.isEmpty)
    #expect(grant.idTokenClaims?.nonce == "n-1")
    let callback = try ProviderCallback(provider: .apple, parameters: FormParameters("state=s1&id_token=\(Self.jwt)"))
    #expect(callback.outcome == .idTokenGrant && callback.outcome.rawValue == "id-token-grant")
    #expect(callback.code == nil && callback.state == "s1")
    #expect(callback.values.map(\.name) == ["state", "id_token"])
    // The JSON form reads back to the same value.
    let json = try JSONEncoder().encode(callback)
    #expect(try JSONDecoder().decode(ProviderCallback.self, from: json) == callback)
    // Neither a code nor an id_token: still missing its code.
    #expect(rejection { try AppleCallback(FormParameters("state=s1")) } == .missingParameter)
    #expect(rejection { try AppleCallback(FormParameters("state=s1&id_token=not-a-jwt")) } == .malformedParameter)
  }

  /// The request: `response_type=id_token` with a nonce, never with `response_mode=query` (Apple refuses it).
  @Test func theRequestAsksForTheIDTokenAlone() throws {
    let request = AppleAuthorizationRequest(
      clientID: "com.example.web", redirectURI: Self.redirect, state: "s1", nonce: "n-1", responseType: .idToken)
    let query = try ParsedURL(request.url).queryParameters
    #expect(query.value(for: "response_type") == "id_token" && query.value(for: "nonce") == "n-1")
    #expect(request.isAcceptedByApple)
    var inQuery = request
    inQuery.scope = []
    inQuery.responseMode = .query
    #expect(!inQuery.isAcceptedByApple)
    let start = try LoginStart.apple(clientID: "com.example.web", redirectURI: Self.redirect, responseType: .idToken)
      .makeAuthorization()
    #expect(try ParsedURL(start.authorizeURL).queryParameters.value(for: "response_type") == "id_token")
    #expect(start.pending.nonce != nil)
  }

  /// Validated against the authorization: the nonce is required and must be the token's (c_hash does not apply).
  @Test func theGrantIsBoundByItsNonce() throws {
    let url = try ParsedURL(Self.redirect)
    let pending = PendingAuthorization(provider: .apple, redirectURI: url, state: "s1", nonce: "n-1")
    let body = FormParameters("state=s1&id_token=\(Self.jwt)")
    #expect(try pending.validate(url, parameters: body).outcome == .idTokenGrant)
    let fragment = try pending.validate(try ParsedURL(Self.redirect + "#state=s1&id_token=\(Self.jwt)"))
    #expect(fragment.outcome == .idTokenGrant)
    let otherNonce = PendingAuthorization(provider: .apple, redirectURI: url, state: "s1", nonce: "n-2")
    #expect(rejection { try otherNonce.validate(url, parameters: body) } == .nonceMismatch)
    let noNonce = PendingAuthorization(provider: .apple, redirectURI: url, state: "s1")
    let error = thrown { try noNonce.validate(url, parameters: body) }
    #expect(error?.code == .nonceMismatch && error?.descriptionEN.contains("nonce") == true)
    // A wrong state is still a state mismatch first.
    #expect(rejection { try pending.validate(url, parameters: FormParameters("state=x&id_token=\(Self.jwt)")) } == .stateMismatch)
  }
}

@Suite struct SberAppTokenTests {
  /// The Sber ID SDK's response model carries `appToken` for seamless login: decoded as a value.
  @Test func appTokenIsDecoded() throws {
    let result = try SberIDCallback(FormParameters("code=C0DE&state=s&appToken=AT%2B1"))
    guard case .success(let success) = result else {
      Issue.record("\(result)")
      return
    }
    #expect(success.appToken == "AT+1")
    let callback = try ProviderCallback(provider: .sber, parameters: FormParameters("code=C0DE&state=s&appToken=AT%2B1"))
    #expect(callback.values.contains { $0.name == "appToken" && $0.value == "AT+1" })
    let json = try JSONEncoder().encode(callback)
    #expect(try JSONDecoder().decode(ProviderCallback.self, from: json) == callback)
    // Without one: nil, and not among the values.
    let plain = try ProviderCallback(provider: .sber, parameters: FormParameters("code=C0DE&state=s"))
    #expect(!plain.values.contains { $0.name == "appToken" })
  }
}

@Suite struct VKAppReturnTests {
  static let pending = PendingAuthorization(
    provider: .vk, redirectURI: try! ParsedURL("vk7915193://vk.ru/blank.html"), state: "s1")
  static let success = "code=vk2.a.c&state=s1&device_id=Dv4kQ9-id&type=code_v2"

  /// providers.md §2.1 and §2.6: the host-less form is the VK app's return, which says so with
  /// `vkconnect_auth_provider_method=external_auth` (the iOS SDK refuses it otherwise).
  @Test func aHostlessReturnMustSayItComesFromTheVKApp() throws {
    let hostless = try ParsedURL("vk7915193://?\(Self.success)")
    let error = thrown { try Self.pending.validate(hostless) }
    #expect(error?.code == .missingParameter && error?.parameter == "vkconnect_auth_provider_method")
    let fromApp = try Self.pending.validate(try ParsedURL("vk7915193://?\(Self.success)&vkconnect_auth_provider_method=external_auth"))
    #expect(fromApp.outcome == .success)
    // The browser flow's shape needs no flag.
    #expect(try Self.pending.validate(try ParsedURL("vk7915193://vk.ru/blank.html?\(Self.success)")).outcome == .success)
    // An error from the app is reported as it is.
    #expect(try Self.pending.validate(try ParsedURL("vk7915193://?error=access_denied&state=s1")).outcome == .error)
  }

  /// No VK SDK sends `vk<id>:?…` (no host) or `vk<id>:///?…` (a path after an empty host): not this redirect.
  @Test func shapesNoSDKSendsAreNotTheRedirect() throws {
    let flag = "&vkconnect_auth_provider_method=external_auth"
    for shape in ["vk7915193:?", "vk7915193:///?", "vk7915193:///blank.html?", "vk7915193:/?"] {
      #expect(rejection { try Self.pending.validate(try ParsedURL(shape + Self.success + flag)) } == .redirectMismatch, "\(shape)")
    }
  }

  /// VK's `device_id` is an opaque token: a `%00` (or any control byte) in it is refused, not written into the
  /// value.
  @Test func aDeviceIDWithAControlByteIsRefused() throws {
    for bad in ["Dv4k%00Q9", "Dv4k%0AQ9", "Dv4k%7FQ9", "Dv4k%1FQ9"] {
      let error = thrown { try VKIDCallback(FormParameters("code=c&state=s&device_id=\(bad)")) }
      #expect(error?.code == .malformedParameter && error?.parameter == "device_id", "\(bad)")
    }
    #expect(throws: Never.self) { try VKIDCallback(FormParameters("code=c&state=s&device_id=Dv4k_Q9-x.y~z")) }
  }
}

@Suite struct RejectionDetailTests {
  /// A VK SDK 1.x `payload` that is not its JSON is malformed: not a state mismatch.
  @Test func aMalformedLegacyPayloadIsMalformed() throws {
    let pending = PendingAuthorization(provider: .vk, redirectURI: try ParsedURL("vk1://vk.com/blank.html"), state: "s1")
    let error = thrown { try pending.validate(try ParsedURL("vk1://vk.com/blank.html?payload=%7Bnot-json")) }
    #expect(error?.code == .malformedParameter && error?.parameter == "payload")
    // A readable payload with another state is still a mismatch.
    let other = "payload=%7B%22oauth%22%3A%7B%22code%22%3A%22c1%22%2C%22state%22%3A%22s2%22%7D%7D"
    #expect(rejection { try pending.validate(try ParsedURL("vk1://vk.com/blank.html?\(other)")) } == .stateMismatch)
  }

  /// A missing state or issuer is reported without a made-up value.
  @Test func absentValuesAreNotReportedAsNone() throws {
    let pending = PendingAuthorization(
      provider: .oauth2, redirectURI: try ParsedURL("https://a.example/cb"), state: "s1", issuer: "https://as.example")
    let state = thrown { try pending.validate(try ParsedURL("https://a.example/cb?code=x")) }
    #expect(state?.code == .stateMismatch && state?.found == nil)
    let issuer = thrown { try pending.validate(try ParsedURL("https://a.example/cb?code=x&state=s1")) }
    #expect(issuer?.code == .issuerMismatch && issuer?.found == nil)
  }
}
