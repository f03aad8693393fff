import Foundation
import LinkParseHTTP
import LinkParseOAuth
import LinkParseProviders
import Testing

/// VK ID's requests in the shape its guide shows (providers.md §2.7), sent over a real socket to a provider on
/// 127.0.0.1 that reads only that shape: the exchange and the refresh go through, the echoed states check out,
/// and a debug page that echoes the query does not leak the verifier or the code.
@Suite("VK ID's guide shape over HTTP", .timeLimit(.minutes(1)))
struct VKGuideShapeTests {
  static let guideVerifier = "TMqwHtKeYrAz42vNmy5KsxePTYt--KS-yZsma6q4vrE"

  @Test func exchangeAndRefreshAsTheGuideSendsThem() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let vk = VKIDClient(clientID: "7915193", tokenEndpoint: provider.baseURL + "/vk/oauth2/auth")
        let exchange = vk.tokenExchange(
          code: "vk2.a.02-Bsy", codeVerifier: Self.guideVerifier, deviceID: "generatedencrypteddeviceid123",
          redirectURI: "vk7915193://vk.ru/blank.html", state: "abracadabracodeexchange")
        let tokens = try await client.perform(exchange, as: TokenResponse.self)
        #expect(tokens.accessToken == "vk2.a.a" && tokens.state == "abracadabracodeexchange")
        try exchange.checkEchoedState(of: tokens)
        let received = try #require(provider.recorder.last)
        #expect(received.body == #"{"code":"vk2.a.02-Bsy"}"#)
        #expect(decodeForm(received.query ?? "")["redirect_uri"] == "vk7915193://vk.ru/blank.html")

        let refresh = vk.refresh(refreshToken: try #require(tokens.refreshToken), deviceID: "generatedencrypteddeviceid123")
        let refreshed = try await client.perform(refresh, as: TokenResponse.self)
        #expect(refreshed.state == "")
        try refresh.checkEchoedState(of: refreshed)
      }
    }
  }

  /// The query's secrets (the verifier, the device id) and the body's code are masked in the error's excerpt.
  @Test func anEchoingErrorPageLeaksNoSecret() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let vk = VKIDClient(clientID: "7915193", tokenEndpoint: provider.baseURL + "/vk/oauth2/auth")
        let wrong = vk.refresh(refreshToken: "vk2.a.WRONG-refresh-token-value", deviceID: "d", state: "st")
        do {
          _ = try await client.perform(wrong, as: TokenResponse.self)
          Issue.record("a 500 answer was accepted")
        } catch let error as OAuthResponseError {
          #expect(error.code == .httpStatus)
          #expect(!error.message.contains("WRONG-refresh-token-value"), "\(error.message)")
        }
        let exchange = VKIDClient(clientID: "7915193", tokenEndpoint: provider.baseURL + "/vk/oauth2/auth?fail=1")
          .tokenExchange(code: "vk2.a.SECRET-code-1", codeVerifier: Self.guideVerifier, deviceID: "dev-id-secret-9",
            redirectURI: "vk7915193://vk.ru/blank.html")
        do {
          _ = try await client.perform(exchange, as: TokenResponse.self)
          Issue.record("a 500 answer was accepted")
        } catch let error as OAuthResponseError {
          #expect(error.message.contains("/vk/oauth2/auth?fail=1&grant_type=authorization_code"), "\(error.message)")
          for secret in [Self.guideVerifier, "vk2.a.SECRET-code-1", "dev-id-secret-9"] {
            #expect(!error.message.contains(secret), "\(secret) in \(error.message)")
          }
        }
      }
    }
  }
}
