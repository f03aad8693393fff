import Foundation
import Testing
import LinkParseOAuth
import LinkParseAuthorization
import LinkParseProviders
import LinkParseCore

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The error `body` throws, or nil.
func responseError(_ body: () throws -> Void) -> OAuthResponseError? {
  do {
    try body()
    return nil
  } catch let error as OAuthResponseError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
    return nil
  }
}

@Suite struct TokenResponseTests {
  @Test func vkTokenAnswerDecodes() throws {
    let body = #"{"refresh_token":"vk2.r.Y","access_token":"vk2.a.X","id_token":"eyJ.e30.sig","token_type":"Bearer","expires_in":3600,"user_id":1234567890,"state":"Qk7x","scope":"vkid.personal_info email"}"#
    let tokens = try TokenResponse(json: bytes(body), provider: .vk)
    #expect(tokens.accessToken == "vk2.a.X")
    #expect(tokens.refreshToken == "vk2.r.Y")
    #expect(tokens.idToken == "eyJ.e30.sig")
    #expect(tokens.tokenType == "Bearer")
    #expect(tokens.expiresIn == 3600)
    #expect(tokens.userID == 1_234_567_890)
    #expect(tokens.state == "Qk7x")
    #expect(tokens.scope == "vkid.personal_info email")
    #expect(tokens.additionalFields == .object([]))
    #expect(tokens.rawBody == body)
    #expect(tokens.expiresAt(receivedAt: 1_700_000_000) == 1_700_003_600)
  }

