import Testing
@testable import LinkParseCore

@Suite struct SmokeTests {
  @Test func structureDefaults() {
    #expect(URLStructure().queryStart == URLStructure.absent)
  }
}
