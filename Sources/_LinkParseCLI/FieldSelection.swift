/// `--fields`: the keys a record is written with. A selection is a projection of the full record: the keys
/// selected keep their names, values and order, the others are left out. `nil` selections (the default) write
/// every key.
///
/// The list is comma-separated paths:
///
/// ```text
/// line ok href scheme username password host port path query fragment params callback route error
/// callback.KEY         a key of the callback object: provider, outcome, code, state, device_id, error, …
/// callback.error.KEY   a key of a callback's error: code, raw, parameter, description_en, description_ru,
///                      provider_error
/// error.KEY            a key of a failed record's error: code, offset, message
/// compact              line,ok,host,callback.provider,callback.outcome,callback.code,callback.state,
///                      callback.error.code,callback.error.parameter,route,error.code
/// ```
///
/// A whole object (`callback`) wins over keys inside it (`callback.code`). An object that is `null` stays
/// `null`; a selected key the record lacks is left out, as in the full record.
///
/// ```swift
/// let fields = try FieldSelection(parsing: "host,callback.provider,callback.outcome")
/// fields.keys.contains(.host)            // true
/// fields.callbackKeys                    // ["provider", "outcome"]
/// ```
package struct FieldSelection: Sendable, Hashable {
  /// The keys of the record itself, one bit each, in the record's order.
  package struct Keys: OptionSet, Sendable, Hashable {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let line = Keys(rawValue: 1 << 0)
    package static let ok = Keys(rawValue: 1 << 1)
    package static let href = Keys(rawValue: 1 << 2)
    package static let scheme = Keys(rawValue: 1 << 3)
    package static let username = Keys(rawValue: 1 << 4)
    package static let password = Keys(rawValue: 1 << 5)
    package static let host = Keys(rawValue: 1 << 6)
    package static let port = Keys(rawValue: 1 << 7)
    package static let path = Keys(rawValue: 1 << 8)
    package static let query = Keys(rawValue: 1 << 9)
    package static let fragment = Keys(rawValue: 1 << 10)
    package static let params = Keys(rawValue: 1 << 11)
    package static let callback = Keys(rawValue: 1 << 12)
    package static let route = Keys(rawValue: 1 << 13)
    package static let error = Keys(rawValue: 1 << 14)

    /// Every key, with its name, in the full record's order (a failed record has `line`, `ok`, `error`).
    package static let named: [(name: String, key: Keys)] = [
      ("line", .line), ("ok", .ok), ("href", .href), ("scheme", .scheme), ("username", .username),
      ("password", .password), ("host", .host), ("port", .port), ("path", .path), ("query", .query),
      ("fragment", .fragment), ("params", .params), ("callback", .callback), ("route", .route), ("error", .error),
    ]
  }

  /// The keys a failed record's `error` object has, in order.
  package static let errorKeyNames = ["code", "offset", "message"]
  /// The keys a callback's `error` object may have, in order.
  package static let callbackErrorKeyNames = [
    "code", "raw", "parameter", "description_en", "description_ru", "provider_error",
  ]
  /// What `compact` stands for: what an audit reads (who, what outcome, whether a code and a state came back,
  /// why a callback or a URL was rejected, and with `--routes` which endpoint it reached), about a tenth of
  /// the full record's bytes.
  package static let compact =
    "line,ok,host,callback.provider,callback.outcome,callback.code,callback.state,callback.error.code,"
    + "callback.error.parameter,route,error.code"

  /// The record's keys written.
  package private(set) var keys: Keys = []
  /// The callback's keys written when `callback` is selected by its keys; `nil`: all of them.
  package private(set) var callbackKeys: [String]?
  /// The callback error's keys written when it is selected by its keys; `nil`: all of them.
  package private(set) var callbackErrorKeys: [String]?
  /// The failed record's error keys written when it is selected by its keys; `nil`: all of them.
  package private(set) var errorKeys: [String]?

  /// Parses a `--fields` list; throws a message naming the path it cannot use.
  package init(parsing list: String) throws(FieldSelectionError) {
    var wholeCallback = false, wholeCallbackError = false, wholeError = false
    var callbackKeys: [String] = [], callbackErrorKeys: [String] = [], errorKeys: [String] = []
    func add(_ name: String, to list: inout [String]) { if !list.contains(name) { list.append(name) } }

    let paths = list.split(separator: ",", omittingEmptySubsequences: false).flatMap { piece in
      let path = piece.trimmingSpaces
      return path == "compact" ? Self.compact.split(separator: ",").map { $0[...] } : [path]
    }
    for path in paths {
      let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      guard parts.allSatisfy(Self.isName) else {
        throw FieldSelectionError("'\(path)' is not a field name or a path of names joined by '.'")
      }
      guard let key = Keys.named.first(where: { $0.name == parts[0] })?.key else {
        throw FieldSelectionError(
          "unknown field '\(parts[0])'; the record's fields are \(Keys.named.map(\.name).joined(separator: ", ")), and 'compact'")
      }
      keys.insert(key)
      switch (parts[0], parts.count) {
      case (_, 1):
        if key == .callback { wholeCallback = true }
        if key == .error { wholeError = true }
      case ("callback", 2):
        add(parts[1], to: &callbackKeys)
        if parts[1] == "error" { wholeCallbackError = true }
      case ("callback", 3) where parts[1] == "error":
        guard Self.callbackErrorKeyNames.contains(parts[2]) else {
          throw FieldSelectionError(
            "'\(path)': a callback's error has \(Self.callbackErrorKeyNames.joined(separator: ", "))")
        }
        add("error", to: &callbackKeys)
        add(parts[2], to: &callbackErrorKeys)
      case ("error", 2):
        guard Self.errorKeyNames.contains(parts[1]) else {
          throw FieldSelectionError("'\(path)': a failed record's error has \(Self.errorKeyNames.joined(separator: ", "))")
        }
        add(parts[1], to: &errorKeys)
      default:
        throw FieldSelectionError("'\(path)': only callback, callback.error and error can be selected inside")
      }
    }
    self.callbackKeys = wholeCallback ? nil : callbackKeys
    self.callbackErrorKeys = wholeCallback || wholeCallbackError ? nil : callbackErrorKeys
    self.errorKeys = wholeError ? nil : errorKeys
  }

  /// Whether the callback's key `name` is written.
  @inline(__always)
  func includesCallbackKey(_ name: String) -> Bool { callbackKeys.map { $0.contains(name) } ?? true }

  /// A field name: lower-case ASCII letters, digits and `_` (the callback's keys are the providers' own
  /// parameter names).
  private static func isName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
  }
}

/// Why a `--fields` list cannot be used.
package struct FieldSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The message, naming the path.
  package var description: String
  init(_ description: String) { self.description = description }
}

extension Substring {
  /// Without leading and trailing spaces.
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while text.first == " " { text.removeFirst() }
    while text.last == " " { text.removeLast() }
    return text
  }
}
