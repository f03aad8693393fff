// Which engine runs route constraints, and a way for tests and fuzzing to run either one on its own.

/// The engine that runs `{name:regex}` constraints.
///
/// PCRE2 (full syntax, JIT, ``RegexLimits``) where the `PCRE2` package trait is on and the platform is Linux,
/// which is the default there; the linear-time matcher everywhere else, and with `--disable-default-traits`.
/// The linear matcher takes literals, escapes, `.`, classes, `\d \w \s \D \W \S`, repetition, alternation,
/// groups and anchors, and refuses the rest at compile time with ``RouteError/Code/unsupportedRegex``.
///
/// ```swift
/// if Router.constraintEngine == .linear {
///   print("constraints run in linear time; backreferences and look-around are refused")
/// }
/// ```
@_spi(Testing)
public enum ConstraintEngine: String, Sendable, Hashable, CaseIterable {
  /// The system PCRE2 library.
  case pcre2
  /// The package's own matcher: a Thompson NFA run as a DFA, linear in the input.
  case linear

  /// The engine of this build.
  public static var `default`: ConstraintEngine {
    #if PCRE2 && canImport(CPCRE2)
    return .pcre2
    #else
    return .linear
    #endif
  }
}

extension Router {
  /// The engine this build runs constraints with (``ConstraintEngine/default``).
  ///
  /// ```swift
  /// print(Router.constraintEngine)  // pcre2 on Linux by default, linear without the PCRE2 trait
  /// ```
  @_spi(Testing)
  public static var constraintEngine: ConstraintEngine { .default }
}

/// One constraint compiled by a chosen engine, outside any route table: for tests and fuzz targets that
/// compare the engines.
///
/// ```swift
/// let linear = try ConstraintProbe("[a-z]+", engine: .linear)
/// linear.matches(Array("abc".utf8))  // true
/// ```
@_spi(Testing)
public struct ConstraintProbe: Sendable {
  let constraint: Constraint

  /// Compiles `regex` (as a route's `{name:regex}` would be, whole-capture) with `engine`; `.pcre2` gives
  /// the linear matcher in builds without PCRE2 (see ``isAvailable(_:)``).
  ///
  /// - Throws: ``RouteError`` with code `invalid-regex` or `unsupported-regex`, ``RouteError/position``
  ///   the byte offset into `regex`.
  public init(_ regex: String, caseless: Bool = false, engine: ConstraintEngine, limits: RegexLimits = .default) throws(RouteError) {
    do {
      constraint = try Constraint(regex, caseless: caseless, limits: MatchLimits(limits), engine: engine)
    } catch {
      throw RouteError(code: error.code, pattern: regex, position: error.offset, message: error.message)
    }
  }

  /// Whether this build has `engine`.
  public static func isAvailable(_ engine: ConstraintEngine) -> Bool {
    engine == .linear || ConstraintEngine.default == .pcre2
  }

  /// The engine that compiled the constraint.
  public var engine: ConstraintEngine { constraint.engine }

  /// Whether all of `bytes` match; nil when PCRE2 hit a limit.
  public func matches(_ bytes: [UInt8]) -> Bool? {
    switch constraint.matches(bytes) {
    case .match: true
    case .noMatch: false
    case .limitExceeded: nil
    }
  }

  /// Whether all of `bytes` match, by the linear matcher's NFA simulation (never its DFA); nil for PCRE2. For
  /// tests and fuzzing that check the two agree.
  public func matchesOnTheNFA(_ bytes: [UInt8]) -> Bool? {
    constraint.linearNFAMatches(bytes)
  }

  /// The linear matcher's DFA state count (0: it runs the NFA), or nil for PCRE2.
  public var linearStateCount: Int? { constraint.linearStateCount }
}
