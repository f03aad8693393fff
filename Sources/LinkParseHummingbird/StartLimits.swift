// Bounding what anonymous start-login requests cost: a per-client rate limit (429 with Retry-After), in memory
// bounded by the number of clients it tracks.

public import Hummingbird
public import NIOCore
import LinkParseBytes

/// How many logins one client may start: at most ``limit`` in any ``window`` (a sliding window, estimated from
/// the current and the previous fixed window), for at most ``maxClients`` clients at a time. A start beyond the
/// limit is answered `429 too-many-logins` with `Retry-After`, and inserts nothing; `Retry-After` is the exact
/// number of seconds after which the sliding estimate admits this client again (if it starts nothing
/// meanwhile), not the end of the window. The counts are kept per process: behind a load balancer with `n`
/// instances a client may start up to `n` × ``limit`` logins a window. A client is its IP address
/// (IPv6: its /64 network, which one subscriber usually holds whole; an IPv4 client of a dual-stack listener,
/// `::ffff:a.b.c.d`, its IPv4 address), read from a request context that
/// conforms to `RemoteAddressRequestContext` (``LoginRequestContext`` does); behind a proxy, give
/// ``LinkParseCallbackEndpoint`` a `clientKey` that reads the proxy's header instead.
///
/// Defaults: 30 logins a minute per client, 50,000 clients tracked. When that many clients have started logins
/// in the current window, a new client is admitted without being counted until the window ends: the table does
/// not grow, and a flood from more addresses than that cannot refuse every other visitor (a web login's start
/// costs the server nothing — it is carried in the browser's cookie —, so the limit protects the provider, not
/// the server; the store's own capacity bounds the logins it keeps, those without a state).
///
/// ```swift
/// let limits = StartLimits(limit: 10, window: .seconds(60))
/// ```
public struct StartLimits: Sendable, Hashable {
  /// Starts allowed per client and window.
  public var limit: Int
  /// The window, whole seconds.
  public var window: Duration
  /// The most clients tracked at once.
  public var maxClients: Int

  /// Limits (30 a minute per client, 50,000 clients, by default).
  ///
  /// ```swift
  /// StartLimits()  // 30 per minute
  /// ```
  public init(limit: Int = 30, window: Duration = .seconds(60), maxClients: Int = 50_000) {
    self.limit = max(1, limit)
    self.window = max(window, .seconds(1))
    self.maxClients = max(1, maxClients)
  }

  /// No per-client limit (the store's capacity still applies).
  public static let unlimited = StartLimits(limit: .max, window: .seconds(1), maxClients: .max)
}

/// The per-client counters of ``StartLimits``: two fixed windows of counts, under a lock.
final class StartLimiter: Sendable {
  private struct Windows {
    var start: Int64 = 0
    var current: [String: Int] = [:]
    var previous: [String: Int] = [:]
  }

  let limits: StartLimits
  private let windows = PThreadLocked(Windows())
  private let seconds: Int64

  init(_ limits: StartLimits) {
    self.limits = limits
    seconds = max(1, limits.window.components.seconds)
  }

  /// Counts a start by `client` at `now` (Unix seconds): `nil` when allowed, else the seconds to wait.
  func admit(_ client: String, now: Int64) -> Int64? {
    if limits.limit == .max { return nil }
    return windows.withLock { w in
      let windowStart = now - now % seconds
      if windowStart != w.start {
        w.previous = windowStart - w.start == seconds ? w.current : [:]
        w.current = [:]
        w.start = windowStart
      }
      let elapsed = now - windowStart
      let mine = w.current[client]
      // A full table admits a new client uncounted: refusing every client it has no room for would let a flood
      // from enough addresses switch logins off for everyone else.
      if mine == nil && w.current.count >= limits.maxClients { return nil }
      // The previous window's count, weighted by how much of it the sliding window still covers.
      let previous = w.previous[client] ?? 0
      let carried = previous * Int(seconds - elapsed) / Int(seconds)
      if (mine ?? 0) + carried >= limits.limit {
        return max(1, wait(mine: Int64(mine ?? 0), previous: Int64(previous), elapsed: elapsed))
      }
      w.current[client] = (mine ?? 0) + 1
      return nil
    }
  }

