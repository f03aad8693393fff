// MERGE: a stand-in until LinkParseOAuth's `OAuthErrorResponse(json:)` exists on this branch. After the merge,
// the body of `read(_:)` becomes the one line `try? OAuthErrorResponse(json: body)`, and the Foundation import
// and `named` go (nothing else in LinkParseHTTP reads error JSON).

#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import LinkParseOAuth
internal import LinkParseProviders

/// Reads a provider's error JSON (`{"error":"invalid_grant","error_description":…}`) with Foundation's
/// decoder, leniently: anything that is not a JSON object with a string `error` is not one (`nil`).
enum ProviderErrorBody {
  /// The members with properties of their own in ``OAuthErrorResponse``.
  static let named: Set<String> = ["error", "error_description", "error_message", "error_uri", "state"]

  static func read(_ body: [UInt8]) -> OAuthErrorResponse? {
    // MERGE: replace the rest of this body with `try? OAuthErrorResponse(json: body)`.
    guard !body.isEmpty, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
      case .object(let members) = value, let error = value["error"]?.string, !error.isEmpty
    else { return nil }
    return OAuthErrorResponse(
      error: OAuthErrorCode(rawValue: error),
      errorDescription: value["error_description"]?.string ?? value["error_message"]?.string,
      errorURI: value["error_uri"]?.string,
      state: value["state"]?.string,
      additionalFields: .object(members.filter { !named.contains($0.key) }),
      rawBody: String(decoding: body, as: UTF8.self))
  }
}
