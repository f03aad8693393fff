// One type over every provider's result (the `auto` detector is in ProviderDetector.swift).

@_spi(Bytes) public import LinkParseCore

/// What a callback amounts to, across providers.
///
/// ```swift
/// try ProviderCallback(provider: .tid, parameters: FormParameters("unavailable")).outcome  // .unavailable
/// try ProviderCallback(provider: .tid, parameters: FormParameters("result=success")).outcome  // .debugSuccess
/// ```
public enum CallbackOutcome: String, Sendable, Hashable, Codable {
  /// An authorization code to exchange: ``ProviderCallback/code`` is never `nil` with this outcome.
  case success
  /// The user cancelled.
  case cancelled
  /// The provider is not available to this user (T-ID).
  case unavailable
  /// The provider reported an error.
  case error
  /// A Sber seamless-login link (inbound, before any request).
  case seamless
  /// The T-ID iOS debug app's `result=success` stub: the debug app reports success but sends no code, so
  /// there is nothing to exchange (``ProviderCallback/code`` is `nil`). Treat it as success only in debug
  /// builds that use the debug app. Raw value `debug-success`.
  ///
  /// ```swift
  /// ProviderCallback.tid(.debugResult("success")).outcome           // .debugSuccess
  /// ProviderCallback.tid(.debugResult("success")).outcome.rawValue  // "debug-success"
  /// ```
  case debugSuccess = "debug-success"
  /// An OAuth 2.0 implicit-flow grant (``OAuth2Callback/implicit(_:)``): the access token itself, with no code
  /// to exchange (``ProviderCallback/code`` is `nil`). Raw value `implicit-grant`.
  ///
  /// ```swift
  /// let url = try ParsedURL("https://client.example/cb#access_token=T&token_type=Bearer&state=s")
  /// try ProviderDetector.decode(url: url)!.result.get().outcome  // .implicitGrant
  /// ```
  case implicitGrant = "implicit-grant"
  /// A Sign in with Apple `response_type=id_token` callback (``AppleCallback/idTokenGrant(_:)``): the id_token
  /// itself, with no code to exchange (``ProviderCallback/code`` is `nil`). The login is complete once the
  /// token is verified (its `nonce` against the pending authorization's). Raw value `id-token-grant`.
  ///
  /// ```swift
  /// try ProviderCallback(provider: .apple, parameters: FormParameters("state=s&id_token=eyJ…")).outcome  // .idTokenGrant
  /// ```
  case idTokenGrant = "id-token-grant"
}

/// A decoded callback of any provider.
///
/// Decoding scans the parameters once. The decoded values of every provider's result (`code`, `state`,
/// `device_id`, …) are `Substring`s: slices of the URL or body they came from when they need no
/// percent-decoding (no copy, no allocation), decoded copies otherwise. Use `String(value)` to keep one
/// independently of its source.
///
/// ```swift
/// let url = try ParsedURL("vk7915193://?code=c&device_id=d&state=s&vkconnect_auth_provider_method=external_auth")
/// let params = ProviderDetector.callbackParameters(of: url)
/// if let provider = ProviderDetector.detect(url: url, parameters: params) {
///   let callback = try ProviderCallback(provider: provider, parameters: params)
///   callback.outcome  // .success
///   callback.code     // "c"
/// }
/// ```
public enum ProviderCallback: Sendable, Hashable {
  /// A Sber ID callback.
  case sber(SberIDCallback)
  /// A Sber seamless-login link.
  case sberSeamless(SberSeamlessLogin)
  /// A VK ID callback.
  case vk(VKIDCallback)
  /// A T-ID callback.
  case tid(TIDCallback)
  /// A Sign in with Apple callback.
  case apple(AppleCallback)
  /// A generic OAuth 2.0 / OIDC response.
  case oauth2(OAuth2Callback)

