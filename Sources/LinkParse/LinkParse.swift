/// LinkParse: parse identity-provider callback URLs into typed, validated results.
///
/// `import LinkParse` brings in every module of the package:
/// - `LinkParseCore`: ``ParsedURL`` (the WHATWG URL parser) and ``FormParameters``.
/// - `LinkParseRouter`: ``Router`` (compiled route patterns with PCRE2 constraints, deterministic priority,
///   ambiguity checks, `explain` and reverse routing), ``Route``, ``RouteMatch``.
/// - Foundation interop: `ParsedURL(_: URL)` and `URL(_: ParsedURL)`.
@_exported import LinkParseCore
@_exported import LinkParseRouter
