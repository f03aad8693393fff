// What `OAuthHTTPClient.perform(_:as:)` decodes a successful answer into. LinkParseOAuth's response types
// (TokenResponse, the user-info types, RevokeResponse, …) conform in Conformances.swift.

public import LinkParseOAuth
import LinkParseProviders
public import LinkParseCore

/// A provider's JSON answer that can be decoded from the bytes of a 2xx body.
///
/// ``OAuthHTTPClient/perform(_:as:)`` sends the request, and on a 2xx status calls
/// ``init(json:provider:)`` with the whole body and the request's ``OAuthRequest/provider``. A decoder
/// reports every failure as an ``OAuthResponseError`` (the client fills in ``OAuthResponseError/status``).
/// A type whose initializer is generic over the bytes (`init(json: some Collection<UInt8>, provider:)`)
/// conforms with an empty extension.
///
/// ```swift
/// struct Greeting: OAuthResponseDecodable {
///   var text: String
///   init(json: [UInt8], provider: Provider) throws(OAuthResponseError) {
///     guard !json.isEmpty else { throw OAuthResponseError(.missingField, message: "empty body") }
///     text = String(decoding: json, as: UTF8.self)
///   }
/// }
/// let greeting = try await client.perform(request, as: Greeting.self)
/// ```
public protocol OAuthResponseDecodable {
  /// Decodes a 2xx body from `provider`.
  ///
  /// ```swift
  /// let tokens = try TokenResponse(json: Array(body), provider: .vk)
  /// ```
  init(json: [UInt8], provider: Provider) throws(OAuthResponseError)
}
