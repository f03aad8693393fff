// Outbound authorization-request URLs, every name and value form-encoded (providers.md §1.1.1, §2.1,
// §3.1, §3.5 items 5–6, §4.1). The T-ID iOS SDK joins raw `key=value` pairs; a callback URL with its own
// query then breaks the request. These builders never do that.

import LinkParseCore
public import LinkParseProviders

/// Appends form-encoded `pairs` to `base` (after `?`, or `&` when `base` already has a query).
package func appendQuery(_ base: String, _ pairs: [(String, String)]) -> String {
  let query = FormParameters.encode(pairs)
  guard !query.isEmpty else { return base }
  if base.hasSuffix("?") || base.hasSuffix("&") { return base + query }
  return base + (base.contains("?") ? "&" : "?") + query
}

/// A Sber ID authorization request: the app deeplink, the web page, or a seamless-login base.
///
/// Parameter order follows the iOS SDK: `client_id`, `state`, `nonce`, `scope` (space-separated, `openid`
/// moved or added first), `redirect_uri`, `code_challenge` + `code_challenge_method` (only with PKCE), then
/// `response_type=code` on the web and seamless URLs (the app deeplink carries none).
///
/// ```swift
/// let request = SberIDAuthorizationRequest(
///   clientID: "0A1B2C3D", redirectURI: "partner://partner.host/auth", state: "UhdlDQS6vG4m",
///   nonce: "TGfhfBxr5ak1", scope: ["openid", "name"], pkce: PKCE())
/// request.appURL()  // sberbankidexternallogin://sberbankid?client_id=0A1B2C3D&state=…
/// request.webURL()  // https://online.sberbank.ru/CSAFront/oidc/authorize.do?…&response_type=code
/// ```
public struct SberIDAuthorizationRequest: Sendable, Hashable {
  /// `client_id`.
  public var clientID: String
  /// `redirect_uri`, registered with Sber.
  public var redirectURI: String
  /// `state`.
  public var state: String
  /// `nonce`, checked later in the ID token.
  public var nonce: String
  /// Scopes; `openid` is always sent first.
  public var scope: [String]
  /// PKCE; strongly recommended (custom schemes can be claimed by other apps).
  public var pkce: PKCE?
  /// `login_hint`: the phone number or login to prefill (the Sber SDKs' `loginHint`).
  public var loginHint: String?
  /// Further parameters, after the builder's own (checked: see ``AuthorizationParameters``).
  public var extraParameters: AuthorizationParameters

  /// Creates a request.
  ///
  /// ```swift
  /// SberIDAuthorizationRequest(clientID: "id", redirectURI: "myapp://sberidauth", state: "s", nonce: "n", loginHint: "79990001122")
  /// ```
  public init(
    clientID: String, redirectURI: String, state: String, nonce: String, scope: [String] = ["openid"],
    pkce: PKCE? = nil, loginHint: String? = nil, extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) {
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.state = state
    self.nonce = nonce
    self.scope = scope
    self.pkce = pkce
    self.loginHint = loginHint
    self.extraParameters = extraParameters
  }

  /// The app-to-app deeplink (no `response_type`).
  ///
  /// ```swift
  /// request.appURL(base: "sbolidexternallogin://sberbankid")
  /// ```
  public func appURL(base: String = "sberbankidexternallogin://sberbankid") -> String {
    appendQuery(base, pairs(responseType: false))
  }

  /// Sber ID's web authorization page.
  ///
  /// ```swift
  /// SberIDAuthorizationRequest.defaultWebURL  // "https://online.sberbank.ru/CSAFront/oidc/authorize.do"
  /// ```
  public static let defaultWebURL = "https://online.sberbank.ru/CSAFront/oidc/authorize.do"

  /// The web authorization page (`response_type=code`).
  ///
  /// ```swift
  /// request.webURL(base: "https://id.sber.ru/CSAFront/oidc/authorize.do")
  /// ```
  public func webURL(base: String = SberIDAuthorizationRequest.defaultWebURL) -> String {
    appendQuery(base, pairs(responseType: true))
  }

  /// The request to a trusted seamless-login base URL, with its `token` when present.
  ///
  /// ```swift
  /// let link = try SberSeamlessLogin(inbound.queryParameters)
  /// open(request.seamlessURL(link))
  /// ```
  public func seamlessURL(_ link: SberSeamlessLogin) -> String {
    var pairs = pairs(responseType: true)
    if let token = link.token { pairs.append(("token", token)) }
    return appendQuery(link.baseURL, pairs)
  }

  func pairs(responseType: Bool) -> [(String, String)] {
    let scopes = ["openid"] + scope.filter { $0 != "openid" }
    var pairs = [
      ("client_id", clientID), ("state", state), ("nonce", nonce), ("scope", scopes.joined(separator: " ")),
      ("redirect_uri", redirectURI),
    ]
    if let pkce {
      pairs.append(("code_challenge", pkce.challenge))
      pairs.append(("code_challenge_method", pkce.method))
    }
    if responseType { pairs.append(("response_type", "code")) }
    if let loginHint { pairs.append(("login_hint", loginHint)) }
    return pairs + extraParameters.pairs
  }
}

