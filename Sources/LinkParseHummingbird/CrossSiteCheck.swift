// Refusing a state-changing POST that a browser sent from another site (login CSRF's sibling: a page elsewhere
// logging the user out, or spending their refresh token), by the headers browsers add and pages cannot forge.

import HTTPTypes
public import Hummingbird
import LinkParseCore

/// Whether a request comes from the site's own pages, by what the browser says: `Sec-Fetch-Site` must be
/// `same-origin` (or `none`: the user's own action), and `Origin`, when sent, must be the site's public origin.
/// A request with neither header (not a browser, or a very old one) passes: the check is against cross-site
/// pages, which every current browser labels. SameSite cookies alone do not stand in for it (a sibling
/// subdomain is "same site"; `SameSite=None` cookies travel everywhere).
///
/// ```swift
/// let check = CrossSiteCheck(publicBaseURL: "https://app.example")
/// router.post("/logout") { request, context in
///   if let refusal = check.refusal(request) { return refusal }  // 403 cross-site-request
///   …
/// }
/// ```
public struct CrossSiteCheck: Sendable {
  /// The site's origin: `scheme://host[:port]`, lowercased.
  ///
  /// ```swift
  /// CrossSiteCheck(publicBaseURL: "https://App.example/base").origin  // "https://app.example"
  /// ```
  public let origin: String

  /// A check against the origin of `publicBaseURL`, as a browser serializes it in `Origin` (RFC 6454 §6.1):
  /// the URL Standard's scheme, host (lowercase, IDNA-encoded) and port, a default port left out; a path is
  /// ignored. A base that does not parse is compared as written, lowercased (so nothing matches it but itself).
  ///
  /// ```swift
  /// CrossSiteCheck(publicBaseURL: "https://App.example:443/base").origin  // "https://app.example"
  /// CrossSiteCheck(publicBaseURL: "http://127.0.0.1:8080").origin         // "http://127.0.0.1:8080"
  /// ```
  public init(publicBaseURL: String) {
    guard let url = try? ParsedURL(publicBaseURL), let host = url.host, !host.isEmpty else {
      origin = publicBaseURL.lowercased()
      return
    }
    origin = "\(url.scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
  }

  /// Whether the browser says `request` comes from another site (or another origin of this site).
  ///
  /// ```swift
  /// check.isCrossSite(request)  // true for Sec-Fetch-Site: cross-site
  /// ```
  public func isCrossSite(_ request: Request) -> Bool {
    if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] {
      let value = site.lowercased()
      if value != "same-origin" && value != "none" { return true }
    }
    for value in request.headers[values: .origin] where value.lowercased() != origin {
      return true  // another origin, or "null" (a sandboxed or privacy-sensitive context)
    }
    return false
  }

  /// `403` problem JSON `cross-site-request` when ``isCrossSite(_:)``, else `nil`.
  ///
  /// ```swift
  /// if let refusal = check.refusal(request) { return refusal }
  /// ```
  public func refusal(_ request: Request) -> Response? {
    isCrossSite(request) ? ProblemDetails.crossSiteRequest.response() : nil
  }
}
