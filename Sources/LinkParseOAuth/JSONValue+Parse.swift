// PLACEHOLDER (replaced by the strict parser): JSON text to a JSONValue, errors with byte offsets.

extension JSONValue {
  /// Parses JSON text (RFC 8259) strictly.
  public static func parse(_ bytes: some Collection<UInt8>) throws(OAuthResponseError) -> JSONValue {
    throw OAuthResponseError(.invalidJSON, offset: 0, message: "not implemented yet")
  }
}
