// The decoders as they were before they read `JSONValue`: Foundation's JSONDecoder over Decodable structs. The
// tests hold the new decoders to them: on strict RFC 8259 text they give the same values, and they never
// accept a text JSONDecoder refused.

import Foundation
import LinkParseBytes

@testable import LinkParseProviders

enum JSONDecoderOracle {
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

  /// What `JSONSupport.decodeVKPayload` gave, as comparable values.
  static func vkPayload(_ json: String) -> [String?]? {
    guard let p = try? JSONDecoder().decode(VKPayload.self, from: Data(json.utf8)) else { return nil }
    return [
      p.oauth?.code, p.oauth?.state, p.user == nil ? nil : "user", p.user?.id?.value.map { String($0) },
      p.user?.first_name, p.user?.last_name, p.user?.email, p.user?.avatar,
    ]
  }

  private struct AppleUserJSON: Decodable {
    struct Name: Decodable {
      var firstName: String?
      var lastName: String?
      var middleName: String?
    }
    var name: Name?
    var email: String?
  }

  static func appleUser(_ json: String) -> AppleUser? {
    guard let user = try? JSONDecoder().decode(AppleUserJSON.self, from: Data(json.utf8)) else { return nil }
    return AppleUser(
      firstName: user.name?.firstName, middleName: user.name?.middleName, lastName: user.name?.lastName,
      email: user.email)
  }

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

  static func claims(_ payload: [UInt8]) -> UnverifiedAppleIDTokenClaims? {
    guard let c = try? JSONDecoder().decode(Claims.self, from: Data(payload)) else { return nil }
    return UnverifiedAppleIDTokenClaims(
      issuer: c.iss, audience: c.aud?.values ?? [], subject: c.sub, expiresAt: c.exp?.value,
      issuedAt: c.iat?.value, authTime: c.auth_time?.value, nonce: c.nonce, nonceSupported: c.nonce_supported?.value,
      email: c.email, emailVerified: c.email_verified?.value, isPrivateEmail: c.is_private_email?.value,
      realUserStatus: c.real_user_status?.value, transferSubject: c.transfer_sub)
  }

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

  /// Whether `bytes` are one strict RFC 8259 value (valid UTF-8, paired surrogates, nesting up to 512), the
  /// texts on which the new decoders must agree with JSONDecoder.
  static func isStrictJSON(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBufferPointer { buffer in
      var reader = JSONReader(buffer, maximumDepth: 512)
      do throws(JSONSyntaxError) {
        reader.skipWhitespace()
        try reader.skipValue()
        try reader.expectEnd()
        return true
      } catch {
        return false
      }
    }
  }
}
