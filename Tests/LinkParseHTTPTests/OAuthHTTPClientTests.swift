// OAuthHTTPClient against LocalProvider, a real HTTP/1.1 server on 127.0.0.1: what goes over the wire, what
// comes back, and every failure as the OAuthResponseError code it must be.

import AsyncHTTPClient
import Foundation
import LinkParseHTTP
import LinkParseOAuth
import LinkParseProviders
import Logging
import NIOCore
import NIOPosix
import Testing
import LinkParseCore

/// A test-local stand-in for LinkParseOAuth's TokenResponse, decoded with Foundation.
struct TestTokens: OAuthResponseDecodable, Sendable {
  var accessToken: String
  var tokenType: String
  var expiresIn: Int
  var refreshToken: String?
  var extra: [String: String]
  var provider: Provider

  init(json: [UInt8], provider: Provider) throws(OAuthResponseError) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
      throw OAuthResponseError(.invalidJSON, offset: 0, message: "not a JSON object")
    }
    guard let accessToken = object["access_token"] as? String, !accessToken.isEmpty else {
      throw OAuthResponseError(.missingField, field: "access_token", message: "no access_token")
    }
    self.accessToken = accessToken
    self.tokenType = object["token_type"] as? String ?? ""
    self.expiresIn = (object["expires_in"] as? NSNumber)?.intValue ?? 0
    self.refreshToken = object["refresh_token"] as? String
    self.extra = [:]
    for (key, value) in object where !["access_token", "token_type", "expires_in", "refresh_token"].contains(key) {
      extra[key] = "\(value)"
    }
    self.provider = provider
  }
}

/// Any body at all, as its byte count.
struct ByteCount: OAuthResponseDecodable {
  var count: Int
  init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { count = json.count }
}

/// Log records, kept for inspection.
final class CapturedLogs: @unchecked Sendable {
  private let lock = NSLock()
  private var records: [(level: Logger.Level, message: String, metadata: [String: String])] = []

  func append(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
    lock.locked { records.append((level, message, metadata.mapValues { "\($0)" })) }
  }
  var all: [(level: Logger.Level, message: String, metadata: [String: String])] { lock.locked { records } }

  var logger: Logger {
    Logger(label: "test.oauth") { _ in CapturingHandler(logs: self) }
  }
}

struct CapturingHandler: LogHandler {
  let logs: CapturedLogs
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?
  var logLevel: Logger.Level = .trace

  func log(event: LogEvent) {
    logs.append(event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }
}

/// An owned client on the provider's event loop group, shut down after `body` whatever happens.
func withClient<T>(
  _ provider: LocalProvider, timeout: Duration = .seconds(5), maxBody: Int = 1 << 20, logger: Logger? = nil,
  _ body: (OAuthHTTPClient) async throws -> T
) async throws -> T {
  let client = OAuthHTTPClient(
    configuration: .init(timeout: timeout, maxResponseBodySize: maxBody), eventLoopGroup: provider.group,
    logger: logger)
  do {
    let result = try await body(client)
    try await client.shutdown()
    return result
  } catch {
    try? await client.shutdown()
    throw error
  }
}

/// A one-thread event loop group for `body`, shut down afterwards whatever happens.
func withEventLoopGroup<T>(_ body: (MultiThreadedEventLoopGroup) async throws -> T) async throws -> T {
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  do {
    let result = try await body(group)
    try await group.shutdownGracefully()
    return result
  } catch {
    try? await group.shutdownGracefully()
    throw error
  }
}

/// The elapsed time of `body`, in seconds.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let secretCode = "c0de/SECRET+42 x&y"
let verifier = "verifier-0123456789-abcdefghijklmnopqrstuvwxyz"

func tokenRequest(_ provider: LocalProvider, path: String = "/token", headers: [OAuthRequest.Header] = [])
  -> OAuthRequest
{
  OAuthRequest(
    kind: .tokenExchange, provider: .vk, method: .post, url: provider.baseURL + path, headers: headers,
    form: [
      .init("grant_type", "authorization_code"), .init("code", secretCode),
      .init("redirect_uri", "https://app.example/cb?x=1&y=2"), .init("client_id", "app-1"),
      .init("code_verifier", verifier),
    ])
}

@Suite("OAuthHTTPClient against a provider on 127.0.0.1", .timeLimit(.minutes(1)))
struct OAuthHTTPClientTests {

