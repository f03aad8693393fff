import Foundation
import LinkParse
import Testing

@Suite("Foundation interop and Codable")
struct InteropTests {

  @Test func fromFoundationURL() throws {
    let foundation = URL(string: "HTTPS://Example.com:443/a/./b?code=1#f")!
    let parsed = try ParsedURL(foundation)
    #expect(parsed.href == "https://example.com/a/b?code=1#f")
    #expect(URL(parsed)?.absoluteString == "https://example.com/a/b?code=1#f")
  }

  @Test func codableAsHref() throws {
    let url = try ParsedURL("vk7915193://vk.ru/blank.html?code=abc")
    let data = try JSONEncoder().encode(["redirect": url])
    #expect(String(decoding: data, as: UTF8.self) == #"{"redirect":"vk7915193:\/\/vk.ru\/blank.html?code=abc"}"#)
    let decoded = try JSONDecoder().decode([String: ParsedURL].self, from: data)
    #expect(decoded["redirect"] == url)
    // A string that is not a URL is a decoding error, not a crash.
    #expect(throws: DecodingError.self) {
      _ = try JSONDecoder().decode(ParsedURL.self, from: Data(#""no scheme""#.utf8))
    }
  }
}

@Suite("Foundation: CallbackError and ProviderCallback")
struct CallbackErrorFoundationTests {
  @Test func localizedDescriptionIsTheEnglishSentence() throws {
    let pending = PendingAuthorization(provider: .oauth2, redirectURI: try ParsedURL("https://c.example/cb"), state: "s")
    let url = try ParsedURL("https://c.example/cb?code=c&state=x")
    do throws(CallbackError) {
      _ = try pending.validate(url)
      Issue.record("accepted")
    } catch {
      #expect(error.localizedDescription == error.descriptionEN)
      #expect(error.localizedDescription == "The callback's state does not match the pending authorization.")
      let any: any Error = error
      #expect(any.localizedDescription == "The callback's state does not match the pending authorization.")
      #expect((any as? LocalizedError)?.errorDescription == error.descriptionEN)
    }
  }
}
