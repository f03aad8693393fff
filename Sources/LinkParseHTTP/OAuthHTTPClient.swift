// Sends LinkParseOAuth's requests (token exchange, refresh, revoke, user info, introspection) with
// AsyncHTTPClient: one deadline for the whole exchange, a body limit checked while the body streams in, and
// every failure as an OAuthResponseError. Nothing secret (codes, tokens, client secrets, bodies) is logged.

public import AsyncHTTPClient
public import LinkParseOAuth
public import Logging
public import NIOCore
internal import NIOHTTP1

/// Sends ``OAuthRequest`` values to identity providers and decodes their answers.
///
/// **Ownership.** ``init(configuration:eventLoopGroup:logger:)`` creates an `HTTPClient` that this object
/// owns: call ``shutdown()`` once you are done (AsyncHTTPClient asserts, in debug builds, that a client is
/// shut down before it is released). ``init(httpClient:configuration:logger:)`` borrows yours: ``shutdown()``
/// then does nothing, and shutting your client down stays your job, after the last request.
///
/// **Limits.** ``Configuration/timeout`` bounds the whole exchange (connecting, sending, the head and the
/// whole body); ``Configuration/maxResponseBodySize`` is checked against `Content-Length` and again while
/// the body streams in, so no more than the limit is ever buffered.
///
/// **Logging.** With a `logger`, one `debug` line per request: method, host, path, status (or error code)
/// and elapsed milliseconds. Never the query, the form, a header value or the body.
///
/// ```swift
/// let client = OAuthHTTPClient()
/// let tokens = try await client.perform(request, as: TokenResponse.self)
/// let user = try await client.perform(userInfoRequest, as: OIDCUserInfo.self)
/// try await client.shutdown()
/// ```
public final class OAuthHTTPClient: Sendable {

  /// Limits and identity of the client.
  ///
  /// ```swift
  /// var configuration = OAuthHTTPClient.Configuration()
  /// configuration.timeout = .seconds(5)
  /// configuration.maxResponseBodySize = 256 * 1024
  /// ```
  public struct Configuration: Sendable, Hashable {
    /// The `User-Agent` sent when a request names none: `LinkParse`.
    ///
    /// ```swift
    /// OAuthHTTPClient.Configuration.defaultUserAgent  // "LinkParse"
    /// ```
    public static let defaultUserAgent = "LinkParse"

    /// How long one exchange may take, from the start of ``OAuthHTTPClient/send(_:)`` to the body's last
    /// byte (10 seconds by default). Past it, the request fails with ``OAuthResponseError/Code/timeout``.
    ///
    /// ```swift
    /// configuration.timeout = .milliseconds(2500)
    /// ```
    public var timeout: Duration
    /// The largest body accepted, in bytes (1 MiB by default). A longer one fails with
    /// ``OAuthResponseError/Code/bodyTooLarge`` as soon as it is known to be longer.
    ///
    /// ```swift
    /// configuration.maxResponseBodySize = 64 * 1024
    /// ```
    public var maxResponseBodySize: Int
    /// The `User-Agent` header for requests that have none; `nil` or empty sends none of ours.
    ///
    /// ```swift
    /// configuration.userAgent = "MyApp/1.0 (LinkParse)"
    /// ```
    public var userAgent: String?
    /// Whether requests may go over plain `http://` to a host that is not loopback (`false` by default: the
    /// forms and headers carry codes, secrets and tokens, and RFC 6749 requires TLS). `http://` to
    /// `localhost`, `*.localhost`, `127.0.0.0/8` or `[::1]` is always allowed; any other is refused with
    /// ``OAuthResponseError/Code/transport`` before a connection is opened.
    ///
    /// ```swift
    /// configuration.allowsInsecureHTTP = true  // a provider in a docker-compose network: http://keycloak:8080
    /// ```
    public var allowsInsecureHTTP: Bool

