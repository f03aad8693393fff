// A real HTTP/1.1 server on 127.0.0.1 (SwiftNIO, ephemeral port) that plays an identity provider by path,
// and records every request it receives so the tests can check what went over the wire.

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request as the server received it.
struct ReceivedRequest: Sendable {
  var method: String
  var uri: String
  var headers: HTTPHeaders
  var body: String

  var path: String { String(uri.prefix { $0 != "?" }) }
  var query: String? { uri.firstIndex(of: "?").map { String(uri[uri.index(after: $0)...]) } }
  /// The form: the body of a POST, the query of a GET.
  var form: [String: String] { decodeForm(method == "GET" ? (query ?? "") : body) }
  func header(_ name: String) -> String? { headers.first(name: name) }
  func headerCount(_ name: String) -> Int { headers[name].count }
}

/// `a=b&c=d` with `+` and percent escapes decoded.
func decodeForm(_ text: String) -> [String: String] {
  var out: [String: String] = [:]
  for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    func decode(_ s: Substring) -> String {
      s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
    }
    out[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
  }
  return out
}

/// The requests received so far (appended on the server's event loop, read by the test).
final class Recorder: @unchecked Sendable {
  private let lock = NSLock()
  private var requests: [ReceivedRequest] = []

  func append(_ request: ReceivedRequest) { lock.locked { requests.append(request) } }
  var all: [ReceivedRequest] { lock.locked { requests } }
  var last: ReceivedRequest? { all.last }
}

/// The provider: a listening channel on its own one-thread event loop group.
final class LocalProvider: Sendable {
  /// How long the slow routes wait: far beyond the tests' 0.5 s client timeout.
  static let slowDelay = TimeAmount.seconds(5)
  static let twoMiB = 2 * 1024 * 1024

  let group: MultiThreadedEventLoopGroup
  let channel: any Channel
  let recorder: Recorder
  /// What `/jwks` answers, and how often it was asked.
  let jwks: JWKSEndpoint
  /// The answers a test sets for paths of its own (a provider's token, user-info, logout endpoints).
  let routes: ScriptedRoutes
  let port: Int

  var baseURL: String { "http://127.0.0.1:\(port)" }

  private init(
    group: MultiThreadedEventLoopGroup, channel: any Channel, recorder: Recorder, jwks: JWKSEndpoint,
    routes: ScriptedRoutes
  ) {
    self.group = group
    self.channel = channel
    self.recorder = recorder
    self.jwks = jwks
    self.routes = routes
    self.port = channel.localAddress?.port ?? 0
  }

  /// Starts on `port` of 127.0.0.1 (`0`: any free one).
  static func start(port: Int = 0) async throws -> LocalProvider {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let recorder = Recorder()
    let jwks = JWKSEndpoint()
    let routes = ScriptedRoutes()
    do {
      let channel = try await ServerBootstrap(group: group)
        .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(ProviderHandler(recorder: recorder, jwks: jwks, routes: routes))
          }
        }
        .bind(host: "127.0.0.1", port: port).get()
      return LocalProvider(group: group, channel: channel, recorder: recorder, jwks: jwks, routes: routes)
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
  }

  /// Closes the listener and every connection, and stops the event loop thread.
  func stop() async {
    try? await channel.close()
    try? await group.shutdownGracefully()
  }

  /// A port on 127.0.0.1 that nothing listens on: bound, then closed.
  static func closedPort() async throws -> Int {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
      let channel = try await ServerBootstrap(group: group)
        .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
        .bind(host: "127.0.0.1", port: 0).get()
      let port = channel.localAddress?.port ?? 0
      try await channel.close()
      try await group.shutdownGracefully()
      return port
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
  }
}

/// Runs `body` with a started provider, and stops it afterwards whatever happens.
func withLocalProvider<T>(_ body: (LocalProvider) async throws -> T) async throws -> T {
  let provider = try await LocalProvider.start()
  do {
    let result = try await body(provider)
    await provider.stop()
    return result
  } catch {
    await provider.stop()
    throw error
  }
}

