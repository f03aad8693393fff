import Foundation
import Testing
import LinkParseAuthorization
import LinkParseProviders

@testable import LinkParseOAuth
import LinkParseBytes

/// The byte-level readers under the id_token: base64url and the strict JSON reader.
@Suite struct IDTokenDecodingTests {
  @Test func base64URLRoundTripsEveryLength() {
    var generator = SystemRandomNumberGenerator()
    for length in 0..<70 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let encoded = Base64URL.encode(bytes)
      let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      #expect(encoded == foundation)
      guard case .success(let decoded) = Base64URL.decode(encoded.utf8, mode: .strict) else {
        Issue.record("length \(length) did not decode")
        continue
      }
      #expect(decoded == bytes)
    }
  }

  @Test(arguments: [("ab+d", 2), ("abcd/efg", 4), ("abc=", 3), ("abcde", 4), ("ab cd", 2), ("abcdefgh\u{E9}", 8)])
  func base64URLReportsTheBadByte(_ text: String, _ offset: Int) {
    guard case .failure(let failure) = Base64URL.decode(text.utf8, mode: .strict) else {
      Issue.record("\(text) decoded")
      return
    }
    #expect(failure.offset == offset)
  }

  @Test func jsonReadsEscapesAndUnicode() throws {
    let text = #"{"a":"\u00e9\ud83d\ude00\n\"\\\/","b":[1,-2.5e3,true,false,null,{}],"c":"é"}"#
    guard case .success(let value) = TokenJSON.parse(Array(text.utf8)) else {
      Issue.record("did not parse")
      return
    }
    #expect(value["a"] == .string("é😀\n\"\\/"))
    #expect(value["b"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .object([])]))
    #expect(value["c"] == .string("é"))
  }

  @Test(arguments: [
    ("", 0), ("{", 1), (#"{"a"}"#, 4), ("[1,]", 3), ("01", 0), (#"{"a":1} x"#, 8), (#""\ud800""#, 1),
    (#""\x""#, 1), ("\"\u{01}\"", 1), ("tru", 3),
  ])
  // The offsets are JSONValue.parse's: a number with a leading zero at its first digit, a bad escape at its
  // backslash.
  func jsonRejectsWithTheOffset(_ text: String, _ offset: Int) {
    guard case .failure(let failure) = TokenJSON.parse(Array(text.utf8)) else {
      Issue.record("\(text) parsed")
      return
    }
    #expect(failure.offset == offset, "\(text): \(failure.message)")
  }

  @Test func jsonRejectsInvalidUTF8AndDeepNesting() {
    #expect(throws: Never.self) {}
    if case .success = TokenJSON.parse([0x22, 0xC0, 0x80, 0x22]) { Issue.record("overlong UTF-8 accepted") }
    if case .success = TokenJSON.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) { Issue.record("UTF-8 surrogate accepted") }
    let deep = { (n: Int) in Array(repeating: UInt8(ascii: "["), count: n) + Array(repeating: UInt8(ascii: "]"), count: n) }
    if case .failure = TokenJSON.parse(deep(TokenJSON.maxDepth)) { Issue.record("depth \(TokenJSON.maxDepth) refused") }
    if case .success = TokenJSON.parse(deep(TokenJSON.maxDepth + 1)) { Issue.record("depth \(TokenJSON.maxDepth + 1) accepted") }
  }

  @Test(arguments: [3, 40])
  func jsonRejectsDuplicateNames(_ members: Int) {
    let body = (0..<members).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
    if case .failure = TokenJSON.parse(Array("{\(body)}".utf8)) { Issue.record("distinct names refused") }
    guard case .failure(let failure) = TokenJSON.parse(Array("{\(body),\"k1\":0}".utf8)) else {
      Issue.record("duplicate accepted with \(members) members")
      return
    }
    #expect(failure.message.contains("duplicate"))
  }
}
