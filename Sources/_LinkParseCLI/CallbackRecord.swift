import ArgumentParser
import LinkParse
@_spi(Bytes) import LinkParseCore
@_spi(Bytes) import LinkParseProviders

/// `--provider`: which decoder reads a record's callback parameters.
public enum ProviderOption: String, ExpressibleByArgument, CaseIterable, Sendable {
  /// Decide per record by ``ProviderDetector``'s rules.
  case auto
  /// Sber ID (callbacks and seamless-login links).
  case sber
  /// VK ID.
  case vk
  /// T-ID (Tinkoff ID).
  case tid
  /// Sign in with Apple.
  case apple
  /// Generic OAuth 2.0 / OIDC.
  case oauth2
  /// Decode nothing: `"callback"` is always `null`.
  case none
}

/// How the `"callback"` key of each record is produced: the decoder, the checks, and redaction.
struct CallbackOptions {
  var provider: ProviderOption = .auto
  /// `--state`: the state the callback must carry (constant-time comparison).
  var state: String?
  /// `--redirect-uri`: the redirect URI the callback must match.
  var redirectURI: ParsedURL?
  /// `--issuer`: the `iss` the callback must carry.
  var issuer: String?
  /// `--redact`.
  var redact = false

  /// The parameter names whose values `--redact` hides everywhere: in the href, the query, the fragment,
  /// `params` and the `callback` values (which use the same names). `payload` (VK ID 1.x) is included because
  /// its JSON carries the code, the state and the user's email; `user` is Sign in with Apple's user JSON (name
  /// and email); `email` is the value the `callback` of a VK ID 1.x payload shows; `auth_token` is T-ID's
  /// link-auth token; `appToken` is the Sber ID SDK's seamless-login token. The URL's userinfo is hidden too (see
  /// ``redactURLText(_:)``).
  ///
  /// Names are compared **ignoring ASCII letter case** (``isSecret(_:)-(String)``): the decoders read names
  /// exactly (`Code=` is not a code to them), but a value under `Code`, `ACCESS_TOKEN` or `apptoken` is still
  /// hidden, since another reader of the same URL may take it. The set holds the lower-cased names.
  static let secretNames: Set<String> = [
    "code", "id_token", "access_token", "refresh_token", "device_id", "state", "token", "payload",
    "client_secret", "code_verifier", "auth_token", "user", "email", "apptoken",
  ]
  /// The longest name in ``secretNames``, in bytes: longer names are never secrets (no lower-casing needed).
  private static let longestSecretName = 13

  /// Whether `--redact` hides the value of a parameter named `name`, ignoring ASCII letter case.
  ///
  /// ```swift
  /// CallbackOptions.isSecret("Code")      // true
  /// CallbackOptions.isSecret("appToken")  // true
  /// CallbackOptions.isSecret("utm_source")  // false
  /// ```
  static func isSecret(_ name: String) -> Bool {
    var name = name
    return name.withUTF8 { isSecret(bytes: $0) }
  }

  /// ``isSecret(_:)-(String)`` over a name's decoded bytes.
  static func isSecret(_ name: FormParameters.UnsafeDecodedBytes) -> Bool {
    name.withDecodedBytes { isSecret(bytes: $0) }
  }

