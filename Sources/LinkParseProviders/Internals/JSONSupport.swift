// The JSON the decoders read: VK's legacy `payload`, Apple's `user` and the claims of an `id_token`, each a JSON
// object read into typed values through ``JSONValue`` (the module's one JSON model). The query-parameter decode
// path never reaches this file.
//
// The rules are the ones Foundation's JSONDecoder applied to the Decodable structs these decoders once were,
// on strict RFC 8259 text: the top level must be an object; a string property (`email`) holding anything but a
// string or `null`, or an object property (`name`) holding anything but an object or `null`, fails the whole
// text; the lenient scalars (`exp`, `email_verified`, `aud`, …) never fail, they read as `nil` (or `[]`); a
// repeated key counts once, the first time; unknown keys are checked and skipped. Each decoder's keys are a
// `Schema`; `conforms(_:to:)` checks a text against one without building anything (what the callback decoders
// ask when they accept an `id_token` or a `user`, whose values are read later), and `TypedObject` makes the same
// check before it builds the members the schema names.

import LinkParseBytes

enum JSONSupport {
  // MARK: VK legacy payload

  static func decodeVKPayload(_ json: String) -> (code: String?, state: String?, user: VKIDLegacyPayload.User?)? {
    var json = json
    return json.withUTF8 { bytes in
      guard let payload = TypedObject(bytes, .vkPayload) else { return nil }
      let oauth = payload.object("oauth")
      let user = payload.object("user").map { u in
        VKIDLegacyPayload.User(
          id: u.lenientInt("id"), firstName: u.string("first_name"), lastName: u.string("last_name"),
          email: u.string("email"), avatar: u.string("avatar"))
      }
      return (oauth?.string("code"), oauth?.string("state"), user)
    }
  }

  // MARK: Apple user

  static func decodeAppleUser(_ json: String) -> AppleUser? {
    var json = json
    return json.withUTF8 { bytes in
      guard let user = TypedObject(bytes, .appleUser) else { return nil }
      let name = user.object("name")
      return AppleUser(
        firstName: name?.string("firstName"), middleName: name?.string("middleName"),
        lastName: name?.string("lastName"), email: user.string("email"))
    }
  }

  // MARK: id_token claims

  static func decodeClaims(_ payload: UnsafeBufferPointer<UInt8>) -> UnverifiedAppleIDTokenClaims? {
    guard let c = TypedObject(payload, .claims) else { return nil }
    return UnverifiedAppleIDTokenClaims(
      issuer: c.string("iss"), audience: c.lenientStrings("aud"), subject: c.string("sub"),
      expiresAt: c.lenientInt("exp"), issuedAt: c.lenientInt("iat"), authTime: c.lenientInt("auth_time"),
      nonce: c.string("nonce"), nonceSupported: c.lenientBool("nonce_supported"), email: c.string("email"),
      emailVerified: c.lenientBool("email_verified"), isPrivateEmail: c.lenientBool("is_private_email"),
      realUserStatus: c.lenientInt("real_user_status"), transferSubject: c.string("transfer_sub"))
  }

  static func decodeClaims(_ payload: [UInt8]) -> UnverifiedAppleIDTokenClaims? {
    payload.withUnsafeBufferPointer { decodeClaims($0) }
  }

  // MARK: Schemas

  /// The keys of one object a decoder reads, and what each must hold.
  struct Schema: Sendable {
    /// What a member must hold.
    indirect enum Kind: Sendable {
      /// A string or `null` (a `String?` property): anything else fails the text.
      case string
      /// An object or `null`, its members checked against the schema: anything else fails the text.
      case object(Schema)
      /// Anything (a lenient scalar, which reads as `nil` when it is of no type it takes).
      case lenient
    }

    let members: [(name: StaticString, kind: Kind)]
    /// The members' names, for ``JSONValue/object(in:keeping:)``.
    let names: [StaticString]
    /// The typed members' names and kinds (lenient ones accept anything, so the check never looks them up).
    let typedNames: [StaticString]
    let typedKinds: [Kind]
    /// The typed names' lengths: most keys differ from every typed name in length.
    let typedLengths: [Int]

    init(_ members: [(name: StaticString, kind: Kind)]) {
      self.members = members
      self.names = members.map(\.name)
      let typed = members.filter { if case .lenient = $0.kind { false } else { true } }
      self.typedNames = typed.map(\.name)
      self.typedKinds = typed.map(\.kind)
      self.typedLengths = typed.map(\.name.utf8CodeUnitCount)
    }

    static let vkOAuth = Schema([("code", .string), ("state", .string)])
    static let vkUser = Schema([
      ("id", .lenient), ("first_name", .string), ("last_name", .string), ("email", .string), ("avatar", .string),
    ])
    static let vkPayload = Schema([("oauth", .object(vkOAuth)), ("user", .object(vkUser))])
    static let appleName = Schema([("firstName", .string), ("middleName", .string), ("lastName", .string)])
    static let appleUser = Schema([("name", .object(appleName)), ("email", .string)])
    static let claims = Schema([
      ("iss", .string), ("aud", .lenient), ("sub", .string), ("exp", .lenient), ("iat", .lenient),
      ("auth_time", .lenient), ("nonce", .string), ("nonce_supported", .lenient), ("email", .string),
      ("email_verified", .lenient), ("is_private_email", .lenient), ("real_user_status", .lenient),
      ("transfer_sub", .string),
    ])

