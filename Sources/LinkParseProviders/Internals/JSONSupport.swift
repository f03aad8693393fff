// The only Foundation use in this module: JSON decoding of VK's legacy `payload`, Apple's `user` and the
// claims of an `id_token`. The query-parameter decode path never reaches this file.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum JSONSupport {

  // MARK: VK legacy payload

  private struct VKPayload: Decodable {
    struct OAuth: Decodable {
      var code: String?
      var state: String?
    }
    struct User: Decodable {
      var id: LenientInt?
      var first_name: String?
      var last_name: String?
      var email: String?
      var avatar: String?
    }
    var oauth: OAuth?
    var user: User?
  }

  static func decodeVKPayload(_ json: String) -> (code: String?, state: String?, user: VKIDLegacyPayload.User?)? {
    guard let payload = try? JSONDecoder().decode(VKPayload.self, from: Data(json.utf8)) else { return nil }
    let user = payload.user.map {
      VKIDLegacyPayload.User(
        id: $0.id?.value, firstName: $0.first_name, lastName: $0.last_name, email: $0.email, avatar: $0.avatar)
    }
    return (payload.oauth?.code, payload.oauth?.state, user)
  }

  // MARK: Apple user

  private struct AppleUserJSON: Decodable {
    struct Name: Decodable {
      var firstName: String?
      var lastName: String?
      var middleName: String?
    }
    var name: Name?
    var email: String?
  }

  static func decodeAppleUser(_ json: String) -> AppleUser? {
    guard let user = try? JSONDecoder().decode(AppleUserJSON.self, from: Data(json.utf8)) else { return nil }
    return AppleUser(
      firstName: user.name?.firstName, middleName: user.name?.middleName, lastName: user.name?.lastName,
      email: user.email)
  }

  // MARK: id_token claims

  private struct Claims: Decodable {
    var iss: String?
    var aud: StringOrArray?
    var sub: String?
    var exp: LenientInt?
    var iat: LenientInt?
    var auth_time: LenientInt?
    var nonce: String?
    var nonce_supported: LenientBool?
    var email: String?
    var email_verified: LenientBool?
    var is_private_email: LenientBool?
    var real_user_status: LenientInt?
    var transfer_sub: String?
  }

  static func decodeClaims(_ payload: [UInt8]) -> UnverifiedAppleIDTokenClaims? {
    guard let c = try? JSONDecoder().decode(Claims.self, from: Data(payload)) else { return nil }
    return UnverifiedAppleIDTokenClaims(
      issuer: c.iss, audience: c.aud?.values ?? [], subject: c.sub, expiresAt: c.exp?.value,
      issuedAt: c.iat?.value, authTime: c.auth_time?.value, nonce: c.nonce, nonceSupported: c.nonce_supported?.value,
      email: c.email, emailVerified: c.email_verified?.value, isPrivateEmail: c.is_private_email?.value,
      realUserStatus: c.real_user_status?.value, transferSubject: c.transfer_sub)
  }

  // MARK: Lenient scalars

  /// A boolean sent as `true`, `"true"`, `1` or `"1"` (Apple sends `email_verified` as a string or a bool).
  private struct LenientBool: Decodable {
    var value: Bool?
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let bool = try? container.decode(Bool.self) {
        value = bool
      } else if let string = try? container.decode(String.self) {
        switch string.lowercased() {
        case "true", "1": value = true
        case "false", "0": value = false
        default: value = nil
        }
      } else if let int = try? container.decode(Int.self) {
        value = int != 0
      } else {
        value = nil
      }
    }
  }

  /// An integer sent as a number or a numeric string.
  private struct LenientInt: Decodable {
    var value: Int64?
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let int = try? container.decode(Int64.self) {
        value = int
      } else if let double = try? container.decode(Double.self), double.isFinite, abs(double) < 9e18 {
        value = Int64(double)
      } else if let string = try? container.decode(String.self) {
        value = Int64(string)
      } else {
        value = nil
      }
    }
  }

  /// `aud`: a string or an array of strings (RFC 7519 §4.1.3).
  private struct StringOrArray: Decodable {
    var values: [String]
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let one = try? container.decode(String.self) {
        values = [one]
      } else {
        values = (try? container.decode([String].self)) ?? []
      }
    }
  }
}
