// What the command writes for the callback shapes the providers' documents add (Apple's id_token grant, Sber
// ID's appToken), what --redact hides, the details of a rejection, --version, and line numbers over several
// files.

import Foundation
import LinkParseCore
import Testing

@Suite struct ProviderDocumentCLITests {
  /// The record's `callback` object for one input line.
  func callback(_ arguments: [String], _ input: String) throws -> [String: Any] {
    let result = runInProcess(["--fields", "callback"] + arguments, input: input + "\n")
    let record = try #require(
      JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    return try #require(record["callback"] as? [String: Any], "\(result.stdout)")
  }

  /// `{"iss":"https://appleid.apple.com","sub":"001.abc","nonce":"n-1"}` as an unsigned compact JWT.
  static let jwt =
    "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIiwic3ViIjoiMDAxLmFiYyIsIm5vbmNlIjoibi0xIn0.sig"

  @Test func anAppleIDTokenGrantIsShown() throws {
    let object = try callback(["--provider", "apple"], "https://example.com/auth/apple#state=s1&id_token=\(Self.jwt)")
    #expect(object["outcome"] as? String == "id-token-grant")
    #expect(object["id_token"] as? String == Self.jwt && object["state"] as? String == "s1" && object["code"] == nil)
    let redacted = try callback(["--provider", "apple", "--redact"], "https://example.com/auth/apple#state=s1&id_token=\(Self.jwt)")
    #expect(redacted["id_token"] as? String == "<redacted>")
  }

  @Test func sberAppTokenIsShownAndRedacted() throws {
    let url = "myapp://sberidauth?code=C0DE&state=Qk7x&appToken=AT-secret-1"
    #expect(try callback(["--provider", "sber"], url)["appToken"] as? String == "AT-secret-1")
    let result = runInProcess(["--provider", "sber", "--redact"], input: url + "\n")
    #expect(!result.stdout.contains("AT-secret-1"), "\(result.stdout)")
    #expect(result.stdout.contains(#""appToken":"<redacted>""#), "\(result.stdout)")
  }

  /// Secret names in another letter case are hidden too, everywhere in the record.
  @Test func redactIgnoresLetterCase() {
    let url = "https://a.example/cb?Code=c-secret&ACCESS_TOKEN=t-secret&apptoken=a-secret&Device_ID=d-secret&x=keep"
    let result = runInProcess(["--redact"], input: url + "\n")
    for secret in ["c-secret", "t-secret", "a-secret", "d-secret"] {
      #expect(!result.stdout.contains(secret), "\(result.stdout)")
    }
    #expect(result.stdout.contains("keep"))
  }

  /// A callback without the expected state is not reported as if its state were the value "none".
  @Test func aMissingStateHasNoMadeUpValue() throws {
    let object = try callback(["--state", "S1"], "https://app.example/cb?code=c")
    let error = try #require(object["error"] as? [String: Any])
    #expect(error["code"] as? String == "state-mismatch")
    #expect(error["raw"] is NSNull || error["raw"] == nil, "\(error)")
  }

  @Test func versionIsPrinted() {
    let result = runInProcess(["--version"])
    #expect(result.status == 0)
    #expect(result.stdout == LinkParseVersion.string + "\n")
  }

  /// Several files are one stream: `line` counts on across them, one output line per input line.
  @Test func lineNumbersRunOnAcrossFiles() throws {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    let first = try directory.file("a.txt", "https://a.example/1\nhttps://a.example/2\n")
    let second = try directory.file("b.txt", "https://b.example/1\nnot a url\nhttps://b.example/3")
    let result = runInProcess(["--fields", "line,ok", first, second])
    #expect(result.lines == [
      #"{"line":1,"ok":true}"#, #"{"line":2,"ok":true}"#, #"{"line":3,"ok":true}"#, #"{"line":4,"ok":false}"#,
      #"{"line":5,"ok":true}"#,
    ], "\(result.stdout)")
  }
}
