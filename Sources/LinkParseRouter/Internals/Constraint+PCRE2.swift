// PCRE2-backed capture constraints: built with the `PCRE2` trait where the library is linked (Linux).
//
// Thread safety: a compiled `pcre2_code` (including its JIT code) and a `pcre2_match_context` are only read
// by `pcre2_match`, so one instance is shared by every thread. Match data is written by every match, so each
// call creates its own (one ovector pair: the router only asks "does the whole capture match").

#if PCRE2 && canImport(CPCRE2)
internal import CPCRE2

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

/// One pattern compiled by PCRE2, anchored at both ends of the capture: 8-bit code units without `PCRE2_UTF`,
/// `PCRE2_CASELESS` when asked. The linear matcher (RegexSyntax.swift) gives its syntax the same meaning.
final class PCRE2Pattern: @unchecked Sendable {
  let usesJIT: Bool
  private let code: OpaquePointer
  private let limits: MatchLimits

  init(_ source: String, caseless: Bool, limits: MatchLimits) throws(Constraint.CompileFailure) {
    var options = UInt32(PCRE2_ANCHORED) | UInt32(PCRE2_ENDANCHORED)
    if caseless { options |= UInt32(PCRE2_CASELESS) }
    var errorCode: Int32 = 0
    var errorOffset: Int = 0
    let bytes = Array(source.utf8)
    let compiled = bytes.withUnsafeBufferPointer { buf in
      pcre2_compile_8(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, buf.count, options, &errorCode, &errorOffset, nil)
    }
    guard let compiled else {
      throw Constraint.CompileFailure(
        code: .invalidRegex, message: "PCRE2: " + PCRE2Pattern.message(for: errorCode), offset: errorOffset)
    }
    var jit = false
    if limits.useJIT {
      // JIT may be unavailable (not built in, or no executable memory): the interpreter then runs the pattern.
      jit = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
    }
    self.code = compiled
    self.limits = limits
    self.usesJIT = jit
  }

  deinit { pcre2_code_free_8(code) }

  /// Whether `count` bytes at `start` match the whole pattern.
  func matches(_ start: UnsafePointer<UInt8>, count: Int) -> ConstraintResult {
    guard let data = pcre2_match_data_create_8(1, nil) else { return .limitExceeded }
    defer { pcre2_match_data_free_8(data) }
    let rc = pcre2_match_8(code, start, count, 0, 0, data, limits.context)
    if rc >= 0 { return .match }
    if rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_PARTIAL { return .noMatch }
    // Limits (match, depth, heap, JIT stack) and anything else unexpected: the answer is unknown.
    return .limitExceeded
  }

  static func message(for errorCode: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let n = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(errorCode, $0.baseAddress, $0.count) }
    guard n > 0 else { return "PCRE2 error \(errorCode)" }
    return String(decoding: buffer[..<Int(n)], as: UTF8.self)
  }
}
#else
/// Without PCRE2 there are no limits to hold: the linear matcher needs none.
final class MatchLimits: Sendable {
  init(_ limits: RegexLimits) {}
}
#endif
