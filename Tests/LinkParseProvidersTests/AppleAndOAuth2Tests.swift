import LinkParseAuthorization
import LinkParseCore
import Testing

@testable import LinkParseProviders

@Suite struct SignInWithAppleTests {
  static let userJSON =
    "%7B%22name%22%3A%7B%22firstName%22%3A%22Timm%22%2C%22lastName%22%3A%22Preetz%22%7D%2C%22email%22%3A%224rtppgbhgb%40privaterelay.appleid.com%22%7D"

  /// form_post body (providers.md §4.4 example 1).
  @Test func formPostBody() throws {
    let body =
      "state=8f3c1e2a&code=c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q&id_token=eyJraWQiOiJXNldjT0tCIiwiYWxnIjoiUlMyNTYifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIn0.sig&user=\(Self.userJSON)"
    let result = try AppleCallback(FormParameters(utf8: Array(body.utf8)))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.code == "c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q")
    #expect(s.state == "8f3c1e2a")
    #expect(s.idTokenClaims?.issuer == "https://appleid.apple.com")
    #expect(s.user == AppleUser(firstName: "Timm", lastName: "Preetz", email: "4rtppgbhgb@privaterelay.appleid.com"))
    #expect(s.userJSON?.hasPrefix("{\"name\"") == true)
  }

  /// The same data through a server bounce to a custom scheme (example 2), and a query (example 3).
  @Test func queryAndBounce() throws {
    let bounce = try AppleCallback(
      params("signinwithapple://callback?code=c7253d404c180400eaa4691aa9c8c07ff.0.nrqtw.OALT9--SjOoLRti_wvrF5Q&user=\(Self.userJSON)"))
    guard case .success(let s) = bounce else { Issue.record("\(bounce)"); return }
    #expect(s.user?.firstName == "Timm")
    #expect(s.idToken == nil)
    // Pitfall 4.5.1: a returning user carries no `user`.
    let returning = try AppleCallback(
      params("https://example.com/auth/apple/callback?state=8f3c1e2a&code=c1d2e3f4a5b6c7d8e9f00112233445566.0.nrqtw.Zm9vYmFyYmF6"))
    guard case .success(let r) = returning else { Issue.record("\(returning)"); return }
    #expect(r.user == nil && r.userJSON == nil)
  }

  /// Pitfall 4.5.3: fragment mode is read with the same rules.
  @Test func fragmentMode() throws {
    let url = try ParsedURL(
      "https://example.com/auth/apple/callback#state=8f3c1e2a&code=c1d2e3f4a5b6c7d8e9f00112233445566.0.nrqtw.Zm9v&id_token=eyJhbGciOiJSUzI1NiJ9.e30.sig")
    #expect(url.queryParameters.isEmpty)
    let result = try AppleCallback(ProviderDetector.callbackParameters(of: url))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.state == "8f3c1e2a")
    #expect(s.idTokenClaims == UnverifiedAppleIDTokenClaims(jwt: "a.e30.b"))
    #expect(s.idTokenClaims?.issuer == nil)
  }

  @Test func cancel() throws {
    #expect(try AppleCallback(FormParameters("error=user_cancelled_authorize&state=8f3c1e2a")) == .cancelled(state: "8f3c1e2a"))
    let bounce = try ProviderCallback(
      provider: .apple, parameters: params("signinwithapple://callback?error=user_cancelled_authorize&state=8f3c1e2a"))
    #expect(bounce.outcome == .cancelled)
    let other = try AppleCallback(FormParameters("error=invalid_request&state=s"))
    #expect(other == .failure(ProviderError(code: .invalidRequest), state: "s"))
  }

  /// Pitfall 4.5.2: `user` is JSON inside form encoding; `+` is a space before percent-decoding; non-ASCII
  /// names survive; every key is optional.
  @Test func userJSONInFormBody() throws {
    let body = "code=c&user=%7B%22name%22%3A%7B%22firstName%22%3A%22Anna+Maria%22%2C%22lastName%22%3A%22%D0%98%D0%B2%D0%B0%D0%BD%D0%BE%D0%B2%D0%B0%22%7D%7D"
    guard case .success(let s) = try AppleCallback(FormParameters(body)) else { Issue.record("not a success"); return }
    #expect(s.user == AppleUser(firstName: "Anna Maria", lastName: "Иванова"))
    guard case .success(let e) = try AppleCallback(FormParameters("code=c&user=%7B%7D")) else { Issue.record("no"); return }
    #expect(e.user == AppleUser())
    #expect(rejection { try AppleCallback(FormParameters("code=c&user=%7Bbroken")) } == .malformedParameter)
    #expect(rejection { try AppleCallback(FormParameters("code=c&user=42")) } == .malformedParameter)
    // Bytes that are not UTF-8 read as U+FFFD in `user`, so the callback takes them.
    guard case .success(let r) = try AppleCallback(FormParameters("code=c&user=%7B%22email%22%3A%22a%FF%22%7D"))
    else { Issue.record("not a success"); return }
    #expect(r.user?.email == "a\u{FFFD}")
    #expect(rejection { try AppleCallback(FormParameters("code=c&user=%7B%22email%22%3A%FF%7D")) } == .malformedParameter)
  }

  /// Pitfall 4.5.5: `email_verified` / `is_private_email` are strings or booleans.
  @Test func lenientClaims() throws {
    let asStrings = UnverifiedAppleIDTokenClaims(
      jwt: jwt(
        #"{"iss":"https://appleid.apple.com","aud":"com.example.web","sub":"001.abc","exp":1700000600,"iat":1700000000,"nonce":"n1","email":"a@b.c","email_verified":"true","is_private_email":"false","real_user_status":2,"nonce_supported":true}"#
      ))
    #expect(asStrings?.emailVerified == true)
    #expect(asStrings?.isPrivateEmail == false)
    #expect(asStrings?.audience == ["com.example.web"])
    #expect(asStrings?.subject == "001.abc")
    #expect(asStrings?.expiresAt == 1_700_000_600)
    #expect(asStrings?.issuedAt == 1_700_000_000)
    #expect(asStrings?.nonce == "n1")
    #expect(asStrings?.realUserStatus == 2)
    #expect(asStrings?.realUserStatusValue == .likelyReal)
    #expect(UnverifiedAppleIDTokenClaims(realUserStatus: 7).realUserStatusValue == nil)
    #expect(UnverifiedAppleIDTokenClaims(issuer: "i", emailVerified: true) == UnverifiedAppleIDTokenClaims(jwt: jwt(#"{"iss":"i","email_verified":"1"}"#)))
    #expect(asStrings?.nonceSupported == true)
    let asBools = UnverifiedAppleIDTokenClaims(jwt: jwt(#"{"email_verified":true,"is_private_email":true,"aud":["a","b"]}"#))
    #expect(asBools?.emailVerified == true)
    #expect(asBools?.isPrivateEmail == true)
    #expect(asBools?.audience == ["a", "b"])
  }

  @Test(arguments: ["not-a-jwt", "a.b", "a.!!!.c", "a.\(String(jwt("[1]").split(separator: ".")[1])).c", "a.b.c.d"])
  func malformedIDToken(token: String) throws {
    #expect(UnverifiedAppleIDTokenClaims(jwt: token) == nil)
    #expect(rejection { try AppleCallback(FormParameters("code=c&id_token=\(token)")) } == .malformedParameter)
  }

  @Test func duplicatesAndMissingCode() throws {
    #expect(rejection { try AppleCallback(FormParameters("code=c&user=%7B%7D&user=%7B%7D")) } == .duplicateParameter)
    #expect(rejection { try AppleCallback(FormParameters("code=c&id_token=a.e30.b&id_token=a.e30.b")) } == .duplicateParameter)
    // An id_token without a code is `response_type=id_token`'s answer, not a missing code.
    #expect(try AppleCallback(FormParameters("id_token=a.e30.b&state=s")).state == "s")
    #expect(rejection { try AppleCallback(FormParameters("state=s")) } == .missingParameter)
  }

  /// §4.6: state is checked on error responses too (an unchecked cancel lets anyone abort a login).
  @Test func stateIsCheckedOnCancel() throws {
    let pending = PendingAuthorization(
      provider: .apple, redirectURI: try ParsedURL("https://example.com/auth/apple/callback"), state: "8f3c1e2a")
    let url = try ParsedURL("https://example.com/auth/apple/callback")
    #expect(
      rejection { try pending.validate(url, parameters: FormParameters("error=user_cancelled_authorize&state=forged")) }
        == .stateMismatch)
    #expect(rejection { try pending.validate(url, parameters: FormParameters("error=user_cancelled_authorize")) } == .stateMismatch)
    let ok = try pending.validate(url, parameters: FormParameters("error=user_cancelled_authorize&state=8f3c1e2a"))
    #expect(ok.outcome == .cancelled)
  }

  @Test func requestBuilder() throws {
    let request = AppleAuthorizationRequest(
      clientID: "com.example.web", redirectURI: "https://example.com/auth/apple/callback", state: "8f3c", nonce: "n 1")
    let url = try ParsedURL(request.url)
    #expect(url.host == "appleid.apple.com")
    #expect(url.path == "/auth/authorize")
    let q = url.queryParameters
    #expect(q.value(for: "response_type") == "code id_token")
    #expect(q.value(for: "response_mode") == "form_post")
    #expect(q.value(for: "scope") == "name email")
    #expect(q.value(for: "redirect_uri") == "https://example.com/auth/apple/callback")
    #expect(q.value(for: "nonce") == "n 1")
    #expect(request.isAcceptedByApple)
    var query = request
    query.responseMode = .query
    #expect(!query.isAcceptedByApple)
    query.responseType = .code
    #expect(!query.isAcceptedByApple)  // name/email scope needs form_post
    query.scope = []
    #expect(query.isAcceptedByApple)
    #expect(try ParsedURL(query.url).queryParameters.value(for: "response_mode") == "query")
    var fragment = request
    fragment.responseMode = .fragment
    fragment.scope = []
    #expect(fragment.isAcceptedByApple)
  }
}

