import Foundation
import LinkParseTestSupport
import Testing

@_spi(Testing) @testable import LinkParseCore

/// web-platform-tests URL data (``ConformanceData`` says where it is, and what happens when it is missing).
enum Conformance {
  /// The parsed JSON of a data file, or nil when it is missing (after printing that it was skipped, or
  /// recording the failure).
  static func load(_ name: String) -> [Any]? {
    let data: Data
    switch ConformanceData.file(name) {
    case .found(let bytes): data = replacingLoneSurrogates(bytes)
    case .skipped(let message):
      print(message)
      return nil
    case .missing(let message):
      Issue.record(Comment(rawValue: message))
      return nil
    }
    guard let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
      Issue.record("\(name) is not a JSON array")
      return nil
    }
    return array
  }

  /// `json` with each `\\uXXXX` escape of a lone surrogate replaced by `\\uFFFD`, as JavaScript's conversion of a
  /// string to a USVString does before `new URL` sees it (IdnaTestV2.json has two such inputs, which
  /// Foundation's JSON parser refuses).
  static func replacingLoneSurrogates(_ json: Data) -> Data {
    var bytes = [UInt8](json)
    func surrogate(at i: Int) -> UInt16? {
      guard i &+ 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i &+ 1] == UInt8(ascii: "u"),
        let v = UInt16(String(decoding: bytes[i &+ 2..<i &+ 6], as: UTF8.self), radix: 16), v & 0xF800 == 0xD800
      else { return nil }
      return v
    }
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "\\") && i &+ 1 < bytes.count && bytes[i &+ 1] == UInt8(ascii: "\\") {
        i &+= 2  // an escaped backslash
        continue
      }
      if let v = surrogate(at: i) {
        if v < 0xDC00, let low = surrogate(at: i &+ 6), low >= 0xDC00 {
          i &+= 12  // a pair
          continue
        }
        bytes.replaceSubrange(i &+ 2..<i &+ 6, with: Array("FFFD".utf8))
      }
      i &+= 1
    }
    return Data(bytes)
  }

  /// Cases listed in `expected-failures.txt`: lines `file<TAB>input as JSON<TAB>base as JSON or null<TAB>reason`.
  static let expectedFailures: [String: String] = {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "expected-failures.txt")
    guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [:] }
    var result: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count >= 4 else { continue }
      result["\(fields[0])\t\(fields[1])\t\(fields[2])"] = String(fields[3])
    }
    return result
  }()

  static func json(_ value: Any?) -> String {
    guard let value, !(value is NSNull) else { return "null" }
    let data = try! JSONSerialization.data(withJSONObject: [value], options: [.withoutEscapingSlashes])
    let text = String(decoding: data, as: UTF8.self)
    return String(text.dropFirst().dropLast())
  }
}

extension ParsedURL {
  /// The URL's components as the URL Standard's JavaScript API shows them.
  var webIDLComponents: [String: String] {
    let portText = port.map { String($0) } ?? ""
    let hostname = String(host ?? "")
    return [
      "href": href,
      "protocol": scheme + ":",
      "username": String(username),
      "password": String(password),
      "host": portText.isEmpty ? hostname : hostname + ":" + portText,
      "hostname": hostname,
      "port": portText,
      "pathname": String(path),
      "search": (query ?? "").isEmpty ? "" : "?" + query!,
      "hash": (fragment ?? "").isEmpty ? "" : "#" + fragment!,
    ]
  }
}

@Suite("WPT conformance")
struct ConformanceTests {

