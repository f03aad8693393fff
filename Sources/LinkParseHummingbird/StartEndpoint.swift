// The start-login endpoint: LoginStart's authorize URL and pending authorization, on a Hummingbird router.

public import Hummingbird
public import LinkParseAuthorization
import LinkParseProviders

extension LinkParseCallbackEndpoint {
  /// Registers GET on `path` that starts a `login`: a fresh state, nonce and PKCE verifier, the pending
  /// authorization sealed into the browser's login cookie (``LoginCookies``: nothing is stored, so a start costs
  /// the server no memory and no row), and 302 to the provider's authorize URL (`Cache-Control: no-store`). A
  /// client over its ``LinkParseCallbackEndpoint/startLimits`` gets 429 `too-many-logins` with `Retry-After`; a
  /// redirect URI that is not a URL, 500 `invalid-configuration`.
  ///
  /// **Where the browser goes after the login.** A `return_to` query parameter names a same-site path
  /// (`/login/vk?return_to=%2Faccount`): checked by ``ReturnPath`` (no other host, scheme, `\`, fragment or
  /// control character can pass) and kept in the pending authorization (``PendingAuthorization/returnPath``);
  /// any other value answers 400 `invalid-return-path` (nothing is stored), and a repeated one too.
  ///
  /// ```swift
  /// endpoint.registerStart(on: router, path: "/login/vk",
  ///   login: .vkID(clientID: "7915193", redirectURI: "https://example.com/auth/vk/callback"))
  /// ```
  public func registerStart<Methods: RouterMethods>(on router: Methods, path: RouterPath, login: LoginStart) {
    let endpoint = self
    router.get(path) { request, context -> Response in
      if let refused = endpoint.limitStart(request, context) { return refused }
      let returnTo = request.uri.queryParameters.getAll("return_to")
      var returnPath: ReturnPath?
      if !returnTo.isEmpty {
        guard returnTo.count == 1, let path = ReturnPath(returnTo[0]) else {
          return endpoint.problem(.invalidReturnPath, event: "login start refused")
        }
        returnPath = path
      }
      let authorizeURL: String
      var pending: PendingAuthorization
      do {
        (authorizeURL, pending) = try login.makeAuthorization(now: endpoint.now())
      } catch {
        return endpoint.problem(.invalidConfiguration, event: "login start failed")
      }
      pending.returnPath = returnPath?.value
      return await endpoint.start(
        authorizeURL: authorizeURL, pending: pending, cookieHeaders: request.headers[values: .cookie])
    }
  }
}
