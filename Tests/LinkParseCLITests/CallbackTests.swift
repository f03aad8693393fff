import Foundation
import Testing
import _LinkParseCLI

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
    #expect(vk["expires_in"] as? Int == 600)
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

  /// VK ID's `expires_in` is a JSON number; an invalid one rejects the callback (the decoder's check).
  @Test func vkExpiresInIsANumber() throws {
    let url = "vk7915193://vk.ru/blank.html?code=c&state=s&device_id=d&type=code_v2&expires_in="
    for arguments in [[], ["--provider", "vk"], ["--state", "s"]] {
      #expect(
        callback(arguments, url + "600")
          == #"{"provider":"vk","outcome":"success","code":"c","state":"s","device_id":"d","type":"code_v2","expires_in":600}"#,
        "\(arguments)")
      for bad in ["abc", "-1", "1e3", "%36", "12345678901"] {
        let rejected = try object(arguments, url + bad)
        #expect(rejected["outcome"] as? String == "rejected", "\(arguments) \(bad)")
        let error = try #require(rejected["error"] as? [String: Any])
        #expect(error["code"] as? String == "malformed-parameter")
        #expect(error["parameter"] as? String == "expires_in")
      }
      // Empty counts as absent.
      #expect(try object(arguments, url)["outcome"] as? String == "success")
      // Leading zeros are accepted by the decoder, and dropped: `0600` is not a JSON number.
      #expect(callback(arguments, url + "0600").hasSuffix(#","expires_in":600}"#), "\(arguments)")
      #expect(callback(arguments, url + "0000").hasSuffix(#","expires_in":0}"#), "\(arguments)")
      #expect(callback(arguments, url + "9999999999").hasSuffix(#","expires_in":9999999999}"#), "\(arguments)")
    }
    // The params keep the value as sent, a string.
    #expect(runInProcess([], input: url + "600\n").stdout.contains(#"["expires_in","600"]"#))
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

  /// `--redact` hides every secret everywhere in the record: each line below carries all it can of them (a
  /// callback has one provider, so the Apple `user` callback value and VK's legacy `email` need a line each),
  /// and no secret value may appear anywhere in its output line, while the other values still do.
  @Test func redactCoversEverySecretEverywhere() throws {
    // Every secret value holds "SEC" followed by a digit (percent-encoded inside the JSON parameters).
    let payload = #"{"oauth":{"code":"SEC01","state":"SEC02"},"user":{"id":1,"first_name":"Ivan","email":"SEC12@b.c"}}"#
    let user = #"{"email":"SEC09@x.y","name":{"firstName":"SEC15"}}"#
    func encoded(_ text: String) -> String {
      text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
    let everything =
      "https://SEC16user:SEC17pass@a.example:8443/cb?code=SEC01&state=SEC02&device_id=SEC03&token=SEC04"
      + "&refresh_token=SEC05&client_secret=SEC06&code_verifier=SEC07&auth_token=SEC08&user=\(encoded(user))"
      + "&x=keep&payload=\(encoded(payload))#id_token=SEC13&access_token=SEC14&refresh_token=SEC18&y=alsokept"
    let apple =
      "https://SEC20@example.com/auth/apple/callback?code=SEC21&state=SEC22&id_token=a.e30.b&user=\(encoded(user))&z=keep"
    let formPost =
      #"{"input":"https://:SEC30@example.com/auth/apple/callback","body":"state=SEC31&code=SEC32&id_token=a.e30.b&user=\#(encoded(user))&client_secret=SEC33"}"#
    // Every value that holds "SEC" (upper case: no name or key of the output does).
    let all = (1...18).map { String(format: "SEC%02d", $0) } + ["SEC20", "SEC21", "SEC22", "SEC30", "SEC31", "SEC32", "SEC33"]
    func secrets(in line: String) -> [String] {
      line.contains("SEC") ? all.filter { line.contains($0) } + ["SEC"] : []
    }

    let vk = runInProcess(["--redact"], input: everything + "\n").lines.first ?? ""
    #expect(secrets(in: vk).isEmpty, "\(vk)")
    #expect(vk.contains(#""href":"https://<redacted>@a.example:8443/cb?code=<redacted>&"#), "\(vk)")
    #expect(vk.contains(#""username":"<redacted>","password":"<redacted>","host":"a.example","port":8443,"path":"/cb""#))
    #expect(vk.contains(#"["x","keep"]"#) && vk.contains("&x=keep&") && vk.contains("&y=alsokept"))
    #expect(vk.contains(#"["user","<redacted>"],["x","keep"],["payload","<redacted>"]"#), "\(vk)")
    #expect(vk.contains(#"#id_token=<redacted>&access_token=<redacted>&refresh_token=<redacted>&y=alsokept""#))
    #expect(vk.contains(#""callback":{"provider":"vk","outcome":"success","code":"<redacted>","state":"<redacted>","user_id":"1","first_name":"Ivan","email":"<redacted>"}"#), "\(vk)")

    for arguments in [["--redact"], ["--redact", "--provider", "apple"], ["--redact", "--state", "SEC22"]] {
      let line = runInProcess(arguments, input: apple + "\n").lines.first ?? ""
      #expect(secrets(in: line).isEmpty, "\(arguments) \(line)")
      #expect(line.contains(#""username":"<redacted>","password":"","#), "\(line)")
      #expect(line.contains(#""callback":{"provider":"apple","outcome":"success","code":"<redacted>","state":"<redacted>","id_token":"<redacted>","user":"<redacted>"}"#), "\(arguments) \(line)")
      #expect(line.contains(#"["z","keep"]"#))
    }

    let body = runInProcess(["--redact", "--input-format", "json"], input: formPost + "\n").lines.first ?? ""
    #expect(secrets(in: body).isEmpty, "\(body)")
    #expect(body.contains(#""href":"https://<redacted>@example.com/auth/apple/callback","scheme":"https","username":"","password":"<redacted>""#), "\(body)")
    #expect(body.contains(#""user":"<redacted>""#))

    // A rejected callback's error quotes the redirect URI it found: without its userinfo.
    let mismatch = runInProcess(
      ["--redact", "--redirect-uri", "https://a.example/other"], input: everything + "\n"
    ).lines.first ?? ""
    #expect(secrets(in: mismatch).isEmpty, "\(mismatch)")
    #expect(mismatch.contains(#""error":{"code":"redirect-mismatch","raw":"https://<redacted>@a.example:8443/cb""#), "\(mismatch)")
    #expect(mismatch.contains("(found “https://<redacted>@a.example:8443/cb”)"), "\(mismatch)")

    // Without --redact, all of it is there.
    let plain = runInProcess([], input: everything + "\n").lines.first ?? ""
    // (The payload's oauth code and state are the top-level ones, SEC01 and SEC02: a legacy payload that
    // disagrees with them is rejected as conflicting.)
    #expect(Set(secrets(in: plain)) == Set(all.prefix(18).filter { $0 != "SEC10" && $0 != "SEC11" } + ["SEC"]), "\(plain)")
    #expect(plain.contains("SEC12@b.c") && plain.contains("SEC16user") && plain.contains("SEC17pass"))
    let plainMismatch = runInProcess(["--redirect-uri", "https://a.example/other"], input: everything + "\n")
    #expect(plainMismatch.stdout.contains(#""raw":"https://SEC16user:SEC17pass@a.example:8443/cb""#))
  }

  /// The text a rejected callback's error quotes is redacted as URL text: an unparsable Sber base URL keeps no
  /// secret parameter value, and a secret parameter's own value is hidden whole.
  @Test func redactRejectedCallbackText() throws {
    let sber = try object(["--redact"], "partner://h/auth?sberIDRedirect=%3A%2F%2Fu%3Ap%40a%3Fcode%3DSEC1%26x%3D1")
    let error = try #require(sber["error"] as? [String: Any])
    #expect(error["code"] as? String == "untrusted-sso-host")
    #expect(error["raw"] as? String == "://<redacted>@a?code=<redacted>&x=1")
    #expect((error["description_en"] as? String)?.contains("SEC1") == false)
    // Only an authority's userinfo: an '@' elsewhere is kept.
    let noAuthority = runInProcess(["--redact"], input: "myapp:/cb/http://u@h?code=c\n").lines.first ?? ""
    #expect(noAuthority.contains(#""href":"myapp:/cb/http://u@h?code=<redacted>","#), "\(noAuthority)")
    let atInPath = runInProcess(["--redact"], input: "https://h.example/a@b?x=1\n").lines.first ?? ""
    #expect(atInPath.contains(#""href":"https://h.example/a@b?x=1","#), "\(atInPath)")
    let plain = try object([], "partner://h/auth?sberIDRedirect=%3A%2F%2Fu%3Ap%40a%3Fcode%3DSEC1%26x%3D1")
    #expect((plain["error"] as? [String: Any])?["raw"] as? String == "://u:p@a?code=SEC1&x=1")
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
