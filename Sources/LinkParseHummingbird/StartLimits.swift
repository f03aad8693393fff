// Bounding what anonymous start-login requests cost: a per-client rate limit (429 with Retry-After), in memory
// bounded by the number of clients it tracks.

public import Hummingbird
public import NIOCore
import LinkParseBytes

/// How many logins one client may start: at most ``limit`` in any ``window`` (a sliding window, estimated from
/// the current and the previous fixed window), for at most ``maxClients`` clients at a time. A start beyond the
/// limit is answered `429 too-many-logins` with `Retry-After`, and inserts nothing; `Retry-After` is the exact
/// number of seconds after which the sliding estimate admits this client again (if it starts nothing
/// meanwhile), not the end of the window. The counts are kept per process, unless the endpoint has a
/// ``StartCountSharing`` (`WebLogin.Configuration.startCounts`; LinkParsePostgres' `PostgresStartCounts`):
/// without one, behind a load balancer with `n` instances a client may start up to `n` × ``limit`` logins a
/// window. A client is its IP address
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

/// Where the instances of one app add up their clients' login starts, so that ``StartLimits`` holds for the
/// app, not for each instance (LinkParsePostgres' `PostgresStartCounts` on the database the instances share).
///
/// Each instance decides at once, from its own counts and the app-wide totals it last heard; in the background
/// (at most once a second, only while its clients start logins) it adds what it admitted since and hears the
/// totals back. So a client that spreads its starts over `n` instances gets its limit app-wide, plus at most
/// what the instances admit between two exchanges; a sharing that fails leaves each instance to its own
/// counts (its deltas are sent again at the next exchange).
///
/// ```swift
/// let endpoint = LinkParseCallbackEndpoint(store: store, publicBaseURL: base, startCounts: sharedCounts)
/// ```
public protocol StartCountSharing: Sendable {
  /// Adds `starts` (per client key, admitted since the last call) to the app-wide counts of the fixed window
  /// that begins at `windowStart` (Unix seconds, a multiple of `windowSeconds`), and returns the app-wide
  /// totals of these clients in that window (this call's included) and in the one before.
  ///
  /// ```swift
  /// let totals = try await sharing.add(["4:192.0.2.7": 3], windowStart: 1_764_000_000, windowSeconds: 60)
  /// totals.current["4:192.0.2.7"]  // 3, or more when other instances counted this client too
  /// ```
  func add(_ starts: [String: Int], windowStart: Int64, windowSeconds: Int64) async throws -> StartCountTotals
}

/// The app-wide start counts of some clients (by client key), in a window and in the one before
/// (``StartCountSharing/add(_:windowStart:windowSeconds:)``).
///
/// ```swift
/// StartCountTotals(current: ["4:192.0.2.7": 12], previous: [:]).current["4:192.0.2.7"]  // 12
/// ```
public struct StartCountTotals: Sendable, Hashable {
  /// Starts per client in the window the counts were added to.
  public var current: [String: Int]
  /// Starts per client in the window before it.
  public var previous: [String: Int]

  /// Totals.
  ///
  /// ```swift
  /// StartCountTotals(current: [:], previous: [:])
  /// ```
  public init(current: [String: Int], previous: [String: Int]) {
    self.current = current
    self.previous = previous
  }
}

/// The per-client counters of ``StartLimits``: two fixed windows of counts, under a lock; with a
/// ``StartCountSharing``, the app-wide totals heard from it beside this instance's own counts.
final class StartLimiter: Sendable {
  /// One client's starts in the current window: `mine` admitted here, `synced` of them added to the shared
  /// counts and `sending` on their way there, `shared` the app-wide total last heard (the synced ones included).
  private struct Count {
    var mine = 0
    var synced = 0
    var sending = 0
    var shared = 0
    var estimate: Int { shared + mine - synced }
  }

