// The client of a request that came through trusted reverse proxies: the right-most forwarded address that
// no trusted proxy added (what a client writes itself into the header is to the left of it, and ignored).

public import Hummingbird
import HTTPTypes
public import NIOCore

/// Which header the trusted proxies write the client's address into.
///
/// ```swift
/// let key = ForwardedClient(trustedProxies: 1, header: .xForwardedFor)
/// ```
public struct ForwardedClient: Sendable, Hashable {
  /// The header the proxies append to.
  public enum Header: Sendable, Hashable {
    /// `X-Forwarded-For: client, proxy1, proxy2` (each proxy appends the address it was connected from).
    case xForwardedFor
    /// RFC 7239 `Forwarded: for=client, for=proxy1` (its `for=` parameters; other parameters are ignored).
    case forwarded
  }

  /// How many reverse proxies of your own stand between the internet and this server (at least 1).
  public let trustedProxies: Int
  /// The header they write.
  public let header: Header

  /// Client keys for a server behind `trustedProxies` proxies that append to `header`.
  ///
  /// ```swift
  /// ForwardedClient(trustedProxies: 2)  // a CDN in front of a load balancer
  /// ```
  public init(trustedProxies: Int, header: Header = .xForwardedFor) {
    self.trustedProxies = max(1, trustedProxies)
    self.header = header
  }

  /// The address the client connected to the outermost trusted proxy from: with `n` trusted proxies, the
  /// `n`-th entry from the right of the forwarded list (every proxy appends the address of its peer; the
  /// entries left of it are the client's own words). `nil` when the list is shorter than that (the request did
  /// not come through every proxy) or that entry is not an IP address.
  ///
  /// ```swift
  /// ForwardedClient(trustedProxies: 1).address(["203.0.113.9, 198.51.100.7"])  // "198.51.100.7"
  /// ```
  public func address(_ headerValues: [String]) -> String? {
    forwarded(headerValues)?.text
  }

  /// The forwarded client's address as written and as parsed (once, for both ``address(_:)`` and ``key(_:)``).
  private func forwarded(_ headerValues: [String]) -> (text: String, address: SocketAddress)? {
    var entries: [String] = []
    for value in headerValues {
      for element in value.split(separator: ",", omittingEmptySubsequences: false) {
        entries.append(element.trimmingSpaces())
      }
    }
    guard entries.count >= trustedProxies else { return nil }
    let entry = entries[entries.count - trustedProxies]
    let text: Substring
    switch header {
    case .xForwardedFor:
      text = entry[...]
    case .forwarded:
      // for=192.0.2.60;proto=http or for="[2001:db8::1]:4711"
      guard let pair = entry.split(separator: ";").first(where: { $0.trimmingSpaces().lowercased().hasPrefix("for=") })
      else { return nil }
      var value = pair.trimmingSpaces().dropFirst(4)
      if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
      if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
        value = value[value.index(after: value.startIndex)..<end]
      } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
        value = value[..<colon]  // IPv4 with a port
      }
      text = value
    }
    guard let address = try? SocketAddress(ipAddress: String(text), port: 0) else { return nil }
    return (String(text), address)
  }

  /// The start limit's key of a request (IPv4 address, IPv6 /64), from the forwarded address; `nil` (not
  /// limited per client) when there is none. Give it to ``LinkParseCallbackEndpoint``'s `clientKey`.
  ///
  /// ```swift
  /// let forwarded = ForwardedClient(trustedProxies: 1)
  /// let endpoint = LinkParseCallbackEndpoint(
  ///   store: PendingAuthorizationStore(), publicBaseURL: "https://example.com",
  ///   clientKey: { request, _ in forwarded.key(request) })
  /// ```
  public func key(_ request: Request) -> String? {
    let name: HTTPField.Name = header == .xForwardedFor ? HTTPField.Name("X-Forwarded-For")! : HTTPField.Name("Forwarded")!
    return forwarded(request.headers[values: name]).flatMap { StartLimiter.clientKey($0.address) }
  }
}
