// What anonymous start-login requests may cost, over real sockets on 127.0.0.1: a per-client limit, the
// store's capacity, and a callback body that never finishes arriving.

import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import LinkParseTestSupport
import LinkParseAuthorization
import LinkParseCore
import LinkParseProviders
import Testing

@testable import LinkParseHummingbird

#if canImport(Glibc)
import Glibc
#endif

@Suite struct StartLimitsTests {
  static let vk = LoginStart.vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback")

  /// 5,000 start-login requests from one client: the first ones (the limit, 30 a window) are answered 302
  /// (their logins carried in their cookies, nothing stored); every other is 429 `too-many-logins` with
  /// `Retry-After`. The limiter tracks one client, the store holds nothing: the cost does not grow.
  @Test func oneClientsFloodIsCapped() async throws {
    let store = PendingAuthorizationStore()
    let logs = CapturedLogs()
    let endpoint = LinkParseCallbackEndpoint(
      store: store, publicBaseURL: "https://example.com", logger: logs.logger,
      startLimits: StartLimits(limit: 30, window: .seconds(3600)))
    let router = Router(context: LoginRequestContext.self)
    endpoint.registerStart(on: router, path: "/login/vk", login: Self.vk)
    let total = 5_000
    let statuses = try await Application(router: router).test(.live) { client in
      try await withThrowingTaskGroup(of: [Int: Int].self) { group in
        for worker in 0..<8 {
          group.addTask {
            var counts: [Int: Int] = [:]
            for _ in stride(from: worker, to: total, by: 8) {
              let response = try await client.execute(uri: "/login/vk", method: .get)
              counts[Int(response.status.code), default: 0] += 1
              if response.status == .tooManyRequests {
                #expect(response.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
              }
            }
            return counts
          }
        }
        var all: [Int: Int] = [:]
        for try await counts in group { all.merge(counts, uniquingKeysWith: +) }
        return all
      }
    }
    // One window (or, across an hour's boundary, a part of the next): at least 30, at most 60 started.
    let started = statuses[302] ?? 0
    #expect(started >= 30 && started <= 60, "\(statuses)")
    #expect(statuses[429] == total - started, "\(statuses)")
    #expect(store.count == 0)
    #expect(endpoint.limiter.trackedClients <= 2)
    // The refusals are logged the 1st, 2nd, 4th… time in a minute: a few lines, not one per request.
    let refusedLines = logs.all.filter { $0.hasPrefix("login start refused") }
    #expect(refusedLines.count >= 1 && refusedLines.count <= 17 * 10, "\(refusedLines.count) lines")
    #expect(refusedLines.allSatisfy { $0.contains("code=too-many-logins") && $0.contains("refused_this_minute=") })
  }

  /// Anonymous starts from many addresses (the flood that filled the store and switched every login off):
  /// 20,000 starts from 5,000 client keys, each within the per-client limit, are all 302 and store nothing —
  /// the store stays empty at any capacity, the limiter tracks one entry per client and no more — and a visitor
  /// from a fresh address then starts and finishes a login.
  @Test func aFloodFromManyAddressesStoresNothing() async throws {
    let store = PendingAuthorizationStore(capacity: 100)
    let endpoint = LinkParseCallbackEndpoint(
      store: store, publicBaseURL: "https://example.com", startLimits: StartLimits(limit: 30, window: .seconds(60)),
      clientKey: { request, _ in request.headers[HTTPField.Name("X-Test-Client")!] })
    let router = Router(context: LoginRequestContext.self)
    endpoint.registerStart(on: router, path: "/login/vk", login: Self.vk)
    endpoint.register(on: router, path: "/auth/vk/callback") { _, _, _ in Response(status: .seeOther) }
    try await Application(router: router).test(.router) { client in
      let statuses = try await withThrowingTaskGroup(of: [Int: Int].self) { group in
        for worker in 0..<8 {
          group.addTask {
            var counts: [Int: Int] = [:]
            for i in stride(from: worker, to: 20_000, by: 8) {
              let response = try await client.execute(
                uri: "/login/vk", method: .get, headers: [HTTPField.Name("X-Test-Client")!: "198.51.\(i % 5_000)"])
              counts[Int(response.status.code), default: 0] += 1
            }
            return counts
          }
        }
        var all: [Int: Int] = [:]
        for try await counts in group { all.merge(counts, uniquingKeysWith: +) }
        return all
      }
      #expect(statuses == [302: 20_000])
      #expect(store.count == 0)
      // (The sliding window keeps this window's and the previous one's counts: at most two per client.)
      #expect(endpoint.limiter.trackedClients <= 2 * 5_000)
      let start = try await client.execute(
        uri: "/login/vk", method: .get, headers: [HTTPField.Name("X-Test-Client")!: "203.0.113.9"])
      #expect(try await Self.finishVKLogin(start, client) == .seeOther)
    }
  }

