// The byte-level parts of reading a compact JWS: base64url without padding, and its JSON parts read by the
// module's one strict parser (`JSONValue.parse`). Internal.
//
// The parser is strict where a token needs it: duplicate member names are refused (two `aud` or `iss` members
// read differently by two libraries are the classic JWT confusion), nesting is capped, strings must be valid
// UTF-8.

internal import LinkParseProviders

enum TokenBase64URL {
  struct Failure: Error {
    var offset: Int
  }

  /// 6-bit values of the base64url alphabet; 0xFF for every other byte.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (i, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
      table[Int(byte)] = UInt8(i)
    }
    return table
  }()

  /// Decodes base64url without padding (RFC 7515 §2). A trailing `=` is refused, as is a length of 4n+1.
  /// On failure returns the offending byte offset.
  static func decode(_ text: some Collection<UInt8>) -> Result<[UInt8], Failure> {
    if let result = text.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return result }
    return Array(text).withUnsafeBufferPointer { decode(buffer: $0) }
  }

  private static func decode(buffer: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Failure> {
    let count = buffer.count
    let outCount = count / 4 * 3 + max(count % 4 - 1, 0)
    return values.withUnsafeBufferPointer { table in
      var failure: Int? = nil
      let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
        var i = 0
        var o = 0
        while i + 4 <= count {
          let a = table[Int(buffer[i])], b = table[Int(buffer[i + 1])]
          let c = table[Int(buffer[i + 2])], d = table[Int(buffer[i + 3])]
          if (a | b | c | d) & 0xC0 != 0 {
            failure = i + [a, b, c, d].firstIndex { $0 == 0xFF }!
            initialized = 0
            return
          }
          let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
          out[o] = UInt8(truncatingIfNeeded: n >> 16)
          out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
          out[o + 2] = UInt8(truncatingIfNeeded: n)
          i += 4
          o += 3
        }
        var n: UInt32 = 0
        let rest = count - i
        for k in 0..<rest {
          let v = table[Int(buffer[i + k])]
          if v == 0xFF {
            failure = i + k
            initialized = 0
            return
          }
          n = n << 6 | UInt32(v)
        }
        if rest == 1 {
          // 4n+1 characters: the last one carries 6 bits, not a whole byte.
          failure = count - 1
          initialized = 0
          return
        } else if rest == 2 {
          out[o] = UInt8(truncatingIfNeeded: n >> 4)
          o += 1
        } else if rest == 3 {
          out[o] = UInt8(truncatingIfNeeded: n >> 10)
          out[o + 1] = UInt8(truncatingIfNeeded: n >> 2)
          o += 2
        }
        initialized = o
      }
      if let failure { return .failure(Failure(offset: failure)) }
      return .success(out)
    }
  }

  /// Encodes without padding (LinkParseProviders' encoder, which PKCE uses too).
  static func encode(_ bytes: some Collection<UInt8>) -> String { Base64URL.encode(bytes) }
}

/// A token part's (or a JWKS's) JSON, read by ``JSONValue/parse(_:)``: the value, or the byte offset and
/// message of the first error.
enum TokenJSON {
  struct Failure: Error {
    var offset: Int
    var message: String
  }

  /// The deepest nesting accepted (``JSONValue/maximumDepth``).
  static let maxDepth = JSONValue.maximumDepth

  /// Parses one JSON value filling the whole input (whitespace around it allowed).
  static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
    do {
      return .success(try JSONValue.parse(bytes))
    } catch {
      return .failure(Failure(offset: error.offset ?? 0, message: error.message))
    }
  }
}
