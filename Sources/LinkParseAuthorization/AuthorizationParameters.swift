// Extra parameters of an outbound authorization request, checked before they are sent: what a provider
// documents beyond the builders' own options (VK's `lang_id`, a generic server's `ui_locales`, `acr_values`…).

import LinkParseProviders

/// Parameters added to an authorization request after the ones its builder sets, checked when added.
///
/// A name that a builder sets itself — `state`, `redirect_uri`, `code_challenge`, `client_id`, `nonce` and
/// the rest of ``reservedNames`` — is refused: overriding it would silently undo the checks the pending
/// authorization relies on (a second `state` or `redirect_uri` in one request is exactly the ambiguity RFC 6749
/// §3.1 forbids). A name may be added once; an empty name is refused. Values are form-encoded when the URL is
/// built.
///
/// ```swift
/// var extra = AuthorizationParameters()
/// try extra.add("lang_id", "3")          // VK ID's interface language
/// try extra.add("state", "x")            // throws AuthorizationParameterError reserved-parameter
/// let request = VKIDAuthorizationRequest(
///   clientID: "7915193", redirectURI: "vk7915193://vk.ru/blank.html", state: "s", pkce: PKCE(),
///   prompt: .login, extraParameters: extra)
/// ```
public struct AuthorizationParameters: Sendable, Hashable, ExpressibleByDictionaryLiteral {
  /// One name and value.
  public struct Parameter: Sendable, Hashable {
    /// The parameter name.
    public let name: String
    /// The value (not yet encoded).
    public let value: String
  }

  /// The parameters, in the order added.
  public private(set) var parameters: [Parameter] = []

  /// The names the request builders set themselves (in any of the providers' spellings), which
  /// ``add(_:_:)`` refuses.
  public static let reservedNames: Set<String> = [
    "state", "redirect_uri", "client_id", "response_type", "response_mode", "scope", "nonce", "code_challenge",
    "code_challenge_method", "prompt", "login_hint",
    // T-ID's app link spells its own in camelCase.
    "clientId", "codeChallenge", "codeChallengeMethod", "callbackUrl",
  ]

  /// No parameters.
  ///
  /// ```swift
  /// AuthorizationParameters().parameters.isEmpty  // true
  /// ```
  public init() {}

  /// The parameters of a literal; a reserved, empty or repeated name traps (a literal is the programmer's
  /// own text: use ``add(_:_:)`` for values from elsewhere).
  ///
  /// ```swift
  /// let extra: AuthorizationParameters = ["ui_locales": "ru"]
  /// ```
  public init(dictionaryLiteral elements: (String, String)...) {
    for (name, value) in elements {
      do throws(AuthorizationParameterError) { try add(name, value) } catch { preconditionFailure(error.message) }
    }
  }

  /// Adds `name=value`.
  ///
  /// ```swift
  /// try extra.add("acr_values", "urn:mace:incommon:iap:silver")
  /// ```
  ///
  /// - Throws: ``AuthorizationParameterError`` `reserved-parameter` (a name the builder sets: use its typed
  ///   option), `duplicate-parameter` (already added), `empty-name`.
  public mutating func add(_ name: String, _ value: String) throws(AuthorizationParameterError) {
    guard !name.isEmpty else { throw AuthorizationParameterError(.emptyName, parameter: name) }
    guard !Self.reservedNames.contains(name) else { throw AuthorizationParameterError(.reservedParameter, parameter: name) }
    guard !parameters.contains(where: { $0.name == name }) else {
      throw AuthorizationParameterError(.duplicateParameter, parameter: name)
    }
    parameters.append(Parameter(name: name, value: value))
  }

  /// The pairs, for a builder's query.
  var pairs: [(String, String)] { parameters.map { ($0.name, $0.value) } }
}

/// Why an extra authorization parameter was refused: a stable code, the parameter, and a message.
///
/// ```swift
/// do { try extra.add("redirect_uri", "https://evil.example") } catch { print(error.code.rawValue, error.message) }
/// // reserved-parameter  redirect_uri is set by the request builder …
/// ```
public struct AuthorizationParameterError: Error, Sendable, Hashable {
  /// The stable codes.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    /// A name the builder sets itself (``AuthorizationParameters/reservedNames``).
    case reservedParameter = "reserved-parameter"
    /// The name was already added.
    case duplicateParameter = "duplicate-parameter"
    /// An empty name.
    case emptyName = "empty-name"
  }

  /// What was wrong.
  public let code: Code
  /// The parameter name.
  public let parameter: String

  init(_ code: Code, parameter: String) {
    self.code = code
    self.parameter = parameter
  }

  /// What was wrong, and what to do instead.
  public var message: String {
    switch code {
    case .reservedParameter:
      return "\(parameter) is set by the request builder (it binds the callback to the request); use the builder's own option instead of an extra parameter"
    case .duplicateParameter:
      return "\(parameter) was already added: a parameter may appear once in an authorization request (RFC 6749 §3.1)"
    case .emptyName:
      return "an extra parameter needs a name"
    }
  }
}

/// The OpenID Connect `prompt` values (OIDC Core §3.1.2.1), which VK ID's guide also uses (`prompt=login`).
///
/// ```swift
/// OAuth2AuthorizationRequest(endpoint: e, clientID: c, redirectURI: r, state: s, prompt: [.login]).url  // …&prompt=login
/// ```
public enum AuthorizationPrompt: String, Sendable, Hashable, CaseIterable, Codable {
  /// No interface: fail with `login_required` / `consent_required` rather than ask.
  case none
  /// Ask the user to sign in again even with a session (VK ID's guide recommends it).
  case login
  /// Ask for consent again.
  case consent
  /// Let the user choose an account.
  case selectAccount = "select_account"
}