  /// The VK ID callback of the login `start` began, from the browser that holds its cookie: its status.
  static func finishVKLogin(_ start: TestResponse, _ client: some TestClientProtocol) async throws -> HTTPResponse.Status {
    let state = try #require(
      URLComponents(string: start.headers[.location] ?? "")?.queryItems?.first { $0.name == "state" }?.value)
    let cookie = try #require(start.headers[.setCookie]?.split(separator: ";").first.map(String.init))
    return try await client.execute(
      uri: "/auth/vk/callback?code=c&state=\(state)&device_id=d&type=code_v2", method: .get, headers: [.cookie: cookie]
    ).status
  }

  /// Without a per-client limit, web logins (carried in their cookies) never meet the store's capacity: 250
  /// starts at a capacity of 100 are all 302 and store nothing, and the last one's login succeeds. Logins that
  /// the store keeps (here without a state) meet it: beyond it, 503 `store-full` with `Retry-After`, and the
  /// logins already pending are kept.
  @Test func storeCapacityHolds() async throws {
    let store = PendingAuthorizationStore(capacity: 100)
    let endpoint = LinkParseCallbackEndpoint(store: store, publicBaseURL: "https://example.com", startLimits: .unlimited)
    let router = Router(context: LoginRequestContext.self)
    endpoint.registerStart(on: router, path: "/login/vk", login: Self.vk)
    endpoint.registerStart(on: router, path: "/login/stored") { _, _ in
      ("https://id.example/authorize", PendingAuthorization(
        provider: .oauth2, redirectURI: try ParsedURL("https://example.com/auth/stored"), state: nil))
    }
    endpoint.register(on: router, path: "/auth/vk/callback") { _, _, _ in Response(status: .seeOther) }
    try await Application(router: router).test(.router) { client in
      var last: TestResponse?
      for _ in 0..<250 {
        last = try await client.execute(uri: "/login/vk", method: .get)
        #expect(last?.status == .found)
      }
      #expect(store.count == 0)
      #expect(try await Self.finishVKLogin(try #require(last), client) == .seeOther)
      var statuses: [Int: Int] = [:]
      for _ in 0..<250 {
        let response = try await client.execute(uri: "/login/stored", method: .get)
        statuses[Int(response.status.code), default: 0] += 1
        if response.status == .serviceUnavailable {
          #expect(response.headers[.retryAfter] == "60")
          #expect(String(buffer: response.body).contains("\"code\":\"store-full\""))
        }
      }
      #expect(statuses == [302: 100, 503: 150])
    }
    #expect(store.count == 100)
  }

  /// A POST callback whose body never finishes arriving is answered 408 `request-timeout` once the endpoint's
  /// body-read timeout has passed (the connection is not held for ever).
  @Test func slowBodyTimesOut() async throws {
    let store = PendingAuthorizationStore()
    let endpoint = LinkParseCallbackEndpoint(
      store: store, publicBaseURL: "https://example.com", bodyReadTimeout: .milliseconds(500))
    let router = Router(context: LoginRequestContext.self)
    endpoint.register(on: router, path: "/auth/apple/callback") { _, _, _ in Response(status: .ok) }
    try await Application(router: router).test(.live) { client in
      let port = try #require(client.port)
      // On a thread of its own: the endpoint's timeout needs the cooperative pool that a blocked recv would hold.
      let answer = try await onOwnThread {
        try Self.rawExchange(
          port: port,
          request: "POST /auth/apple/callback HTTP/1.1\r\nHost: example.com\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nstate=s&co",
          waitSeconds: 30)
      }
      #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(200))")
      #expect(answer.contains("request-timeout"))
    }
  }

  /// Sends `request` on a new connection to 127.0.0.1:`port` and reads what comes back within `waitSeconds`.
  static func rawExchange(port: Int, request: String, waitSeconds: Int) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    var timeout = timeval(tv_sec: waitSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      received += buffer[0..<n]
      if String(decoding: received, as: UTF8.self).contains("}") { break }
    }
    return String(decoding: received, as: UTF8.self)
  }
}

