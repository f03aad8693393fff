import Foundation
@testable import FuzzSupport
import LinkParseTestSupport
import Testing

/// Replays every file in `corpus/regressions/` through the property of the fuzz target that found it.
///
/// A file is named `<target>-<anything>` (the run script uses `<target>-<sha1>`): `parse-…` goes through
/// `FuzzProperty.parse`, and so on. The test passes with no files, and prints how many it replayed.
@Suite struct RegressionReplayTests {
  /// `corpus/regressions/`, found from this file's path (Tests/FuzzRegressionTests/ → the repository).
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("corpus/regressions")

  static func regressionFiles() throws -> [URL] {
    guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
    return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
      .filter { !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "md" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  @Test func everyRegressionHolds() async throws {
    let files = try Self.regressionFiles()
    var replayed: [FuzzProperty: Int] = [:]
    for file in files {
      let name = file.lastPathComponent
      guard let property = FuzzProperty(regressionFileName: name[...]) else {
        Issue.record("\(name): no fuzz target named by its prefix (expected one of \(FuzzProperty.allCases.map(\.rawValue)))")
        continue
      }
      let bytes = [UInt8](try Data(contentsOf: file))
      let problems = await onOwnThread { property.check(bytes) }
      #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "; "))")
      replayed[property, default: 0] += 1
    }
    let summary = FuzzProperty.allCases.map { "\($0.rawValue) \(replayed[$0] ?? 0)" }.joined(separator: ", ")
    let total = replayed.values.reduce(0, +)
    print("RegressionReplayTests: replayed \(total) of \(files.count) files in corpus/regressions (\(summary))")
  }

  /// The `cookies` target's seeds hold (the property runs in `make test`, not only under the fuzzer): the sealed
  /// login round trip, forgeries refused, the expired login cookies within their bounds.
  @Test func cookieSeedsHold() throws {
    let seeds = Self.directory.deletingLastPathComponent().appendingPathComponent("cookies")
    let files = try FileManager.default.contentsOfDirectory(at: seeds, includingPropertiesForKeys: nil)
    #expect(files.count >= 5)
    for file in files {
      let problems = FuzzProperty.cookies.check([UInt8](try Data(contentsOf: file)))
      #expect(problems.isEmpty, "\(file.lastPathComponent): \(problems)")
    }
  }

  /// The `server` target's seeds hold, and each goes where its name says: a seed whose login never completed
  /// (a state not found, a route renamed) would leave the fuzzer outside the login without anyone noticing.
  @Test func serverSeedsHoldAndReachTheirAnswers() async throws {
    let seeds = Self.directory.deletingLastPathComponent().appendingPathComponent("server")
    let expected: [String: [String]] = [
      "vk-login-refresh-logout": [
        "GET /login/vk 302", "GET /auth/vk/callback 303", "GET /me 200", "POST /refresh 200", "POST /logout 303",
        "GET /me 401",
      ],
      "demo-login-replay-logout": [
        "GET /login/demo 302", "GET /auth/demo/callback 303", "GET /auth/demo/callback 409", "GET /auth/demo/callback 403",
        "POST /logout 303",
      ],
      "unsent-then-retried": ["GET /login/demo 302", "GET /auth/demo/callback 503", "GET /auth/demo/callback 303"],
      "provider-failures": [
        "GET /login/vk 302", "GET /auth/vk/callback 502", "GET /login/vk 302", "GET /auth/vk/callback 503",
      ],
      "provider-denied": ["GET /login/demo 302", "GET /auth/demo/callback 403", "GET /auth/demo/callback 409"],
      "refresh-refused": ["GET /login/demo 302", "GET /auth/demo/callback 303", "POST /refresh 401", "GET /me 401"],
      "cross-site-posts": ["POST /logout 303", "POST /refresh 403", "POST /logout 403", "GET /me 401"],
      "start-limit": [String](repeating: "GET /login/vk 302", count: 5) + ["GET /login/vk 429", "GET /login/vk 302"],
      "large-cookie-header-and-body": ["GET /login/vk 302", "GET /auth/vk/callback 431", "POST /auth/apple/callback 413"],
    ]
    let files = try FileManager.default.contentsOfDirectory(at: seeds, includingPropertiesForKeys: nil)
    #expect(files.count >= 10)
    for file in files {
      let bytes = [UInt8](try Data(contentsOf: file))
      let (statuses, problems) = await onOwnThread { ServerProperty.replay(bytes) }
      #expect(problems.isEmpty, "\(file.lastPathComponent): \(problems)")
      if let answers = expected[file.lastPathComponent] {
        #expect(statuses == answers, "\(file.lastPathComponent)")
      }
    }
  }

  /// The strict JSON validator is what makes the `cli` property mean something: it must reject what is
  /// not JSON.
  @Test(arguments: [
    "{}", "[]", "0", "-0.5e+3", "\"a\\u00e9\\ud83d\\ude00\"", " {\"a\":[1,true,false,null,{}]} ", "\"\u{E9}\"",
  ])
  func validatorAccepts(_ text: String) throws {
    try StrictJSON.validate(Array(text.utf8))
  }

  @Test(arguments: [
    [UInt8]("".utf8), Array("{".utf8), Array("{\"a\"}".utf8), Array("[1,]".utf8), Array("01".utf8),
    Array("1.".utf8), Array("\"\u{01}\"".utf8), Array("\"\\x\"".utf8), Array("\"\\ud800\"".utf8),
    Array("\"\\udc00\"".utf8), Array("tru".utf8), Array("{} {}".utf8), [0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22],
    [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
  ])
  func validatorRejects(_ bytes: [UInt8]) {
    #expect(!StrictJSON.isValid(bytes), "accepted \(bytes)")
  }

  @Test func validatorLimitsNesting() {
    let deep = { (depth: Int) in Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth) }
    #expect(StrictJSON.isValid(deep(StrictJSON.maxDepth)))
    #expect(!StrictJSON.isValid(deep(StrictJSON.maxDepth + 1)))
  }
}
