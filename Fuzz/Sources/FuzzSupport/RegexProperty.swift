@_spi(Testing) import LinkParseRouter

/// The `regex` target: route constraints, compiled by the linear-time matcher and, where the build has it, by
/// PCRE2, and run on one input.
///
/// Input layout: one mode byte (bit 0: caseless, as host and scheme constraints run), one byte `n`, the
/// constraint (the next `n` bytes, as UTF-8 text), then the input to match (the rest, as bytes).
///
/// Properties:
/// - compiling never crashes: a refusal is a `RouteError` with code `invalid-regex` or `unsupported-regex`,
///   a message, and a position inside the constraint;
/// - the linear matcher's DFA and its NFA simulation give the same answer;
/// - where PCRE2 is in the build: what the linear matcher compiles, PCRE2 compiles too (unless the pattern is too
///   large for PCRE2's own limits), what it calls invalid PCRE2 refuses too, and both give the same answer
///   (unless PCRE2 hits a match limit).
enum RegexProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard data.count >= 2 else { return [] }
    let caseless = data[0] & 1 != 0
    let n = min(Int(data[1]), data.count - 2)
    let regex = String(decoding: UnsafeBufferPointer(rebasing: data[2..<(2 + n)]), as: UTF8.self)
    let input = Array(data[(2 + n)...])
    var problems = Problems()
    let what = "\(show(regex)) (caseless \(caseless)) on \(show(input))"

    let linear: ConstraintProbe?
    var linearError: RouteError?
    do {
      linear = try ConstraintProbe(regex, caseless: caseless, engine: .linear)
    } catch {
      linear = nil
      linearError = error
      problems.check(
        error.code == .invalidRegex || error.code == .unsupportedRegex, "unexpected code \(error.code) for \(what)")
      problems.check(!error.message.isEmpty, "an error without a message for \(what)")
      problems.check(
        (error.position ?? -1) >= 0 && (error.position ?? -1) <= regex.utf8.count,
        "position \(String(describing: error.position)) outside \(what)")
    }
    if let linear {
      problems.check(
        linear.matches(input) == linear.matchesOnTheNFA(input),
        "DFA \(String(describing: linear.matches(input))) and NFA \(String(describing: linear.matchesOnTheNFA(input))) "
          + "disagree: \(what)")
    }

    guard ConstraintProbe.isAvailable(.pcre2) else { return problems.list }
    let pcre2: ConstraintProbe
    do {
      pcre2 = try ConstraintProbe(regex, caseless: caseless, engine: .pcre2)
    } catch {
      let tooLarge = ["too large", "too big", "too complicated", "too long"].contains { error.message.contains($0) }
      problems.check(linear == nil || tooLarge, "the linear matcher compiles what PCRE2 refuses (\(error.message)): \(what)")
      return problems.list
    }
    if let linearError {
      problems.check(linearError.code != .invalidRegex, "PCRE2 compiles what the linear matcher calls invalid: \(what)")
    }
    guard let linear, let expected = pcre2.matches(input) else { return problems.list }
    problems.check(linear.matches(input) == expected, "PCRE2 says \(expected), the linear matcher not: \(what)")
    return problems.list
  }
}
