// The start-login endpoint: LoginStart's authorize URL and pending authorization, on a Hummingbird router.

public import Hummingbird
public import LinkParseAuthorization
import LinkParseProviders

extension LinkParseCallbackEndpoint {
  /// Registers GET on `path` that starts a `login`: a fresh state, nonce and PKCE verifier, the pending
  /// authorization inserted into ``store``, and 302 to the provider's authorize URL (`Cache-Control: no-store`).
  /// A store that fails gives 503 `store-unavailable`; a redirect URI that is not a URL, 500
  /// `invalid-configuration`.
  ///
  /// ```swift
  /// endpoint.registerStart(on: router, path: "/login/vk",
  ///   login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback"))
  /// ```
  public func registerStart<Methods: RouterMethods>(on router: Methods, path: RouterPath, login: LoginStart) {
    let endpoint = self
    router.get(path) { _, _ -> Response in
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
