import Testing
import LinkParseCLI

@Suite struct CLISmokeTests {
  @Test func placeholder() { #expect(Bool(true)) }
}