  @Test("urltestdata.json: every case, href and every component")
  func urlTestData() throws {
    guard let cases = Conformance.load("urltestdata.json") else { return }
    var ran = 0
    var passed = 0
    var listed = 0
    var failures: [String] = []
    for entry in cases {
      guard let test = entry as? [String: Any] else { continue }  // comment strings
      ran += 1
      let input = test["input"] as! String
      let baseString = test["base"] as? String
      let key = "urltestdata\t\(Conformance.json(input))\t\(Conformance.json(baseString))"
      // The fast path may decline anything, but what it accepts the state machine must agree with.
      if let disagreement = ParsedURL.fastPathDisagreement(input) {
        Issue.record("fast path: \(disagreement)")
      }
      var problem: String? = nil
      var base: ParsedURL? = nil
      if let baseString {
        do { base = try ParsedURL(baseString) } catch { problem = "base failed to parse: \(error)" }
      }
      if problem == nil {
        let result = Result { () throws(URLParseError) -> ParsedURL in try ParsedURL(input, base: base) }
        if test["failure"] as? Bool == true {
          if case .success(let url) = result { problem = "expected failure, got \(url.href)" }
        } else {
          switch result {
          case .failure(let error): problem = "expected \(test["href"] ?? "?"), got error \(error)"
          case .success(let url):
            let broken = url.checkInvariants()
            if !broken.isEmpty { problem = "invariants: \(broken)" }
            let got = url.webIDLComponents
            for name in ["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"] {
              if let expected = test[name] as? String, got[name] != expected {
                problem = "\(name): expected \(Conformance.json(expected)), got \(Conformance.json(got[name]))"
                break
              }
            }
          }
        }
      }
      if let problem {
        if Conformance.expectedFailures[key] != nil {
          listed += 1
        } else {
          failures.append("\(key)\t\(problem)")
        }
      } else {
        if Conformance.expectedFailures[key] != nil {
          failures.append("\(key)\tlisted in expected-failures.txt but passes: remove it")
        }
        passed += 1
      }
    }
    print("urltestdata.json: ran \(ran), passed \(passed), listed as expected failures \(listed), failed \(failures.count)")
    #expect(ran == 891, "urltestdata.json should hold 891 cases")
    #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
  }

  @Test("toascii.json: every case through a special URL's host")
  func toASCII() throws {
    Self.hostCases("toascii", count: 87)
  }

  /// As WPT's `url/IdnaTestV2.window.js` runs it: each case through `new URL("https://" + input + "/x")`, the
  /// host (and hostname) equal to `output` and the href `https://<output>/x`, or a failure where `output` is
  /// null; comment strings and the one empty input (which cannot go through a URL) are skipped.
  @Test("IdnaTestV2.json: every case through https://<input>/x")
  func idnaTestV2() throws {
    Self.hostCases("IdnaTestV2", count: 2_670)
  }

  /// Runs `<file>.json`'s cases (`input`, `output` or null for failure) through `https://<input>/x`: the URL
  /// must parse to host `output`, path `/x` and href `https://<output>/x`, or fail where `output` is null.
  /// Cases without an input are skipped; `count` is how many must run.
  static func hostCases(_ file: String, count: Int) {
    guard let cases = Conformance.load(file + ".json") else { return }
    var ran = 0
    var passed = 0
    var listed = 0
    var failures: [String] = []
    for entry in cases {
      guard let test = entry as? [String: Any], let input = test["input"] as? String, !input.isEmpty else { continue }
      ran += 1
      let expected = test["output"] as? String
      let key = "\(file)\t\(Conformance.json(input))\tnull"
      var problem: String? = nil
      let result = Result { () throws(URLParseError) -> ParsedURL in try ParsedURL("https://\(input)/x") }
      switch (result, expected) {
      case (.success(let url), nil): problem = "expected failure, got \(url.href)"
      case (.failure(let error), .some(let output)): problem = "expected \(output), got \(error)"
      case (.success(let url), .some(let output)):
        if url.host.map(String.init) != output || url.path != "/x" || url.href != "https://\(output)/x" {
          problem = "expected host \(output), got \(url.href)"
        }
      case (.failure, nil): break
      }
      if let problem {
        if Conformance.expectedFailures[key] != nil { listed += 1 } else { failures.append("\(key)\t\(problem)") }
      } else {
        if Conformance.expectedFailures[key] != nil {
          failures.append("\(key)\tlisted in expected-failures.txt but passes: remove it")
        }
        passed += 1
      }
    }
    print("\(file).json: ran \(ran), passed \(passed), listed as expected failures \(listed), failed \(failures.count)")
    #expect(ran == count, "\(file).json should hold \(count) cases with an input")
    #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
  }
}
