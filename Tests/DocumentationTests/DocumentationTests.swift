import Foundation
import LinkParseCore
import Testing

/// The code blocks of README.md, docs/ and the DocC catalogs are compiled (Scripts/doc-snippets.py extracts
/// each into Snippets/, which this target builds); these tests check that none was left out, that none gets an
/// import it does not print, and that what the prose says a block prints is what the code prints.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The documents whose ```swift blocks are compiled: README.md, docs/*.md and every DocC catalog's articles
  /// (Sources/<Target>/<Target>.docc), as Scripts/doc-snippets.py reads them.
  static func documents() throws -> [String] {
    let files = FileManager.default
    var documents = ["README.md"]
    documents += try files.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    let sources = root.appendingPathComponent("Sources")
    for target in try files.contentsOfDirectory(atPath: sources.path).sorted() {
      let targetPath = sources.appendingPathComponent(target).path
      guard let entries = try? files.contentsOfDirectory(atPath: targetPath) else { continue }
      for catalog in entries.filter({ $0.hasSuffix(".docc") }).sorted() {
        documents += try files.contentsOfDirectory(atPath: targetPath + "/" + catalog)
          .filter { $0.hasSuffix(".md") }.sorted().map { "Sources/\(target)/\(catalog)/" + $0 }
      }
    }
    return documents
  }

  /// Every ```swift block of every document has its compiled function (a new block without a regenerated
  /// Snippets/ fails here, and `make check-generated` names the file).
  @Test func everySwiftBlockIsCompiled() throws {
    let documents = try Self.documents()
    #expect(documents.contains("docs/library.md"))
    #expect(documents.contains("Sources/LinkParse/LinkParse.docc/HandlingACallbackInAnApp.md"))
    let lines = try Self.text("Tests/DocumentationTests/Snippets/Index.swift")
    for document in documents {
      let blocks = try Self.text(document).split(separator: "\n", omittingEmptySubsequences: false)
        .filter { $0.hasPrefix("```swift") }.count
      let compiled = documentationSnippets.filter { $0.document == document }
      // A block that continues another shares its function: at least one function per document with blocks.
      #expect(blocks == 0 ? compiled.isEmpty : !compiled.isEmpty, "\(document)")
      #expect(blocks == 0 || lines.contains(document), "\(document)")
    }
    let counted = try Self.text("README.md").components(separatedBy: "\n```swift").count - 1
    #expect(documentationSnippets.filter { $0.document == "README.md" }.count == counted)
  }

  /// Each block compiles as printed: a generated file imports exactly what its document's blocks import (the
  /// generator adds no import of its own).
  @Test func snippetsImportOnlyWhatTheirBlocksImport() throws {
    let snippets = Self.root.appendingPathComponent("Tests/DocumentationTests/Snippets")
    for file in try FileManager.default.contentsOfDirectory(atPath: snippets.path) where file != "Index.swift" {
      let text = try String(contentsOf: snippets.appendingPathComponent(file), encoding: .utf8)
      let header = try #require(text.split(separator: "\n").first)
      let document = try #require(header.range(of: "from ").map { header[$0.upperBound...] }?.split(separator: ":").first)
      let source = try Self.text(String(document))
      for line in text.split(separator: "\n") where line.hasPrefix("import ") {
        let printed = "\n" + String(line)
        #expect(source.contains(printed + "\n") || source.contains(printed + " "), "\(file): \(line)")
      }
    }
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
