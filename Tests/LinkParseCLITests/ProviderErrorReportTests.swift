import Foundation
import Testing

@testable import _LinkParseCLI

/// A state mismatch never hides the provider's own error: the rejected record reports both.
@Suite struct ProviderErrorReportTests {
  @Test func stateMismatchOnAnErrorCallbackReportsTheProvidersError() throws {
    let run = runInProcess(
      ["--provider", "sber", "--state", "Qk7x"],
      input: "myapp://sberidauth?status=fail&error=invalid_scope&error_description=Scope+x&state=WRONG\n")
    let record = try #require(JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any])
    let callback = try #require(record["callback"] as? [String: Any])
    #expect(callback["outcome"] as? String == "rejected")
    let error = try #require(callback["error"] as? [String: Any])
    #expect(error["code"] as? String == "state-mismatch")
    let providerError = try #require(error["provider_error"] as? [String: Any], "\(run.stdout)")
    #expect(providerError["code"] as? String == "invalid_scope")
    #expect(providerError["error_description"] as? String == "Scope x")
    #expect((providerError["description_en"] as? String)?.isEmpty == false)
  }

  @Test func aMismatchWithoutAProviderErrorHasNoProviderErrorKey() {
    let run = runInProcess(["--state", "Qk7x"], input: "https://a.example/cb?code=c&state=WRONG\n")
    #expect(run.stdout.contains(#""code":"state-mismatch""#))
    #expect(!run.stdout.contains("provider_error"))
  }
}
