// A provider's error JSON in a non-2xx answer, read with LinkParseOAuth's strict parser.

internal import LinkParseOAuth
internal import LinkParseProviders
import LinkParseCore

/// Reads a provider's error JSON (`{"error":"invalid_grant","error_description":…}`); anything that is not
/// one (HTML, an empty body, JSON without a string `error`) is `nil`.
enum ProviderErrorBody {
  static func read(_ body: [UInt8], provider: Provider = .oauth2) -> OAuthErrorResponse? {
    guard !body.isEmpty else { return nil }
    return try? OAuthErrorResponse(json: body, provider: provider)
  }
}