/// Answers by path, as a provider would.
final class ProviderHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  let recorder: Recorder
  let jwks: JWKSEndpoint
  let routes: ScriptedRoutes
  private var head: HTTPRequestHead?
  private var body = ByteBuffer()

  init(recorder: Recorder, jwks: JWKSEndpoint = JWKSEndpoint(), routes: ScriptedRoutes = ScriptedRoutes()) {
    self.recorder = recorder
    self.jwks = jwks
    self.routes = routes
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      body.clear()
    case .body(var chunk):
      body.writeBuffer(&chunk)
    case .end:
      guard let head else { return }
      let request = ReceivedRequest(
        method: head.method.rawValue, uri: head.uri, headers: head.headers,
        body: body.getString(at: body.readerIndex, length: body.readableBytes) ?? "")
      recorder.append(request)
      respond(to: request, context: context)
    }
  }

  private func respond(to request: ReceivedRequest, context: ChannelHandlerContext) {
    if let answer = routes.answer(for: request) {
      return send(context, answer.status, contentType: answer.contentType, body: answer.body)
    }
    let form = request.form
    switch request.path {
    case "/token":
      let isForm = request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true
      guard request.method == "POST", isForm, form["grant_type"] == "authorization_code", let code = form["code"]
      else {
        return json(context, .badRequest, #"{"error":"invalid_request","error_description":"not a code grant"}"#)
      }
      json(
        context, .ok,
        #"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1","#
          + #""scope":"openid email","code_length":\#(code.count)}"#)
    case "/vk/oauth2/auth":
      // VK ID's token endpoint as its guide shows it (providers.md §2.7): the parameters in the query, the code
      // or refresh token in a JSON body; the answer echoes the query's `state` ("" when none was sent).
      let query = decodeForm(request.query ?? "")
      let isJSON = request.header("Content-Type") == "application/json"
      let object = (try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: String]
      let state = query["state"] ?? ""
      switch (query["grant_type"], isJSON, object?["code"], object?["refresh_token"]) {
      case ("authorization_code", true, let code?, nil)
      where query["code_verifier"] != nil && query["device_id"] != nil && query["fail"] == nil:
        json(
          context, .ok,
          #"{"refresh_token":"vk2.a.r","access_token":"vk2.a.a","id_token":"h.p.s","token_type":"Bearer","#
            + #""expires_in":3600,"user_id":1234567890,"state":"\#(state)","scope":"phone email","code_length":\#(code.count)}"#)
      case ("refresh_token", true, nil, "vk2.a.r"):
        json(context, .ok, #"{"refresh_token":"vk2.a.r2","access_token":"vk2.a.a2","token_type":"Bearer","expires_in":3600,"user_id":1234567890,"state":"\#(state)","scope":"phone email"}"#)
      default:
        // A debug page that echoes the whole request (query included) back.
        send(context, .internalServerError, contentType: "text/html", body: "<pre>\(request.uri)\n\(request.body)</pre>")
      }
    case "/refresh":
      guard request.method == "POST", form["grant_type"] == "refresh_token", form["refresh_token"] == "rt-1" else {
        return json(context, .badRequest, #"{"error":"invalid_grant"}"#)
      }
      json(context, .ok, #"{"access_token":"at-2","token_type":"Bearer","expires_in":7200}"#)
    case "/userinfo":
      guard request.method == "GET", request.header("Authorization") == "Bearer at-1" else {
        return json(context, .unauthorized, #"{"error":"invalid_token","error_description":"bad bearer"}"#)
      }
      json(context, .ok, #"{"access_token":"at-user","token_type":"Bearer","expires_in":1}"#)
    case "/expired":
      json(context, .badRequest, #"{"error":"invalid_grant","error_description":"code expired","state":"s-1"}"#)
    case "/broken":
      // An HTML error page that echoes the request's code (as some debug pages do), then padding.
      let html =
        "<html><head><title>500 Internal Server Error</title></head>\n<body>\n<h1>Internal Server Error</h1>"
        + "<p>request code=\(form["code"] ?? "")</p>\n"
        + String(repeating: "<!-- padding -->", count: 40) + "</body></html>"
      send(context, .internalServerError, contentType: "text/html; charset=utf-8", body: html)
    case "/redirect":
      var headers = HTTPHeaders([("Location", "/token"), ("Content-Length", "0")])
      headers.add(name: "Content-Type", value: "text/plain")
      writeHead(context, .found, headers)
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    case "/not-json":
      send(context, .ok, contentType: "text/plain", body: "certainly not json")
    case "/empty-503":
      send(context, .serviceUnavailable, contentType: nil, body: "")
    case "/slow-head":
      context.eventLoop.assumeIsolated().scheduleTask(in: LocalProvider.slowDelay) {
        self.send(context, .ok, contentType: "application/json", body: "{}")
      }
    case "/slow-body":
      var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "100")])
      headers.add(name: "Connection", value: "close")
      writeHead(context, .ok, headers)
      context.writeAndFlush(
        wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: String(repeating: " ", count: 10))))), promise: nil)
      context.eventLoop.assumeIsolated().scheduleTask(in: LocalProvider.slowDelay) {
        context.write(
          self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: String(repeating: " ", count: 88) + "{}")))),
          promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
      }
    case "/trickle":
      // A byte every 100 ms: never idle long enough for a read timeout, never done within the deadline.
      let headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "1000")])
      context.writeAndFlush(
        wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
      trickle(context, left: 1000)
    case "/big":
      send(context, .ok, contentType: "application/json", bytes: LocalProvider.twoMiB, chunked: false)
    case "/big-chunked":
      send(context, .ok, contentType: "application/json", bytes: LocalProvider.twoMiB, chunked: true)
    case "/jwks":
      let (mode, document, cacheControl) = jwks.answer()
      switch mode {
      case .keys:
        var headers = HTTPHeaders([("Content-Type", "application/jwk-set+json")])
        if let cacheControl { headers.add(name: "Cache-Control", value: cacheControl) }
        headers.add(name: "Content-Length", value: String(document.utf8.count))
        writeHead(context, .ok, headers)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: document)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      case .serverError:
        send(context, .internalServerError, contentType: "text/html", body: "<h1>500 Internal Server Error</h1>")
      case .garbage:
        send(context, .ok, contentType: "application/json", body: #"{"keys":"certainly not a key set"}"#)
      case .tenMegabytes:
        send(context, .ok, contentType: "application/json", bytes: 10 * 1024 * 1024, chunked: true)
      case .slow:
        context.eventLoop.assumeIsolated().scheduleTask(in: LocalProvider.slowDelay) {
          self.send(context, .ok, contentType: "application/json", body: document)
        }
      }
    case "/exactly-1MiB":
      send(context, .ok, contentType: "application/octet-stream", bytes: 1 << 20, chunked: true)
    default:
      json(context, .notFound, #"{"error":"not_found"}"#)
    }
  }

  private func trickle(_ context: ChannelHandlerContext, left: Int) {
    guard left > 0, context.channel.isActive else { return }
    context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) {
      context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: " ")))), promise: nil)
      self.trickle(context, left: left - 1)
    }
  }

  private func json(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ body: String) {
    send(context, status, contentType: "application/json", body: body)
  }

  private func writeHead(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ headers: HTTPHeaders) {
    let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    context.write(wrapOutboundOut(.head(head)), promise: nil)
  }

  private func send(
    _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, contentType: String?, body: String
  ) {
    var headers = HTTPHeaders()
    if let contentType { headers.add(name: "Content-Type", value: contentType) }
    headers.add(name: "Content-Length", value: String(body.utf8.count))
    writeHead(context, status, headers)
    if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil) }
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
  }

  /// `bytes` of JSON-ish filler, with `Content-Length` or chunked in 64 KiB pieces.
  private func send(
    _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, contentType: String, bytes: Int, chunked: Bool
  ) {
    var headers = HTTPHeaders([("Content-Type", contentType)])
    if chunked {
      headers.add(name: "Transfer-Encoding", value: "chunked")
    } else {
      headers.add(name: "Content-Length", value: String(bytes))
    }
    writeHead(context, status, headers)
    let piece = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 * 1024)
    var left = bytes
    while left > 0 {
      let size = min(left, piece.readableBytes)
      context.write(wrapOutboundOut(.body(.byteBuffer(piece.getSlice(at: 0, length: size)!))), promise: nil)
      left -= size
    }
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
  }
}

