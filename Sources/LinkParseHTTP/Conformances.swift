// MERGE: LinkParseOAuth's response types, decodable by OAuthHTTPClient.perform(_:as:).
//
// They are written by another branch and do not exist on this one yet. After merging it, uncomment the block
// below (each type's `init(json: some Collection<UInt8>, provider: Provider) throws(OAuthResponseError)`
// satisfies OAuthResponseDecodable's `init(json: [UInt8], provider:)` as it stands: a generic initializer
// witnesses the non-generic requirement). A type whose initializer has another shape (e.g. RevokeResponse
// without `provider:`) needs a body instead of `{}`:
//
//   extension RevokeResponse: OAuthResponseDecodable {
//     public init(json: [UInt8], provider: Provider) throws(OAuthResponseError) { try self.init(json: json) }
//   }
//
// Also, in ProviderErrorBody.swift: the body of `read(_:)` becomes `try? OAuthErrorResponse(json: body)` (and its
// Foundation import and `named` set go).

// public import LinkParseOAuth
// public import LinkParseProviders
//
// /// A token endpoint's answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let tokens = try await client.perform(request, as: TokenResponse.self)
// /// ```
// extension TokenResponse: OAuthResponseDecodable {}
//
// /// VK ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let user = try await client.perform(request, as: VKUserInfo.self)
// /// ```
// extension VKUserInfo: OAuthResponseDecodable {}
//
// /// Sber ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let user = try await client.perform(request, as: SberUserInfo.self)
// /// ```
// extension SberUserInfo: OAuthResponseDecodable {}
//
// /// T-ID's user info, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let user = try await client.perform(request, as: TIDUserInfo.self)
// /// ```
// extension TIDUserInfo: OAuthResponseDecodable {}
//
// /// An OIDC `userinfo` answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let user = try await client.perform(request, as: OIDCUserInfo.self)
// /// ```
// extension OIDCUserInfo: OAuthResponseDecodable {}
//
// /// T-ID's token introspection, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// let introspection = try await client.perform(request, as: TIDIntrospection.self)
// /// ```
// extension TIDIntrospection: OAuthResponseDecodable {}
//
// /// A revocation answer, decodable by ``OAuthHTTPClient/perform(_:as:)``.
// ///
// /// ```swift
// /// _ = try await client.perform(request, as: RevokeResponse.self)
// /// ```
// extension RevokeResponse: OAuthResponseDecodable {}