/// A VK ID authorization request (`https://id.vk.ru/authorize`).
///
/// ```swift
/// let request = VKIDAuthorizationRequest(
///   clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "s", pkce: PKCE(),
///   scope: ["vkid.personal_info", "email"])
/// request.url  // https://id.vk.ru/authorize?response_type=code&client_id=7915193&…
/// ```
public struct VKIDAuthorizationRequest: Sendable, Hashable {
  /// `client_id` (the app id; the redirect scheme is `vk<client_id>`).
  public var clientID: String
  /// `redirect_uri`, the trusted redirect configured for the app.
  public var redirectURI: String
  /// `state`.
  public var state: String
  /// PKCE (VK always requires it).
  public var pkce: PKCE
  /// Scopes, space-separated.
  public var scope: [String]
  /// `code_challenge_method` as sent; VK's SDKs disagree (`s256`, `sha256`, `S256`), so it is not normalised.
  public var codeChallengeMethod: String
  /// The authorization endpoint.
  public var endpoint: String
  /// `prompt`, space-separated: `login` by default, as VK ID's guide recommends (the user confirms the account
  /// even when already signed in to VK); `[]` sends none.
  public var prompt: [AuthorizationPrompt]
  /// Further parameters, after the builder's own (checked: see ``AuthorizationParameters``).
  public var extraParameters: AuthorizationParameters

  /// VK ID's authorize endpoint.
  ///
  /// ```swift
  /// VKIDAuthorizationRequest.defaultEndpoint  // "https://id.vk.ru/authorize"
  /// ```
  public static let defaultEndpoint = "https://id.vk.ru/authorize"

  /// Creates a request.
  ///
  /// ```swift
  /// VKIDAuthorizationRequest(clientID: "1", redirectURI: "vk1://vk.ru/blank.html", state: "s", pkce: PKCE()).url
  /// // …&prompt=login (the guide's recommendation; pass `prompt: []` for none)
  /// ```
  public init(
    clientID: String, redirectURI: String, state: String, pkce: PKCE, scope: [String] = [],
    codeChallengeMethod: String = "S256", endpoint: String = VKIDAuthorizationRequest.defaultEndpoint,
    prompt: [AuthorizationPrompt] = [.login], extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) {
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.state = state
    self.pkce = pkce
    self.scope = scope
    self.codeChallengeMethod = codeChallengeMethod
    self.endpoint = endpoint
    self.prompt = prompt
    self.extraParameters = extraParameters
  }

  /// The request URL.
  ///
  /// ```swift
  /// request.url
  /// ```
  public var url: String {
    var pairs = [
      ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
      ("code_challenge", pkce.challenge), ("code_challenge_method", codeChallengeMethod),
    ]
    if !scope.isEmpty { pairs.append(("scope", scope.joined(separator: " "))) }
    if !prompt.isEmpty { pairs.append(("prompt", prompt.map(\.rawValue).joined(separator: " "))) }
    return appendQuery(endpoint, pairs + extraParameters.pairs)
  }
}

/// A T-ID (Tinkoff ID) app-to-app request (`https://tinkoff.ru/partner_auth`, camelCase keys) and its token
/// request body, both form-encoded.
///
/// ```swift
/// let request = TIDAuthorizationRequest(clientID: "partner", callbackURL: "myapp://authorized?from=login", pkce: PKCE())
/// request.url
/// // https://tinkoff.ru/partner_auth?clientId=partner&codeChallenge=…&codeChallengeMethod=S256&callbackUrl=myapp%3A%2F%2Fauthorized%3Ffrom%3Dlogin
/// ```
public struct TIDAuthorizationRequest: Sendable, Hashable {
  /// `clientId`.
  public var clientID: String
  /// `callbackUrl`: the app's return link (also the `redirect_uri` of the iOS token exchange).
  public var callbackURL: String
  /// PKCE (`S256`).
  public var pkce: PKCE
  /// The partner-auth endpoint.
  public var endpoint: String
  /// Further parameters, after the builder's own (checked: see ``AuthorizationParameters``).
  public var extraParameters: AuthorizationParameters

  /// Creates a request.
  ///
  /// ```swift
  /// TIDAuthorizationRequest(clientID: "partner", callbackURL: "myapp://authorized", pkce: PKCE())
  /// ```
  public init(
    clientID: String, callbackURL: String, pkce: PKCE, endpoint: String = "https://tinkoff.ru/partner_auth",
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) {
    self.clientID = clientID
    self.callbackURL = callbackURL
    self.pkce = pkce
    self.endpoint = endpoint
    self.extraParameters = extraParameters
  }

  /// The app link that opens the T-Bank app.
  ///
  /// ```swift
  /// request.url
  /// ```
  public var url: String {
    appendQuery(
      endpoint,
      [
        ("clientId", clientID), ("codeChallenge", pkce.challenge), ("codeChallengeMethod", pkce.method),
        ("callbackUrl", callbackURL),
      ] + extraParameters.pairs)
  }

