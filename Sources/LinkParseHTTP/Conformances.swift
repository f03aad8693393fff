// LinkParseOAuth's response types, decodable by OAuthHTTPClient.perform(_:as:). Each type's
// `init(json: some Collection<UInt8>, …) throws(OAuthResponseError)` witnesses OAuthResponseDecodable's
// requirement; the user-info types that take no provider get a one-line forwarding initializer.

public import LinkParseOAuth
import LinkParseProviders
public import LinkParseCore

/// A token endpoint's answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let tokens = try await client.perform(request, as: TokenResponse.self)
/// ```
extension TokenResponse: OAuthResponseDecodable {}

/// VK ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let user = try await client.perform(request, as: VKUserInfo.self)
/// ```
extension VKUserInfo: OAuthResponseDecodable {
  public init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { try self.init(json: json) }
}

/// Sber ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let user = try await client.perform(request, as: SberUserInfo.self)
/// ```
extension SberUserInfo: OAuthResponseDecodable {
  public init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { try self.init(json: json) }
}

/// T-ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let user = try await client.perform(request, as: TIDUserInfo.self)
/// ```
extension TIDUserInfo: OAuthResponseDecodable {
  public init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { try self.init(json: json) }
}

/// An OIDC `userinfo` answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let user = try await client.perform(request, as: OIDCUserInfo.self)
/// ```
extension OIDCUserInfo: OAuthResponseDecodable {}

/// T-ID's token introspection, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// let introspection = try await client.perform(request, as: TIDIntrospection.self)
/// ```
extension TIDIntrospection: OAuthResponseDecodable {
  public init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { try self.init(json: json) }
}

/// A revocation answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
///
/// ```swift
/// _ = try await client.perform(request, as: RevokeResponse.self)
/// ```
extension RevokeResponse: OAuthResponseDecodable {}
