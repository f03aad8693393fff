// The byte-level parts of reading a compact JWS: its JSON parts read by the package's one strict parser
// (`JSONValue.parse`, LinkParseProviders' parser with this module's error). Internal. (Base64url without padding is LinkParseProviders' `Base64URL.decode(_:mode:)`
// in its strict mode, which reports the offset of the first bad byte.)
//
// The parser is strict where a token needs it: duplicate member names are refused (two `aud` or `iss` members
// read differently by two libraries are the classic JWT confusion), nesting is capped, strings must be valid
// UTF-8.

package import LinkParseProviders

/// A token part's (or a JWKS's) JSON, read by ``JSONValue/parse(_:)``: the value, or the byte offset and
/// message of the first error.
package enum TokenJSON {
  package struct Failure: Error {
    package var offset: Int
    package var message: String
  }

  /// The deepest nesting accepted (``JSONValue/maximumDepth``).
  package static let maxDepth = JSONValue.maximumDepth

  /// Parses one JSON value filling the whole input (whitespace around it allowed).
  package static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
    do {
      return .success(try JSONValue.parse(bytes))
    } catch {
      return .failure(Failure(offset: error.offset ?? 0, message: error.message))
    }
  }
}
