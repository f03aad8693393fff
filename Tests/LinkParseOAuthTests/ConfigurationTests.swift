// Settings checked when they are given, each error naming the setting (not a network error at the first login).

import LinkParseOAuth
import Testing

@Suite struct ConfigurationTests {
  /// The setting's error, or `nil`.
  func refusal(_ body: () throws -> Void) -> ConfigurationError? {
    do { try body() } catch { return error as? ConfigurationError }
    return nil
  }

  @Test func badSettingsAreRefusedByName() {
    let notURL = refusal { try VKIDClient(clientID: "7915193", tokenEndpoint: "not a url").validate() }
    #expect(notURL?.setting == "VKIDClient.tokenEndpoint" && notURL?.code == "invalid-configuration")
    #expect(notURL?.description.hasPrefix(#"invalid-configuration: VKIDClient.tokenEndpoint "not a url" is not a URL"#) == true)
    #expect(refusal { try TIDClient(clientID: "").validate() }?.setting == "TIDClient.clientID")
    let plain = refusal { try AppleClient(clientID: "c", tokenEndpoint: "http://evil.example/token").validate() }
    #expect(plain?.setting == "AppleClient.tokenEndpoint" && plain?.reason.contains("https") == true)
    #expect(refusal { try SberIDClient(clientID: "a", clientSecret: "").validate() }?.setting == "SberIDClient.clientSecret")
    let fragment = refusal { try TIDClient(clientID: "p", userInfoEndpoint: "https://id.tbank.ru/u#x").validate() }
    #expect(fragment?.setting == "TIDClient.userInfoEndpoint")
    // The documented defaults, and a loopback endpoint for development, pass.
    #expect(refusal { try VKIDClient(clientID: "7915193").validate() } == nil)
    #expect(refusal { try SberIDClient(clientID: "a", clientSecret: "b").validate() } == nil)
    #expect(refusal { try TIDClient(clientID: "p").validate() } == nil)
    #expect(refusal { try AppleClient(clientID: "com.example.web").validate() } == nil)
    #expect(refusal { try VKIDClient(clientID: "1", tokenEndpoint: "http://127.0.0.1:8081/t").validate() } == nil)
  }
}

@Suite struct SecretPrintingTests {
  /// `print`, interpolation, `debugPrint` and `dump` of a token answer never show a token.
  @Test func tokenAnswersPrintMasked() {
    let tokens = TokenResponse(accessToken: "AT-SECRET-1", refreshToken: "RT-SECRET-2", idToken: "ID.SECRET.3")
    var dumped = ""
    dump(tokens, to: &dumped)
    for text in ["\(tokens)", String(describing: tokens), String(reflecting: tokens), dumped] {
      #expect(!text.contains("SECRET"), "\(text)")
      #expect(text.contains("<secret, 11 bytes>"), "\(text)")
    }
  }
}