    /// The index in ``typedNames`` of the typed member named `key` (compared as bytes after unescaping, in
    /// `scratch`); `nil` for a lenient or unknown key.
    fileprivate func typedIndex(of key: JSONString, in reader: JSONReader, scratch: inout [UInt8]) -> Int? {
      if !key.hasEscapes { return typedIndex(of: UnsafeBufferPointer(rebasing: reader.bytes[key.range])) }
      scratch.removeAll(keepingCapacity: true)
      reader.unescape(key, into: &scratch)
      return scratch.withUnsafeBufferPointer { typedIndex(of: $0) }
    }

    /// The index of the typed member named `bytes` (a loop over ``typedNames``, at most five: their elements
    /// are trivial, so nothing is retained or allocated even unoptimised).
    private func typedIndex(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
      typedLengths.withUnsafeBufferPointer { lengths in
        var i = 0
        while i < lengths.count {
          if lengths[i] == bytes.count && bytesEqual(bytes, typedNames[i]) { return i }
          i &+= 1
        }
        return nil
      }
    }
  }

  /// Whether `bytes` are a JSON object that `schema`'s decoder reads (the check ``TypedObject`` makes before
  /// it builds anything), without building anything: strict RFC 8259 text (nesting up to
  /// ``JSONValue/decoderDepth``) whose first occurrence of each typed key holds its type. With
  /// `validatesUTF8: false`, bytes that are not UTF-8 inside strings pass (a `String` made from the text
  /// holds U+FFFD there).
  static func conforms(_ bytes: UnsafeBufferPointer<UInt8>, to schema: Schema, validatesUTF8: Bool = true) -> Bool {
    var reader = JSONReader(bytes, maximumDepth: JSONValue.decoderDepth, validatesUTF8: validatesUTF8)
    var scratch: [UInt8] = []
    reader.skipWhitespace()
    guard reader.peek == UInt8(ascii: "{") else { return false }
    do throws(JSONSyntaxError) {
      guard try object(&reader, schema, &scratch) else { return false }
      try reader.expectEnd()
      return true
    } catch {
      return false
    }
  }

  /// The object at the read position (`{`) against `schema`: `false` when the first occurrence of a typed
  /// key holds another type (later occurrences are only read, as JSONDecoder ignored them).
  private static func object(
    _ reader: inout JSONReader, _ schema: Schema, _ scratch: inout [UInt8]
  ) throws(JSONSyntaxError) -> Bool {
    guard try reader.enter(.object) else { return true }
    var seen: UInt64 = 0
    repeat {
      let key = try reader.key()
      try reader.colon()
      guard let i = schema.typedIndex(of: key, in: reader, scratch: &scratch), seen & (1 << i) == 0 else {
        try reader.skipValue()
        continue
      }
      seen |= 1 << i
      switch (schema.typedKinds[i], reader.peek) {
      case (.lenient, _): try reader.skipValue()
      case (.string, UInt8(ascii: "\"")): _ = try reader.string()
      case (.object(let nested), UInt8(ascii: "{")): guard try object(&reader, nested, &scratch) else { return false }
      case (.string, UInt8(ascii: "n")), (.object, UInt8(ascii: "n")): try reader.literal(.null)
      default: return false
      }
    } while try reader.next(.object)
    return true
  }
}

/// A JSON object that conforms to a ``JSONSupport/Schema``, its members read as a Decodable struct's
/// properties were: a typed member is its value or `nil` (absent or `null`), a lenient one whatever it can be
/// read as.
struct TypedObject {
  /// The object's members (the first of a repeated key is the one read).
  let value: JSONValue

  /// The object `bytes` hold when they conform to `schema`, with the members it names (see
  /// ``JSONValue/object(in:keeping:)``); `nil` otherwise.
  init?(_ bytes: UnsafeBufferPointer<UInt8>, _ schema: JSONSupport.Schema) {
    guard JSONSupport.conforms(bytes, to: schema), let value = JSONValue.object(in: bytes, keeping: schema.names)
    else { return nil }
    self.value = value
  }

  private init(value: JSONValue) { self.value = value }

  /// A `String?` property.
  func string(_ key: String) -> String? { value[key]?.string }

  /// An object property (all of whose members are built).
  func object(_ key: String) -> TypedObject? {
    guard let member = value[key], case .object = member else { return nil }
    return TypedObject(value: member)
  }

  /// The member `key`, `nil` when absent or `null`.
  private func member(_ key: String) -> JSONValue? {
    switch value[key] {
    case nil, .null?: return nil
    case let member?: return member
    }
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