  @Test func tokenExchangePostsTheFormAndDecodesTheAnswer() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let tokens = try await client.perform(tokenRequest(provider), as: TestTokens.self)
        #expect(tokens.accessToken == "at-1")
        #expect(tokens.tokenType == "Bearer")
        #expect(tokens.expiresIn == 3600)
        #expect(tokens.refreshToken == "rt-1")
        #expect(tokens.extra["code_length"] == String(secretCode.count))
        #expect(tokens.provider == .vk)

        let received = try #require(provider.recorder.last)
        #expect(received.method == "POST")
        #expect(received.uri == "/token")
        #expect(received.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("User-Agent") == "LinkParse")
        #expect(received.header("Content-Length") == String(received.body.utf8.count))
        #expect(received.body == tokenRequest(provider).body)
        #expect(
          received.form == [
            "grant_type": "authorization_code", "code": secretCode, "redirect_uri": "https://app.example/cb?x=1&y=2",
            "client_id": "app-1", "code_verifier": verifier,
          ])
      }
    }
  }

  @Test func refreshSendsTheRefreshGrant() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let request = OAuthRequest(
          kind: .refresh, provider: .tid, url: provider.baseURL + "/refresh",
          form: [.init("grant_type", "refresh_token"), .init("refresh_token", "rt-1")])
        let tokens = try await client.perform(request, as: TestTokens.self)
        #expect(tokens.accessToken == "at-2")
        #expect(tokens.expiresIn == 7200)
        #expect(tokens.refreshToken == nil)
        #expect(tokens.provider == .tid)
        let received = try #require(provider.recorder.last)
        #expect(received.method == "POST")
        #expect(received.path == "/refresh")
        #expect(received.form == ["grant_type": "refresh_token", "refresh_token": "rt-1"])
      }
    }
  }

  @Test func userInfoIsAGetWithTheBearerAndTheFormAsQuery() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let request = OAuthRequest(
          kind: .userInfo, provider: .oauth2, method: .get, url: provider.baseURL + "/userinfo",
          headers: [.init("Authorization", "Bearer at-1"), .init("User-Agent", "MyApp/2.0")],
          form: [.init("client_id", "app 1"), .init("fields", "email,phone")])
        let answer = try await client.perform(request, as: TestTokens.self)
        #expect(answer.accessToken == "at-user")

        let received = try #require(provider.recorder.last)
        #expect(received.method == "GET")
        #expect(received.path == "/userinfo")
        #expect(received.form == ["client_id": "app 1", "fields": "email,phone"])
        #expect(received.header("Authorization") == "Bearer at-1")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("User-Agent") == "MyApp/2.0")
        #expect(received.headerCount("User-Agent") == 1)
        #expect(received.header("Content-Type") == nil)
        #expect(received.body.isEmpty)
      }
    }
  }

  @Test func aWrongBearerIsTheProvidersError() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let request = OAuthRequest(
          kind: .userInfo, method: .get, url: provider.baseURL + "/userinfo",
          headers: [.init("Authorization", "Bearer wrong")])
        let error = await #expect(throws: OAuthResponseError.self) {
          try await client.perform(request, as: TestTokens.self)
        }
        #expect(error?.code == .providerError)
        #expect(error?.status == 401)
        #expect(error?.providerError?.error.rawValue == "invalid_token")
      }
    }
  }

  @Test func errorJSONWithStatus400IsProviderError() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let error = try #require(
          await #expect(throws: OAuthResponseError.self) {
            try await client.perform(tokenRequest(provider, path: "/expired"), as: TestTokens.self)
          })
        #expect(error.code == .providerError)
        #expect(error.status == 400)
        let providerError = try #require(error.providerError)
        #expect(providerError.error == .invalidGrant)
        #expect(providerError.errorDescription == "code expired")
        #expect(providerError.state == "s-1")
        #expect(providerError.rawBody.contains(#""error":"invalid_grant""#))
        #expect(error.message.contains("400"))
        #expect(error.message.contains("invalid_grant"))
        #expect(error.message.contains("code expired"))
        #expect(!error.message.contains(secretCode))
        #expect(provider.recorder.last?.form["grant_type"] == "authorization_code")
      }
    }
  }

  @Test func htmlWithStatus500IsHTTPStatusQuotingAShortMaskedExcerpt() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let error = try #require(
          await #expect(throws: OAuthResponseError.self) {
            try await client.perform(tokenRequest(provider, path: "/broken"), as: TestTokens.self)
          })
        #expect(error.code == .httpStatus)
        #expect(error.status == 500)
        #expect(error.providerError == nil)
        #expect(error.message.contains("HTTP 500"))
        #expect(error.message.contains("text/html"))
        #expect(error.message.contains("<h1>Internal Server Error</h1>"))
        // The page echoed the code: the quote masks it.
        #expect(!error.message.contains(secretCode))
        #expect(error.message.contains("code=[redacted]"))
        let quote = try #require(error.message.split(separator: "\"", maxSplits: 1).last)
        #expect(quote.utf8.count <= 200 + "…\"".utf8.count)
        #expect(quote.hasSuffix("…\""))
        #expect(!error.message.contains("\n"))
        #expect(provider.recorder.last?.path == "/broken")
      }
    }
  }

  @Test func sendReturnsANon2xxAnswerWithoutThrowing() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let response = try await client.send(tokenRequest(provider, path: "/expired"))
        #expect(response.status == 400)
        #expect(!response.isSuccess)
        #expect(response.headerValue("content-type") == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"error":"invalid_grant""#))

        let revoke = OAuthRequest(kind: .revoke, method: .get, url: provider.baseURL + "/empty-503")
        let empty = try await client.send(revoke)
        #expect(empty.status == 503)
        #expect(empty.body.isEmpty)
        let error = await #expect(throws: OAuthResponseError.self) {
          try await client.perform(revoke, as: ByteCount.self)
        }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 503)
        #expect(error?.message.contains("empty body") == true)
      }
    }
  }

  @Test func aDecoderErrorCarriesTheStatus() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let error = await #expect(throws: OAuthResponseError.self) {
          try await client.perform(
            OAuthRequest(kind: .userInfo, method: .get, url: provider.baseURL + "/not-json"), as: TestTokens.self)
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.status == 200)
      }
    }
  }

  /// The three ways an answer can be late: no head, a stalled body, a body that trickles (a byte every
  /// 100 ms, so no read timeout ever fires: only the overall deadline stops it). Each with the owned client
  /// (AsyncHTTPClient's read timeout set too) and with a borrowed one that has no read timeout at all.
  @Test(arguments: ["/slow-head", "/slow-body", "/trickle"], [true, false])
  func aLateAnswerTimesOut(path: String, owned: Bool) async throws {
    try await withLocalProvider { provider in
      let http = owned ? nil : HTTPClient(eventLoopGroup: provider.group)
      let configuration = OAuthHTTPClient.Configuration(timeout: .milliseconds(500))
      let client =
        http.map { OAuthHTTPClient(httpClient: $0, configuration: configuration) }
        ?? OAuthHTTPClient(configuration: configuration, eventLoopGroup: provider.group)
      let request = OAuthRequest(kind: .userInfo, method: .get, url: provider.baseURL + path)
      var caught: OAuthResponseError?
      let elapsed = await seconds {
        caught = await #expect(throws: OAuthResponseError.self) { try await client.send(request) }
      }
      try await client.shutdown()
      try await http?.shutdown()
      #expect(caught?.code == .timeout)
      #expect(caught?.message.contains("127.0.0.1:\(provider.port)") == true)
      #expect(elapsed >= 0.45)
      #expect(elapsed < 2.5)
      #expect(provider.recorder.last?.path == path)
    }
  }

  @Test(arguments: ["/big", "/big-chunked"])
  func aBodyOverTheLimitIsBodyTooLarge(path: String) async throws {
    try await withLocalProvider { provider in
      try await withClient(provider, maxBody: 1 << 20) { client in
        let request = OAuthRequest(kind: .userInfo, method: .get, url: provider.baseURL + path)
        let error = await #expect(throws: OAuthResponseError.self) {
          try await client.perform(request, as: ByteCount.self)
        }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.message.contains("1048576") == true)
        if path == "/big" { #expect(error?.message.contains("2097152") == true) }
        #expect(provider.recorder.last?.path == path)
      }
    }
  }

  @Test func aBodyOfExactlyTheLimitIsAccepted() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider, maxBody: 1 << 20) { client in
        let request = OAuthRequest(kind: .userInfo, method: .get, url: provider.baseURL + "/exactly-1MiB")
        let response = try await client.send(request)
        #expect(response.status == 200)
        #expect(response.body.count == 1 << 20)
      }
    }
  }

  @Test func aRefusedConnectionIsTransport() async throws {
    let port = try await LocalProvider.closedPort()
    let request = OAuthRequest(
      kind: .tokenExchange, url: "http://127.0.0.1:\(port)/token", form: [.init("grant_type", "authorization_code")])
    try await withEventLoopGroup { group in
      // A borrowed client that does not retry connecting: the failure is immediate.
      var poolConfiguration = HTTPClient.Configuration()
      poolConfiguration.connectionPool.retryConnectionEstablishment = false
      let http = HTTPClient(eventLoopGroup: group, configuration: poolConfiguration)
      let borrowed = OAuthHTTPClient(httpClient: http, configuration: .init(timeout: .seconds(5)))
      var caught: OAuthResponseError?
      let elapsed = await seconds {
        caught = await #expect(throws: OAuthResponseError.self) { try await borrowed.send(request) }
      }
      try await borrowed.shutdown()
      try await http.shutdown()
      #expect(caught?.code == .transport)
      #expect(caught?.message.contains("127.0.0.1:\(port)") == true)
      #expect(caught?.message.lowercased().contains("refused") == true)
      // Said as what happened (not NIO's "connection reset (error set)"), in balanced parentheses.
      let message = caught?.message ?? ""
      #expect(!message.contains("reset"), "\(message)")
      #expect(message.filter { $0 == "(" }.count == message.filter { $0 == ")" }.count, "\(message)")
      #expect(elapsed < 2)

      // The owned client (AsyncHTTPClient retries until the timeout): still .transport, once the timeout ends.
      let owned = OAuthHTTPClient(configuration: .init(timeout: .milliseconds(500)), eventLoopGroup: group)
      let ownedError = await #expect(throws: OAuthResponseError.self) { try await owned.send(request) }
      try await owned.shutdown()
      #expect(ownedError?.code == .transport)
    }
  }

  @Test func plainHTTPGoesToLoopbackOnlyUnlessAllowed() async throws {
    try await withLocalProvider { provider in
      // Not recognisably loopback (no connection is attempted): refused before any traffic.
      try await withClient(provider) { client in
        let elsewhere = OAuthRequest(
          kind: .tokenExchange, url: "http://provider.example/token", form: [.init("code", secretCode)])
        let error = await #expect(throws: OAuthResponseError.self) { try await client.send(elsewhere) }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("plain http") == true)
        #expect(error?.message.contains(secretCode) == false)

        // `127.1` is 127.0.0.1 to the resolver but not to the loopback check: refused too…
        let shortForm = tokenRequest(provider, path: "/token")
        var request = shortForm
        request.url = "http://127.1:\(provider.port)/token"
        let refused = await #expect(throws: OAuthResponseError.self) { try await client.send(request) }
        #expect(refused?.code == .transport)
        #expect(provider.recorder.all.isEmpty)

        // …and `localhost` is loopback.
        request.url = "http://localhost:\(provider.port)/token"
        let viaLocalhost = try await client.perform(request, as: TestTokens.self)
        #expect(viaLocalhost.accessToken == "at-1")
      }
      // …unless plain http is allowed.
      let client = OAuthHTTPClient(configuration: .init(allowsInsecureHTTP: true), eventLoopGroup: provider.group)
      var request = tokenRequest(provider)
      request.url = "http://127.1:\(provider.port)/token"
      let tokens: Result<TestTokens, OAuthResponseError>
      do throws(OAuthResponseError) {
        tokens = .success(try await client.perform(request, as: TestTokens.self))
      } catch {
        tokens = .failure(error)
      }
      try await client.shutdown()
      #expect(try tokens.get().accessToken == "at-1")
      #expect(provider.recorder.all.count == 2)
    }
  }

  @Test func cancellingTheTaskEndsTheRequest() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let request = OAuthRequest(kind: .userInfo, method: .get, url: provider.baseURL + "/slow-head")
        let task = Task { try await client.send(request) }
        let elapsed = await seconds {
          try? await Task.sleep(for: .milliseconds(200))
          task.cancel()
          let result = await task.result
          guard case .failure(let failure) = result, let error = failure as? OAuthResponseError else {
            Issue.record("a cancelled request did not fail with an OAuthResponseError: \(result)")
            return
          }
          #expect(error.code == .transport)
          #expect(error.message.contains("cancelled"))
        }
        #expect(elapsed < 2)
      }
    }
  }

  @Test func theOwnedClientFollowsNoRedirect() async throws {
    try await withLocalProvider { provider in
      try await withClient(provider) { client in
        let error = await #expect(throws: OAuthResponseError.self) {
          try await client.perform(tokenRequest(provider, path: "/redirect"), as: TestTokens.self)
        }
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 302)
        // The form (code, verifier) went to /redirect only, never on to the Location.
        #expect(provider.recorder.all.map(\.path) == ["/redirect"])
      }
    }
  }

  @Test func theUserAgentIsConfigurable() async throws {
    try await withLocalProvider { provider in
      let configurations: [(String?, String?)] = [(nil, nil), ("", nil), ("MyApp/1.0", "MyApp/1.0")]
      for (userAgent, expected) in configurations {
        let client = OAuthHTTPClient(configuration: .init(userAgent: userAgent), eventLoopGroup: provider.group)
        _ = try await client.perform(tokenRequest(provider), as: TestTokens.self)
        try await client.shutdown()
        #expect(provider.recorder.last?.header("User-Agent") == expected)
      }
    }
  }

  @Test func ownershipAndShutdown() async throws {
    try await withLocalProvider { provider in
      // Borrowed: shutdown() leaves the HTTPClient running.
      let http = HTTPClient(eventLoopGroup: provider.group)
      let borrowed = OAuthHTTPClient(httpClient: http)
      #expect(!borrowed.ownsHTTPClient)
      try await borrowed.shutdown()
      let tokens = try await borrowed.perform(tokenRequest(provider), as: TestTokens.self)
      #expect(tokens.accessToken == "at-1")
      try await http.shutdown()

      // Owned: shut down (twice is harmless); a request afterwards is .transport.
      let owned = OAuthHTTPClient(eventLoopGroup: provider.group)
      #expect(owned.ownsHTTPClient)
      #expect(owned.configuration == .init())
      try await owned.shutdown()
      try await owned.shutdown()
      let error = await #expect(throws: OAuthResponseError.self) { try await owned.send(tokenRequest(provider)) }
      #expect(error?.code == .transport)
    }
  }

  @Test func aBadURLIsTransport() async throws {
    let client = OAuthHTTPClient()
    let error = await #expect(throws: OAuthResponseError.self) {
      try await client.send(OAuthRequest(kind: .userInfo, method: .get, url: "not a url"))
    }
    try await client.shutdown()
    #expect(error?.code == .transport)
  }

  @Test func logsCarryNoSecrets() async throws {
    let logs = CapturedLogs()
    try await withLocalProvider { provider in
      try await withClient(provider, logger: logs.logger) { client in
        _ = try await client.perform(tokenRequest(provider), as: TestTokens.self)
        _ = try? await client.perform(tokenRequest(provider, path: "/expired"), as: TestTokens.self)
        let userInfo = OAuthRequest(
          kind: .userInfo, method: .get, url: provider.baseURL + "/userinfo",
          headers: [.init("Authorization", "Bearer at-1")], form: [.init("access_token", "at-in-query")])
        _ = try await client.send(userInfo)
      }
      let records = logs.all
      #expect(records.count == 3)
      #expect(records.allSatisfy { $0.level == .debug })
      #expect(records.first?.metadata["oauth.method"] == "POST")
      #expect(records.first?.metadata["oauth.host"] == "127.0.0.1:\(provider.port)")
      #expect(records.first?.metadata["oauth.path"] == "/token")
      #expect(records.first?.metadata["oauth.status"] == "200")
      #expect(records.first?.metadata["oauth.elapsed_ms"] != nil)
      #expect(records.last?.metadata["oauth.path"] == "/userinfo")
      let text = records.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
      for secret in [secretCode, verifier, "at-1", "rt-1", "at-in-query", "code expired", "invalid_grant"] {
        #expect(!text.contains(secret), "log mentions \(secret)")
      }
    }
  }
}
