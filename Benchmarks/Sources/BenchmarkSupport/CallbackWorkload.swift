// What BenchCompare and the package-benchmark suites share: the ten routes for the benchmark corpus and the
// pending authorization an app would hold for each callback.

import LinkParse

/// Ten routes for the providers and links the benchmark corpus holds.
public let realisticRoutes: [Route] = [
  Route("vk-app", "vk{app:[0-9]+}://vk.ru/blank.html", provider: .vk),
  Route("vk-web", "https://shop.example.ru/auth/vk", provider: .vk),
  Route("sber-app", "myapp://sberidauth", provider: .sber),
  Route("sber-web", "https://clientresource.ru/login/sberid/callback", provider: .sber),
  Route("tid-app", "myapp://authorized", provider: .tid),
  Route("tid-web", "https://myintegration.ru/auth/complete", provider: .tid),
  Route("apple-web", "https://example.com/auth/apple/callback", provider: .apple),
  Route("apple-app", "signinwithapple://callback", provider: .apple),
  Route("oauth", "https://{tenant}.example.{tld}/oauth2/callback", provider: .oauth2),
  Route("links", "https://links.example.ru/{kind}/{page}/{id:[0-9]+}"),
]

/// The provider a URL's callback belongs to: its route's, or the detector's.
public func provider(of url: ParsedURL, _ match: RouteMatch?) -> Provider? {
  if let provider = match?.provider { return provider }
  return ProviderDetector.detect(url: url, parameters: ProviderDetector.callbackParameters(of: url))
}

/// The pending authorization an app would hold for `string` (made outside any measurement): its provider, its
/// redirect URI (the URL without query and fragment), the state it was sent with, and the issuer of the
/// authorization server it went to when the callback carries `iss` (RFC 9207: an app whose server sends `iss`
/// expects it; an unexpected `iss` is rejected).
public func pendingAuthorization(for string: String, router: Router) -> PendingAuthorization? {
  guard let url = try? ParsedURL(string) else { return nil }
  let match = try? router.match(url)
  guard let provider = provider(of: url, match) else { return nil }
  let r = url.utf8Ranges
  let end = r.query?.lowerBound.advanced(by: -1) ?? r.fragment?.lowerBound.advanced(by: -1) ?? url.href.utf8.count
  let redirect = String(decoding: url.href.utf8.prefix(end), as: UTF8.self)
  guard let redirectURI = try? ParsedURL(redirect) else { return nil }
  let parameters = ProviderDetector.callbackParameters(of: url)
  let state = parameters.value(for: "state")
  let issuer = parameters.value(for: "iss").flatMap { $0.isEmpty ? nil : $0 }
  return PendingAuthorization(provider: provider, redirectURI: redirectURI, state: state, issuer: issuer)
}