  /// Decodes `parameters` with `provider`'s decoder. For ``Provider/sber`` a `sberIDRedirect` key (any
  /// case) makes it a seamless-login link, checked against `ssoPolicy`.
  ///
  /// ```swift
  /// let callback = try ProviderCallback(provider: .apple, parameters: FormParameters(utf8: body))
  /// ```
  ///
  /// - Throws: ``CallbackError`` from the provider's decoder.
  public init(
    provider: Provider, parameters: FormParameters, ssoPolicy: SberSSOTrustPolicy = .default
  ) throws(CallbackError) {
    var fields = CallbackFields(parameters)
    if provider == .sber && fields.hasSberIDRedirect {
      self = .sberSeamless(try SberSeamlessLogin(parameters, policy: ssoPolicy))
    } else {
      try self.init(provider: provider, fields: &fields)
    }
  }

  /// Decodes already scanned parameters (not a seamless-login link). A successful result takes `fields`'
  /// text (see ``CallbackFields/takeText()``).
  init(provider: Provider, fields: inout CallbackFields) throws(CallbackError) {
    switch provider {
    case .sber: self = .sber(try SberIDCallback(&fields))
    case .vk: self = .vk(try VKIDCallback(&fields))
    case .tid: self = .tid(try TIDCallback(&fields))
    case .apple: self = .apple(try AppleCallback(&fields))
    case .oauth2: self = .oauth2(try OAuth2Callback(&fields))
    }
  }

  /// The provider.
  ///
  /// ```swift
  /// ProviderCallback.tid(.cancelled).provider  // .tid
  /// ```
  public var provider: Provider {
    switch self {
    case .sber, .sberSeamless: return .sber
    case .vk: return .vk
    case .tid: return .tid
    case .apple: return .apple
    case .oauth2: return .oauth2
    }
  }

  /// The outcome.
  ///
  /// ```swift
  /// ProviderCallback.apple(.cancelled(state: nil)).outcome  // .cancelled
  /// ```
  public var outcome: CallbackOutcome {
    switch self {
    case .sber(.success), .vk(.success), .vk(.legacy), .tid(.success), .apple(.success), .oauth2(.success):
      return .success
    case .oauth2(.implicit): return .implicitGrant
    case .apple(.idTokenGrant): return .idTokenGrant
    case .sber(.failure), .vk(.failure), .tid(.failure), .apple(.failure), .oauth2(.failure): return .error
    case .sberSeamless: return .seamless
    case .tid(.cancelled), .apple(.cancelled): return .cancelled
    case .tid(.unavailable): return .unavailable
    case .tid(.debugResult(let value)):
      switch value {
      case "success": return .debugSuccess  // a stub: no code to exchange
      default: return .error
      }
    }
  }

  /// The echoed `state`, if any.
  ///
  /// ```swift
  /// ProviderCallback.oauth2(try OAuth2Callback(FormParameters("code=c&state=s"))).state  // "s"
  /// ```
  public var state: Substring? {
    switch self {
    case .sber(let c): return c.state
    case .sberSeamless: return nil
    case .vk(let c): return c.state
    case .tid(let c): return c.state
    case .apple(let c): return c.state
    case .oauth2(let c): return c.state
    }
  }

  /// The authorization code on success (`nil` for an implicit-flow grant, which carries an access token
  /// instead: see ``OAuth2ImplicitGrant``).
  ///
  /// ```swift
  /// ProviderCallback.tid(try TIDCallback(FormParameters("code=c.1"))).code  // "c.1"
  /// ```
  public var code: Substring? {
    switch self {
    case .sber(.success(let s)): return s.code
    case .vk(.success(let s)): return s.code
    case .vk(.legacy(let l)): return Substring(l.code)
    case .tid(.success(let s)): return s.code
    case .apple(.success(let s)): return s.code
    case .oauth2(.success(let s)): return s.code
    default: return nil
    }
  }

