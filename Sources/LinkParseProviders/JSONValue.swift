// A JSON value as parsed: the package's one JSON model. LinkParseOAuth keeps the fields of a provider's answer
// that no typed property names in it (nothing a provider adds is lost); this module's decoders read VK's legacy
// `payload`, Apple's `user` and an `id_token`'s claims from it (`Internals/JSONSupport.swift`).

import LinkParseBytes

/// A JSON value. Numbers keep their text, so `9007199254740993` and `1.10` survive unchanged.
///
/// ```swift
/// let value = try JSONValue.parse(Array(#"{"user_id": 1234, "scope": "email phone"}"#.utf8))
/// value["user_id"]?.integer   // 1234
/// value["scope"]?.string      // "email phone"
/// ```
///
/// (`JSONValue.parse(_:)`, throwing `OAuthResponseError`, is LinkParseOAuth's.)
public enum JSONValue: Sendable, Hashable, Codable {
  /// `null`.
  ///
  /// ```swift
  /// JSONValue.null.string  // nil
  /// ```
  case null
  /// `true` or `false`.
  ///
  /// ```swift
  /// JSONValue.bool(true).boolean  // true
  /// ```
  case bool(Bool)
  /// A number, as its JSON text.
  ///
  /// ```swift
  /// JSONValue.number("1.10")  // kept as written, not as 1.1
  /// ```
  case number(String)
  /// A string, its escapes decoded.
  ///
  /// ```swift
  /// JSONValue.string("email phone").string  // "email phone"
  /// ```
  case string(String)
  /// An array.
  ///
  /// ```swift
  /// JSONValue.array([.string("a"), .string("b")])
  /// ```
  case array([JSONValue])
  /// An object's members in document order (duplicate keys are rejected by the parser).
  ///
  /// ```swift
  /// JSONValue.object([("sub", .string("42"))])["sub"]  // .string("42")
  /// ```
  case object([(key: String, value: JSONValue)])

  /// Equal values: objects compare member by member, in order.
  ///
  /// ```swift
  /// JSONValue.object([("a", .null)]) == .object([("a", .null)])  // true
  /// ```
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  /// Hashes the value as ``==`` compares it.
  ///
  /// ```swift
  /// Set<JSONValue>([.null, .null]).count  // 1
  /// ```
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let b): hasher.combine(1); hasher.combine(b)
    case .number(let n): hasher.combine(2); hasher.combine(n)
    case .string(let s): hasher.combine(3); hasher.combine(s)
    case .array(let a): hasher.combine(4); hasher.combine(a)
    case .object(let o):
      hasher.combine(5)
      for member in o {
        hasher.combine(member.key)
        hasher.combine(member.value)
      }
    }
  }

  /// The member `key` of an object (the first, though the parser allows no duplicates); `nil` otherwise.
  ///
  /// ```swift
  /// JSONValue.object([("scope", .string("email"))])["scope"]?.string  // "email"
  /// ```
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// The string, for `.string`.
  ///
  /// ```swift
  /// JSONValue.string("x").string   // "x"
  /// JSONValue.number("1").string   // nil
  /// ```
  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// A whole number from a JSON number (`600`) or a string of decimal digits (`"600"`), as providers send
  /// either; `nil` for anything else (fractions, exponents, signs on strings, overflow).
  ///
  /// ```swift
  /// JSONValue.string("600").integer  // 600
  /// JSONValue.number("600").integer  // 600
  /// JSONValue.number("6e2").integer  // nil
  /// ```
  public var integer: Int64? {
    let text: String
    switch self {
    case .number(let n): text = n
    case .string(let s): text = s
    default: return nil
    }
    var utf8 = Substring(text).utf8[...]
    var negative = false
    if case .number = self, utf8.first == UInt8(ascii: "-") {
      negative = true
      utf8 = utf8.dropFirst()
    }
    guard !utf8.isEmpty, utf8.count <= 19, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    var value: Int64 = 0
    for byte in utf8 {
      let (m, o1) = value.multipliedReportingOverflow(by: 10)
      let (s, o2) = m.addingReportingOverflow(Int64(byte - 0x30))
      if o1 || o2 { return nil }
      value = s
    }
    return negative ? -value : value
  }

  /// A Boolean from JSON `true`/`false` or the strings `"true"`/`"false"` (Apple sends `email_verified` as
  /// either).
  ///
  /// ```swift
  /// JSONValue.string("true").boolean  // true
  /// ```
  public var boolean: Bool? {
    switch self {
    case .bool(let b): return b
    case .string("true"): return true
    case .string("false"): return false
    default: return nil
    }
  }

  /// `text` as a JSON string literal: `"` and `\\` escaped, control characters as `\\n`, `\\r`, `\\t` or
  /// `\\u00XX`, everything else as it is (the result is UTF-8 JSON).
  ///
  /// ```swift
  /// JSONValue.quoted("a\"b\n")  // "\"a\\\"b\\n\""
  /// ```
  package static func quoted(_ text: String) -> String { JSONText.quoted(text) }

  // MARK: Codable (as the JSON it is)

  /// Decodes whatever the decoder holds (an object's members sorted by key, as decoders keep no order).
  ///
  /// ```swift
  /// try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[1,true]}"#.utf8))
  /// // .object([("a", .array([.number("1"), .bool(true)]))])
  /// ```
  public init(from decoder: any Decoder) throws {
    if var array = try? decoder.unkeyedContainer() {
      var values: [JSONValue] = []
      while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
      self = .array(values)
      return
    }
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      var members: [(key: String, value: JSONValue)] = []
      for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
        members.append((key.stringValue, try object.decode(JSONValue.self, forKey: key)))
      }
      self = .object(members)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let b = try? single.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? single.decode(Int64.self) {
      self = .number(String(i))
    } else if let d = try? single.decode(Double.self) {
      self = .number(String(d))
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  /// Encodes the value as the JSON it is (a number as an integer when it is one, else as a `Double`).
  ///
  /// ```swift
  /// try JSONEncoder().encode(JSONValue.object([("a", .number("1"))]))  // {"a":1}
  /// ```
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var c = encoder.singleValueContainer()
      try c.encodeNil()
    case .bool(let b):
      var c = encoder.singleValueContainer()
      try c.encode(b)
    case .number(let n):
      var c = encoder.singleValueContainer()
      if let i = Int64(n) { try c.encode(i) } else { try c.encode(Double(n) ?? 0) }
    case .string(let s):
      var c = encoder.singleValueContainer()
      try c.encode(s)
    case .array(let a):
      var c = encoder.unkeyedContainer()
      for v in a { try c.encode(v) }
    case .object(let o):
      var c = encoder.container(keyedBy: AnyKey.self)
      for member in o { try c.encode(member.value, forKey: AnyKey(member.key)) }
    }
  }

  struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