    /// Creates a configuration.
    ///
    /// ```swift
    /// OAuthHTTPClient.Configuration(timeout: .milliseconds(500), maxResponseBodySize: 64 * 1024,
    ///                               userAgent: "MyApp/1.0")
    /// ```
    public init(
      timeout: Duration = .seconds(10), maxResponseBodySize: Int = 1 << 20,
      userAgent: String? = Configuration.defaultUserAgent, allowsInsecureHTTP: Bool = false
    ) {
      self.timeout = timeout
      self.maxResponseBodySize = maxResponseBodySize
      self.userAgent = userAgent
      self.allowsInsecureHTTP = allowsInsecureHTTP
    }
  }

  /// The limits in force.
  ///
  /// ```swift
  /// client.configuration.timeout  // .seconds(10)
  /// ```
  public let configuration: Configuration
  /// The AsyncHTTPClient client the requests go through (owned or borrowed: see ``ownsHTTPClient``).
  ///
  /// ```swift
  /// let http = client.httpClient  // e.g. to send something else on the same connection pool
  /// ```
  public let httpClient: HTTPClient
  /// Whether ``shutdown()`` shuts ``httpClient`` down (`true` when this object created it).
  ///
  /// ```swift
  /// OAuthHTTPClient().ownsHTTPClient  // true
  /// ```
  public let ownsHTTPClient: Bool
  let logger: Logger?

  /// Creates a client with its own `HTTPClient`, which ``shutdown()`` shuts down.
  ///
  /// That `HTTPClient` follows no redirects (a token endpoint that redirects is misconfigured, and a
  /// redirected `POST` would carry the code or secret elsewhere), does not decompress, records no tracing
  /// spans (AsyncHTTPClient's spans would hold the full URL, query included), connects and reads within
  /// ``Configuration/timeout``, and — AsyncHTTPClient's default — retries a failed connection with backoff
  /// until the timeout, so a refused connection is reported (as ``OAuthResponseError/Code/transport``) when
  /// the timeout expires. To change any of this, build your own `HTTPClient` and use
  /// ``init(httpClient:configuration:logger:)``.
  ///
  /// ```swift
  /// let client = OAuthHTTPClient(configuration: .init(timeout: .seconds(5)), logger: Logger(label: "oauth"))
  /// // …
  /// try await client.shutdown()
  /// ```
  public init(
    configuration: Configuration = Configuration(),
    eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
    logger: Logger? = nil
  ) {
    self.configuration = configuration
    self.httpClient = HTTPClient(
      eventLoopGroup: eventLoopGroup, configuration: Self.httpClientConfiguration(for: configuration))
    self.ownsHTTPClient = true
    self.logger = logger
  }

  /// Creates a client that sends through `httpClient`, which stays yours: ``shutdown()`` leaves it running.
  ///
  /// Its redirect, TLS, proxy and tracing settings apply as you configured them; ``Configuration/timeout``
  /// and ``Configuration/maxResponseBodySize`` are enforced here on top of them.
  ///
  /// ```swift
  /// let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
  /// let client = OAuthHTTPClient(httpClient: http)
  /// // …
  /// try await http.shutdown()
  /// ```
  public init(httpClient: HTTPClient, configuration: Configuration = Configuration(), logger: Logger? = nil) {
    self.configuration = configuration
    self.httpClient = httpClient
    self.ownsHTTPClient = false
    self.logger = logger
  }

  /// Shuts the owned `HTTPClient` down (waiting for its connections to close); does nothing for a borrowed
  /// one. Calling it twice is harmless. No request may be sent afterwards.
  ///
  /// ```swift
  /// try await client.shutdown()
  /// ```
  public func shutdown() async throws {
    guard ownsHTTPClient else { return }
    do {
      try await httpClient.shutdown()
    } catch let error as HTTPClientError where error == .alreadyShutdown {
      return
    }
  }