  /// The provider's error, for ``CallbackOutcome/error``: the ``ProviderError`` a failure holds. A Sber ID
  /// failure without an `error` (the Android app's `result=FAILURE&error_code=5`) gives its ``SberIDFailure/rawCode``
  /// as the code, and a T-ID debug result other than `success` gives the result.
  ///
  /// ```swift
  /// ProviderCallback.vk(.failure(ProviderError(code: .accessDenied), state: nil)).providerError?.descriptionEN
  /// // "The user or the server denied access."
  /// ```
  public var providerError: ProviderError? {
    switch self {
    case .sber(.failure(let f)): return f.error ?? ProviderError(code: OAuthErrorCode(rawValue: f.rawCode))
    case .vk(.failure(let e, _)), .tid(.failure(let e, _)), .apple(.failure(let e, _)), .oauth2(.failure(let e, _, _)):
      return e
    case .tid(.debugResult(let value)) where value != "success": return ProviderError(code: OAuthErrorCode(rawValue: value))
    default: return nil
    }
  }

  /// The decoded values under the provider's own parameter names, in a stable order (`code`, `state`,
  /// `device_id`, `id_token`, `user`, `session_state`, `sso_base_url`, `token`, Sber ID's `appToken`, …; for an OAuth 2.0 implicit
  /// grant `access_token`, `token_type`, `expires_in`, `scope`, `id_token`, `state`). Raw JSON stays text.
  ///
  /// ```swift
  /// ProviderCallback.tid(try TIDCallback(FormParameters("code=c"))).values  // [("code", "c")]
  /// ```
  public var values: [(name: String, value: String)] {
    var out: [(name: String, value: String)] = []
    forEachValue { name, value in out.append((name, String(value))) }
    return out
  }

  /// Calls `body` with each of ``values`` in turn, without building the array or a `String` per value: the
  /// values are slices of the callback's text (or of a decoded copy).
  ///
  /// ```swift
  /// callback.forEachValue { name, value in print(name, value) }  // code c, state s, …
  /// ```
  public func forEachValue(_ body: (_ name: String, _ value: Substring) -> Void) {
    visitValues { name, text, span, unflagged in
      if unflagged {
        if let raw = text.raw(span) { body(name, FormParameters.decode(raw)[...]) }
      } else if let value = text.value(span) {
        body(name, value)
      }
    } other: { name, value in
      if let value { body(name, value) }
    }
  }

  /// Calls `body` with each of ``values`` in turn as bytes that decode on demand, without a `Substring` or
  /// `String` per value: a value decoded from the callback's text is a view of that text, still
  /// form-encoded; any other is a view of its own string's bytes, with nothing to decode. The views are
  /// valid during the call only. For writers that copy values out (the CLI's JSON).
  ///
  /// ```swift
  /// callback.forEachValueBytes { name, value in print(name, value.needsDecoding) }  // code false, …
  /// ```
  @_spi(Bytes) public func forEachValueBytes(_ body: (_ name: String, _ value: FormParameters.UnsafeDecodedBytes) -> Void) {
    visitValues { name, text, span, unflagged in
      text.withDecodedBytes(span, unflagged: unflagged) { body(name, $0) }
    } other: { name, value in
      guard var value else { return }
      value.withUTF8 {
        body(name, FormParameters.UnsafeDecodedBytes(raw: $0, encoding: .form, mayContainEscapes: false, mayContainPlus: false))
      }
    }
  }

