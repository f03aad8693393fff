// Profile answers: VK ID `user_info` / `public_info`, Sber ID user info, T-ID user info and introspection, and
// any OIDC server's userinfo (OIDC Core §5.3.2). Numbers and Booleans are read tolerantly (`2` or `"2"`,
// `true` or `"true"`); members no property names are kept.

public import LinkParseProviders
public import LinkParseCore

/// Decodes `json` as an object, throws the provider's error answer if it is one, and hands the members over.
private func readObject(
  _ json: some Collection<UInt8>, what: String, provider: Provider, expectedKey: String
) throws(OAuthResponseError) -> (JSONObjectReader, String) {
  let (r, raw) = try JSONObjectReader.parse(json, what: what)
  if let error = OAuthErrorResponse.detect(r, raw: raw, provider: provider, expectedKey: expectedKey) {
    throw OAuthResponseError(providerError: error)
  }
  return (r, raw)
}

/// VK ID's answer to `user_info` (`POST https://id.vk.ru/oauth2/user_info`) and `public_info` (the same
/// shape, with masked values): `{"user":{"user_id":"…","first_name":"…",…}}` (id.vk.ru docs, "Получение
/// данных пользователя"; `sex` 1 = female, 2 = male, 0 = unspecified [DOC/INF]).
///
/// ```swift
/// let info = try VKUserInfo(json: Array(#"{"user":{"user_id":"1234567890","first_name":"Ivan","sex":"2","verified":true}}"#.utf8))
/// info.userID     // "1234567890"
/// info.sex        // 2
/// info.verified   // true
/// ```
public struct VKUserInfo: Sendable, Hashable, Codable {
  /// `user_id` (VK sends a string; a number is accepted and kept as its digits).
  public var userID: String?
  /// `first_name`.
  public var firstName: String?
  /// `last_name`.
  public var lastName: String?
  /// `phone` (scope `phone`; masked in `public_info`).
  public var phone: String?
  /// `avatar`, a URL.
  public var avatar: String?
  /// `email` (scope `email`; masked in `public_info`).
  public var email: String?
  /// `sex`: 1 female, 2 male, 0 not given.
  public var sex: Int64?
  /// `verified`: whether VK verified the account.
  public var verified: Bool?
  /// `birthday`, as VK writes it (`DD.MM.YYYY`).
  public var birthday: String?
  /// The members of `user` the properties above do not name.
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates a profile from its values.
  ///
  /// ```swift
  /// VKUserInfo(userID: "1", firstName: "Ivan")
  /// ```
  public init(
    userID: String? = nil, firstName: String? = nil, lastName: String? = nil, phone: String? = nil,
    avatar: String? = nil, email: String? = nil, sex: Int64? = nil, verified: Bool? = nil, birthday: String? = nil,
    additionalFields: JSONValue = .object([]), rawBody: String = ""
  ) {
    self.userID = userID
    self.firstName = firstName
    self.lastName = lastName
    self.phone = phone
    self.avatar = avatar
    self.email = email
    self.sex = sex
    self.verified = verified
    self.birthday = birthday
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a `user_info` or `public_info` body.
  ///
  /// ```swift
  /// let info = try VKUserInfo(json: body)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape` (not an object, `user` not an
  ///   object), `provider-error`, `missing-field` (no `user`), `invalid-field` (`sex` or `verified` out of
  ///   grammar).
  public init(json: some Collection<UInt8>) throws(OAuthResponseError) {
    let (topReader, raw) = try readObject(json, what: "VK user info", provider: .vk, expectedKey: "user")
    var top = topReader
    guard let user = top.take("user") else {
      throw OAuthResponseError(.missingField, field: "user", message: "the VK user info has no user object")
    }
    guard case .object(let members) = user else {
      throw OAuthResponseError(.unexpectedShape, field: "user", message: "user is not an object")
    }
    var r = JSONObjectReader(members)
    userID = try r.identifier("user_id")
    firstName = try r.string("first_name")
    lastName = try r.string("last_name")
    phone = try r.identifier("phone")
    avatar = try r.string("avatar")
    email = try r.string("email")
    sex = try r.integer("sex")
    verified = try r.boolean("verified")
    birthday = try r.string("birthday")
    additionalFields = r.rest
    rawBody = raw
  }
}

/// Sber ID's user info (`GET https://oauth.sber.ru/ru/prod/sberbankid/v2.1/userinfo`; developers.sber.ru,
/// "Получение данных клиента"). Which claims arrive depends on the scopes granted.
///
/// ```swift
/// let info = try SberUserInfo(json: Array(#"{"sub":"a1b2","family_name":"Иванов","given_name":"Иван","phone_number":"+7 (999) 123-45-67"}"#.utf8))
/// info.familyName  // "Иванов"
/// ```
public struct SberUserInfo: Sendable, Hashable, Codable {
  /// `sub`: the user's identifier for this partner.
  public var sub: String
  /// `family_name`.
  public var familyName: String?
  /// `given_name`.
  public var givenName: String?
  /// `middle_name`.
  public var middleName: String?
  /// `birthdate` (`YYYY-MM-DD` [INF]).
  public var birthdate: String?
  /// `email`.
  public var email: String?
  /// `phone_number`.
  public var phoneNumber: String?
  /// `gender` [INF: documented as a number, 1 male / 2 female; a string is accepted as its text].
  public var gender: String?
  /// Every member the properties above do not name (`aud`, `iss`, `identification`, `address_reg`, …).
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates a profile from its values.
  ///
  /// ```swift
  /// SberUserInfo(sub: "a1b2", givenName: "Иван")
  /// ```
  public init(
    sub: String, familyName: String? = nil, givenName: String? = nil, middleName: String? = nil,
    birthdate: String? = nil, email: String? = nil, phoneNumber: String? = nil, gender: String? = nil,
    additionalFields: JSONValue = .object([]), rawBody: String = ""
  ) {
    self.sub = sub
    self.familyName = familyName
    self.givenName = givenName
    self.middleName = middleName
    self.birthdate = birthdate
    self.email = email
    self.phoneNumber = phoneNumber
    self.gender = gender
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a Sber user-info body (an `error` member, or the API gateway's `httpCode` answer, is a
  /// `provider-error`).
  ///
  /// ```swift
  /// let info = try SberUserInfo(json: body)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape`, `provider-error`, `missing-field`
  ///   (no `sub`).
  public init(json: some Collection<UInt8>) throws(OAuthResponseError) {
    let (rReader, raw) = try readObject(json, what: "Sber user info", provider: .sber, expectedKey: "sub")
    var r = rReader
    sub = try r.requiredSubject(of: "the Sber user info")
    familyName = try r.string("family_name")
    givenName = try r.string("given_name")
    middleName = try r.string("middle_name")
    birthdate = try r.string("birthdate")
    email = try r.string("email")
    phoneNumber = try r.identifier("phone_number")
    gender = try r.identifier("gender")
    additionalFields = r.rest
    rawBody = raw
  }
}

/// T-ID's user info (`POST https://id.tbank.ru/userinfo/userinfo`; developer.tbank.ru/docs/products/TID,
/// "Получение данных пользователя"): OIDC standard claims.
///
/// ```swift
/// let info = try TIDUserInfo(json: Array(#"{"sub":"7c1e","email":"a@b.ru","email_verified":"true"}"#.utf8))
/// info.emailVerified  // true
/// ```
public struct TIDUserInfo: Sendable, Hashable, Codable {
  /// `sub`.
  public var sub: String
  /// `name`.
  public var name: String?
  /// `given_name`.
  public var givenName: String?
  /// `family_name`.
  public var familyName: String?
  /// `middle_name`.
  public var middleName: String?
  /// `birthdate`.
  public var birthdate: String?
  /// `gender` (`male`, `female`; a number is kept as its text).
  public var gender: String?
  /// `email`.
  public var email: String?
  /// `email_verified` (`true` or `"true"`).
  public var emailVerified: Bool?
  /// `phone_number`.
  public var phoneNumber: String?
  /// `phone_number_verified`.
  public var phoneNumberVerified: Bool?
  /// Every member the properties above do not name.
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates a profile from its values.
  ///
  /// ```swift
  /// TIDUserInfo(sub: "7c1e", email: "a@b.ru")
  /// ```
  public init(
    sub: String, name: String? = nil, givenName: String? = nil, familyName: String? = nil, middleName: String? = nil,
    birthdate: String? = nil, gender: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
    phoneNumber: String? = nil, phoneNumberVerified: Bool? = nil, additionalFields: JSONValue = .object([]),
    rawBody: String = ""
  ) {
    self.sub = sub
    self.name = name
    self.givenName = givenName
    self.familyName = familyName
    self.middleName = middleName
    self.birthdate = birthdate
    self.gender = gender
    self.email = email
    self.emailVerified = emailVerified
    self.phoneNumber = phoneNumber
    self.phoneNumberVerified = phoneNumberVerified
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a T-ID user-info body.
  ///
  /// ```swift
  /// let info = try TIDUserInfo(json: body)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape`, `provider-error`, `missing-field`
  ///   (no `sub`), `invalid-field` (a `*_verified` that is not a Boolean).
  public init(json: some Collection<UInt8>) throws(OAuthResponseError) {
    let (rReader, raw) = try readObject(json, what: "T-ID user info", provider: .tid, expectedKey: "sub")
    var r = rReader
    sub = try r.requiredSubject(of: "the T-ID user info")
    name = try r.string("name")
    givenName = try r.string("given_name")
    familyName = try r.string("family_name")
    middleName = try r.string("middle_name")
    birthdate = try r.string("birthdate")
    gender = try r.identifier("gender")
    email = try r.string("email")
    emailVerified = try r.boolean("email_verified")
    phoneNumber = try r.identifier("phone_number")
    phoneNumberVerified = try r.boolean("phone_number_verified")
    additionalFields = r.rest
    rawBody = raw
  }
}

/// A token introspection answer (RFC 7662 §2.2), as T-ID's `POST https://id.tbank.ru/auth/introspect`
/// returns it; any RFC 7662 server's answer decodes too (``TokenIntrospection``).
///
/// ```swift
/// let info = try TIDIntrospection(json: Array(#"{"active":true,"scope":"profile phone","client_id":"c","aud":["a","b"],"exp":"1700000000"}"#.utf8))
/// info.active  // true
/// info.aud     // ["a", "b"]
/// info.exp     // 1_700_000_000
/// ```
public struct TIDIntrospection: Sendable, Hashable, Codable {
  /// `active`: whether the token is currently valid. An inactive token's answer has nothing else.
  public var active: Bool
  /// `scope`, space-separated.
  public var scope: String?
  /// `client_id`.
  public var clientID: String?
  /// `sub`.
  public var sub: String?
  /// `exp`, Unix seconds.
  public var exp: Int64?
  /// `iat`, Unix seconds.
  public var iat: Int64?
  /// `iss`.
  public var iss: String?
  /// `aud`, a string or an array of strings (a string becomes one element); empty when absent.
  public var aud: [String]
  /// Every member the properties above do not name (`token_type`, `username`, `nbf`, `jti`, …).
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates an answer from its values.
  ///
  /// ```swift
  /// TIDIntrospection(active: false)
  /// ```
  public init(
    active: Bool, scope: String? = nil, clientID: String? = nil, sub: String? = nil, exp: Int64? = nil,
    iat: Int64? = nil, iss: String? = nil, aud: [String] = [], additionalFields: JSONValue = .object([]),
    rawBody: String = ""
  ) {
    self.active = active
    self.scope = scope
    self.clientID = clientID
    self.sub = sub
    self.exp = exp
    self.iat = iat
    self.iss = iss
    self.aud = aud
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes an introspection body.
  ///
  /// ```swift
  /// let info = try TIDIntrospection(json: body)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape` (`aud` neither a string nor an
  ///   array of strings), `provider-error`, `missing-field` (no `active`), `invalid-field` (`active` not a
  ///   Boolean, `exp`/`iat` not whole numbers).
  public init(json: some Collection<UInt8>) throws(OAuthResponseError) {
    let (rReader, raw) = try readObject(json, what: "introspection response", provider: .tid, expectedKey: "active")
    var r = rReader
    guard let active = try r.boolean("active") else {
      throw OAuthResponseError(.missingField, field: "active", message: "the introspection response has no active")
    }
    self.active = active
    scope = try r.scope("scope")
    clientID = try r.identifier("client_id")
    sub = try r.identifier("sub")
    exp = try r.integer("exp")
    iat = try r.integer("iat")
    iss = try r.string("iss")
    aud = try r.strings("aud") ?? []
    additionalFields = r.rest
    rawBody = raw
  }
}

/// Any RFC 7662 introspection answer: the same type as T-ID's.
public typealias TokenIntrospection = TIDIntrospection

/// An OIDC userinfo answer (OpenID Connect Core §5.1 standard claims), for any OIDC server.
///
/// ```swift
/// let info = try OIDCUserInfo(json: Array(#"{"sub":"248289761001","email":"j@example.com","email_verified":true,"updated_at":"1311280970"}"#.utf8))
/// info.sub        // "248289761001"
/// info.updatedAt  // 1_311_280_970
/// ```
public struct OIDCUserInfo: Sendable, Hashable, Codable {
  /// `sub`.
  public var sub: String
  /// `name`.
  public var name: String?
  /// `given_name`.
  public var givenName: String?
  /// `family_name`.
  public var familyName: String?
  /// `middle_name`.
  public var middleName: String?
  /// `nickname`.
  public var nickname: String?
  /// `preferred_username`.
  public var preferredUsername: String?
  /// `profile` (a URL).
  public var profile: String?
  /// `picture` (a URL).
  public var picture: String?
  /// `website`.
  public var website: String?
  /// `email`.
  public var email: String?
  /// `email_verified`.
  public var emailVerified: Bool?
  /// `gender`.
  public var gender: String?
  /// `birthdate`.
  public var birthdate: String?
  /// `zoneinfo`.
  public var zoneinfo: String?
  /// `locale`.
  public var locale: String?
  /// `phone_number`.
  public var phoneNumber: String?
  /// `phone_number_verified`.
  public var phoneNumberVerified: Bool?
  /// `updated_at`, Unix seconds.
  public var updatedAt: Int64?
  /// Every member the properties above do not name (`address`, custom claims).
  public var additionalFields: JSONValue
  /// The body as received.
  public var rawBody: String

  /// Creates a profile from its values.
  ///
  /// ```swift
  /// OIDCUserInfo(sub: "248289761001", email: "j@example.com")
  /// ```
  public init(
    sub: String, name: String? = nil, givenName: String? = nil, familyName: String? = nil, email: String? = nil,
    emailVerified: Bool? = nil, additionalFields: JSONValue = .object([]), rawBody: String = ""
  ) {
    self.sub = sub
    self.name = name
    self.givenName = givenName
    self.familyName = familyName
    self.email = email
    self.emailVerified = emailVerified
    self.additionalFields = additionalFields
    self.rawBody = rawBody
  }

  /// Decodes a userinfo body (JSON; a signed `application/jwt` answer is not decoded here).
  ///
  /// ```swift
  /// let info = try OIDCUserInfo(json: body)
  /// ```
  ///
  /// - Throws: ``OAuthResponseError``: `invalid-json`, `unexpected-shape`, `provider-error`, `missing-field`
  ///   (no `sub`), `invalid-field`.
  public init(json: some Collection<UInt8>, provider: Provider = .oauth2) throws(OAuthResponseError) {
    let (rReader, raw) = try readObject(json, what: "userinfo response", provider: provider, expectedKey: "sub")
    var r = rReader
    sub = try r.requiredSubject(of: "the userinfo response")
    name = try r.string("name")
    givenName = try r.string("given_name")
    familyName = try r.string("family_name")
    middleName = try r.string("middle_name")
    nickname = try r.string("nickname")
    preferredUsername = try r.string("preferred_username")
    profile = try r.string("profile")
    picture = try r.string("picture")
    website = try r.string("website")
    email = try r.string("email")
    emailVerified = try r.boolean("email_verified")
    gender = try r.string("gender")
    birthdate = try r.string("birthdate")
    zoneinfo = try r.string("zoneinfo")
    locale = try r.string("locale")
    phoneNumber = try r.string("phone_number")
    phoneNumberVerified = try r.boolean("phone_number_verified")
    updatedAt = try r.integer("updated_at")
    additionalFields = r.rest
    rawBody = raw
  }
}