  /// Sends `request` and returns the answer, whatever its status.
  ///
  /// A `POST` carries ``OAuthRequest/body`` (form-encoded); a `GET` goes to ``OAuthRequest/fullURL`` (the
  /// form as the query). The headers are sent as given, plus ``Configuration/userAgent`` when the request
  /// has no `User-Agent`. Throws ``OAuthResponseError`` with code ``OAuthResponseError/Code/timeout``,
  /// ``OAuthResponseError/Code/bodyTooLarge`` or ``OAuthResponseError/Code/transport`` (also for plain
  /// `http://` to a host that is not loopback, unless ``Configuration/allowsInsecureHTTP``); a non-2xx status
  /// is not an error here (``perform(_:as:)`` makes it one).
  ///
  /// ```swift
  /// let response = try await client.send(request)
  /// print(response.status, response.body.count)
  /// ```
  public func send(_ request: OAuthRequest) async throws(OAuthResponseError) -> OAuthHTTPResponse {
    let target = RequestTarget(request.fullURL)
    let clock = ContinuousClock()
    let start = clock.now
    let result: Result<OAuthHTTPResponse, OAuthResponseError>
    do {
      result = .success(try await exchange(request, target: target, until: start.advanced(by: configuration.timeout)))
    } catch {
      result = .failure(TransportErrors.map(error, kind: request.kind, target: target, configuration: configuration))
    }
    log(request, target: target, result: result, elapsed: clock.now - start)
    return try result.get()
  }

  /// Sends `request` and decodes the answer: a 2xx body with `R(json:provider:)` (the request's provider),
  /// any other status as an error.
  ///
  /// A non-2xx answer whose body is the provider's error JSON (`{"error":"invalid_grant",…}`) throws
  /// ``OAuthResponseError/Code/providerError`` with ``OAuthResponseError/providerError`` and
  /// ``OAuthResponseError/status`` set; any other non-2xx throws ``OAuthResponseError/Code/httpStatus`` with
  /// the status and a message quoting at most 200 bytes of the body. Quotes (of the body, of the provider's
  /// `error_description`) mask the values of the request's secret form fields and its `Authorization`
  /// header, and the value after every token-shaped name whatever the provider wrote (`access_token=…`,
  /// `"refresh_token": "…"`, `\"id_token\":\"…\"`, `code`, `client_secret`, `code_verifier`). A decoder's
  /// error gets the status too.
  ///
  /// ```swift
  /// do {
  ///   let tokens = try await client.perform(request, as: TokenResponse.self)
  /// } catch let error where error.code == .providerError {
  ///   print(error.status ?? 0, error.providerError?.error.rawValue ?? "")  // 400 invalid_grant
  /// }
  /// ```
  public func perform<R: OAuthResponseDecodable>(
    _ request: OAuthRequest, as type: R.Type = R.self
  ) async throws(OAuthResponseError) -> R {
    let response = try await send(request)
    guard response.isSuccess else { throw StatusErrors.error(for: response, request: request) }
    do {
      return try R(json: response.body, provider: request.provider)
    } catch {
      var error = error
      if error.status == nil { error.status = response.status }
      throw error
    }
  }

  // MARK: - The exchange

  /// Sends the request; the head must come within AsyncHTTPClient's deadline, the body before `deadline`.
  private func exchange(
    _ request: OAuthRequest, target: RequestTarget, until deadline: ContinuousClock.Instant
  ) async throws -> OAuthHTTPResponse {
    if target.scheme == "http" && !target.isLoopback && !configuration.allowsInsecureHTTP {
      throw OAuthResponseError(
        .transport,
        message: "refusing to send a \(request.kind.rawValue) request to \(target.host) over plain http "
          + "(use https, or set allowsInsecureHTTP)")
    }
    var outgoing = HTTPClientRequest(url: request.fullURL)
    outgoing.method = request.method == .post ? .POST : .GET
    for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
    if let userAgent = configuration.userAgent, !userAgent.isEmpty, request.headerValue("User-Agent") == nil {
      outgoing.headers.add(name: "User-Agent", value: userAgent)
    }
    if let body = request.body { outgoing.body = .bytes(ByteBuffer(string: body)) }

    // AsyncHTTPClient's deadline covers connecting and the response head only: it is lifted when the head
    // arrives, so the body is raced against the same instant below.
    let remaining = ContinuousClock.now.duration(to: deadline)
    let response = try await httpClient.execute(
      outgoing, deadline: .now() + TimeAmount(max(remaining, .zero)), logger: nil)

    let limit = max(0, configuration.maxResponseBodySize)
    let declared = response.headers.first(name: "content-length").flatMap { Int($0) }
    if let declared, declared > limit {
      // Dropping the unread body makes AsyncHTTPClient cancel the request and close the connection.
      throw BodyLimitExceeded(declaredLength: declared)
    }
    let body = try await Self.collect(response.body, limit: limit, expected: declared ?? 0, until: deadline)
    return OAuthHTTPResponse(
      status: Int(response.status.code), headers: response.headers.map { OAuthRequest.Header($0.name, $0.value) },
      body: body)
  }

