import LinkParseCore
import LinkParseOAuth
import LinkParseProviders
import Testing

/// `ProviderClient`: one dispatch over the five clients, each provider's requirements checked in one place.
@Suite struct ProviderClientTests {
  /// Which provider has which request (the table `supports` and the client's own refusals agree).
  @Test(arguments: Provider.allCases)
  func supportsMatchesWhatTheClientBuilds(_ provider: Provider) throws {
    let client = try ProviderClient(
      provider: provider, clientID: "c", clientSecret: "secret", endpoint: provider == .oauth2 ? "https://id.example/t" : nil)
    let attempts: [(ProviderClient.Request, () throws(TokenRequestError) -> OAuthRequest)] = [
      (.tokenExchange, { () throws(TokenRequestError) in
        try client.tokenExchange(code: "x", redirectURI: "https://a.example/cb", codeVerifier: "v", deviceID: "d") }),
      (.refresh, { () throws(TokenRequestError) in try client.refresh(refreshToken: "r", deviceID: "d") }),
      (.revoke, { () throws(TokenRequestError) in try client.revoke(token: "t") }),
      (.introspect, { () throws(TokenRequestError) in try client.introspect(token: "t") }),
      (.userInfo, { () throws(TokenRequestError) in try client.userInfo(accessToken: "t") }),
      (.logout, { () throws(TokenRequestError) in try client.logout(accessToken: "t") }),
      (.publicInfo, { () throws(TokenRequestError) in try client.publicInfo(idToken: "t") }),
    ]
    for (request, build) in attempts {
      do throws(TokenRequestError) {
        let built = try build()
        #expect(ProviderClient.supports(request, provider: provider), "\(provider) \(request) was built")
        #expect(built.provider == provider)
      } catch {
        #expect(!ProviderClient.supports(request, provider: provider), "\(provider) \(request): \(error)")
        #expect(error.code == .unsupportedGrant)
      }
    }
  }

  /// What a provider requires, refused with its own code before anything is built.
  @Test func requirementsHaveTheirOwnCodes() throws {
    func code(_ build: () throws(TokenRequestError) -> OAuthRequest) -> TokenRequestError.Code? {
      do throws(TokenRequestError) {
        _ = try build()
        return nil
      } catch {
        return error.code
      }
    }
    let vk = try ProviderClient(provider: .vk, clientID: "7915193")
    #expect(code { () throws(TokenRequestError) in try vk.tokenExchange(code: "x", redirectURI: "vk1://vk.ru/blank.html", deviceID: "d") } == .missingCodeVerifier)
    #expect(code { () throws(TokenRequestError) in try vk.tokenExchange(code: "x", redirectURI: "vk1://vk.ru/blank.html", codeVerifier: "v") } == .missingDeviceID)
    #expect(code { () throws(TokenRequestError) in try vk.refresh(refreshToken: "r") } == .missingDeviceID)
    let tid = try ProviderClient(provider: .tid, clientID: "partner")
    #expect(code { () throws(TokenRequestError) in try tid.tokenExchange(code: "x", redirectURI: nil) } == .missingRedirectURI)
    let apple = try ProviderClient(provider: .apple, clientID: "com.example.web")
    #expect(code { () throws(TokenRequestError) in try apple.refresh(refreshToken: "r") } == .missingClientSecret)
    #expect(throws: TokenRequestError.self) { try ProviderClient(provider: .sber, clientID: "c") }
    #expect(throws: TokenRequestError.self) { try ProviderClient(provider: .oauth2, clientID: "c") }
  }
}
