// The JSON the decoders read: VK's legacy `payload`, Apple's `user` and the claims of an `id_token`, each a JSON
// object read into typed values through ``JSONValue`` (the module's one JSON model). The query-parameter decode
// path never reaches this file.
//
// The rules are the ones Foundation's JSONDecoder applied to the Decodable structs these decoders once were,
// on strict RFC 8259 text: the top level must be an object; a string property (`email`) holding anything but a
// string or `null`, or an object property (`name`) holding anything but an object or `null`, fails the whole
// text; the lenient scalars (`exp`, `email_verified`, `aud`, …) never fail, they read as `nil` (or `[]`); a
// repeated key counts once, the first time; unknown keys are checked and skipped.

import LinkParseBytes

enum JSONSupport {
  // MARK: VK legacy payload

  static func decodeVKPayload(_ json: String) -> (code: String?, state: String?, user: VKIDLegacyPayload.User?)? {
    var json = json
    return json.withUTF8 { bytes in
      do throws(TypedObject.Mismatch) {
        guard let payload = TypedObject(bytes, keeping: ["oauth", "user"]) else { return nil }
        let oauth = try payload.object("oauth")
        var user: VKIDLegacyPayload.User? = nil
        if let u = try payload.object("user") {
          user = VKIDLegacyPayload.User(
            id: u.lenientInt("id"), firstName: try u.string("first_name"), lastName: try u.string("last_name"),
            email: try u.string("email"), avatar: try u.string("avatar"))
        }
        return (try oauth?.string("code"), try oauth?.string("state"), user)
      } catch {
        return nil
      }
    }
  }

  // MARK: Apple user

  static func decodeAppleUser(_ json: String) -> AppleUser? {
    var json = json
    return json.withUTF8 { bytes in
      do throws(TypedObject.Mismatch) {
        guard let user = TypedObject(bytes, keeping: ["name", "email"]) else { return nil }
        let name = try user.object("name")
        return AppleUser(
          firstName: try name?.string("firstName"), middleName: try name?.string("middleName"),
          lastName: try name?.string("lastName"), email: try user.string("email"))
      } catch {
        return nil
      }
    }
  }

  // MARK: id_token claims

  static func decodeClaims(_ payload: UnsafeBufferPointer<UInt8>) -> UnverifiedAppleIDTokenClaims? {
    let names: [StaticString] = [
      "iss", "aud", "sub", "exp", "iat", "auth_time", "nonce", "nonce_supported", "email", "email_verified",
      "is_private_email", "real_user_status", "transfer_sub",
    ]
    do throws(TypedObject.Mismatch) {
      guard let c = TypedObject(payload, keeping: names) else { return nil }
      return UnverifiedAppleIDTokenClaims(
        issuer: try c.string("iss"), audience: c.lenientStrings("aud"), subject: try c.string("sub"),
        expiresAt: c.lenientInt("exp"), issuedAt: c.lenientInt("iat"), authTime: c.lenientInt("auth_time"),
        nonce: try c.string("nonce"), nonceSupported: c.lenientBool("nonce_supported"),
        email: try c.string("email"), emailVerified: c.lenientBool("email_verified"),
        isPrivateEmail: c.lenientBool("is_private_email"), realUserStatus: c.lenientInt("real_user_status"),
        transferSubject: try c.string("transfer_sub"))
    } catch {
      return nil
    }
  }

  static func decodeClaims(_ payload: [UInt8]) -> UnverifiedAppleIDTokenClaims? {
    payload.withUnsafeBufferPointer { decodeClaims($0) }
  }
}

/// A JSON object's members read as a Decodable struct's properties were: a typed member of the wrong type is
/// a ``Mismatch`` (the whole text fails), a lenient one reads as `nil`.
struct TypedObject {
  /// A member that is neither `null` nor of its property's type.
  struct Mismatch: Error {}

  /// The object's members (the first of a repeated key is the one read).
  let value: JSONValue

  /// The object `bytes` hold, with the members `names` (see ``JSONValue/object(in:keeping:validatesUTF8:)``);
  /// `nil` when they are not a JSON object.
  init?(_ bytes: UnsafeBufferPointer<UInt8>, keeping names: [StaticString]) {
    guard let value = JSONValue.object(in: bytes, keeping: names) else { return nil }
    self.value = value
  }

  private init(value: JSONValue) { self.value = value }

  /// The member `key`, `nil` when absent or `null`.
  private func member(_ key: String) -> JSONValue? {
    switch value[key] {
    case nil, .null?: return nil
    case let member?: return member
    }
  }

  /// A `String?` property.
  func string(_ key: String) throws(Mismatch) -> String? {
    guard let member = member(key) else { return nil }
    guard case .string(let s) = member else { throw Mismatch() }
    return s
  }

  /// An object property (`null` or an object, whose members are all built).
  func object(_ key: String) throws(Mismatch) -> TypedObject? {
    guard let member = member(key) else { return nil }
    guard case .object = member else { throw Mismatch() }
    return TypedObject(value: member)
  }

  /// An integer sent as a number or a numeric string (JSONDecoder's `Int64`, then `Double` truncated below
  /// 9e18, then `Int64(String)`); `nil` for anything else.
  func lenientInt(_ key: String) -> Int64? {
    switch member(key) {
    case .number(let text)?:
      if let exact = Self.integer(text) { return exact }
      guard let double = Double(text), double.isFinite, abs(double) < 9e18 else { return nil }
      return Int64(double)
    case .string(let s)?: return Int64(s)
    default: return nil
    }
  }

  /// A Boolean sent as `true`, `"true"`, `1` or `"1"` (and `false`, `"false"`, `0`, `"0"`; strings in any
  /// case, any other whole number as `true`); `nil` for anything else.
  func lenientBool(_ key: String) -> Bool? {
    switch member(key) {
    case .bool(let b)?: return b
    case .string(let s)?:
      switch s.lowercased() {
      case "true", "1": return true
      case "false", "0": return false
      default: return nil
      }
    case .number(let text)?: return Self.integer(text).map { $0 != 0 }
    default: return nil
    }
  }

  /// A string or an array of strings (`aud`, RFC 7519 §4.1.3); `[]` for anything else.
  func lenientStrings(_ key: String) -> [String] {
    switch member(key) {
    case .string(let s)?: return [s]
    case .array(let items)?:
      var strings: [String] = []
      strings.reserveCapacity(items.count)
      for item in items {
        guard case .string(let s) = item else { return [] }
        strings.append(s)
      }
      return strings
    default: return []
    }
  }

  /// A JSON number as JSONDecoder decoded an `Int64` from it: its digits when it has neither fraction nor
  /// exponent, else its `Double` value when that is a whole number in range.
  private static func integer(_ text: String) -> Int64? {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else {
      return Int64(text)
    }
    return Double(text).flatMap { Int64(exactly: $0) }
  }
}