  /// Reads the whole body, failing once it passes `limit` bytes or when `deadline` comes first.
  private static func collect(
    _ body: HTTPClientResponse.Body, limit: Int, expected: Int, until deadline: ContinuousClock.Instant
  ) async throws -> [UInt8] {
    try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
      group.addTask {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(max(expected, 0), limit, 1 << 20))  // a declared length is not trusted further
        for try await chunk in body {
          guard chunk.readableBytes <= limit - bytes.count else {
            throw BodyLimitExceeded(declaredLength: nil)
          }
          bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
      }
      group.addTask {
        try await Task.sleep(until: deadline, clock: .continuous)
        return nil
      }
      defer { group.cancelAll() }
      guard case let bytes?? = try await group.next() else { throw BodyTimedOut() }
      return bytes
    }
  }

  // MARK: - Logging

  private func log(
    _ request: OAuthRequest, target: RequestTarget, result: Result<OAuthHTTPResponse, OAuthResponseError>,
    elapsed: Duration
  ) {
    guard let logger else { return }
    let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    var metadata: Logger.Metadata = [
      "oauth.kind": "\(request.kind.rawValue)",
      "oauth.method": "\(request.method.rawValue)",
      "oauth.host": "\(target.host)",
      "oauth.path": "\(target.path)",
      "oauth.elapsed_ms": "\(milliseconds)",
    ]
    switch result {
    case .success(let response):
      metadata["oauth.status"] = "\(response.status)"
      logger.debug("oauth request answered", metadata: metadata)
    case .failure(let error):
      metadata["oauth.error"] = "\(error.code.rawValue)"
      logger.debug("oauth request failed", metadata: metadata)
    }
  }

  // MARK: - The owned HTTPClient's configuration

  static func httpClientConfiguration(for configuration: Configuration) -> HTTPClient.Configuration {
    let timeout = TimeAmount(max(configuration.timeout, .zero))
    var http = HTTPClient.Configuration()
    http.redirectConfiguration = .disallow
    http.timeout = HTTPClient.Configuration.Timeout(connect: timeout, read: timeout)
    http.decompression = .disabled
    http.tracing.tracer = nil
    return http
  }
}

/// The body grew past the limit (`declaredLength` when `Content-Length` said so up front).
struct BodyLimitExceeded: Error {
  var declaredLength: Int?
}

/// The body did not arrive before the deadline.
struct BodyTimedOut: Error {}

/// The scheme, host (with port) and path of a URL, for log lines, error messages and the plain-http check:
/// never the query or userinfo.
struct RequestTarget: Sendable {
  var scheme: String
  var host: String
  var path: String

  init(_ url: String) {
    var rest = Substring(url)
    scheme = ""
    if let separator = rest.firstRange(of: "://") {
      scheme = rest[..<separator.lowerBound].lowercased()
      rest = rest[separator.upperBound...]
    }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = rest[..<authorityEnd]
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    let afterAuthority = rest[authorityEnd...]
    let pathEnd = afterAuthority.firstIndex { $0 == "?" || $0 == "#" } ?? afterAuthority.endIndex
    host = String(authority)
    path = afterAuthority[..<pathEnd].isEmpty ? "/" : String(afterAuthority[..<pathEnd])
  }
}

extension RequestTarget {
  /// The host without its port, lowercased (`[::1]` keeps its brackets).
  var hostname: String {
    let lower = host.lowercased()
    if lower.hasPrefix("[") { return String(lower.prefix { $0 != "]" }) + (lower.contains("]") ? "]" : "") }
    return String(lower.prefix { $0 != ":" })
  }

  /// Whether the host is this machine: `localhost`, `*.localhost`, `127.0.0.0/8` or `[::1]`.
  var isLoopback: Bool {
    let name = hostname
    if name == "localhost" || name.hasSuffix(".localhost") || name == "[::1]" { return true }
    let octets = name.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
  }
}
