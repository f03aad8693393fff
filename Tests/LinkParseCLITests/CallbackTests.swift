import Foundation
import Testing
import LinkParseCLI

/// The `"callback"` key: decoding, `--provider`, the checks, `--redact` and the json-input `"body"`.
@Suite struct CallbackTests {

  /// The `"callback"` value of a one-record run (everything after `"callback":`, without the record's `}`).
  func callback(_ arguments: [String], _ input: String) -> String {
    let result = runInProcess(arguments, input: input + "\n")
    let line = result.lines.first ?? ""
    guard let range = line.range(of: #","callback":"#) else { return "<no callback key: \(line)>" }
    return String(line[range.upperBound...].dropLast())
  }

  /// The decoded JSON object of `"callback"`.
  func object(_ arguments: [String], _ input: String) throws -> [String: Any] {
    let text = callback(arguments, input)
    return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
  }

  @Test func callbackComesLastAfterParams() {
    let result = runInProcess([], input: "myapp://authorized?cancelled\n")
    #expect(result.lines.first?.hasSuffix(#","params":[["cancelled",""]],"callback":{"provider":"tid","outcome":"cancelled"}}"#) == true)
  }

  @Test func nullWhenNothingIsDecoded() {
    #expect(callback([], "https://example.com/a?x=1") == "null")
    #expect(callback(["--provider", "none"], "myapp://authorized?cancelled") == "null")
  }

  /// An implicit-flow fragment is decoded (it was `null`).
  @Test func implicitGrantIsDecoded() {
    #expect(
      callback([], "https://client.example/cb#access_token=SlAV32hkKG&state=x")
        == #"{"provider":"oauth2","outcome":"implicit-grant","access_token":"SlAV32hkKG","state":"x"}"#)
  }

  @Test func outcomes() throws {
    let vk = try object(
      [], "vk7915193://vk.ru/blank.html?code=vk2.a.F&state=S&device_id=D&type=code_v2&expires_in=600")
    #expect(vk["provider"] as? String == "vk")
    #expect(vk["outcome"] as? String == "success")
    #expect(vk["code"] as? String == "vk2.a.F")
    #expect(vk["device_id"] as? String == "D")
    #expect(vk["expires_in"] as? String == "600")
    #expect(vk["error"] == nil)

    #expect(callback([], "myapp://authorized?unavailable") == #"{"provider":"tid","outcome":"unavailable"}"#)

    let error = try object([], "myapp://sberidauth?status=fail&error=invalid_scope&state=Qk7x")
    #expect(error["provider"] as? String == "sber")
    #expect(error["outcome"] as? String == "error")
    let details = try #require(error["error"] as? [String: Any])
    #expect(details["code"] as? String == "invalid_scope")
    #expect(details["raw"] as? String == "invalid_scope")
    #expect((details["description_en"] as? String)?.isEmpty == false)
    #expect((details["description_ru"] as? String)?.isEmpty == false)

    let seamless = try object([], "https://domclick.ru?sberIDRedirect=sberbankidlogin://sberbankidsso&token=d027b83b")
    #expect(seamless["outcome"] as? String == "seamless")
    #expect(seamless["sso_base_url"] as? String == "sberbankidlogin://sberbankidsso")
    #expect(seamless["token"] as? String == "d027b83b")

    let untrusted = try object([], "partner://h/auth?sberIDRedirect=https%3A%2F%2Fevil.example%2Fphish")
    #expect(untrusted["outcome"] as? String == "rejected")
    let why = try #require(untrusted["error"] as? [String: Any])
    #expect(why["code"] as? String == "untrusted-sso-host")
    #expect(why["raw"] as? String == "https://evil.example")

    let conflict = try object([], "myapp://authorized?cancelled&code=x")
    #expect((conflict["error"] as? [String: Any])?["code"] as? String == "conflicting-outcome")

    let apple = try object([], "signinwithapple://callback?error=user_cancelled_authorize&state=8f3c")
    #expect(apple["provider"] as? String == "apple")
    #expect(apple["outcome"] as? String == "cancelled")
    #expect(apple["state"] as? String == "8f3c")
  }

  @Test func providerOption() throws {
    #expect(try object(["--provider", "oauth2"], "myapp://authorized?cancelled&code=x")["outcome"] as? String == "success")
    let vk = try object(["--provider", "vk"], "https://a.example/cb?code=c&state=s")
    #expect((vk["error"] as? [String: Any])?["parameter"] as? String == "device_id")
    #expect(try object(["--provider", "apple"], "https://e.com/cb#code=c&state=s")["provider"] as? String == "apple")
    #expect(runInProcess(["--provider", "google"], input: "x:y\n").status == 2)
  }

  @Test func checks() throws {
    let url = "https://app.example/cb?code=c&state=S1&iss=https%3A%2F%2Fas.example"
    func code(_ arguments: [String]) throws -> String? {
      (try object(arguments, url)["error"] as? [String: Any])?["code"] as? String
    }
    #expect(try code(["--state", "S1"]) == nil)
    #expect(try code(["--state", "S2"]) == "state-mismatch")
    #expect(try code(["--redirect-uri", "https://app.example/cb"]) == nil)
    #expect(try code(["--redirect-uri", "https://app.example/other"]) == "redirect-mismatch")
    #expect(try code(["--issuer", "https://as.example"]) == nil)
    #expect(try code(["--issuer", "https://evil.example"]) == "issuer-mismatch")
    #expect(try code(["--state", "S2", "--redirect-uri", "https://other/cb"]) == "redirect-mismatch")
    // A rejected callback is still a parsed record: the exit status is about parsing.
    #expect(runInProcess(["--state", "S2"], input: url + "\n").status == 0)
    #expect(runInProcess(["--redirect-uri", "not a url"], input: url + "\n").status == 2)
    // Duplicates are rejected with or without checks.
    #expect(
      (try object([], "https://a/cb?code=c&state=1&state=2")["error"] as? [String: Any])?["code"] as? String
        == "duplicate-parameter")
  }

