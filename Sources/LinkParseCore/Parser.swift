// STUB
enum URLParser {
  static func parse(string: String, base: ParsedURL?) throws(URLParseError) -> ParsedURL {
    throw URLParseError(code: .invalidHost, offset: nil, message: "stub")
  }
  static func parse(substring: Substring, base: ParsedURL?) throws(URLParseError) -> ParsedURL {
    try parse(string: String(substring), base: base)
  }
  static func parse<Bytes: Collection<UInt8>>(bytes: Bytes, base: ParsedURL?) throws(URLParseError) -> ParsedURL {
    try parse(string: String(decoding: bytes, as: UTF8.self), base: base)
  }
}