  /// The `application/x-www-form-urlencoded` body of `POST https://id.tbank.ru/auth/token` for `code`
  /// (`redirectURI` defaults to ``callbackURL``, as on iOS; Android sends its registered `redirect_uri`).
  ///
  /// Superseded by the whole request: ``pendingAuthorization(expiresAt:)``, then LinkParseOAuth's
  /// `PendingAuthorization.tokenRequest(for:)` (or `TIDClient.tokenExchange`), which adds the method, URL,
  /// headers and client authentication. Kept for existing callers; the body is the same.
  ///
  /// ```swift
  /// request.tokenRequestBody(code: "c.9f&x")
  /// // grant_type=authorization_code&code=c.9f%26x&client_id=partner&code_verifier=…&redirect_uri=…
  /// ```
  public func tokenRequestBody(code: String, redirectURI: String? = nil) -> String {
    FormParameters.encode([
      ("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
      ("code_verifier", pkce.verifier), ("redirect_uri", redirectURI ?? callbackURL),
    ])
  }
}

/// A Sign in with Apple authorization request (`https://appleid.apple.com/auth/authorize`).
///
/// Apple's rules: `code id_token` and `id_token` may not use `response_mode=query`, and asking for `name` or
/// `email` requires `form_post`; ``isAcceptedByApple`` checks both. `id_token` alone needs a `nonce` (the
/// callback is bound to the request by it).
///
/// ```swift
/// let request = AppleAuthorizationRequest(
///   clientID: "com.example.web", redirectURI: "https://example.com/auth/apple/callback", state: "8f3c", nonce: "n")
/// request.url  // …&response_type=code+id_token&response_mode=form_post&scope=name+email&…
/// ```
public struct AppleAuthorizationRequest: Sendable, Hashable {
  /// `response_type`.
  public enum ResponseType: String, Sendable, Hashable {
    /// `code`.
    case code
    /// `code id_token`.
    case codeIDToken = "code id_token"
    /// `id_token` alone: the callback carries the id_token and no code (``AppleCallback/idTokenGrant(_:)``), bound
    /// to the request by its `nonce`, which is then required. No tokens for Apple's API come with it.
    case idToken = "id_token"
  }
  /// `response_mode`.
  public enum ResponseMode: String, Sendable, Hashable {
    /// Parameters in the redirect's query.
    case query
    /// Parameters in the redirect's fragment.
    case fragment
    /// Parameters POSTed as a form body.
    case formPost = "form_post"
  }
  /// `client_id` (the Services ID).
  public var clientID: String
  /// `redirect_uri` (https, a domain name).
  public var redirectURI: String
  /// `state`.
  public var state: String
  /// `nonce`, checked later in the `id_token`.
  public var nonce: String?
  /// Scopes (`name`, `email`).
  public var scope: [String]
  /// `response_type`.
  public var responseType: ResponseType
  /// `response_mode`.
  public var responseMode: ResponseMode
  /// Further parameters, after the builder's own (checked: see ``AuthorizationParameters``).
  public var extraParameters: AuthorizationParameters

  /// Creates a request; the defaults (`code id_token`, `form_post`, `name email`) are what Apple accepts
  /// for a first sign-in that wants the user's name.
  ///
  /// ```swift
  /// AppleAuthorizationRequest(clientID: "c", redirectURI: "https://e.com/cb", state: "s", scope: [], responseType: .code, responseMode: .query)
  /// ```
  public init(
    clientID: String, redirectURI: String, state: String, nonce: String? = nil, scope: [String] = ["name", "email"],
    responseType: ResponseType = .codeIDToken, responseMode: ResponseMode = .formPost,
    extraParameters: AuthorizationParameters = AuthorizationParameters()
  ) {
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.state = state
    self.nonce = nonce
    self.scope = scope
    self.responseType = responseType
    self.responseMode = responseMode
    self.extraParameters = extraParameters
  }

  /// Whether Apple accepts this combination of `response_type`, `response_mode` and `scope`.
  ///
  /// ```swift
  /// AppleAuthorizationRequest(clientID: "c", redirectURI: "https://e.com/cb", state: "s", responseMode: .query)
  ///   .isAcceptedByApple  // false
  /// ```
  public var isAcceptedByApple: Bool {
    if responseType != .code && responseMode == .query { return false }
    if (scope.contains("name") || scope.contains("email")) && responseMode != .formPost { return false }
    return true
  }

  /// The request URL.
  ///
  /// ```swift
  /// request.url
  /// ```
  public var url: String {
    var pairs = [
      ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", responseType.rawValue),
      ("response_mode", responseMode.rawValue),
    ]
    if !scope.isEmpty { pairs.append(("scope", scope.joined(separator: " "))) }
    pairs.append(("state", state))
    if let nonce { pairs.append(("nonce", nonce)) }
    return appendQuery("https://appleid.apple.com/auth/authorize", pairs + extraParameters.pairs)
  }
}