  /// ``isSecret(_:)-(String)`` over a name's UTF-8 bytes.
  static func isSecret(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count <= longestSecretName else { return false }
    let lowered = String(decoding: bytes.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    return secretNames.contains(lowered)
  }
  static let redacted = "<redacted>"

  /// What to write under `"callback"`: `null` when nothing was decoded, else the provider and the decoded
  /// callback, or the error of a callback rejected by its decoder or by the `--state` / `--redirect-uri` /
  /// `--issuer` checks: the detector's own form. (The hot path, `--provider auto` without checks, does not
  /// make one: it writes from `ProviderDetector.decode(url:scannedQuery:ssoPolicy:decoded:rejected:)`.)
  typealias Result = DetectedCallback?

  /// Decodes (and, when asked, validates) the callback of `url`, whose parameters are `body` when given
  /// (Apple's `form_post`), else its query or fragment.
  func decode(_ url: ParsedURL, body: FormParameters?) -> Result {
    // (`if case`: comparing the `ParsedURL?` with `nil` copied it through Optional's generic witness.)
    var checks = state != nil || issuer != nil
    if case .some = redirectURI { checks = true }
    if provider == .auto && !checks { return Self.detectAndDecode(url, body: body) }
    return decodeAndCheck(url, body: body, checks: checks)
  }

  /// The decoder a matched route's provider picks when `--provider` is `auto`; `nil` (keep the options' own)
  /// for a route without a provider, no match, or a named `--provider`.
  func routeProvider(_ match: RouteMatch?) -> ProviderOption? {
    guard provider == .auto, let name = match?.provider, let chosen = ProviderOption(rawValue: name.rawValue),
      chosen != .auto
    else { return nil }
    return chosen
  }

  /// Whether the record writer decodes with a scan of the query it makes itself (`--provider auto`
  /// without checks or a body): then the record writer feeds the pairs it lists to a ``CallbackQueryScan``.
  func usesScannedQuery(body: FormParameters?) -> Bool {
    guard provider == .auto, state == nil, issuer == nil else { return false }
    if case .some = redirectURI { return false }
    if case .some = body { return false }
    return true
  }

  /// `--provider auto` without checks: detection and decoding share one scan of the parameters (of the URL's
  /// own, read from its text). Static, so that the options are not copied for it.
  private static func detectAndDecode(_ url: ParsedURL, body: FormParameters?) -> Result {
    if let body { return ProviderDetector.decode(url: url, parameters: body) }
    return ProviderDetector.decode(url: url)
  }

  /// A named provider, or any provider with the `--state` / `--redirect-uri` / `--issuer` checks.
  @inline(never)
  private func decodeAndCheck(_ url: ParsedURL, body: FormParameters?, checks: Bool) -> Result {
    let provider: Provider
    let parameters = body ?? ProviderDetector.callbackParameters(of: url)
    switch self.provider {
    case .none: return nil
    case .auto:
      guard let detected = ProviderDetector.detect(url: url, parameters: parameters) else { return nil }
      provider = detected
    case .sber: provider = .sber
    case .vk: provider = .vk
    case .tid: provider = .tid
    case .apple: provider = .apple
    case .oauth2: provider = .oauth2
    }
    do throws(CallbackError) {
      if checks && !(provider == .sber && SberSeamlessLogin.isSeamlessLogin(parameters)) {
        // Only what was given is checked: a missing option takes the callback's own value.
        let pending = PendingAuthorization(
          provider: provider, redirectURI: redirectURI ?? url,
          state: state ?? parameters.first(named: "state")?.value().flatMap { $0.isEmpty ? nil : $0 },
          issuer: issuer ?? parameters.first(named: "iss")?.value().flatMap { $0.isEmpty ? nil : $0 })
        return DetectedCallback(provider: provider, result: .success(try pending.validate(url, parameters: parameters)))
      }
      return DetectedCallback(
        provider: provider, result: .success(try ProviderCallback(provider: provider, parameters: parameters)))
    } catch {
      return DetectedCallback(provider: provider, result: .failure(error))
    }
  }

  /// `text` (a query or fragment) with the values of ``secretNames`` replaced by `<redacted>`.
  static func redactFormText(_ text: Substring) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    var first = true
    for piece in text.split(separator: "&", omittingEmptySubsequences: false) {
      if !first { out += "&" }
      first = false
      if let equals = piece.firstIndex(of: "="),
        isSecret(FormParameters.decode(piece[..<equals]))
      {
        out += piece[...equals]
        out += redacted
      } else {
        out += piece
      }
    }
    return out
  }

  /// `href` with its userinfo and the secret values of its query and fragment redacted.
  static func redactHref(_ url: ParsedURL) -> String {
    guard url.query != nil || url.fragment != nil || !url.username.isEmpty || !url.password.isEmpty else {
      return url.href
    }
    return redactURLText(url.href[...])
  }

