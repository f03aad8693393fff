// `JSONValue.parse(_:)` for providers' answers: LinkParseProviders' strict parser (`JSONValue.parse(utf8:)`), its
// error worded as this module's `OAuthResponseError` (`invalid-json`, with the byte offset).

public import LinkParseProviders

extension JSONValue {
  /// Parses JSON text (RFC 8259) strictly.
  ///
  /// The input is read once, in place when the collection has contiguous storage (an `Array`, `Data`,
  /// `String.UTF8View` of a native string) and from one copy otherwise. Numbers keep their text. Duplicate
  /// keys, invalid UTF-8, lone surrogate escapes and nesting deeper than ``JSONValue/maximumDepth`` are errors.
  ///
  /// ```swift
  /// let value = try JSONValue.parse(Array(#"{"access_token":"vk2.a.x","expires_in":600}"#.utf8))
  /// value["expires_in"]?.integer  // 600
  ///
  /// do { _ = try JSONValue.parse(Array(#"{"a" 1}"#.utf8)) } catch {
  ///   error.offset   // 5
  ///   error.message  // "expected ':' after an object key"
  /// }
  /// ```
  ///
  /// - Throws: ``OAuthResponseError`` with code ``OAuthResponseError/Code/invalidJSON``, the byte
  ///   ``OAuthResponseError/offset`` and a message naming what was expected or found.
  public static func parse(_ bytes: some Collection<UInt8>) throws(OAuthResponseError) -> JSONValue {
    do {
      return try parse(utf8: bytes)
    } catch {
      throw OAuthResponseError(.invalidJSON, offset: error.offset, message: error.message)
    }
  }
}