  /// The one list of values both readers above see, in order, each under its parameter name: a value a
  /// result stores goes to `stored` (its text, its span, and whether it was stored unflagged: see
  /// ``CallbackText/withDecodedBytes(_:unflagged:_:)``), any other to `other`, already decoded. Absent
  /// values are skipped by the callees. (Closures rather than a generic visitor: a visitor struct holding the
  /// caller's closure needed a reabstraction thunk and a heap context per call.)
  private func visitValues(
    _ stored: (_ name: String, _ text: CallbackText, _ span: ValueSpan, _ unflagged: Bool) -> Void,
    other: (_ name: String, _ value: Substring?) -> Void
  ) {
    func visit(_ name: String, _ text: CallbackText, _ span: ValueSpan, unflagged: Bool = false) {
      stored(name, text, span, unflagged)
    }
    func visit(_ name: String, _ value: Substring?) { other(name, value) }
    switch self {
    case .sber(.success(let s)):
      visit("code", s.text, s.spans.code)
      visit("state", s.text, s.spans.state)
      visit("status", s.text, s.spans.status)
      if s.hasExtras {
        visit("appToken", s.appToken)
        let extras = s.extras
        for key in extras.keys.sorted() { visit(key, extras[key].map { $0[...] }) }
      }
    case .sber(.failure(let f)):
      visit("state", f.text, f.spans.state)
      visit(f.encoding == .androidApp ? "result" : "status", f.text, f.spans.status)
      visit("error_code", f.text, f.spans.errorCode)
      visit("error_description", f.error?.errorDescription?[...])
      visit("error_uri", f.error?.errorURI?[...])
      visit("encoding", f.encoding.rawValue[...])
    case .sberSeamless(let s):
      visit("sso_base_url", s.baseURL[...])
      visit("token", s.token?[...])
    case .vk(.success(let s)):
      visit("code", s.text, s.spans.code)
      visit("state", s.text, s.spans.state)
      visit("device_id", s.text, s.spans.deviceID)
      visit("type", s.text, s.spans.type)
      visit("expires_in", s.text, s.spans.expiresInRaw)
      visit("ext_id", s.text, s.spans.extID)
      if s.isReturnFromVKApp { visit("vkconnect_auth_provider_method", "external_auth") }
    case .vk(.legacy(let l)):
      visit("code", l.code[...])
      visit("state", l.state?[...])
      visit("user_id", l.user?.id.map { String($0)[...] })
      visit("first_name", l.user?.firstName?[...])
      visit("last_name", l.user?.lastName?[...])
      visit("email", l.user?.email?[...])
      visit("avatar", l.user?.avatar?[...])
    case .vk(.failure(let e, let state)), .tid(.failure(let e, let state)), .apple(.failure(let e, let state)):
      visit("state", state)
      visit("error_description", e.errorDescription?[...])
      visit("error_uri", e.errorURI?[...])
    case .oauth2(.failure(let e, let state, let issuer)):
      visit("state", state)
      visit("iss", issuer)
      visit("error_description", e.errorDescription?[...])
      visit("error_uri", e.errorURI?[...])
    case .tid(.success(let s)):
      visit("code", s.text, s.spans.code)
      visit("state", s.text, s.spans.state)
      visit("session_state", s.text, s.spans.sessionState)
    case .tid(.debugResult(let value)):
      visit("result", value[...])
    case .tid(.cancelled), .tid(.unavailable):
      break
    case .apple(.success(let s)), .apple(.idTokenGrant(let s)):
      visit("code", s.text, s.spans.code)
      visit("state", s.text, s.spans.state)
      visit("id_token", s.text, s.spans.idToken)
      // `user` is stored as sent (see `AppleCallback`): `userJSON` decodes it.
      visit("user", s.text, s.spans.user, unflagged: true)
    case .apple(.cancelled(let state)):
      visit("state", state)
    case .oauth2(.success(let s)):
      visit("code", s.text, s.spans.code)
      visit("state", s.text, s.spans.state)
      visit("iss", s.text, s.spans.issuer)
      visit("session_state", s.text, s.spans.sessionState)
      visit("id_token", s.text, s.spans.idToken)
    case .oauth2(.implicit(let g)):
      visit("access_token", g.text, g.spans.accessToken)
      visit("token_type", g.text, g.spans.tokenType)
      visit("expires_in", g.text, g.spans.expiresInRaw)
      visit("scope", g.text, g.spans.scope)
      visit("id_token", g.text, g.spans.idToken)
      visit("state", g.text, g.spans.state)
    }
  }
}