  /// `text`, a URL or text that may hold one, with what `--redact` hides replaced by `<redacted>`: the userinfo
  /// (`scheme://user:pass@host` gives `scheme://<redacted>@host`) and the values of ``secretNames`` in what
  /// follows the first `?` or `#` (read as form text, as ``redactFormText(_:)`` does). On a URL's
  /// serialization this is exact: `@`, `?` and `#` are percent-encoded wherever they would be ambiguous. It
  /// is also applied to the `found` text of a rejected callback (``redactError(_:)``), which quotes a URL
  /// or a value.
  static func redactURLText(_ text: Substring) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    let cut = text.firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
    var head = text[..<cut]
    // The authority is what follows the first ':' when "//" comes right after it (as in a serialization:
    // `myapp:/a/http://u@h` has no authority).
    if let colon = head.firstIndex(of: ":"), head[head.index(after: colon)...].hasPrefix("//") {
      let slashes = colon..<head.index(colon, offsetBy: 3)
      let authorityEnd = head[slashes.upperBound...].firstIndex(of: "/") ?? head.endIndex
      if let at = head[slashes.upperBound..<authorityEnd].lastIndex(of: "@") {
        out += head[..<slashes.upperBound]
        out += redacted
        head = head[at...]
      }
    }
    out += head
    var rest = text[cut...]
    if rest.first == "?" {
      let end = rest.firstIndex(of: "#") ?? rest.endIndex
      out += "?"
      out += redactFormText(rest[rest.index(after: rest.startIndex)..<end])
      rest = rest[end...]
    }
    if rest.first == "#" {
      out += "#"
      out += redactFormText(rest.dropFirst())
    }
    return out
  }

  /// A rejected callback's error as `--redact` writes it: what it `found` is hidden when it concerns a secret
  /// parameter, else redacted as URL text (the redirect URI of a `redirect-mismatch` keeps no userinfo, an
  /// unparsable Sber base URL no secret query value). The descriptions quote the redacted text.
  static func redactError(_ error: CallbackError) -> CallbackError {
    guard let found = error.found else { return error }
    var redactedError = error
    if let parameter = error.parameter, isSecret(parameter) {
      redactedError.found = redacted
    } else {
      redactedError.found = redactURLText(found[...])
    }
    return redactedError
  }
}

extension ProviderCallback {
  /// Whether this is a VK ID 2.x success (whose `expires_in` the record writes as a number).
  fileprivate var isVKSuccess: Bool {
    if case .vk(.success) = self { return true }
    return false
  }
}

extension RecordWriter {
  /// Writes the value of `"callback"` for `result` (`null`, or the decoded or rejected callback's object).
  /// Values that are slices of `clean` (the record's href, when it has nothing to escape) are written without
  /// an escape check.
  mutating func callback(_ result: CallbackOptions.Result, redact: Bool, clean: CleanBytes) {
    guard let result else { return json.null() }
    switch result.result {
    case .success(let callback): decoded(callback, redact: redact, clean: clean)
    case .failure(let error): rejected(result.provider, error, redact: redact)
    }
  }

  /// Writes the object of a decoded callback (its keys selected by `--fields`, when they are).
  mutating func decoded(_ callback: ProviderCallback, redact: Bool, clean: CleanBytes) {
    if projecting, let names = fields!.callbackKeys { return selectedDecoded(callback, names, redact: redact, clean: clean) }
    json.raw("{\"provider\":")
    json.raw(Self.quoted(callback.provider))
    json.raw(",\"outcome\":")
    let outcome = callback.outcome
    json.raw(Self.quoted(outcome))
    let vkSuccess = callback.isVKSuccess
    callback.forEachValueBytes { name, value in
      json.byte(UInt8(ascii: ","))
      json.string(name)
      json.byte(UInt8(ascii: ":"))
      callbackValue(name, value, vkSuccess: vkSuccess, redact: redact, clean: clean)
    }
    // Only an error has a provider error (and asking costs a walk through the result).
    if outcome == .error, let error = callback.providerError {
      json.raw(",\"error\":")
      errorObject(code: error.code.rawValue, raw: error.code.rawValue, parameter: nil, en: error.descriptionEN, ru: error.descriptionRU)
    }
    json.byte(UInt8(ascii: "}"))
  }

  /// ``decoded(_:redact:clean:)`` with the callback's keys `names` (`--fields callback.KEY`).
  @inline(never)
  private mutating func selectedDecoded(_ callback: ProviderCallback, _ names: [String], redact: Bool, clean: CleanBytes) {
    var members = ObjectMembers(names)
    json.byte(UInt8(ascii: "{"))
    if members.next("\"provider\":", &json) { json.raw(Self.quoted(callback.provider)) }
    let outcome = callback.outcome
    if members.next("\"outcome\":", &json) { json.raw(Self.quoted(outcome)) }
    let vkSuccess = callback.isVKSuccess
    callback.forEachValueBytes { name, value in
      if members.next(name: name, &json) {
        callbackValue(name, value, vkSuccess: vkSuccess, redact: redact, clean: clean)
      }
    }
    if outcome == .error, members.includes("error"), let error = callback.providerError, members.next("\"error\":", &json) {
      errorObject(code: error.code.rawValue, raw: error.code.rawValue, parameter: nil, en: error.descriptionEN, ru: error.descriptionRU)
    }
    json.byte(UInt8(ascii: "}"))
  }

