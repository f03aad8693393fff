// The start-login endpoint: LoginStart's authorize URL and pending authorization, on a Hummingbird router.

public import Hummingbird
public import LinkParseAuthorization
import LinkParseProviders

extension LinkParseCallbackEndpoint {
  /// Registers GET on `path` that starts a `login`: a fresh state, nonce and PKCE verifier, the pending
  /// authorization inserted into ``store``, and 302 to the provider's authorize URL (`Cache-Control: no-store`).
  /// The login is bound to the browser by a login cookie (``LoginCookies``). A client over its
  /// ``LinkParseCallbackEndpoint/startLimits`` gets 429 `too-many-logins` with `Retry-After`, a full store 503
  /// `store-full`, a store that fails 503 `store-unavailable`; a redirect URI that is not a URL, 500
  /// `invalid-configuration`.
  ///
  /// ```swift
  /// endpoint.registerStart(on: router, path: "/login/vk",
  ///   login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback"))
  /// ```
  public func registerStart<Methods: RouterMethods>(on router: Methods, path: RouterPath, login: LoginStart) {
    let endpoint = self
    router.get(path) { request, context -> Response in
      if let refused = endpoint.limitStart(request, context) { return refused }
      let authorizeURL: String
      let pending: PendingAuthorization
      do {
        (authorizeURL, pending) = try login.makeAuthorization(now: endpoint.now())
      } catch {
        return endpoint.problem(.invalidConfiguration, event: "login start failed")
      }
      return await endpoint.start(authorizeURL: authorizeURL, pending: pending)
    }
  }
}
