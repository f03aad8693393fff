// PCRE2-backed capture constraints.
//
// Thread safety: a compiled `pcre2_code` (including its JIT code) and a `pcre2_match_context` are only read
// by `pcre2_match`, so one instance is shared by every thread. Match data is written by every match, so each
// call creates its own (one ovector pair: the router only asks "does the whole capture match").

internal import CPCRE2

/// What running a constraint found.
enum ConstraintResult: Sendable {
  case match
  case noMatch
  /// PCRE2 gave up (match, depth, heap or JIT stack limit): the answer is unknown.
  case limitExceeded
}

/// The match context holding the limits; shared read-only by every constraint of one router.
final class MatchLimits: @unchecked Sendable {
  let context: OpaquePointer
  let useJIT: Bool

  init(_ limits: RegexLimits) {
    guard let context = pcre2_match_context_create_8(nil) else { fatalError("pcre2_match_context_create: out of memory") }
    pcre2_set_match_limit_8(context, limits.matchLimit)
    pcre2_set_depth_limit_8(context, limits.depthLimit)
    pcre2_set_heap_limit_8(context, limits.heapLimitKiB)
    self.context = context
    self.useJIT = limits.useJIT
  }

  deinit { pcre2_match_context_free_8(context) }
}

/// One compiled `{name:regex}` constraint, anchored at both ends of the capture.
final class Constraint: @unchecked Sendable {
  let source: String
  let caseless: Bool
  let usesJIT: Bool
  /// `[0-9]+` or `\d+` (without UTF or UCP, `\d` is the ASCII digits): matched natively, since a PCRE2 match
  /// needs its own match data, which is allocated and freed on every call.
  private let isDigits: Bool
  private let code: OpaquePointer
  private let limits: MatchLimits

  /// A PCRE2 compile error: its message and the byte offset into the regex.
  struct CompileFailure: Error {
    var message: String
    var offset: Int
  }

  init(_ source: String, caseless: Bool, limits: MatchLimits) throws(CompileFailure) {
    var options = UInt32(PCRE2_ANCHORED) | UInt32(PCRE2_ENDANCHORED)
    if caseless { options |= UInt32(PCRE2_CASELESS) }
    var errorCode: Int32 = 0
    var errorOffset: Int = 0
    let bytes = Array(source.utf8)
    let compiled = bytes.withUnsafeBufferPointer { buf in
      pcre2_compile_8(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, buf.count, options, &errorCode, &errorOffset, nil)
    }
    guard let compiled else {
      throw CompileFailure(message: Constraint.message(for: errorCode), offset: errorOffset)
    }
    var jit = false
    if limits.useJIT {
      // JIT may be unavailable (not built in, or no executable memory): the interpreter then runs the pattern.
      jit = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
    }
    self.source = source
    self.caseless = caseless
    self.isDigits = source == "[0-9]+" || source == #"\d+"#
    self.code = compiled
    self.limits = limits
    self.usesJIT = jit
  }

  deinit { pcre2_code_free_8(code) }

  /// Whether matching never runs PCRE2, so never hits its limits (`[0-9]+`, `\d+`).
  var isNative: Bool { isDigits }

  /// Whether `count` bytes at `start` match the whole constraint.
  func matches(_ start: UnsafePointer<UInt8>, count: Int) -> ConstraintResult {
    if isDigits {
      guard count > 0 else { return .noMatch }
      for i in 0..<count where start[i] < 0x30 || start[i] > 0x39 { return .noMatch }
      return .match
    }
    guard let data = pcre2_match_data_create_8(1, nil) else { return .limitExceeded }
    defer { pcre2_match_data_free_8(data) }
    let rc = pcre2_match_8(code, start, count, 0, 0, data, limits.context)
    if rc >= 0 { return .match }
    if rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_PARTIAL { return .noMatch }
    // Limits (match, depth, heap, JIT stack) and anything else unexpected: the answer is unknown.
    return .limitExceeded
  }

  /// Whether `bytes` match the whole constraint.
  func matches(_ bytes: [UInt8]) -> ConstraintResult {
    bytes.withUnsafeBufferPointer { buf in
      matches(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buf.count)
    }
  }

  static func message(for errorCode: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let n = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(errorCode, $0.baseAddress, $0.count) }
    guard n > 0 else { return "PCRE2 error \(errorCode)" }
    return String(decoding: buffer[..<Int(n)], as: UTF8.self)
  }
}
