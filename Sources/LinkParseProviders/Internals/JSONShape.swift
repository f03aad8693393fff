// An allocation-free check that a JSON text will decode into one of JSONSupport's types, so that decoding
// (Foundation's JSONDecoder) can wait until a value is read. It answers `valid` only for texts that are
// strictly RFC 8259 (no `\u` escapes, valid UTF-8, nesting at most 32 deep) whose typed keys have the types
// the Decodable structs need (a string or null, an object or null); anything else is `unsure`, and the
// caller asks JSONDecoder, so acceptance is exactly JSONDecoder's. The grammar is `JSONReader`'s; this file only
// walks objects against the schemas.
import LinkParseBytes

enum JSONShape {
  /// What a key of an object must hold.
  enum Expectation {
    /// Anything (unknown keys, and the lenient scalars of JSONSupport, which never fail).
    case any
    /// A string or `null` (a `String?` property).
    case stringOrNull
    /// An object or `null`, whose keys are checked against `Schema`.
    case objectOrNull(Schema)
  }

  /// The keys a Decodable struct of JSONSupport checks.
  enum Schema {
    /// `JSONSupport.Claims` (an `id_token` payload).
    case claims
    /// `JSONSupport.AppleUserJSON`.
    case appleUser
    /// `JSONSupport.AppleUserJSON.Name`.
    case appleName

    /// What `key` must hold, and its bit for duplicate detection (0 for `.any`: the lenient scalars and
    /// unknown keys never fail, however often they occur).
    func expectation(_ key: UnsafeBufferPointer<UInt8>) -> (Expectation, UInt32) {
      switch self {
      case .claims:
        if bytesEqual(key, "iss") { return (.stringOrNull, 1) }
        if bytesEqual(key, "sub") { return (.stringOrNull, 2) }
        if bytesEqual(key, "nonce") { return (.stringOrNull, 4) }
        if bytesEqual(key, "email") { return (.stringOrNull, 8) }
        if bytesEqual(key, "transfer_sub") { return (.stringOrNull, 16) }
        return (.any, 0)
      case .appleUser:
        if bytesEqual(key, "name") { return (.objectOrNull(.appleName), 1) }
        if bytesEqual(key, "email") { return (.stringOrNull, 2) }
        return (.any, 0)
      case .appleName:
        if bytesEqual(key, "firstName") { return (.stringOrNull, 1) }
        if bytesEqual(key, "lastName") { return (.stringOrNull, 2) }
        if bytesEqual(key, "middleName") { return (.stringOrNull, 4) }
        return (.any, 0)
      }
    }
  }

  /// Whether `bytes` are certainly a JSON object that decodes as `schema`'s struct (`false`: ask
  /// JSONDecoder).
  static func isCertainlyValid(_ bytes: UnsafeBufferPointer<UInt8>, as schema: Schema) -> Bool {
    var reader = JSONReader(bytes, maximumDepth: 32)
    reader.skipWhitespace()
    guard reader.peek == UInt8(ascii: "{") else { return false }
    do throws(JSONSyntaxError) {
      guard try object(&reader, schema) else { return false }
      try reader.expectEnd()
    } catch {
      return false
    }
    return !reader.sawUnicodeEscape  // `\u` (surrogates): JSONDecoder decides
  }

  /// An object at the read position (`{`), its keys checked against `schema`: `false` when a typed key is
  /// escaped, repeated or of the wrong type.
  private static func object(_ reader: inout JSONReader, _ schema: Schema) throws(JSONSyntaxError) -> Bool {
    guard try reader.enter(.object) else { return true }
    var seen: UInt32 = 0
    repeat {
      let key = try reader.key()
      try reader.colon()
      guard !key.hasEscapes else { return false }  // an escaped key might name a typed property
      let (expectation, bit) = schema.expectation(UnsafeBufferPointer(rebasing: reader.bytes[key.range]))
      if bit != 0 {
        guard seen & bit == 0 else { return false }
        seen |= bit
      }
      switch expectation {
      case .any:
        try reader.skipValue()
      case .stringOrNull:
        switch reader.peek {
        case UInt8(ascii: "\""): _ = try reader.string()
        case UInt8(ascii: "n"): try reader.literal(.null)
        default: return false
        }
      case .objectOrNull(let nested):
        switch reader.peek {
        case UInt8(ascii: "{"): guard try object(&reader, nested) else { return false }
        case UInt8(ascii: "n"): try reader.literal(.null)
        default: return false
        }
      }
    } while try reader.next(.object)
    return true
  }
}