  @Test func tolerantNumbersAndUnknownFieldsKept() throws {
    let body = #"{"access_token":"t","expires_in":"600","user_id":"42","scope":["a","b"],"x_extra":{"n":1},"refresh_expires_in":86400}"#
    let tokens = try TokenResponse(json: bytes(body))
    #expect(tokens.expiresIn == 600)
    #expect(tokens.userID == 42)
    #expect(tokens.scope == "a b")
    #expect(tokens.additionalFields == .object([("x_extra", .object([("n", .number("1"))])), ("refresh_expires_in", .number("86400"))]))
    #expect(tokens.expiresAt(receivedAt: 10) == 610)
    // null members are absent.
    let nulls = try TokenResponse(json: bytes(#"{"access_token":"t","refresh_token":null,"expires_in":null}"#))
    #expect(nulls.refreshToken == nil && nulls.expiresIn == nil && nulls.expiresAt(receivedAt: 1) == nil)
  }

  @Test func expiresInOutOfGrammarIsInvalidField() throws {
    for value in [#""abc""#, "1.5", "true", #""6e2""#, "[1]", "-1", #""-600""#] {
      let error = try #require(responseError { _ = try TokenResponse(json: bytes(#"{"access_token":"t","expires_in":\#(value)}"#)) })
      #expect(error.code == .invalidField)
      #expect(error.field == "expires_in")
    }
  }

  @Test func missingOrEmptyAccessTokenIsMissingField() throws {
    for body in [#"{"token_type":"Bearer"}"#, #"{"access_token":""}"#, #"{"access_token":null}"#] {
      let error = try #require(responseError { _ = try TokenResponse(json: bytes(body)) })
      #expect(error.code == .missingField)
      #expect(error.field == "access_token")
    }
    let wrongType = try #require(responseError { _ = try TokenResponse(json: bytes(#"{"access_token":5}"#)) })
    #expect(wrongType.code == .unexpectedShape)
  }

  @Test func errorAnswersAreProviderErrors() throws {
    let body = #"{"error":"invalid_grant","error_description":"code expired","error_uri":"https://id.vk.ru/e","state":"Qk7x","request_id":"r1"}"#
    let error = try #require(responseError { _ = try TokenResponse(json: bytes(body), provider: .vk) })
    #expect(error.code == .providerError)
    let provider = try #require(error.providerError)
    #expect(provider.error == .invalidGrant)
    #expect(provider.errorDescription == "code expired")
    #expect(provider.errorURI == "https://id.vk.ru/e")
    #expect(provider.state == "Qk7x")
    #expect(provider.additionalFields == .object([("request_id", .string("r1"))]))
    #expect(provider.rawBody == body)
    // T-ID says error_message.
    let tid = try #require(responseError { _ = try TokenResponse(json: bytes(#"{"error":"limit_exceeded","error_message":"Too many"}"#), provider: .tid) })
    #expect(tid.providerError?.error.rawValue == "limit_exceeded")
    #expect(tid.providerError?.errorDescription == "Too many")
    // An error with an access token is still an error.
    let both = try #require(responseError { _ = try TokenResponse(json: bytes(#"{"error":"server_error","access_token":"t"}"#)) })
    #expect(both.code == .providerError)
  }

  @Test func sberGatewayErrorIsAProviderError() throws {
    let body = #"{"httpCode":"401","httpMessage":"Unauthorized","moreInformation":"Client id not registered."}"#
    let error = try #require(responseError { _ = try TokenResponse(json: bytes(body), provider: .sber) })
    #expect(error.code == .providerError)
    #expect(error.providerError?.error.rawValue == "http_401")
    #expect(error.providerError?.errorDescription == "Client id not registered.")
  }

  @Test func truncatedJSONIsInvalidJSONWithOffset() throws {
    let error = try #require(responseError { _ = try TokenResponse(json: bytes(#"{"access_token":"abc"#)) })
    #expect(error.code == .invalidJSON)
    #expect(error.offset == 20)
    #expect(error.message.hasSuffix("unterminated string"))
  }

  @Test func notAnObjectIsUnexpectedShape() throws {
    for body in ["[]", #""access_token""#, "null", "42"] {
      let error = try #require(responseError { _ = try TokenResponse(json: bytes(body)) })
      #expect(error.code == .unexpectedShape)
    }
  }

  @Test func aOneMegabyteTokenDecodes() throws {
    let token = String(repeating: "A1b2-_.~", count: 131_072)
    let tokens = try TokenResponse(json: bytes(#"{"access_token":"\#(token)","expires_in":600}"#))
    #expect(tokens.accessToken == token)
    #expect(tokens.expiresIn == 600)
  }

  @Test func expiresAtSaturates() {
    #expect(TokenResponse(accessToken: "t", expiresIn: .max).expiresAt(receivedAt: 10) == .max)
  }

  @Test func codableRoundTrip() throws {
    let tokens = try TokenResponse(json: bytes(#"{"access_token":"t","expires_in":60,"extra":[1,"x"]}"#))
    let data = try JSONEncoder().encode(tokens)
    let decoded = try JSONDecoder().decode(TokenResponse.self, from: data)
    #expect(decoded == tokens)
    #expect(decoded.hashValue == tokens.hashValue)
    let info = try VKUserInfo(json: bytes(#"{"user":{"user_id":"1","sex":2}}"#))
    #expect(try JSONDecoder().decode(VKUserInfo.self, from: JSONEncoder().encode(info)) == info)
  }

  @Test func stringUTF8ViewParsesInPlace() throws {
    let body = #"{"access_token":"t","token_type":"Bearer"}"#
    #expect(try TokenResponse(json: body.utf8).tokenType == "Bearer")
  }
}

@Suite struct ErrorAndRevokeResponseTests {
  @Test func errorResponseDecodes() throws {
    let error = try OAuthErrorResponse(json: bytes(#"{"error":"invalid_client","error_description":"bad secret","trace":"t1"}"#))
    #expect(error.error == .invalidClient)
    #expect(error.errorDescription == "bad secret")
    #expect(error.additionalFields == .object([("trace", .string("t1"))]))
    // A structured error member (legacy VK API) keeps its structure.
    let legacy = try OAuthErrorResponse(json: bytes(#"{"error":{"error_code":5,"error_msg":"auth failed"}}"#))
    #expect(legacy.error.rawValue == "unknown_error")
    #expect(legacy.additionalFields["error"]?["error_code"]?.integer == 5)
    let missing = try #require(responseError { _ = try OAuthErrorResponse(json: bytes(#"{"ok":true}"#)) })
    #expect(missing.code == .missingField)
    let notObject = try #require(responseError { _ = try OAuthErrorResponse(json: bytes("[1]")) })
    #expect(notObject.code == .unexpectedShape)
  }

  @Test func revokeAcceptsEmptyAndObjects() throws {
    #expect(try RevokeResponse(json: [UInt8](), provider: .apple) == RevokeResponse())
    #expect(try RevokeResponse(json: bytes(" \n")).additionalFields == .object([]))
    #expect(try RevokeResponse(json: bytes("{}")).additionalFields == .object([]))
    let vk = try RevokeResponse(json: bytes(#"{"response":1}"#), provider: .vk)
    #expect(vk.additionalFields == .object([("response", .number("1"))]))
    #expect(vk.rawBody == #"{"response":1}"#)
    let error = try #require(responseError { _ = try RevokeResponse(json: bytes(#"{"error":"invalid_request"}"#), provider: .tid) })
    #expect(error.code == .providerError)
    #expect(error.providerError?.error == .invalidRequest)
    let bad = try #require(responseError { _ = try RevokeResponse(json: bytes("{")) })
    #expect(bad.code == .invalidJSON && bad.offset == 1)
    let shape = try #require(responseError { _ = try RevokeResponse(json: bytes("true")) })
    #expect(shape.code == .unexpectedShape)
  }
}

@Suite struct UserInfoTests {
  @Test func vkUserInfo() throws {
    let body = #"{"user":{"user_id":"1234567890","first_name":"Иван","last_name":"Иванов","phone":"79991234567","avatar":"https://sun.userapi.com/a.jpg","email":"ivan@vk.com","sex":"2","verified":"true","birthday":"01.01.2000","city":"Moscow"}}"#
    let info = try VKUserInfo(json: bytes(body))
    #expect(info.userID == "1234567890")
    #expect(info.firstName == "Иван")
    #expect(info.lastName == "Иванов")
    #expect(info.phone == "79991234567")
    #expect(info.avatar == "https://sun.userapi.com/a.jpg")
    #expect(info.email == "ivan@vk.com")
    #expect(info.sex == 2)
    #expect(info.verified == true)
    #expect(info.birthday == "01.01.2000")
    #expect(info.additionalFields == .object([("city", .string("Moscow"))]))
    #expect(info.rawBody == body)
    let numeric = try VKUserInfo(json: bytes(#"{"user":{"user_id":1234,"sex":1,"verified":false}}"#))
    #expect(numeric.userID == "1234" && numeric.sex == 1 && numeric.verified == false)
  }

  @Test func vkUserInfoErrors() throws {
    let missing = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"users":[]}"#)) })
    #expect(missing.code == .missingField && missing.field == "user")
    let shape = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"user":"x"}"#)) })
    #expect(shape.code == .unexpectedShape)
    let provider = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"error":"invalid_token","error_description":"expired","state":""}"#)) })
    #expect(provider.code == .providerError && provider.providerError?.error.rawValue == "invalid_token")
    let sex = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"user":{"sex":"male"}}"#)) })
    #expect(sex.code == .invalidField && sex.field == "sex")
    let verified = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"user":{"verified":"yes"}}"#)) })
    #expect(verified.code == .invalidField && verified.field == "verified")
    let truncated = try #require(responseError { _ = try VKUserInfo(json: bytes(#"{"user":{"#)) })
    #expect(truncated.code == .invalidJSON && truncated.offset == 9)
  }

  @Test func sberUserInfo() throws {
    let body = #"{"sub":"a1b2c3","family_name":"Иванов","given_name":"Иван","middle_name":"Иванович","birthdate":"1990-01-31","email":"i@example.ru","phone_number":"+7 (999) 123-45-67","gender":1,"aud":"0A1B2C3D"}"#
    let info = try SberUserInfo(json: bytes(body))
    #expect(info.sub == "a1b2c3")
    #expect(info.familyName == "Иванов")
    #expect(info.givenName == "Иван")
    #expect(info.middleName == "Иванович")
    #expect(info.birthdate == "1990-01-31")
    #expect(info.email == "i@example.ru")
    #expect(info.phoneNumber == "+7 (999) 123-45-67")
    #expect(info.gender == "1")
    #expect(info.additionalFields == .object([("aud", .string("0A1B2C3D"))]))
    let missing = try #require(responseError { _ = try SberUserInfo(json: bytes(#"{"given_name":"x"}"#)) })
    #expect(missing.code == .missingField && missing.field == "sub")
    let gateway = try #require(responseError { _ = try SberUserInfo(json: bytes(#"{"httpCode":401,"httpMessage":"Unauthorized"}"#)) })
    #expect(gateway.code == .providerError && gateway.providerError?.error.rawValue == "http_401")
  }

  @Test func tidUserInfo() throws {
    let body = #"{"sub":"7c1e","name":"Иван Иванов","given_name":"Иван","family_name":"Иванов","middle_name":"И","birthdate":"1990-01-31","gender":"male","email":"a@b.ru","email_verified":"true","phone_number":"+79991234567","phone_number_verified":true,"extra":1}"#
    let info = try TIDUserInfo(json: bytes(body))
    #expect(info.sub == "7c1e")
    #expect(info.name == "Иван Иванов")
    #expect(info.givenName == "Иван" && info.familyName == "Иванов" && info.middleName == "И")
    #expect(info.birthdate == "1990-01-31" && info.gender == "male")
    #expect(info.email == "a@b.ru" && info.emailVerified == true)
    #expect(info.phoneNumber == "+79991234567" && info.phoneNumberVerified == true)
    #expect(info.additionalFields == .object([("extra", .number("1"))]))
    let bad = try #require(responseError { _ = try TIDUserInfo(json: bytes(#"{"sub":"x","email_verified":"maybe"}"#)) })
    #expect(bad.code == .invalidField && bad.field == "email_verified")
  }

  @Test func tidIntrospection() throws {
    let body = #"{"active":"true","scope":"profile phone","client_id":"partner","sub":"7c1e","exp":"1700000000","iat":1699996400,"iss":"https://id.tbank.ru","aud":["partner","api"],"token_type":"Bearer"}"#
    let info = try TIDIntrospection(json: bytes(body))
    #expect(info.active)
    #expect(info.scope == "profile phone")
    #expect(info.clientID == "partner")
    #expect(info.sub == "7c1e")
    #expect(info.exp == 1_700_000_000)
    #expect(info.iat == 1_699_996_400)
    #expect(info.iss == "https://id.tbank.ru")
    #expect(info.aud == ["partner", "api"])
    #expect(info.additionalFields == .object([("token_type", .string("Bearer"))]))
    #expect(try TIDIntrospection(json: bytes(#"{"active":false}"#)) == TIDIntrospection(active: false, rawBody: #"{"active":false}"#))
    #expect(try TokenIntrospection(json: bytes(#"{"active":true,"aud":"one"}"#)).aud == ["one"])
    let missing = try #require(responseError { _ = try TIDIntrospection(json: bytes("{}")) })
    #expect(missing.code == .missingField && missing.field == "active")
    let aud = try #require(responseError { _ = try TIDIntrospection(json: bytes(#"{"active":true,"aud":[1]}"#)) })
    #expect(aud.code == .unexpectedShape && aud.field == "aud")
    let exp = try #require(responseError { _ = try TIDIntrospection(json: bytes(#"{"active":true,"exp":"soon"}"#)) })
    #expect(exp.code == .invalidField && exp.field == "exp")
  }

  @Test func oidcUserInfo() throws {
    let body = #"{"sub":"248289761001","name":"Jane Doe","given_name":"Jane","family_name":"Doe","preferred_username":"j.doe","email":"janedoe@example.com","email_verified":"false","picture":"http://example.com/janedoe/me.jpg","updated_at":"1311280970","address":{"country":"RU"}}"#
    let info = try OIDCUserInfo(json: bytes(body))
    #expect(info.sub == "248289761001")
    #expect(info.name == "Jane Doe" && info.givenName == "Jane" && info.familyName == "Doe")
    #expect(info.preferredUsername == "j.doe")
    #expect(info.email == "janedoe@example.com" && info.emailVerified == false)
    #expect(info.picture == "http://example.com/janedoe/me.jpg")
    #expect(info.updatedAt == 1_311_280_970)
    #expect(info.additionalFields == .object([("address", .object([("country", .string("RU"))]))]))
    let error = try #require(responseError { _ = try OIDCUserInfo(json: bytes(#"{"error":"invalid_token"}"#)) })
    #expect(error.code == .providerError)
    let shape = try #require(responseError { _ = try OIDCUserInfo(json: bytes("[]")) })
    #expect(shape.code == .unexpectedShape)
  }
}

/// Every response type's decoder, returning the kept raw body.
let decoders: [(name: String, decode: @Sendable ([UInt8]) throws -> String)] = [
  ("TokenResponse", { try TokenResponse(json: $0, provider: .tid).rawBody }),
  ("OAuthErrorResponse", { try OAuthErrorResponse(json: $0).rawBody }),
  ("RevokeResponse", { try RevokeResponse(json: $0).rawBody }),
  ("VKUserInfo", { try VKUserInfo(json: $0).rawBody }),
  ("SberUserInfo", { try SberUserInfo(json: $0).rawBody }),
  ("TIDUserInfo", { try TIDUserInfo(json: $0).rawBody }),
  ("TIDIntrospection", { try TIDIntrospection(json: $0).rawBody }),
  ("OIDCUserInfo", { try OIDCUserInfo(json: $0).rawBody }),
]

@Suite struct EveryResponseTypeTests {
  @Test(arguments: decoders.indices)
  func errorTruncatedAndShape(index: Int) throws {
    let (name, decode) = decoders[index]
    if name != "OAuthErrorResponse" {
      let body = #"{"error":"invalid_token","error_description":"expired","x":1}"#
      let error = try #require(responseError { _ = try decode(bytes(body)) }, "\(name)")
      #expect(error.code == .providerError, "\(name)")
      #expect(error.providerError?.error.rawValue == "invalid_token", "\(name)")
      #expect(error.providerError?.rawBody == body, "\(name)")
      #expect(error.providerError?.additionalFields == .object([("x", .number("1"))]), "\(name)")
    }
    let truncated = try #require(responseError { _ = try decode(bytes(#"{"sub":"a","#)) }, "\(name)")
    #expect(truncated.code == .invalidJSON && truncated.offset == 11, "\(name)")
    let shape = try #require(responseError { _ = try decode(bytes(#"["sub"]"#)) }, "\(name)")
    #expect(shape.code == .unexpectedShape, "\(name)")
  }

  @Test func rawBodiesAreKept() throws {
    let bodies = [
      #"{"access_token":"t"}"#, #"{"error":"e"}"#, #"{"response":1}"#, #"{"user":{}}"#, #"{"sub":"s"}"#,
      #"{"sub":"s"}"#, #"{"active":false}"#, #"{"sub":"s"}"#,
    ]
    for (index, body) in bodies.enumerated() {
      #expect(try decoders[index].decode(bytes("  " + body + "\n")) == "  " + body + "\n", "\(decoders[index].name)")
    }
  }
}
