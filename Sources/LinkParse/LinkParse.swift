/// LinkParse: parse identity-provider callback URLs into typed, validated results.
///
/// `import LinkParse` brings in every module of the package:
/// - `LinkParseCore`: ``ParsedURL`` (the WHATWG URL parser) and ``FormParameters``.
/// - `LinkParseRouter`: ``Router`` (compiled route patterns with PCRE2 constraints, deterministic priority,
///   ambiguity checks, `explain` and reverse routing), ``Route``, ``RouteMatch``.
/// - `LinkParseProviders`: Sber ID, VK ID, T-ID, Sign in with Apple and OAuth 2.0 / OIDC callback decoders,
///   and ``PendingAuthorization`` (the check of a callback against the request it answers).
/// - `LinkParseAuthorization`: authorization-request builders, ``PKCE``, ``LoginStart``, the pending-authorization
///   stores and their one consume policy, ``ConsumedAuthorization``.
/// - `LinkParseOAuth`: token, refresh, revoke and user-info requests, their responses, id_tokens decoded.
/// - `LinkParseIDToken`: ``IDTokenVerifier``, id_token verification against a JWKS (jwt-kit).
/// - Foundation interop: `ParsedURL(_: URL)` and `URL(_: ParsedURL)`.
@_exported import LinkParseCore
@_exported import LinkParseRouter
@_exported import LinkParseProviders
@_exported import LinkParseAuthorization
@_exported import LinkParseOAuth
@_exported import LinkParseIDToken
