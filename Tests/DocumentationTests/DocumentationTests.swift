import Foundation
import LinkParseCore
import Testing

/// The code blocks of README.md and the DocC catalog are compiled (Scripts/doc-snippets.py extracts each into
/// Snippets/, which this target builds); these tests check that none was left out and that what the prose says
/// a block prints is what the code prints.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// Every ```swift block of every document has its compiled function (a new block without a regenerated
  /// Snippets/ fails here, and `make check-generated` names the file).
  @Test func everySwiftBlockIsCompiled() throws {
    let catalog = Self.root.appendingPathComponent("Sources/LinkParse/LinkParse.docc")
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
      .map { "Sources/LinkParse/LinkParse.docc/" + $0 }
    for document in ["README.md"] + articles {
      let blocks = try Self.text(document).split(separator: "\n", omittingEmptySubsequences: false)
        .filter { $0.hasPrefix("```swift") }.count
      let compiled = documentationSnippets.filter { $0.document == document }
      // A block that continues another shares its function: at least one function per document with blocks.
      #expect(blocks == 0 ? compiled.isEmpty : !compiled.isEmpty, "\(document)")
      let lines = try Self.text("Tests/DocumentationTests/Snippets/Index.swift")
      #expect(blocks == 0 || lines.contains(document), "\(document)")
    }
    let counted = try Self.text("README.md").components(separatedBy: "\n```swift").count - 1
    #expect(documentationSnippets.filter { $0.document == "README.md" }.count == counted)
  }

  /// README's first example prints `error.code error.offset error.message`: the comment shows what it prints.
  @Test func readmeErrorExampleIsWhatTheCodePrints() throws {
    let line = try #require(
      try Self.text("README.md").split(separator: "\n").first { $0.contains("print(error.code, error.offset!, error.message)") })
    let shown = try #require(line.range(of: "// ").map { String(line[$0.upperBound...]) })
    do {
      _ = try ParsedURL("https://exa mple.com/")
      Issue.record("parsed")
    } catch {
      #expect(shown == "\(error.code) \(error.offset!) \(error.message)")
    }
  }
}