  private struct Windows {
    var start: Int64 = 0
    var current: [String: Count] = [:]
    var previous: [String: Int] = [:]
    var lastExchange: Int64 = .min
    var exchanging = false
  }

  let limits: StartLimits
  let sharing: (any StartCountSharing)?
  private let windows = PThreadLocked(Windows())
  private let seconds: Int64
  /// The most clients one exchange sends.
  static let exchangeBatch = 5_000

  init(_ limits: StartLimits, sharing: (any StartCountSharing)? = nil) {
    self.limits = limits
    self.sharing = limits.limit == .max ? nil : sharing
    seconds = max(1, limits.window.components.seconds)
  }

  /// Counts a start by `client` at `now` (Unix seconds): `nil` when allowed, else the seconds to wait.
  func admit(_ client: String, now: Int64) -> Int64? {
    if limits.limit == .max { return nil }
    let (wait, exchange) = windows.withLock { w -> (Int64?, Bool) in
      let windowStart = now - now % seconds
      if windowStart != w.start {
        w.previous = windowStart - w.start == seconds ? w.current.mapValues(\.estimate) : [:]
        w.current = [:]
        w.start = windowStart
      }
      let exchange = sharing != nil && !w.exchanging && w.lastExchange < now  // at most once a second
      if exchange { (w.exchanging, w.lastExchange) = (true, now) }
      let elapsed = now - windowStart
      let mine = w.current[client]
      // A full table admits a new client uncounted: refusing every client it has no room for would let a flood
      // from enough addresses switch logins off for everyone else.
      if mine == nil && w.current.count >= limits.maxClients { return (nil, exchange) }
      // The previous window's count, weighted by how much of it the sliding window still covers.
      let previous = w.previous[client] ?? 0
      let carried = previous * Int(seconds - elapsed) / Int(seconds)
      let estimate = mine?.estimate ?? 0
      if estimate + carried >= limits.limit {
        return (max(1, self.wait(mine: Int64(estimate), previous: Int64(previous), elapsed: elapsed)), exchange)
      }
      w.current[client, default: Count()].mine += 1
      return (nil, exchange)
    }
    if exchange, let sharing {
      Task { await self.exchange(with: sharing) }
    }
    return wait
  }

  /// Adds what this instance admitted since the last exchange to the shared counts, and keeps the app-wide
  /// totals it hears back. A failure keeps the counts local (their deltas go with the next exchange).
  func exchange(with sharing: any StartCountSharing) async {
    // What is on its way already is not sent twice (exchanges may overlap).
    let (windowStart, deltas) = windows.withLock { w -> (Int64, [String: Int]) in
      var deltas: [String: Int] = [:]
      for (client, count) in w.current where count.mine > count.synced + count.sending {
        deltas[client] = count.mine - count.synced - count.sending
        w.current[client]?.sending += deltas[client]!
        if deltas.count == Self.exchangeBatch { break }
      }
      return (w.start, deltas)
    }
    var totals: StartCountTotals?
    if !deltas.isEmpty {
      totals = try? await sharing.add(deltas, windowStart: windowStart, windowSeconds: seconds)
    }
    windows.withLock { w in
      w.exchanging = false
      if w.start == windowStart {
        for (client, delta) in deltas {
          guard var count = w.current[client] else { continue }
          count.sending -= delta
          if let totals {
            count.synced += delta
            count.shared = max(count.shared, totals.current[client] ?? 0)
          }
          w.current[client] = count
        }
      }
      guard let totals else { return }
      if w.start == windowStart {
        for (client, total) in totals.previous { w.previous[client] = max(w.previous[client] ?? 0, total) }
      } else if w.start - windowStart == seconds {
        // The window ended meanwhile: what was heard is the previous window's.
        for (client, total) in totals.current { w.previous[client] = max(w.previous[client] ?? 0, total) }
      }
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

  /// The client's app-wide estimate in the current window (tests).
  func estimate(_ client: String) -> Int { windows.withLock { $0.current[client]?.estimate ?? 0 } }
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
