import ArgumentParser
import LinkParse
import LinkParseBytes

/// `linkparse token-request`: prints the HTTP request that follows a callback (token exchange, refresh,
/// revoke, logout, user info, introspection) as one JSON object, for scripts and debugging. Nothing is sent.
///
/// ```text
/// $ linkparse token-request --provider vk --client-id 7915193 \
///     --redirect-uri vk7915193://vk.ru/blank.html --state S --code-verifier V \
///     --callback 'vk7915193://vk.ru/blank.html?code=C&state=S&device_id=D'
/// {"kind":"token-exchange","provider":"vk","method":"POST","url":"https://id.vk.ru/oauth2/auth?grant_type=…",
///  "headers":[["Content-Type","application/json"],["Accept","application/json"]],
///  "query":[["grant_type","authorization_code"],…],"form":[["code","C"]],"body":"{\"code\":\"C\"}"}
/// ```
package struct TokenRequestCommand: StreamCommand {

  /// What the request asks for.
  package enum Grant: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// The authorization code's exchange (`--callback`, validated first; or `--code`).
    case code
    /// `grant_type=refresh_token` (`--refresh-token`).
    case refresh
    /// Token revocation (`--token`, or `--access-token` for VK).
    case revoke
    /// VK ID's logout (`--access-token`).
    case logout
    /// The user's profile (`--access-token`).
    case userInfo = "user-info"
    /// VK ID's public info (`--id-token`).
    case publicInfo = "public-info"
    /// Token introspection (T-ID, generic; `--token`).
    case introspect

    /// The library's name for it.
    var request: ProviderClient.Request {
      switch self {
      case .code: .tokenExchange
      case .refresh: .refresh
      case .revoke: .revoke
      case .logout: .logout
      case .userInfo: .userInfo
      case .publicInfo: .publicInfo
      case .introspect: .introspect
      }
    }
  }

  /// The command's name and help.
  package static let configuration = CommandConfiguration(
    commandName: "token-request",
    abstract: "Print the provider request that follows a callback as JSON (nothing is sent).",
    discussion: HelpText.tokenRequest
  )

  /// `--provider`.
  @Option(help: "The provider: sber, vk, tid, apple or oauth2.")
  package var provider: Provider

  /// `--grant`.
  @Option(help: "What to ask for: code, refresh, revoke, logout, user-info, public-info or introspect.")
  package var grant: Grant = .code

  /// `--client-id`.
  @Option(help: ArgumentHelp("The client id (VK app id, Sber/T-ID client id, Apple Services ID).", valueName: "id"))
  package var clientID: String

  /// `--client-secret`.
  @Option(help: ArgumentHelp("The client secret (Sber, T-ID web, generic), or Apple's client_secret JWT.", valueName: "secret"))
  package var clientSecret: String?

  /// `--callback`.
  @Option(help: ArgumentHelp("The callback URL to validate and exchange (grant code).", valueName: "url"))
  package var callback: String?

  /// `--redirect-uri`.
  @Option(help: ArgumentHelp("The redirect URI as sent in the authorization request.", valueName: "uri"))
  package var redirectURI: String?

  /// `--state`.
  @Option(
    help: ArgumentHelp(
      "The state sent in the authorization request (checked against --callback); with --code or --grant refresh, VK's optional state of the token request.",
      valueName: "state"))
  package var state: String?

  /// `--vk-shape`.
  @Option(help: ArgumentHelp("VK ID's request shape: guide (the default: as VK's guide shows) or form-body.", valueName: "shape"))
  package var vkShape: VKIDClient.RequestShape = .guide

  /// `--code-verifier`.
  @Option(help: ArgumentHelp("The PKCE code_verifier.", valueName: "verifier"))
  package var codeVerifier: String?

  /// `--code`.
  @Option(help: ArgumentHelp("The authorization code, when no --callback is given.", valueName: "code"))
  package var code: String?

  /// `--device-id`.
  @Option(help: ArgumentHelp("VK ID's device_id (code without --callback, refresh).", valueName: "id"))
  package var deviceID: String?

  /// `--refresh-token`.
  @Option(help: ArgumentHelp("The refresh token (grant refresh).", valueName: "token"))
  package var refreshToken: String?

  /// `--access-token`.
  @Option(help: ArgumentHelp("The access token (user-info, logout, VK revoke).", valueName: "token"))
  package var accessToken: String?

  /// `--id-token`.
  @Option(help: ArgumentHelp("The id_token (VK public-info).", valueName: "token"))
  package var idToken: String?

  /// `--token`.
  @Option(help: ArgumentHelp("The token to revoke or introspect.", valueName: "token"))
  package var token: String?

  /// `--endpoint`.
  @Option(help: ArgumentHelp("The endpoint to use instead of the provider's default (required for oauth2).", valueName: "url"))
  package var endpoint: String?

  /// `--redact`.
  @Flag(help: "Replace secret values and the Authorization header with \"<redacted>\".")
  package var redact = false

  /// Creates the command (ArgumentParser fills it in).
  package init() {}

  /// Checks the options' combination.
  package func validate() throws {
    if grant == .code && callback == nil && code == nil {
      throw ValidationError("--grant code needs --callback or --code")
    }
    if provider == .oauth2 && endpoint == nil {
      throw ValidationError("--provider oauth2 needs --endpoint (a generic server has no default endpoint)")
    }
  }

  /// A reason the request was not built: a stable code and a sentence.
  struct Failure: Error {
    var code: String
    var message: String
  }

  /// Builds and prints the request; returns the exit status: 0, 1 (the callback was rejected or the request
  /// cannot be built), or 2 (standard output cannot be written).
  package func execute(_ streams: Streams) -> Int32 {
    let request: OAuthRequest
    do {
      request = try build()
    } catch let failure as Failure {
      try? streams.error.write(text: "linkparse: token-request: \(failure.code): \(failure.message)\n")
      return ExitStatus.recordsFailed
    } catch {
      try? streams.error.write(text: "linkparse: token-request: \(error)\n")
      return ExitStatus.recordsFailed
    }
    let text = Self.json(redact ? Self.redacted(request) : request)
    do { try streams.output.write(text: text + "\n") } catch { return ExitStatus.usageOrIOError }
    return ExitStatus.success
  }

  /// The request the options describe: the library's ``ProviderClient`` dispatch, after the options each
  /// grant needs.
  func build() throws -> OAuthRequest {
    func need(_ value: String?, _ option: String) throws -> String {
      guard let value, !value.isEmpty else {
        throw Failure(code: "missing-option", message: "--grant \(grant.rawValue) for \(provider.rawValue) needs \(option)")
      }
      return value
    }
    if grant == .code, let callback { return try exchange(callback) }
    guard ProviderClient.supports(grant.request, provider: provider) else {
      throw Failure(code: "unsupported-grant", message: "\(provider.rawValue) has no '\(grant.rawValue)' request")
    }
    do {
      let client = try ProviderClient(
        provider: provider, clientID: clientID, clientSecret: clientSecret, endpoint: endpoint, vkShape: vkShape)
      switch grant {
      case .code:
        return try client.tokenExchange(
          code: try need(code, "--code"), redirectURI: redirectURI, codeVerifier: codeVerifier, deviceID: deviceID,
          state: state)
      case .refresh:
        return try client.refresh(refreshToken: try need(refreshToken, "--refresh-token"), deviceID: deviceID, state: state)
      case .revoke:
        return try client.revoke(token: try need(provider == .vk ? accessToken ?? token : token, provider == .vk ? "--access-token" : "--token"))
      case .logout: return try client.logout(accessToken: try need(accessToken, "--access-token"))
      case .userInfo: return try client.userInfo(accessToken: try need(accessToken, "--access-token"))
      case .publicInfo: return try client.publicInfo(idToken: try need(idToken, "--id-token"))
      case .introspect: return try client.introspect(token: try need(token, "--token"))
      }
    } catch let error as TokenRequestError {
      throw Failure(code: error.code.rawValue, message: error.message)
    }
  }

  /// The exchange for a callback: validated against the pending authorization the options describe, then
  /// ``PendingAuthorization/tokenRequest(for:clientSecret:endpoint:)``.
  private func exchange(_ callback: String) throws -> OAuthRequest {
    guard let redirectURI else {
      throw Failure(code: "missing-option", message: "--callback needs --redirect-uri (the redirect URI as sent)")
    }
    let redirect: ParsedURL
    let url: ParsedURL
    do {
      redirect = try ParsedURL(redirectURI)
      url = try ParsedURL(callback)
    } catch {
      throw Failure(code: error.code.rawValue, message: "\(error.message) (at byte \(error.offset.map(String.init) ?? "?"))")
    }
    if state == nil, let sent = ProviderDetector.callbackParameters(of: url).first(named: "state")?.value(), !sent.isEmpty {
      // Said as what it is: the option is missing (a state-mismatch would blame the callback).
      throw Failure(
        code: "missing-option",
        message: "the callback carries a state: --callback needs --state (the state sent in the authorization request)")
    }
    let pending = PendingAuthorization(
      provider: provider, redirectURI: redirect, state: state, clientID: clientID, codeVerifier: codeVerifier,
      redirectURIAsSent: redirectURI)
    let validated: ProviderCallback
    do {
      validated = try pending.validate(url)
    } catch {
      throw Failure(code: error.code.rawValue, message: error.descriptionEN)
    }
    do {
      return try pending.tokenRequest(for: validated, clientSecret: clientSecret, endpoint: endpoint)
    } catch {
      throw Failure(code: error.code.rawValue, message: error.message)
    }
  }


  /// `request` with secret form values and the `Authorization` header replaced by `<redacted>`.
  static func redacted(_ request: OAuthRequest) -> OAuthRequest {
    var copy = request
    func redact(_ field: OAuthRequest.Field) -> OAuthRequest.Field {
      CallbackOptions.isSecret(field.name) ? OAuthRequest.Field(field.name, CallbackOptions.redacted) : field
    }
    copy.query = request.query.map(redact)
    copy.form = request.form.map(redact)
    copy.headers = request.headers.map {
      let name = $0.name.lowercased()
      return name == "authorization" || name == "rquid" || name == "x-introspect-rquid"
        ? OAuthRequest.Header($0.name, CallbackOptions.redacted) : $0
    }
    return copy
  }

  /// The request as one JSON object, keys in the documented order.
  static func json(_ request: OAuthRequest) -> String {
    func quoted(_ s: String) -> String { JSONText.quoted(s) }
    func pairs(_ list: [(String, String)]) -> String {
      "[" + list.map { "[\(quoted($0.0)),\(quoted($0.1))]" }.joined(separator: ",") + "]"
    }
    return "{\"kind\":\(quoted(request.kind.rawValue)),\"provider\":\(quoted(request.provider.rawValue)),"
      + "\"method\":\(quoted(request.method.rawValue)),\"url\":\(quoted(request.fullURL)),"
      + "\"headers\":\(pairs(request.headers.map { ($0.name, $0.value) })),"
      + "\"query\":\(pairs(request.query.map { ($0.name, $0.value) })),"
      + "\"form\":\(pairs(request.form.map { ($0.name, $0.value) })),"
      + "\"body\":\(request.body.map(quoted) ?? "null")}"
  }
}

/// `--vk-shape guide|form-body`.
extension VKIDClient.RequestShape: ExpressibleByArgument {}

/// `--provider sber|vk|tid|apple|oauth2`.
extension Provider: ExpressibleByArgument {}
