import Foundation
import LinkParseCore
import Testing

@_spi(Testing) import LinkParseRouter

/// The routes the documentation shows (the `Router([...])` of docs/library.md, "Provider callbacks and
/// routing"), read from that document itself, compile and match the VK ID callbacks of providers.md §2.4 (examples 1, 2 and 5): vk.ru, the
/// host-less return from the VK app, and vk.com.
@Suite struct ReadmeRoutesTests {

  static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("docs").appendingPathComponent("library.md")

  /// The `Route(…)` lines of the document's first `Router([` … `])` block, as the Swift compiler reads them
  /// (a `#"…"#` raw string as it is, a `"…"` string with `\\` and `\"` unescaped).
  static func readmeRoutes() throws -> [Route] {
    let text = try String(contentsOf: readme, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex { $0.contains("try Router([") })
    var routes: [Route] = []
    for line in lines[(start + 1)...] {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("])") { break }
      if trimmed.hasPrefix("//") { continue }
      var rest = Substring(try #require(trimmed.hasPrefix("Route(") ? trimmed.dropFirst(6) : nil, "\(line)"))
      let name = try #require(Self.stringLiteral(&rest), "\(line)")
      rest = rest.drop { $0 == "," || $0 == " " }
      let pattern = try #require(Self.stringLiteral(&rest), "\(line)")
      var provider: Provider?
      if let range = rest.range(of: "provider: .") {
        let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber }
        provider = Provider(rawValue: String(name))
      }
      routes.append(Route(name, pattern, provider: provider))
    }
    return routes
  }

  /// Reads a Swift string literal (`"…"` or `#"…"#`) at the start of `text` and advances past it.
  static func stringLiteral(_ text: inout Substring) -> String? {
    if text.hasPrefix("#\"") {
      guard let end = text.dropFirst(2).range(of: "\"#") else { return nil }
      defer { text = text[end.upperBound...] }
      return String(text[text.index(text.startIndex, offsetBy: 2)..<end.lowerBound])
    }
    guard text.hasPrefix("\"") else { return nil }
    var value = ""
    var i = text.index(after: text.startIndex)
    while i < text.endIndex {
      let c = text[i]
      if c == "\"" {
        text = text[text.index(after: i)...]
        return value
      }
      if c == "\\" {
        i = text.index(after: i)
        guard i < text.endIndex else { return nil }
      }
      value.append(text[i])
      i = text.index(after: i)
    }
    return nil
  }

  @Test func readmeRoutesMatchTheVKCallbacksOfTheSpec() throws {
    let routes = try Self.readmeRoutes()
    #expect(routes.count >= 2, "\(routes)")
    #expect(routes.contains { $0.provider == .vk })
    let table = try router(routes)
    // providers.md §2.4, examples 1 (SDK 2.x, vk.ru), 2 (return from the VK app, no host), 5 (SDK 1.x, vk.com).
    let examples = [
      "vk7915193://vk.ru/blank.html?oauth2_params=eyJzY29wZSI6InZraWQucGVyc29uYWxfaW5mbyJ9&code=vk2.a.FmLgF_q1Zx-AbCdEf&state=3F2504E0-4F89-11D3-9A0C-0305E82C3301&device_id=Dv4kQ9-encrypted-id&type=code_v2&expires_in=600",
      "vk7915193://?code=vk2.a.Q8n_Wt0pL&device_id=Dv4kQ9-encrypted-id&state=abracadabra&type=code_v2&vkconnect_auth_provider_method=external_auth",
      "vk523633://vk.com/blank.html?payload=%7B%22oauth%22%3A%7B%22code%22%3A%22c1%22%2C%22state%22%3A%22s1%22%7D%2C%22user%22%3A%7B%22id%22%3A1%2C%22first_name%22%3A%22Ivan%22%2C%22last_name%22%3A%22P%22%7D%7D",
    ]
    for (url, app) in zip(examples, ["7915193", "7915193", "523633"]) {
      let m = try #require(try match(table, url), "\(url)")
      #expect(m.provider == .vk, "\(url)")
      #expect(m["app"] == app, "\(url)")
    }
    // Still VK ID's own hosts and path only.
    for url in ["vk1://evil.example/blank.html?code=c", "vk1://vk.ru/other?code=c", "vk1://vk.ru.evil.example/blank.html",
                "vkx://vk.ru/blank.html"] {
      #expect(try match(table, url)?.provider != .vk, "\(url)")
    }
    // The document's other example still routes.
    #expect(try match(table, "https://example.com/auth/apple/callback")?.provider == .apple)
  }
}
