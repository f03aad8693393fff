import Foundation
import LinkParse
import Testing
import _LinkParseCLI

/// The callback's JSON schema is defined once: the object `linkparse` writes under `"callback"` is the one
/// `ProviderCallback`'s `Codable` form writes and reads.
@Suite("CLI: one callback schema")
struct CallbackSchemaTests {
  static let legacyJSON = #"{"oauth":{"code":"c1","state":"s1"},"user":{"id":1,"first_name":"Ivan","email":"i@x.y","avatar":"https://a/x.png"}}"#

  /// Callbacks of every provider and outcome besides the bundled samples.
  static let extra: [String] = [
    "myapp://sberidauth?status=success&state=Qk7x&code=FA21&utm_source=sbol&option1=promo+42",
    "myapp://sberidauth?result=FAILURE&error_code=5",
    "myapp://sberidauth?status=fail",
    "vk7915193://vk.ru/blank.html?code=vk2.a.c&state=s&device_id=d&type=code_v2&expires_in=600&ext_id=e&vkconnect_auth_provider_method=external_auth",
    "vk523633://vk.com/blank.html?payload=" + FormParameters.formEncode(legacyJSON),
    "vk7915193://vk.ru/blank.html?error=access_denied&error_description=d&error_uri=u&state=s&device_id=x",
    "myapp://tid?result=failure",
    "myapp://tid?result=success",
    "https://client.example/cb?code=c&state=s&iss=https%3A%2F%2Fas.example&session_state=ss&id_token=h.p.s",
    "https://client.example/cb?error=login_required&state=s&iss=https%3A%2F%2Fas.example",
    "https://client.example/cb#access_token=T&token_type=Bearer&expires_in=3600&scope=openid&state=s",
    "signinwithapple://cb?error=user_cancelled_authorize&state=s",
  ]

  static func lines() throws -> [String] {
    let samples = try String(contentsOfFile: packageRoot.appendingPathComponent("samples/callbacks.txt").path, encoding: .utf8)
    return samples.split(separator: "\n").map(String.init) + extra
  }

  @Test func theCommandWritesTheCodableForm() throws {
    var compared = 0
    for line in try Self.lines() {
      guard let url = try? ParsedURL(line), let detected = ProviderDetector.decode(url: url),
        case .success(let callback) = detected.result
      else { continue }
      let run = runInProcess([], input: line + "\n")
      let record = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? NSDictionary, "\(line)")
      let written = try #require(record["callback"] as? NSDictionary, "\(line)")
      let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(callback)) as? NSDictionary)
      #expect(written == encoded, "\(line)")
      // …and the command's object reads back as the callback it came from.
      let read = try JSONDecoder().decode(ProviderCallback.self, from: JSONSerialization.data(withJSONObject: written))
      #expect(read == callback, "\(line)")
      compared += 1
    }
    #expect(compared >= 20)
  }
}
