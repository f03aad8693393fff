// An allocation-free check that a JSON text will decode into one of JSONSupport's types, so that decoding
// (Foundation's JSONDecoder) can wait until a value is read. It answers `valid` only for texts that are
// strictly RFC 8259 (no `\u` escapes, valid UTF-8, nesting at most 32 deep) whose typed keys have the types
// the Decodable structs need (a string or null, an object or null); anything else is `unsure`, and the
// caller asks JSONDecoder, so acceptance is exactly JSONDecoder's.
import CByteScan
import LinkParseCore

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
    var scanner = Scanner(bytes: bytes)
    scanner.skipWhitespace()
    guard scanner.peek() == UInt8(ascii: "{"), scanner.object(schema, depth: 1) else { return false }
    scanner.skipWhitespace()
    return scanner.index == bytes.count
  }

  private enum Kind { case object, array, string, number, literal, null }

  private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0A, 0x0D: index &+= 1
        default: return
        }
      }
    }

    /// An object at `index` (which is `{`), its keys checked against `schema` (nil: unchecked).
    mutating func object(_ schema: Schema?, depth: Int) -> Bool {
      guard depth <= 32 else { return false }
      index &+= 1
      skipWhitespace()
      if peek() == UInt8(ascii: "}") {
        index &+= 1
        return true
      }
      var seen: UInt32 = 0
      while true {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\""), let key = string() else { return false }
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { return false }
        index &+= 1
        skipWhitespace()
        var expectation = Expectation.any
        if let schema {
          guard !key.escaped else { return false }  // an escaped key might name a typed property
          let (e, bit) = schema.expectation(UnsafeBufferPointer(rebasing: bytes[key.range]))
          if bit != 0 {
            guard seen & bit == 0 else { return false }
            seen |= bit
          }
          expectation = e
        }
        guard let kind = value(depth: depth, expectation: expectation) else { return false }
        switch expectation {
        case .any: break
        case .stringOrNull: guard kind == .string || kind == .null else { return false }
        case .objectOrNull: guard kind == .object || kind == .null else { return false }
        }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index &+= 1
        case UInt8(ascii: "}"):
          index &+= 1
          return true
        default: return false
        }
      }
    }

    mutating func array(depth: Int) -> Bool {
      guard depth <= 32 else { return false }
      index &+= 1
      skipWhitespace()
      if peek() == UInt8(ascii: "]") {
        index &+= 1
        return true
      }
      while true {
        skipWhitespace()
        guard value(depth: depth, expectation: .any) != nil else { return false }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index &+= 1
        case UInt8(ascii: "]"):
          index &+= 1
          return true
        default: return false
        }
      }
    }

    mutating func value(depth: Int, expectation: Expectation) -> Kind? {
      guard let byte = peek() else { return nil }
      switch byte {
      case UInt8(ascii: "{"):
        var nested: Schema?
        if case .objectOrNull(let schema) = expectation { nested = schema }
        return object(nested, depth: depth &+ 1) ? .object : nil
      case UInt8(ascii: "["): return array(depth: depth &+ 1) ? .array : nil
      case UInt8(ascii: "\""): return string() != nil ? .string : nil
      case UInt8(ascii: "t"): return literal("true") ? .literal : nil
      case UInt8(ascii: "f"): return literal("false") ? .literal : nil
      case UInt8(ascii: "n"): return literal("null") ? .null : nil
      default: return number() ? .number : nil
      }
    }

    mutating func literal(_ text: StaticString) -> Bool {
      let n = text.utf8CodeUnitCount
      guard bytes.count &- index >= n else { return false }
      let l = text.utf8Start
      for j in 0..<n where bytes[index &+ j] != l[j] { return false }
      index &+= n
      return true
    }

    /// A string at `index` (which is `"`): the range of its contents, and whether it has escapes.
    mutating func string() -> (range: Range<Int>, escaped: Bool)? {
      index &+= 1
      let start = index
      var escaped = false
      guard let base = bytes.baseAddress else { return nil }
      while index < bytes.count {
        // Plain ASCII runs are skipped sixteen bytes at a time: on x86-64 with SSE2 masks, in place (claims and
        // `user` values are short, so a call per string into Core's scan cost more than the scan).
        #if arch(x86_64)
        while index &+ 16 <= bytes.count {
          let mask = linkparse_mask16_json_string(base + index)
          if mask != 0 {
            index &+= mask.trailingZeroBitCount
            break
          }
          index &+= 16
        }
        while index < bytes.count && !Scan.isJSONStringSpecial(bytes[index]) { index &+= 1 }
        #else
        index = Scan.jsonStringSpecial(base, index, bytes.count)
        #endif
        guard index < bytes.count else { return nil }
        let b = bytes[index]
        switch b {
        case UInt8(ascii: "\""):
          let range = start..<index
          index &+= 1
          return (range, escaped)
        case UInt8(ascii: "\\"):
          guard index &+ 1 < bytes.count else { return nil }
          switch bytes[index &+ 1] {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            escaped = true
            index &+= 2
          default: return nil  // `\u` (surrogates) and invalid escapes: JSONDecoder decides
          }
        case 0..<0x20: return nil
        case 0x80...:
          let n = UTF8Validation.sequenceLength(bytes, at: index)
          guard n > 0 else { return nil }
          index &+= n
        default: index &+= 1
        }
      }
      return nil
    }

    /// RFC 8259 `number`.
    mutating func number() -> Bool {
      func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index &+= 1 }
        return index &- start
      }
      if peek() == UInt8(ascii: "-") { index &+= 1 }
      guard let first = peek(), first >= 0x30, first <= 0x39 else { return false }
      if first == 0x30 {
        index &+= 1
        if let next = peek(), next >= 0x30, next <= 0x39 { return false }
      } else {
        _ = digits()
      }
      if peek() == UInt8(ascii: ".") {
        index &+= 1
        guard digits() > 0 else { return false }
      }
      if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
        index &+= 1
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index &+= 1 }
        guard digits() > 0 else { return false }
      }
      return true
    }
  }
}