extension NSLock {
  /// `withLock`, which Darwin's Foundation has only from macOS 14; the package supports macOS 13.
  func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// The `/jwks` route's state: the document it serves (or how it fails), its `Cache-Control`, and a count of
/// the requests it received. Set by the tests, read on the server's event loop.
final class JWKSEndpoint: @unchecked Sendable {
  enum Mode: String, Sendable, CaseIterable {
    /// The document, 200, with the configured Cache-Control.
    case keys
    /// HTTP 500 with an HTML page.
    case serverError
    /// 200 with JSON that is not a JWKS.
    case garbage
    /// 200 with 10 MiB of filler, chunked (no Content-Length to refuse up front).
    case tenMegabytes
    /// The document, after ``LocalProvider/slowDelay``.
    case slow
  }

  private let lock = NSLock()
  private var _mode = Mode.keys
  private var _document = #"{"keys":[]}"#
  private var _cacheControl: String?
  private var _fetches = 0

  /// Serve `document` (a JWKS) with `cacheControl`, and answer normally.
  func serve(_ document: String, cacheControl: String? = nil) {
    lock.locked {
      _document = document
      _cacheControl = cacheControl
      _mode = .keys
    }
  }
  var mode: Mode {
    get { lock.locked { _mode } }
    set { lock.locked { _mode = newValue } }
  }
  /// How many requests `/jwks` received.
  var fetches: Int { lock.locked { _fetches } }

  /// Counts one request and says how to answer it.
  func answer() -> (Mode, String, String?) {
    lock.locked {
      _fetches += 1
      return (_mode, _document, _cacheControl)
    }
  }
}

/// Answers a test sets by path, before the fixed routes: a status, a content type and a body, in which
/// `$STATE` stands for the request's query `state` (VK ID echoes the exchange's state; "" when none was sent).
final class ScriptedRoutes: @unchecked Sendable {
  struct Answer: Sendable {
    var status: HTTPResponseStatus
    var contentType: String?
    var body: String
  }

  private let lock = NSLock()
  private var answers: [String: Answer] = [:]

  /// Answer `path` with `json` and `status`.
  func set(_ path: String, status: HTTPResponseStatus = .ok, json: String) {
    lock.locked { answers[path] = Answer(status: status, contentType: "application/json", body: json) }
  }

  /// The answer for `request`'s path, if one is set.
  func answer(for request: ReceivedRequest) -> Answer? {
    guard var answer = lock.locked({ answers[request.path] }) else { return nil }
    let state = decodeForm(request.query ?? "")["state"] ?? ""
    answer.body = answer.body.replacingOccurrences(of: "$STATE", with: state)
    return answer
  }
}
