import Foundation
import Testing

@testable import _LinkParseCLI

/// `linkparse token-request`: the request that follows a callback, as JSON.
@Suite struct TokenRequestCommandTests {
  static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
  static let vkCallback =
    "vk7915193://vk.ru/blank.html?code=vk2.a.MzQ4Nz_g5-Xy&state=Qk7x2LmN9pRtVw3aZ8yB&device_id=Bz1Xk3Yq_0mR-a7TfL9sPw&type=code_v2"
  static let vkArguments = [
    "token-request", "--provider", "vk", "--client-id", "7915193", "--redirect-uri", "vk7915193://vk.ru/blank.html",
    "--state", "Qk7x2LmN9pRtVw3aZ8yB", "--code-verifier", verifier, "--callback", vkCallback,
  ]

  @Test func vkCallbackBecomesItsTokenExchange() throws {
    let run = runInProcess(Self.vkArguments)
    #expect(run.status == 0, "\(run.stderr)")
    let object = try #require(JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any])
    #expect(object["kind"] as? String == "token-exchange")
    #expect(object["method"] as? String == "POST")
    let url = try #require(object["url"] as? String)
    #expect(
      url.hasPrefix(
        "https://id.vk.ru/oauth2/auth?grant_type=authorization_code&redirect_uri=vk7915193%3A%2F%2Fvk.ru%2Fblank.html"
          + "&client_id=7915193&device_id=Bz1Xk3Yq_0mR-a7TfL9sPw&state="))
    #expect(url.hasSuffix("&code_verifier=\(Self.verifier)"))
    #expect(!url.contains("Qk7x2LmN9pRtVw3aZ8yB"))  // the exchange's state is a fresh one
    #expect(object["body"] as? String == #"{"code":"vk2.a.MzQ4Nz_g5-Xy"}"#)
    #expect((object["form"] as? [[String]]) == [["code", "vk2.a.MzQ4Nz_g5-Xy"]])
    // The keys in the documented order, one line.
    #expect(run.stdout.hasPrefix(#"{"kind":"token-exchange","provider":"vk","method":"POST","url":"#))
    #expect(run.stdout.filter { $0 == "\n" }.count == 1)
  }

  @Test func redactHidesEverySecretValue() {
    let run = runInProcess(Self.vkArguments + ["--client-secret", "SECRET-X", "--redact"])
    #expect(run.status == 0, "\(run.stderr)")
    for secret in ["vk2.a.MzQ4Nz_g5-Xy", Self.verifier, "Bz1Xk3Yq_0mR-a7TfL9sPw", "Qk7x2LmN9pRtVw3aZ8yB", "SECRET-X"] {
      #expect(!run.stdout.contains(secret), "\(secret) in \(run.stdout)")
    }
    #expect(run.stdout.contains(#"["client_id","7915193"]"#))
    #expect(run.stdout.contains(#"["code","<redacted>"]"#))

    let tid = runInProcess([
      "token-request", "--provider", "tid", "--grant", "refresh", "--client-id", "p", "--client-secret", "s3",
      "--refresh-token", "R-1", "--redact",
    ])
    #expect(tid.status == 0)
    #expect(!tid.stdout.contains("R-1") && !tid.stdout.contains("Basic "), "\(tid.stdout)")
    #expect(tid.stdout.contains(#"["Authorization","<redacted>"]"#))
  }

  @Test func aRejectedCallbackIsExitOneWithItsCode() {
    var arguments = Self.vkArguments
    arguments[arguments.count - 1] = "vk7915193://vk.ru/blank.html?code=c&state=FORGED&device_id=d"
    let run = runInProcess(arguments)
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("token-request: state-mismatch:"), "\(run.stderr)")

    let cancelled = runInProcess([
      "token-request", "--provider", "tid", "--client-id", "p", "--redirect-uri", "myapp://authorized",
      "--callback", "myapp://authorized?cancelled",
    ])
    #expect(cancelled.status == 1)
    #expect(cancelled.stderr.contains("not-a-success"), "\(cancelled.stderr)")
  }

  @Test(arguments: [
    ["token-request", "--provider", "nope", "--client-id", "x", "--code", "c"],
    ["token-request", "--provider", "vk", "--client-id", "x"],
    ["token-request", "--provider", "oauth2", "--client-id", "x", "--code", "c"],
  ])
  func usageErrorsAreExitTwo(arguments: [String]) {
    let run = runInProcess(arguments)
    #expect(run.status == 2)
    #expect(!run.stderr.isEmpty)
  }

  /// providers.md §2.7: the guide's refresh, as its example gives it (no state).
  @Test func vkRefreshAsTheGuideShowsIt() throws {
    let run = runInProcess([
      "token-request", "--provider", "vk", "--grant", "refresh", "--client-id", "7915193", "--refresh-token",
      "vk2.a.pkzh...", "--device-id", "generatedencrypteddeviceid123",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stdout
        == #"{"kind":"refresh","provider":"vk","method":"POST","url":"https://id.vk.ru/oauth2/auth?grant_type=refresh_token&client_id=7915193&device_id=generatedencrypteddeviceid123","headers":[["Content-Type","application/json"],["Accept","application/json"]],"query":[["grant_type","refresh_token"],["client_id","7915193"],["device_id","generatedencrypteddeviceid123"]],"form":[["refresh_token","vk2.a.pkzh..."]],"body":"{\"refresh_token\":\"vk2.a.pkzh...\"}"}"#
        + "\n")
    let form = runInProcess([
      "token-request", "--provider", "vk", "--grant", "logout", "--client-id", "7915193", "--access-token", "AT",
      "--vk-shape", "form-body",
    ])
    #expect(form.status == 0, "\(form.stderr)")
    #expect(form.stdout.contains(#""body":"client_id=7915193&access_token=AT""#))
  }

  /// A callback that carries a state, without --state: the missing option is named (not a state mismatch).
  @Test(arguments: [
    ("vk", "vk7915193://vk.ru/blank.html", "vk7915193://vk.ru/blank.html?code=c&state=S&device_id=d"),
    ("sber", "https://partner.ru/login", "https://partner.ru/login?state=S&code=c"),
  ])
  func callbackWithoutStateOption(provider: String, redirect: String, callback: String) {
    let run = runInProcess([
      "token-request", "--provider", provider, "--client-id", "1", "--client-secret", "x", "--code-verifier",
      Self.verifier, "--redirect-uri", redirect, "--callback", callback,
    ])
    #expect(run.status == 1)
    #expect(run.stderr.contains("missing-option") && run.stderr.contains("--state"), "\(run.stderr)")
    #expect(!run.stderr.contains("state-mismatch"))
  }

  @Test func otherGrantsAndMissingOptions() throws {
    let userInfo = runInProcess([
      "token-request", "--provider", "oauth2", "--grant", "user-info", "--client-id", "c", "--access-token", "AT",
      "--endpoint", "https://as.example/userinfo",
    ])
    #expect(userInfo.status == 0, "\(userInfo.stderr)")
    #expect(userInfo.stdout.contains(#""kind":"user-info""#))
    #expect(userInfo.stdout.contains(#"["Authorization","Bearer AT"]"#))

    let missing = runInProcess(["token-request", "--provider", "vk", "--grant", "refresh", "--client-id", "1"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("missing-option") && missing.stderr.contains("--refresh-token"))

    let unsupported = runInProcess([
      "token-request", "--provider", "apple", "--grant", "user-info", "--client-id", "c", "--client-secret", "jwt",
    ])
    #expect(unsupported.status == 1)
    #expect(unsupported.stderr.contains("unsupported-grant"))
  }
}
