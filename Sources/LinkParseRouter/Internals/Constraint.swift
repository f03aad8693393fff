// Capture constraints: run by PCRE2 (`PCRE2` trait, Linux) or by the linear-time matcher (everywhere; the only
// engine without the trait). Both take the same syntax with the same meaning where they overlap; the linear
// matcher refuses the rest at compile time (`unsupported-regex`).

/// What running a constraint found.
enum ConstraintResult: Sendable {
  case match
  case noMatch
  /// PCRE2 gave up (match, depth, heap or JIT stack limit): the answer is unknown.
  case limitExceeded
}

/// One compiled `{name:regex}` constraint, anchored at both ends of the capture.
final class Constraint: @unchecked Sendable {
  let source: String
  let caseless: Bool
  let engine: ConstraintEngine
  /// `[0-9]+` or `\d+` (`\d` is the ASCII digits for both engines): matched natively, since a PCRE2 match
  /// needs its own match data, which is allocated and freed on every call.
  private let isDigits: Bool
  private let linear: LinearRegex?
  #if PCRE2 && canImport(CPCRE2)
  private let pcre2: PCRE2Pattern?
  #endif

  /// Why a constraint does not compile: `invalid-regex` or `unsupported-regex`, a message, and the byte offset
  /// into the regex.
  struct CompileFailure: Error {
    var code: RouteError.Code
    var message: String
    var offset: Int
  }

  /// Compiles `source` for `engine` (the build's by default; `.pcre2` is the linear matcher where PCRE2 is not
  /// built in).
  init(
    _ source: String, caseless: Bool, limits: MatchLimits, engine: ConstraintEngine = .default
  ) throws(CompileFailure) {
    self.source = source
    self.caseless = caseless
    self.isDigits = source == "[0-9]+" || source == #"\d+"#
    #if PCRE2 && canImport(CPCRE2)
    if engine == .pcre2 {
      self.engine = .pcre2
      linear = nil
      pcre2 = try PCRE2Pattern(source, caseless: caseless, limits: limits)
      return
    }
    pcre2 = nil
    #endif
    self.engine = .linear
    do {
      linear = try LinearRegex(source, caseless: caseless)
    } catch {
      switch error.kind {
      case .invalid:
        throw CompileFailure(code: .invalidRegex, message: error.message, offset: error.offset)
      case .unsupported:
        throw CompileFailure(
          code: .unsupportedRegex,
          message: error.message + ": not supported by the linear-time constraint matcher, which this build uses "
            + "(no PCRE2); rewrite the constraint with classes, groups, alternation and repetition, or build with "
            + "the PCRE2 trait on Linux",
          offset: error.offset)
      }
    }
  }

  /// Whether the constraints were compiled by PCRE2's JIT.
  var usesJIT: Bool {
    #if PCRE2 && canImport(CPCRE2)
    return pcre2?.usesJIT ?? false
    #else
    return false
    #endif
  }

  /// Whether matching never runs PCRE2, so never hits its limits (`[0-9]+`, `\d+`, the linear matcher).
  var isNative: Bool { isDigits || linear != nil }

  /// Whether `count` bytes at `start` match the whole constraint.
  @inline(__always)
  func matches(_ start: UnsafePointer<UInt8>, count: Int) -> ConstraintResult {
    if isDigits {
      guard count > 0 else { return .noMatch }
      for i in 0..<count where start[i] < 0x30 || start[i] > 0x39 { return .noMatch }
      return .match
    }
    if let linear { return linear.matches(start, count: count) ? .match : .noMatch }
    #if PCRE2 && canImport(CPCRE2)
    if let pcre2 { return pcre2.matches(start, count: count) }
    #endif
    return .limitExceeded  // unreachable: one engine is always set
  }

  /// The linear matcher's DFA state count (0: it simulates the NFA), nil for PCRE2.
  var linearStateCount: Int? { linear?.stateCount }

  /// The linear matcher's NFA simulation on `bytes`, nil for PCRE2.
  func linearNFAMatches(_ bytes: [UInt8]) -> Bool? {
    guard let linear else { return nil }
    return bytes.withUnsafeBufferPointer { buf in
      linear.simulate(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buf.count)
    }
  }

  /// Whether `bytes` match the whole constraint.
  func matches(_ bytes: [UInt8]) -> ConstraintResult {
    bytes.withUnsafeBufferPointer { buf in
      matches(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buf.count)
    }
  }
}
