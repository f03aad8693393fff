/// LinkParse: parse identity-provider callback URLs into typed, validated results.
///
/// `import LinkParse` brings in every module of the package:
/// - `LinkParseCore`: ``ParsedURL`` (the WHATWG URL parser) and ``FormParameters``.
/// - Foundation interop: `ParsedURL(_: URL)` and `URL(_: ParsedURL)`.
@_exported import LinkParseCore
