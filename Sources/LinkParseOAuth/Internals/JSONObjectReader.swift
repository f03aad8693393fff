internal import LinkParseProviders
import LinkParseCore

// Reading a provider's JSON object into typed properties: each accessor takes one member by name, tolerates
// what providers are known to vary (numbers as strings, Booleans as strings, `null` for absent), and what no
// accessor took is kept as `additionalFields`.

/// The members of one JSON object, with the names taken so far.
struct JSONObjectReader {
  let members: [(key: String, value: JSONValue)]
  private var taken: Set<String> = []

  init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

  /// Parses `bytes` as a JSON object: `invalid-json` or `unexpected-shape`.
  static func parse(_ bytes: some Collection<UInt8>, what: String) throws(OAuthResponseError) -> (JSONObjectReader, String) {
    let raw = String(decoding: bytes, as: UTF8.self)
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes)
    } catch {
      var e = error
      e.message = "the \(what) is not valid JSON: " + e.message
      throw e
    }
    guard case .object(let members) = value else {
      throw OAuthResponseError(.unexpectedShape, message: "the \(what) is not a JSON object")
    }
    return (JSONObjectReader(members), raw)
  }

  /// The member `key`, marked taken; `nil` when absent or `null`.
  mutating func take(_ key: String) -> JSONValue? {
    taken.insert(key)
    guard let value = members.first(where: { $0.key == key })?.value else { return nil }
    if case .null = value { return nil }
    return value
  }

  /// Whether `key` is present (and not `null`), without taking it.
  func has(_ key: String) -> Bool {
    guard let value = members.first(where: { $0.key == key })?.value else { return false }
    if case .null = value { return false }
    return true
  }

  /// A string member; a number is not a string here.
  mutating func string(_ key: String) throws(OAuthResponseError) -> String? {
    guard let value = take(key) else { return nil }
    guard case .string(let s) = value else {
      throw OAuthResponseError(.unexpectedShape, field: key, message: "\(key) is not a string")
    }
    return s
  }

  /// An identifier sent as a string by some providers and a number by others: the number's text.
  mutating func identifier(_ key: String) throws(OAuthResponseError) -> String? {
    guard let value = take(key) else { return nil }
    switch value {
    case .string(let s): return s
    case .number(let n): return n
    default: throw OAuthResponseError(.unexpectedShape, field: key, message: "\(key) is neither a string nor a number")
    }
  }

  /// The subject, `sub` (a string or a number's text), which user-info answers must carry non-empty: else
  /// `missing-field`, the message naming `what` ("the T-ID user info has no sub").
  mutating func requiredSubject(of what: String) throws(OAuthResponseError) -> String {
    guard let sub = try identifier("sub"), !sub.isEmpty else {
      throw OAuthResponseError(.missingField, field: "sub", message: "\(what) has no sub")
    }
    return sub
  }

  /// A whole number: `600` or `"600"`; anything else is `invalid-field`.
  mutating func integer(_ key: String) throws(OAuthResponseError) -> Int64? {
    guard let value = take(key) else { return nil }
    if case .string("") = value { return nil }
    guard let n = value.integer else {
      throw OAuthResponseError(.invalidField, field: key, message: "\(key) is not a whole number")
    }
    return n
  }

  /// A Boolean: `true` or `"true"` (and `false`, `"false"`); `1`/`0` too, as some providers send them.
  mutating func boolean(_ key: String) throws(OAuthResponseError) -> Bool? {
    guard let value = take(key) else { return nil }
    if let b = value.boolean { return b }
    switch value {
    case .number("1"), .string("1"): return true
    case .number("0"), .string("0"): return false
    default: throw OAuthResponseError(.invalidField, field: key, message: "\(key) is not a Boolean")
    }
  }

  /// A string, or an array of strings (`aud`, `scope` as some servers send it).
  mutating func strings(_ key: String) throws(OAuthResponseError) -> [String]? {
    guard let value = take(key) else { return nil }
    switch value {
    case .string(let s): return [s]
    case .array(let items):
      var out: [String] = []
      for item in items {
        guard case .string(let s) = item else {
          throw OAuthResponseError(.unexpectedShape, field: key, message: "\(key) holds a value that is not a string")
        }
        out.append(s)
      }
      return out
    default:
      throw OAuthResponseError(.unexpectedShape, field: key, message: "\(key) is neither a string nor an array of strings")
    }
  }

  /// `scope`: a space-separated string, or an array of strings joined with spaces.
  mutating func scope(_ key: String) throws(OAuthResponseError) -> String? {
    guard let value = take(key) else { return nil }
    if case .string(let s) = value { return s }
    guard case .array = value else {
      throw OAuthResponseError(.unexpectedShape, field: key, message: "\(key) is neither a string nor an array of strings")
    }
    untake(key)
    return try strings(key)?.joined(separator: " ")
  }

  /// Marks `key` as not taken (it stays in ``rest``).
  mutating func untake(_ key: String) { taken.remove(key) }

  /// The members no accessor took, in document order, as an object.
  var rest: JSONValue { .object(members.filter { !taken.contains($0.key) }) }
}

extension OAuthErrorResponse {
  /// Reads the error members out of `reader` when the object is an error answer (an `error` member, or Sber
  /// API gateway's `httpCode` without `expectedKey`).
  static func detect(
    _ reader: JSONObjectReader, raw: String, provider: Provider?, expectedKey: String?
  ) -> OAuthErrorResponse? {
    if reader.has("error") {
      var r = reader
      return OAuthErrorResponse(reading: &r, raw: raw)
    }
    // [INF] Sber's API gateway (IBM API Connect) answers `{"httpCode":"401","httpMessage":"Unauthorized",
    // "moreInformation":"…"}` when it rejects a call before the OIDC server sees it.
    if provider == .sber, reader.has("httpCode"), expectedKey.map({ !reader.has($0) }) ?? true {
      var r = reader
      let code = (r.take("httpCode").flatMap { $0.string ?? ($0.integer.map(String.init)) }) ?? "?"
      let message = r.take("httpMessage")?.string
      let more = r.take("moreInformation")?.string
      return OAuthErrorResponse(
        error: OAuthErrorCode(rawValue: "http_" + code), errorDescription: more ?? message,
        additionalFields: r.rest, rawBody: raw)
    }
    return nil
  }

  /// Reads `error`, `error_description` (or `error_message`), `error_uri` and `state`; the rest is kept.
  init(reading r: inout JSONObjectReader, raw: String) {
    let errorValue = r.take("error")
    let code: String
    switch errorValue {
    case .string(let s)?: code = s
    case .number(let n)?: code = n
    default:
      // An `error` object or array (VK API's legacy `{"error":{"error_code":5,…}}`): kept in the rest.
      code = "unknown_error"
      r.untake("error")
    }
    var description = r.take("error_description")?.string
    if description == nil { description = r.take("error_message")?.string }
    let uri = r.take("error_uri")?.string
    let state = r.take("state")?.string
    self.init(
      error: OAuthErrorCode(rawValue: code), errorDescription: description, errorURI: uri, state: state,
      additionalFields: r.rest, rawBody: raw)
  }
}

