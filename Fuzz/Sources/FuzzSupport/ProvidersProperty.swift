import LinkParseCore
import LinkParseProviders
import LinkParseAuthorization

/// The `providers` target: every decoder on arbitrary callback URLs and form bodies.
///
/// Input layout: one mode byte, then the bytes. Bit 0 set: the bytes are an `application/x-www-form-urlencoded`
/// body (Apple's `form_post`); clear: a URL (a body too if it does not parse). Bits 1–3 pick the provider a
/// pending authorization expects (`Provider.allCases`, wrapping).
///
/// Properties:
/// - no decoder crashes or traps; every failure is a `CallbackError` with a code and English and Russian text;
/// - `ProviderCallback(provider:parameters:)` agrees with the provider's own decoder, reports that provider,
///   and its accessors (`outcome`, `state`, `code`, `providerError`, `values`) work;
/// - a Sber seamless-login link only ever yields a base URL the trust policy allows (no open redirect);
/// - `ProviderDetector.callbackParameters(of:)` is the URL's query or fragment;
/// - `PendingAuthorization.validate` never accepts a callback whose `state` differs from the expected one
///   (except Sber's Android error grammar, which has no state, and then only as an error), and with the right state it returns what the decoder returns (or a validation error); it is repeatable;
/// - the JSON and JWT helpers (`VKIDLegacyPayload(json:)`, `UnverifiedAppleIDTokenClaims(jwt:)`) and
///   `PKCE(verifier:)` take any text;
/// - `ReturnPath` (a web login's `return_to`) accepts only a path that stays on the site: resolved against an
///   origin it keeps that origin, it never starts with `//`, and it is its own normal form.
enum ProvidersProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard let mode = data.first else { return [] }
    let input = UnsafeBufferPointer(rebasing: data[1...])
    var problems = Problems()
    let url: ParsedURL? = mode & 1 == 0 ? try? ParsedURL(utf8: input) : nil
    let parameters = url.map(ProviderDetector.callbackParameters(of:)) ?? FormParameters(utf8: input)

    if let url {
      let source = parameters.source
      problems.check(
        source.utf8.elementsEqual((url.query ?? "").utf8) || source.utf8.elementsEqual((url.fragment ?? "").utf8),
        "callbackParameters is neither the query nor the fragment of \(show(url.href))")
      _ = ProviderDetector.detect(url: url, parameters: parameters)
    }

    for provider in Provider.allCases {
      let viaEnum = Decoded { () throws(CallbackError) in try ProviderCallback(provider: provider, parameters: parameters) }
      let direct: Decoded
      switch provider {
      case .sber:
        direct =
          SberSeamlessLogin.isSeamlessLogin(parameters)
          ? Decoded { () throws(CallbackError) in .sberSeamless(try SberSeamlessLogin(parameters)) }
          : Decoded { () throws(CallbackError) in .sber(try SberIDCallback(parameters)) }
      case .vk: direct = Decoded { () throws(CallbackError) in .vk(try VKIDCallback(parameters)) }
      case .tid: direct = Decoded { () throws(CallbackError) in .tid(try TIDCallback(parameters)) }
      case .apple: direct = Decoded { () throws(CallbackError) in .apple(try AppleCallback(parameters)) }
      case .oauth2: direct = Decoded { () throws(CallbackError) in .oauth2(try OAuth2Callback(parameters)) }
      }
      problems.check(viaEnum == direct, "\(provider): ProviderCallback \(viaEnum) but the decoder \(direct)")
      switch viaEnum {
      case .callback(let callback):
        problems.check(callback.provider == provider, "\(provider): the callback says provider \(callback.provider)")
        _ = (callback.outcome, callback.state, callback.code, callback.values)
        if let error = callback.providerError {
          problems.check(
            !error.descriptionEN.isEmpty && !error.descriptionRU.isEmpty, "\(provider): an error without a description")
        }
        if case .sberSeamless(let link) = callback { checkSeamless(link, problems: &problems) }
      case .error(let error):
        checkError(error, problems: &problems, label: "\(provider)")
      }
    }

    if let url { checkValidation(url, parameters: parameters, mode: mode, problems: &problems) }

    // Helpers that take any text.
    let text = String(decoding: input, as: UTF8.self)
    do throws(CallbackError) {
      let payload = try VKIDLegacyPayload(json: text)
      problems.check(!payload.code.isEmpty, "VKIDLegacyPayload with an empty code")
    } catch {
      checkError(error, problems: &problems, label: "VKIDLegacyPayload")
    }
    _ = UnverifiedAppleIDTokenClaims(jwt: text)
    if let pkce = PKCE(verifier: text) {
      problems.check(pkce.challenge == PKCE.s256Challenge(for: text), "PKCE challenge")
      problems.check(pkce.challenge.utf8.count == 43, "a S256 challenge is 43 characters: \(pkce.challenge)")
    }

    if let path = ReturnPath(text) {
      let value = path.value
      problems.check(value.hasPrefix("/") && !value.hasPrefix("//"), "ReturnPath \(show(value)) is not a path")
      let resolved = try? ParsedURL("https://site.example" + value)
      problems.check(
        resolved?.host == "site.example" && resolved?.port == nil && resolved?.username.isEmpty == true
          && resolved?.fragment == nil,
        "ReturnPath \(show(value)) leaves the site")
      problems.check(ReturnPath(value) == path, "ReturnPath \(show(value)) is not its own normal form")
    }

    if !problems.list.isEmpty { problems.add("mode \(mode), input \(show(input))") }
    return problems.list
  }

  static func checkError(_ error: CallbackError, problems: inout Problems, label: String) {
    problems.check(
      !error.code.rawValue.isEmpty && !error.descriptionEN.isEmpty && !error.descriptionRU.isEmpty,
      "\(label): an error without a code or description: \(error)")
  }

  /// Only hosts and schemes the default trust policy names get through.
  static func checkSeamless(_ link: SberSeamlessLogin, problems: inout Problems) {
    let policy = SberSSOTrustPolicy.default
    guard let base = try? ParsedURL(link.baseURL) else {
      return problems.add("seamless login: the base URL \(show(link.baseURL)) does not parse")
    }
    let scheme = base.scheme.lowercased()
    let allowed =
      policy.allowedSchemes.contains(scheme)
      || (scheme == "https" && policy.allowedHTTPSHosts.contains((base.host ?? "").lowercased()))
    problems.check(allowed, "seamless login accepted an untrusted base URL \(show(link.baseURL))")
    problems.check(base.username.isEmpty && base.password.isEmpty, "seamless login base with userinfo: \(show(link.baseURL))")
  }

  static func checkValidation(_ url: ParsedURL, parameters: FormParameters, mode: UInt8, problems: inout Problems) {
    let provider = Provider.allCases[Int(mode >> 1) % Provider.allCases.count]
    // The redirect URI: the URL without its query and fragment.
    let href = url.href
    let end = href.firstIndex { $0 == "?" || $0 == "#" } ?? href.endIndex
    guard let redirect = try? ParsedURL(String(href[..<end])) else { return }
    let found = parameters.first(named: "state")?.value()
    let expected = found.flatMap { $0.isEmpty ? nil : $0 }
    let now: Int64 = 1_800_000_000

    // The right state: the decoder's answer, or a validation error; the same twice.
    let right = PendingAuthorization(provider: provider, redirectURI: redirect, state: expected)
    let first = Decoded { () throws(CallbackError) in try right.validate(url, now: now) }
    let second = Decoded { () throws(CallbackError) in try right.validate(url, now: now) }
    problems.check(first == second, "validate is not repeatable: \(first) then \(second)")
    if case .callback(let callback) = first {
      let decoded = Decoded { () throws(CallbackError) in try ProviderCallback(provider: provider, parameters: parameters) }
      problems.check(decoded == first, "validate returned \(callback), the decoder \(decoded)")
    }
    if case .error(let error) = first { checkError(error, problems: &problems, label: "validate") }

    // A wrong state never validates.
    for wrong in [(expected ?? "") + "x", "\u{0}"] where wrong != expected {
      let pending = PendingAuthorization(provider: provider, redirectURI: redirect, state: wrong)
      let outcome = Decoded { () throws(CallbackError) in try pending.validate(url, now: now) }
      // The one documented exception: Sber's Android error grammar carries no state; it may only be an error.
      if case .callback(let callback) = outcome, !(provider == .sber && expected == nil && callback.outcome == .error) {
        problems.add(
          "validate accepted state \(found.map(show) ?? "none") for expected \(pending.state.map(show) ?? "none"): \(callback)")
      }
    }
  }
}

/// A decoder's result, comparable.
enum Decoded: Equatable, CustomStringConvertible {
  case callback(ProviderCallback)
  case error(CallbackError)

  init(_ decode: () throws(CallbackError) -> ProviderCallback) {
    do { self = .callback(try decode()) } catch { self = .error(error) }
  }

  var description: String {
    switch self {
    case .callback(let callback): return "callback \(callback.provider) \(callback.outcome)"
    case .error(let error): return "error \(error.code)"
    }
  }
}
