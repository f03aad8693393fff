// Small helpers shared by the decoders: RFC 6749 parameter reading, duplicate detection. No Foundation.
// (Constant-time comparison, base64url and JSON text are in LinkParseBytes.)

import LinkParseCore

extension FormParameters {
  /// The decoded value of the first parameter named `name`, or `nil` when it is absent, bare or empty
  /// (RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted").
  func nonEmptyValue(_ name: String) -> String? {
    guard let raw = first(named: name)?.rawValue, !raw.isEmpty else { return nil }
    return FormParameters.decode(raw)
  }

  /// The first of `names` that occurs more than once, if any.
  func firstDuplicate(among names: [String]) -> String? {
    var counts = [Int](repeating: 0, count: names.count)
    for parameter in self {
      for (i, name) in names.enumerated() where parameter.hasName(name) {
        counts[i] += 1
        if counts[i] > 1 { return name }
      }
    }
    return nil
  }

  /// The first parameter whose decoded name equals `name` ignoring ASCII case.
  func firstCaseInsensitive(_ name: String) -> Parameter? {
    let lowered = name.lowercased()
    for parameter in self where parameter.rawName.utf8.count >= name.utf8.count {
      if parameter.name().lowercased() == lowered { return parameter }
    }
    return nil
  }
}

/// The critical parameters that must not occur twice (RFC 6749 §3.1). The decoders read duplicates from
/// `CallbackFields`; this list and the `FormParameters` helpers above remain the reference semantics (tests).
let criticalParameters = ["code", "state", "error", "iss", "device_id"]