  /// Writes one value of a decoded callback: `<redacted>` for a secret with `--redact`, VK ID's `expires_in`
  /// as a JSON number (its decoder accepts only 1 to 10 ASCII digits; the name is compared only for a VK
  /// success, and its length first: no other VK value name has 10 bytes), else the decoded text.
  @inline(__always)
  private mutating func callbackValue(
    _ name: String, _ value: FormParameters.UnsafeDecodedBytes, vkSuccess: Bool, redact: Bool, clean: CleanBytes
  ) {
    if redact && CallbackOptions.isSecret(name) {
      json.string(CallbackOptions.redacted)
    } else if vkSuccess && name.utf8.count == 10 && name == "expires_in", let seconds = VKIDCallback.lifetime(value.raw) {
      json.integer(seconds)  // (not the bytes as they are: `0600` is not a JSON number)
    } else {
      formDecoded(value, clean)
    }
  }

  /// Writes the object of a callback rejected by its decoder or by the checks.
  mutating func rejected(_ provider: Provider, _ error: CallbackError, redact: Bool) {
    let error = redact ? CallbackOptions.redactError(error) : error
    var members = ObjectMembers(projecting ? fields!.callbackKeys : nil)
    json.byte(UInt8(ascii: "{"))
    if members.next("\"provider\":", &json) { json.raw(Self.quoted(provider)) }
    if members.next("\"outcome\":", &json) { json.raw("\"rejected\"") }
    if members.next("\"error\":", &json) {
      errorObject(
        code: error.code.rawValue, raw: error.found, parameter: error.parameter, en: error.descriptionEN,
        ru: error.descriptionRU, providerError: error.providerError)
    }
    json.byte(UInt8(ascii: "}"))
  }

  /// A provider's name as a JSON string, written as it is (a `String` went through the escaping writer).
  private static func quoted(_ provider: Provider) -> StaticString {
    switch provider {
    case .sber: "\"sber\""
    case .vk: "\"vk\""
    case .tid: "\"tid\""
    case .apple: "\"apple\""
    case .oauth2: "\"oauth2\""
    }
  }

  /// An outcome's name as a JSON string.
  private static func quoted(_ outcome: CallbackOutcome) -> StaticString {
    switch outcome {
    case .success: "\"success\""
    case .cancelled: "\"cancelled\""
    case .unavailable: "\"unavailable\""
    case .error: "\"error\""
    case .seamless: "\"seamless\""
    case .debugSuccess: "\"debug-success\""
    case .implicitGrant: "\"implicit-grant\""
    case .idTokenGrant: "\"id-token-grant\""
    }
  }

  /// The value of a callback's `"error"`, `{…}` (its keys selected by `--fields callback.error.KEY`, when they
  /// are); a rejected callback that carried the provider's own error (a state mismatch on an error callback)
  /// reports it too, under `provider_error`: one never hides the other.
  private mutating func errorObject(
    code: String, raw: String?, parameter: String?, en: String, ru: String, providerError: ProviderError? = nil
  ) {
    var members = ObjectMembers(projecting ? fields!.callbackErrorKeys : nil)
    json.byte(UInt8(ascii: "{"))
    if members.next("\"code\":", &json) { json.string(code) }
    if members.next("\"raw\":", &json) {
      if let raw { json.string(raw) } else { json.null() }
    }
    if let parameter, members.next("\"parameter\":", &json) { json.string(parameter) }
    if members.next("\"description_en\":", &json) { json.string(en) }
    if members.next("\"description_ru\":", &json) { json.string(ru) }
    if let providerError, members.next("\"provider_error\":", &json) {
      json.raw("{\"code\":")
      json.string(providerError.code.rawValue)
      if let description = providerError.errorDescription {
        json.raw(",\"error_description\":")
        json.string(description)
      }
      if let uri = providerError.errorURI {
        json.raw(",\"error_uri\":")
        json.string(uri)
      }
      json.raw(",\"description_en\":")
      json.string(providerError.code.descriptionEN)
      json.raw(",\"description_ru\":")
      json.string(providerError.code.descriptionRU)
      json.byte(UInt8(ascii: "}"))
    }
    json.byte(UInt8(ascii: "}"))
  }
}