/// A form_post login's cookie (`SameSite=None`) is `Secure` even for an http origin: without it browsers drop
/// the cookie, and the login could never finish; the other logins' cookies over http are not `Secure`.
@Suite struct FormPostCookieTests {
  @Test func aCrossSitePostCookieIsAlwaysSecure() {
    let http = LoginCookies(secure: false)
    let formPost = http.setCookie(state: "s", value: "v", maxAge: 600, crossSitePost: true)
    #expect(formPost.name.hasPrefix("lp-login-") && formPost.httpOnly && formPost.secure && formPost.sameSite == Cookie.SameSite.none)
    #expect(formPost.maxAge == 600 && formPost.path == "/")
    let lax = http.setCookie(state: "s", value: "v", maxAge: 600, crossSitePost: false)
    #expect(!lax.secure && lax.sameSite == .lax)
    let cleared = http.clearCookie(state: "s", crossSitePost: true)
    #expect(cleared.secure && cleared.sameSite == Cookie.SameSite.none && cleared.maxAge == 0 && cleared.value.isEmpty)
  }
}

/// A limiter whose table is full (as many clients as it tracks have started logins this window) admits a new
/// client uncounted instead of refusing it — a flood from enough addresses must not refuse everyone else —,
/// keeps refusing the tracked clients over their limit, and does not grow.
@Suite struct FullLimiterTests {
  @Test func aFullTableAdmitsNewClientsAndDoesNotGrow() {
    let limiter = StartLimiter(StartLimits(limit: 2, window: .seconds(60), maxClients: 3))
    let now: Int64 = 1_700_000_010
    for client in ["a", "b", "c"] {
      #expect(limiter.admit(client, now: now) == nil && limiter.admit(client, now: now) == nil)
    }
    #expect(limiter.admit("a", now: now) != nil)
    for i in 0..<1_000 { #expect(limiter.admit("new-\(i % 10)", now: now) == nil) }
    #expect(limiter.trackedClients == 3)
    #expect(limiter.admit("b", now: now + 1) != nil)
  }
}

/// `Retry-After` is honest: a refused client that waits exactly the seconds it was told is admitted, and one
/// that comes back a second sooner is refused again (random histories of one client against random limits and
/// windows, replayed on fresh limiters so that the probes do not move the clock backwards).
@Suite struct RetryAfterTests {
  @Test func waitingTheToldSecondsIsEnoughAndNeeded() {
    var rng = SplitMix64(state: 0x5EED_2026)
    var checked = 0
    for _ in 0..<400 {
      let limits = StartLimits(
        limit: Int.random(in: 1...8, using: &rng), window: .seconds(Int64.random(in: 1...90, using: &rng)))
      var admitted: [Int64] = []
      var now = Int64.random(in: 1_700_000_000...1_700_100_000, using: &rng)
      let live = StartLimiter(limits)
      for _ in 0..<60 {
        now += Int64.random(in: 0...Int64(limits.window.components.seconds), using: &rng) / Int64.random(in: 1...4, using: &rng)
        guard let wait = live.admit("c", now: now) else {
          admitted.append(now)
          continue
        }
        #expect(wait >= 1)
        let replay = { (at: Int64) -> Int64? in
          let limiter = StartLimiter(limits)
          for time in admitted { #expect(limiter.admit("c", now: time) == nil) }
          return limiter.admit("c", now: at)
        }
        #expect(replay(now + wait) == nil, "told \(wait) s with \(limits), admitted at \(admitted), now \(now)")
        if wait > 1 {
          #expect(replay(now + wait - 1) != nil, "told \(wait) s, yet admitted a second sooner")
        }
        checked += 1
      }
    }
    #expect(checked > 1_000)
  }
}
