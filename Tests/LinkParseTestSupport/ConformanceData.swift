// Where the web-platform-tests URL data is, for every test target that reads it (it is never copied into this
// repository).

import Foundation

/// The conformance data directory: `$LINKPARSE_CONFORMANCE_DIR` when set (the Makefile sets it), else
/// `../shared/conformance` beside the package.
///
/// Missing data fails the tests that need it, with a message naming both ways out: point
/// `LINKPARSE_CONFORMANCE_DIR` at the data, or set `LINKPARSE_SKIP_CONFORMANCE=1` to skip them (`make test` sets
/// it, and says so, when the data is not there). With `CI` set the data is required: skipping is refused.
public enum ConformanceData {
  /// The environment variable that skips the conformance tests explicitly.
  public static let skipVariable = "LINKPARSE_SKIP_CONFORMANCE"

  /// The data directory.
  public static var directory: URL {
    if let dir = ProcessInfo.processInfo.environment["LINKPARSE_CONFORMANCE_DIR"], !dir.isEmpty {
      return URL(fileURLWithPath: dir)
    }
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared/conformance")
  }

  /// What looking for a data file found.
  public enum Lookup {
    /// The file's bytes.
    case found(Data)
    /// Missing, and skipping was asked for: the message to print.
    case skipped(String)
    /// Missing, and not skipped: the message of the failure to record.
    case missing(String)
  }

  /// The data file `name` (`urltestdata.json`), or why there is none.
  public static func file(_ name: String) -> Lookup {
    let file = directory.appendingPathComponent(name)
    if let data = FileManager.default.contents(atPath: file.path) { return .found(data) }
    let environment = ProcessInfo.processInfo.environment
    let ci = !(environment["CI"] ?? "").isEmpty
    let skip = !(environment[skipVariable] ?? "").isEmpty && environment[skipVariable] != "0"
    if skip && !ci {
      return .skipped("SKIPPED (\(skipVariable) is set): conformance test over \(name): \(file.path) not found")
    }
    var message = "conformance data \(file.path) not found: set LINKPARSE_CONFORMANCE_DIR to the web-platform-tests "
    message += "URL data (../shared/conformance)"
    message += ci ? ", which CI requires" : ", or \(skipVariable)=1 to skip these tests"
    return .missing(message)
  }
}
