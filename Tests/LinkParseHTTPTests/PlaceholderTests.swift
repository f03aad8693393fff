import Testing
import LinkParseHTTP

@Suite struct HTTPPlaceholderTests {
  @Test func builds() { #expect(Bool(true)) }
}