  @Test func redactEverywhere() {
    let input =
      "https://a.example/cb?code=SECRETCODE&state=SECRETSTATE&device_id=SECRETDEVICE&x=keep#id_token=SECRETIDTOKEN&access_token=SECRETACCESS&token=SECRETTOKEN"
    let result = runInProcess(["--redact", "--provider", "vk"], input: input + "\n")
    let line = result.lines.first ?? ""
    #expect(!line.contains("SECRET"), "\(line)")
    #expect(line.contains(#""href":"https://a.example/cb?code=<redacted>&state=<redacted>&device_id=<redacted>&x=keep#id_token=<redacted>&access_token=<redacted>&token=<redacted>""#))
    #expect(line.contains(#"["code","<redacted>"],["state","<redacted>"],["device_id","<redacted>"],["x","keep"]"#))
    #expect(line.contains(#""callback":{"provider":"vk","outcome":"success","code":"<redacted>","state":"<redacted>","device_id":"<redacted>"}"#))
    let seamless = runInProcess(["--redact"], input: "https://d.ru?sberIDRedirect=sbolidlogin://sso&token=SECRET\n")
    #expect(!(seamless.lines.first ?? "SECRET").contains("SECRET"))
    let encodedName = runInProcess(["--redact"], input: "https://d.ru/cb?c%6Fde=SECRET&state=s\n")
    #expect(!(encodedName.lines.first ?? "SECRET").contains("SECRET"))
    let plain = runInProcess([], input: input + "\n")
    #expect(plain.lines.first?.contains("SECRETCODE") == true)
  }

  @Test func formPostBody() throws {
    let record =
      #"{"input":"https://example.com/auth/apple/callback","body":"state=8f3c1e2a&code=c1&id_token=a.e30.b&user=%7B%22name%22%3A%7B%22firstName%22%3A%22Anna+Maria%22%7D%7D"}"#
    let result = runInProcess(
      ["--input-format", "json", "--state", "8f3c1e2a", "--redirect-uri", "https://example.com/auth/apple/callback"],
      input: record + "\n")
    let line = result.lines.first ?? ""
    #expect(line.contains(#""params":[],"callback":{"provider":"apple","outcome":"success","code":"c1","state":"8f3c1e2a","id_token":"a.e30.b","user":"{\"name\":{\"firstName\":\"Anna Maria\"}}"}"#), "\(line)")
    let cancelled = try object(
      ["--input-format", "json"], #"{"input":"https://example.com/cb","body":"error=user_cancelled_authorize&state=s"}"#)
    #expect(cancelled["outcome"] as? String == "cancelled")
    let forged = try object(
      ["--input-format", "json", "--state", "real"], #"{"input":"https://example.com/cb","body":"code=c&state=forged"}"#)
    #expect((forged["error"] as? [String: Any])?["code"] as? String == "state-mismatch")
  }

  @Test func sampleCallbacksDecode() throws {
    let path = packageRoot.appendingPathComponent("samples/callbacks.txt").path
    let result = runInProcess([path])
    let decoded = result.lines.filter { $0.contains(#""callback":{"#) }
    #expect(decoded.count >= 20, "most sample lines are provider callbacks")
  }
}