  /// The seconds until a refused client is admitted again, if it starts nothing meanwhile: the first second at
  /// which the sliding estimate falls below the limit, `elapsed` seconds into a window in which the client has
  /// started `mine` logins after `previous` in the window before. What `Retry-After` says is then true: a client
  /// that waits exactly that long is admitted, a second less is not enough.
  func wait(mine: Int64, previous: Int64, elapsed: Int64) -> Int64 {
    // Clamped so that the products below cannot overflow (a limit or window that large never refuses anyway).
    let (limit, s) = (min(Int64(limits.limit), 1 << 31), min(seconds, 1 << 31))
    if mine < limit && previous > 0 {
      // Later in this window, at t: ⌊previous·(s − t)/s⌋ < limit − mine ⇔ previous·(s − t) < (limit − mine)·s.
      let remaining = ((limit - mine) * s + previous - 1) / previous - 1  // the largest s − t that admits
      return max(1, s - remaining - elapsed)
    }
    // In the next window, at t' from its start, this window's `mine` carried: ⌊mine·(s − t')/s⌋ < limit.
    let remaining = mine > 0 ? (limit * s + mine - 1) / mine - 1 : s
    return (s - elapsed) + max(0, s - remaining)
  }

  /// How many clients the current and the previous window track together.
  var trackedClients: Int { windows.withLock { $0.current.count + $0.previous.count } }
}

/// Counts events in fixed windows and says which to log: the 1st, 2nd, 4th, 8th… of each window, so a flood
/// costs a logarithmic number of lines and the last one logged still tells its size.
package final class ThrottledCount: Sendable {
  private let state = PThreadLocked((start: Int64(0), count: 0))
  private let seconds: Int64

  package init(window seconds: Int64) { self.seconds = max(1, seconds) }

  /// Counts one event at `now` (Unix seconds): the count in this window when it is a power of two, else `nil`.
  package func count(now: Int64) -> Int? {
    state.withLock { s in
      let start = now - now % seconds
      if start != s.start { s = (start, 0) }
      s.count += 1
      return s.count & (s.count - 1) == 0 ? s.count : nil
    }
  }
}

/// A request context that knows the client's address, for ``StartLimits`` (Hummingbird's
/// `BasicRequestContext` does not keep it).
///
/// ```swift
/// let router = Router(context: LoginRequestContext.self)
/// ```
public struct LoginRequestContext: RequestContext, RemoteAddressRequestContext {
  /// Hummingbird's per-request storage.
  public var coreContext: CoreRequestContextStorage
  /// The connected client's address.
  public let remoteAddress: SocketAddress?

  /// Made by Hummingbird for each request.
  ///
  /// ```swift
  /// // Router(context: LoginRequestContext.self)
  /// ```
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}

extension StartLimiter {
  /// The client key of an address (IPv6: its /64 network; IPv4-mapped IPv6, `::ffff:a.b.c.d`: the IPv4 address).
  static func clientKey(_ address: SocketAddress?) -> String? {
    guard let address else { return nil }
    switch address {
    case .v4(let v4):
      return withUnsafeBytes(of: v4.address.sin_addr.s_addr) { "4:" + $0.map(String.init).joined(separator: ".") }
    case .v6(let v6):
      return withUnsafeBytes(of: v6.address.sin6_addr) { bytes in
        // An IPv4 client of a dual-stack listener arrives as `::ffff:a.b.c.d`: keyed as that IPv4 address,
        // not by the /64 that every IPv4 client would share.
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
          return "4:" + bytes[12..<16].map(String.init).joined(separator: ".")
        }
        return "6:" + bytes.prefix(8).map(String.init).joined(separator: ".")
      }
    default:
      return "unix"
    }
  }
}
