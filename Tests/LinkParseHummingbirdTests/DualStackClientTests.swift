// The per-client start limit on a dual-stack listener, over real sockets: IPv4 clients arrive as IPv4-mapped
// IPv6 addresses (`::ffff:a.b.c.d`) and are each limited as their own IPv4 address, not all under one key.

import Foundation
import Hummingbird
import LinkParseAuthorization
import NIOCore
import LinkParseTestSupport
import Testing

@testable import LinkParseHummingbird

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DualStackClientTests {
  @Test func anIPv4MappedAddressIsKeyedAsIPv4() throws {
    let mapped = try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)
    let plain = try SocketAddress(ipAddress: "192.0.2.7", port: 2)
    #expect(StartLimiter.clientKey(mapped) == StartLimiter.clientKey(plain))
    #expect(StartLimiter.clientKey(mapped) == "4:192.0.2.7")
    let other = try SocketAddress(ipAddress: "::ffff:192.0.2.8", port: 1)
    #expect(StartLimiter.clientKey(other) != StartLimiter.clientKey(mapped))
    // A real IPv6 address keeps its /64.
    let v6 = try SocketAddress(ipAddress: "2001:db8:1:2:3:4:5:6", port: 1)
    #expect(StartLimiter.clientKey(v6) == "6:32.1.13.184.0.1.0.2")
  }

  /// `GET target` from `127.0.0.x` (`source`) to `port` on the loopback: the answer's status code.
  static func get(_ target: String, port: Int, from source: String) async throws -> Int {
    let answer = try await exchange(target, port: port, from: source)
    let line = answer.prefix { $0 != "\r" }  // HTTP/1.1 302 Found
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
  }

  /// The answer's body (`GET target` from `source`).
  static func body(_ target: String, port: Int, from source: String) async throws -> String {
    let answer = try await exchange(target, port: port, from: source)
    return answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) } ?? ""
  }

  /// The whole answer to `GET target` from `127.0.0.x` (`source`) to `port` on the loopback. The blocking
  /// socket calls run on a thread of their own, never on the cooperative pool that the server needs too.
  static func exchange(_ target: String, port: Int, from source: String) async throws -> String {
    try await onOwnThread { try blockingExchange(target, port: port, from: source) }
  }

  private static func blockingExchange(_ target: String, port: Int, from source: String) throws -> String {
    struct SocketFailure: Error {}
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketFailure() }
    defer { close(fd) }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, source, &local.sin_addr)
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_port = in_port_t(UInt16(port).bigEndian)
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw SocketFailure() }
    let connected = withUnsafePointer(to: &remote) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw SocketFailure() }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      answer += buffer[0..<n]
    }
    return String(decoding: answer, as: UTF8.self)
  }

  /// A server listening on `::` (IPv4 clients arrive IPv4-mapped), one start a window per client: 127.0.0.1
  /// is limited after its first start, 127.0.0.2 is a client of its own (today's /64 key made them one).
  @Test func ipv4ClientsOfADualStackListenerAreLimitedApart() async throws {
    let endpoint = LinkParseCallbackEndpoint(
      store: PendingAuthorizationStore(), publicBaseURL: "https://example.com",
      startLimits: StartLimits(limit: 1, window: .seconds(3600)))
    let router = Router(context: LoginRequestContext.self)
    endpoint.registerStart(
      on: router, path: "/login",
      login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback"))
    // What the listener reports as the client's address.
    router.get("/address") { _, context in "\(context.remoteAddress.map { "\($0)" } ?? "none")\n" }
    let port = freeLocalPorts(1)
    let app = Application(router: router, configuration: .init(address: .hostname("::", port: port)))
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await app.runService() }
      var ready = false
      for _ in 0..<100 where !ready {
        try await Task.sleep(for: .milliseconds(50))
        ready = (try? await Self.get("/", port: port, from: "127.0.0.1")) == 404
      }
      #expect(ready)
      // The premise: IPv4 clients arrive IPv4-mapped (what made them share one key).
      #expect(try await Self.body("/address", port: port, from: "127.0.0.2").contains("::ffff:127.0.0.2"))
      #expect(try await Self.get("/login", port: port, from: "127.0.0.1") == 302)
      #expect(try await Self.get("/login", port: port, from: "127.0.0.1") == 429)
      #expect(try await Self.get("/login", port: port, from: "127.0.0.2") == 302)
      #expect(try await Self.get("/login", port: port, from: "127.0.0.2") == 429)
      group.cancelAll()
    }
  }
}
