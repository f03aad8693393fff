/// The limits every route constraint runs under, so that no pattern can make matching hang.
///
/// A constraint that hits a limit makes ``Router/match(_:)`` throw
/// ``RouteError/Code/constraintLimitExceeded`` instead of guessing. The defaults stop a catastrophic pattern
/// such as `(a+)+$` on a 30,000-byte segment within milliseconds, and leave every sensible constraint alone.
///
/// They apply to PCRE2 only: the linear-time matcher (builds without the `PCRE2` trait, and every platform
/// but Linux) cannot backtrack, so it never hits a limit and ignores them.
///
/// ```swift
/// let strict = RegexLimits(matchLimit: 10_000, depthLimit: 200)
/// let router = try Router(routes, limits: strict)
/// ```
public struct RegexLimits: Sendable, Hashable {
  /// PCRE2's match limit: how many times its internal `match()` may be called (JIT: a comparable count).
  public var matchLimit: UInt32
  /// PCRE2's depth limit: how deep backtracking may nest (the interpreter only; the JIT is bounded by its
  /// stack instead).
  public var depthLimit: UInt32
  /// PCRE2's heap limit for backtracking frames, in KiB.
  public var heapLimitKiB: UInt32
  /// Whether to compile constraints with PCRE2's JIT when the library supports it.
  public var useJIT: Bool

  /// Creates limits.
  public init(matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 1_000, heapLimitKiB: UInt32 = 1_024, useJIT: Bool = true) {
    self.matchLimit = matchLimit
    self.depthLimit = depthLimit
    self.heapLimitKiB = heapLimitKiB
    self.useJIT = useJIT
  }

  /// Match limit 100,000, depth limit 1,000, heap limit 1 MiB, JIT on.
  public static let `default` = RegexLimits()
}