@Suite struct OAuth2Tests {

  /// RFC 9207's example.
  @Test func issuerIsRead() throws {
    let result = try OAuth2Callback(
      params(
        "https://client.example/cb?code=x1848ZT64p4IirMPT0R-X3141MFPTuBX-VFL_cvaplMH58&state=ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI&iss=https%3A%2F%2Fhonest.as.example"
      ))
    guard case .success(let s) = result else { Issue.record("\(result)"); return }
    #expect(s.issuer == "https://honest.as.example")
    #expect(s.code == "x1848ZT64p4IirMPT0R-X3141MFPTuBX-VFL_cvaplMH58")
  }

  @Test func errorWinsOverCode() throws {
    let result = try OAuth2Callback(
      params("https://c/cb?code=c&error=server_error&error_description=Oops+now&error_uri=https%3A%2F%2Fe%2Fx&state=s&iss=i"))
    #expect(result == .failure(ProviderError(code: .serverError, errorDescription: "Oops now", errorURI: "https://e/x"), state: "s", issuer: "i"))
  }

  @Test(arguments: [
    "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type", "invalid_scope", "server_error",
    "temporarily_unavailable", "invalid_client", "invalid_grant", "unsupported_grant_type", "interaction_required",
    "login_required", "account_selection_required", "consent_required", "invalid_request_uri", "invalid_request_object",
    "request_not_supported", "request_uri_not_supported", "registration_not_supported", "user_cancelled_authorize",
  ])
  func knownCodesHaveDescriptions(raw: String) {
    let code = OAuthErrorCode(rawValue: raw)
    #expect(code.isKnown)
    #expect(!code.descriptionEN.contains(raw))
    #expect(code.descriptionRU.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) })
  }

  @Test func sessionStateAndUnrecognizedParameters() throws {
    let result = try OAuth2Callback(params("https://c/cb?code=c&session_state=ss&whatever=1"))
    #expect(result == .success(OAuth2Success(code: "c", state: nil, issuer: nil, sessionState: "ss")))
    #expect(rejection { try OAuth2Callback(params("https://c/cb?state=s")) } == .missingParameter)
    #expect(rejection { try OAuth2Callback(params("https://c/cb?code=c&iss=a&iss=b")) } == .duplicateParameter)
  }
}
