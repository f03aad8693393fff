import LinkParseCore
@_spi(Testing) import LinkParseRouter
import LinkParseTestSupport
import Testing

/// The linear-time constraint matcher, run directly (``ConstraintProbe``) in every build, and compared with PCRE2
/// where the build has it.
@Suite("Router: linear constraint matcher")
struct LinearConstraintTests {
  /// What PCRE2 answers under the router's options (anchored at both ends, 8-bit, no UTF, newline LF).
  static let semantics: [(regex: String, caseless: Bool, input: String, matches: Bool)] = [
    ("[a-z]+", false, "abc", true), ("[a-z]+", false, "abC", false), ("[a-z]+", true, "abC", true),
    ("[0-9a-f]{4}", false, "0a9f", true), ("[0-9a-f]{4}", false, "0a9", false), ("[0-9a-f]{4}", false, "0a9fe", false),
    ("a{2,3}", false, "a", false), ("a{2,3}", false, "aaa", true), ("a{2,3}", false, "aaaa", false),
    ("a{2,}", false, "aaaaaaa", true), ("(?:ab)*", false, "", true), ("(?:ab)*", false, "abab", true),
    ("vk|sber|tid", false, "sber", true), ("vk|sber|tid", false, "vksber", false), ("(vk|ok)[0-9]+", false, "ok12", true),
    ("(?<app>[0-9]+)-(?P<v>x)", false, "12-x", true), ("a.c", false, "a\nc", false), ("a.c", false, "a\u{7F}c", true),
    (#"\d+"#, false, "٣", false), (#"\w+"#, false, "a_0Z", true), (#"\w"#, false, "é", false), (#"\s"#, false, "\u{0B}", true),
    (#"\S+"#, false, "%20", true), (#"\D"#, false, "x", true), (#"\W"#, false, "-", true), ("[^/]+", false, "a\nb", true),
    ("[]a]+", false, "]a]", true), ("[^]a]", false, "b", true), ("[a-]+", false, "-a-", true), (#"[\d.-]+"#, false, "1.2-3", true),
    ("[[:alpha:]]+", false, "abZ", true), ("[[:^digit:]]", false, "5", false), ("[[:lower:]]", true, "Q", true),
    ("[[:^lower:]]", true, "Q", false), ("[^a]", true, "A", false), (#"\x41\x{42}"#, false, "AB", true),
    (#"a\.b"#, false, "a.b", true), (#"a\.b"#, false, "axb", false), (#"\{x\}"#, false, "{x}", true),
    ("^abc$", false, "abc", true), ("abc$", false, "abc\n", false), (#"abc$\n"#, false, "abc\n", true),
    (#"abc\z\n"#, false, "abc\n", false), (#"abc\Z\n"#, false, "abc\n", true), (#"abc\Z"#, false, "abc\n", false), ("a$b", false, "ab", false), ("a|", false, "", true), ("(a|)+b", false, "aab", true),
    ("()*x", false, "x", true), ("a+?", false, "aaa", true), ("(?:a|b)*?c", false, "ababc", true), ("%[0-9A-F]{2}", true, "%2f", true),
    ("é", false, "é", true), ("[é]", false, "\u{C3}", false),
  ]

  @Test func linearMatcherHasPCRE2Semantics() throws {
    for engine in ConstraintEngine.allCases where ConstraintProbe.isAvailable(engine) {
      for (regex, caseless, input, expected) in Self.semantics {
        let probe = try ConstraintProbe(regex, caseless: caseless, engine: engine)
        #expect(probe.matches(Array(input.utf8)) == expected, "\(engine) \(regex) on \(input.debugDescription)")
      }
    }
  }

  @Test func bytesThatAreNotUTF8AreBytes() throws {
    let dot = try ConstraintProbe(".+", engine: .linear)
    #expect(dot.matches([0xFF, 0xC3, 0x28, 0x80]) == true)
    #expect(dot.matches([0xFF, 0x0A]) == false)
    let high = try ConstraintProbe(#"[\x80-\xff]{2}"#, engine: .linear)
    #expect(high.matches([0xED, 0xA0]) == true)
    #expect(high.matches([0x7F, 0xA0]) == false)
    let empty = try ConstraintProbe("a*", engine: .linear)
    #expect(empty.matches([]) == true)
  }

  /// `(a+)+$` on 100,000 `a`s and a `!`: a backtracking engine explores 2^100,000 paths; this is one pass.
  @Test func catastrophicPatternIsANoMatch() throws {
    let probe = try ConstraintProbe("(a+)+$", engine: .linear)
    let evil = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000) + [UInt8(ascii: "!")]
    #expect(probe.matches(evil) == false)
    #expect(probe.matches(Array(evil.dropLast())) == true)
    // `$` holds before a final LF, but the match must end at the end (the NFA's path).
    #expect(probe.matches(Array(evil.dropLast()) + [0x0A]) == false)
    #expect(try ConstraintProbe(#"(a+)+$\n"#, engine: .linear).matches(Array(evil.dropLast()) + [0x0A]) == true)
    let nested = try ConstraintProbe("((a*)*|b)*(a|aa)*c", engine: .linear)
    #expect(nested.matches(Array(evil.dropLast()) + [UInt8(ascii: "c")]) == true)
    #expect(nested.matches(evil) == false)
  }

  /// A pattern whose DFA would pass the state budget runs on the NFA, with the same answers.
  @Test func patternsBeyondTheDFABudgetRunOnTheNFA() throws {
    let probe = try ConstraintProbe("(a|b)*a(a|b){14}", engine: .linear)
    #expect(probe.linearStateCount == 0)
    var rng = SplitMix64(state: 7)
    for _ in 0..<200 {
      let input = (0..<Int.random(in: 10...40, using: &rng)).map { _ in Bool.random(using: &rng) ? UInt8(ascii: "a") : UInt8(ascii: "b") }
      let expected = input.count >= 15 && input[input.count - 15] == UInt8(ascii: "a")
      #expect(probe.matches(input) == expected)
    }
    #expect(try ConstraintProbe("[a-z]+", engine: .linear).linearStateCount ?? 0 > 0)
  }

  @Test(arguments: [
    (#"(a)\1"#, 3, "backreferences"), ("a(?=b)", 1, "look-ahead"), ("(?<!a)b", 0, "look-behind"), (#"\bword"#, 0, "word boundaries"),
    ("a++", 2, "possessive"), ("(?>a)", 0, "atomic"), ("(?i)a", 0, "inline options"), (#"\p{L}"#, 0, #"\p"#),
    ("(*UTF)a", 0, "verbs"), ("a{1001}", 1, "above 1000"), ("a{2}{3}", 4, "after a quantifier"), ("x{", 1, #"\{"#),
    (#"\Qa\E"#, 0, #"\Q"#), ("[[.a.]]", 1, "collating"), ("^*", 0, "anchor"), ("(?#c)a", 0, "comments"),
    ("(?:a{1000}){1000}", 0, "NFA states"), (#"[\d-z]"#, 1, "range"),
    ("[:alpha:]", 0, "POSIX"),
  ] as [(String, Int, String)])
  func pcre2OnlySyntaxIsRefused(regex: String, offset: Int, words: String) throws {
    let error = try #require(Self.linearError(regex))
    #expect(error.code == .unsupportedRegex && error.code.rawValue == "unsupported-regex")
    #expect(error.position == offset)
    #expect(error.message.contains(words) && error.message.contains("linear-time"), "\(error.message)")
  }

  /// The linear matcher's refusal of `regex`, or nil when it compiles.
  static func linearError(_ regex: String) -> RouteError? {
    do {
      _ = try ConstraintProbe(regex, engine: .linear)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [
    ("(a", 2, "missing closing parenthesis"), ("a)", 1, "unmatched closing parenthesis"), ("*a", 0, "quantifier"),
    ("[a", 2, "missing terminating ]"), ("[z-a]", 3, "out of order"), ("a{3,2}", 5, "out of order"), (#"a\"#, 1, "end of pattern"),
    ("[[:nope:]]", 3, "POSIX"), ("(?<n>a)(?<n>b)", 10, "same name"), ("(?<n\(String(repeating: "x", count: 40))>a)", 3, "too long"),
  ] as [(String, Int, String)])
  func invalidSyntaxIsAnInvalidRegex(regex: String, offset: Int, words: String) throws {
    let error = try #require(Self.linearError(regex))
    #expect(error.code == .invalidRegex)
    #expect(error.position == offset)
    #expect(error.message.contains(words), "\(error.message)")
    if ConstraintProbe.isAvailable(.pcre2) {
      #expect(throws: RouteError.self) { try ConstraintProbe(regex, engine: .pcre2) }
    }
  }

  /// In a build that runs constraints linearly, the route table reports the refusal at its byte.
  @Test(.enabled(if: Router.constraintEngine == .linear, "the linear matcher is the build's engine"))
  func refusalIsARouteCompileError() throws {
    let errors = compileErrors([Route("back", #"myapp://a/{id:(x)\1}"#)])
    let e = try #require(errors.first)
    #expect(e.code == .unsupportedRegex)
    #expect(e.position == 17)
    #expect(Array(#"myapp://a/{id:(x)\1}"#.utf8)[17] == UInt8(ascii: "\\"))
    #expect(e.description.hasPrefix("unsupported-regex in route \"back\" at byte 17: backreferences"))
  }

  @Test func hostilePatternsAreErrorsNotCrashes() throws {
    for regex in [
      String(repeating: "(", count: 100_000), String(repeating: "(", count: 300) + "a" + String(repeating: ")", count: 300),
      String(repeating: "(?:", count: 50_000) + "a", String(repeating: "[", count: 10_000), "a{99999999999999999999}",
      "(((a{1000}){1000}){1000})", String(repeating: "a|", count: 20_000), String(repeating: "a?", count: 20_000),
      String(repeating: "\\", count: 9_999), "[\u{FFFD}-\u{0}]",
    ] {
      #expect(throws: RouteError.self, "\(regex.prefix(40))") { try ConstraintProbe(regex, engine: .linear) }
    }
    // Large but allowed: the DFA's construction stops at its budget, and the NFA answers.
    let optional = try ConstraintProbe(String(repeating: "[a-z]?", count: 4_000), engine: .linear)
    #expect(optional.matches(Array("abc".utf8)) == true)
    let hex = { (b: Int) in "\\x" + String(b >> 4, radix: 16) + String(b & 15, radix: 16) }
    let bytes = "(?:" + (0..<200).map(hex).joined(separator: "|") + ")?"
    let manyClasses = try ConstraintProbe(String(repeating: bytes, count: 9), engine: .linear)
    #expect(manyClasses.matches([0x00, 0xC7, 0x41]) == true)
    #expect(manyClasses.matches([0xC8]) == false)
    // Deep but allowed: 200 groups.
    let deep = String(repeating: "(", count: 200) + "a" + String(repeating: ")", count: 200)
    #expect(try ConstraintProbe(deep, engine: .linear).matches([UInt8(ascii: "a")]) == true)
  }

  /// Generated patterns of the shared syntax, and inputs drawn from them (and mutated), answered the same way
  /// by both engines.
  @Test(.enabled(if: ConstraintProbe.isAvailable(.pcre2), "PCRE2 is in this build"))
  func agreesWithPCRE2OnGeneratedPatterns() throws {
    var rng = SplitMix64(state: 0x5EED_CAFE)
    var compared = 0
    var matched = 0
    for _ in 0..<600 {
      var generator = PatternGenerator(rng: rng)
      let tree = generator.node(depth: 3)
      let regex = tree.text
      let caseless = generator.coin()
      let linear: ConstraintProbe
      do {
        linear = try ConstraintProbe(regex, caseless: caseless, engine: .linear)
      } catch {
        // Large repetitions: refused by the linear matcher only.
        #expect(error.code == .unsupportedRegex, "\(regex): \(error)")
        rng = generator.rng
        continue
      }
      let pcre2 = try ConstraintProbe(regex, caseless: caseless, engine: .pcre2)
      for k in 0..<10 {
        var input = generator.sample(tree)
        if k >= 5 { generator.mutate(&input) }
        guard let expected = pcre2.matches(input) else { continue }
        let got = linear.matches(input)
        #expect(got == expected, "\(regex) caseless \(caseless) on \(input): PCRE2 \(expected), linear \(String(describing: got))")
        compared += 1
        if expected { matched += 1 }
      }
      rng = generator.rng
    }
    #expect(compared > 5_000)
    #expect(matched > 1_000)  // the inputs are drawn from the patterns: many match
  }
}

/// A random pattern of the syntax both engines take, as a tree that can also draw matching inputs.
indirect enum GeneratedPattern {
  /// Rendered text, and the bytes it may match.
  case atom(String, [UInt8])
  case sequence([GeneratedPattern])
  case alternation([GeneratedPattern])
  case repetition(GeneratedPattern, min: Int, max: Int?, suffix: String)
  case group(GeneratedPattern, open: String)
  case anchor(String)

  var text: String {
    switch self {
    case .atom(let text, _): return text
    case .sequence(let items):
      return items.map { if case .alternation = $0 { "(?:" + $0.text + ")" } else { $0.text } }.joined()
    case .alternation(let branches): return branches.map(\.text).joined(separator: "|")
    case .repetition(let body, _, _, let suffix):
      if case .atom = body { return body.text + suffix }
      if case .group = body { return body.text + suffix }
      return "(?:" + body.text + ")" + suffix
    case .group(let inner, let open): return open + inner.text + ")"
    case .anchor(let text): return text
    }
  }
}

struct PatternGenerator {
  var rng: SplitMix64
  static let atoms: [(String, [UInt8])] = [
    ("a", [0x61]), ("b", [0x62]), ("A", [0x41]), ("0", [0x30]), ("-", [0x2D]), (#"\."#, [0x2E]), ("_", [0x5F]), ("%", [0x25]),
    (".", [0x61, 0x2E, 0x20, 0xC3]), ("[a-c]", [0x61, 0x63]), ("[^a]", [0x62, 0x0A, 0x41]), ("[0-9A-F]", [0x30, 0x46]),
    (#"\d"#, [0x35]), (#"\w"#, [0x5F, 0x42]), (#"\s"#, [0x20, 0x0A]), (#"\D"#, [0x61]), (#"\W"#, [0x2D]), (#"\S"#, [0x2F]),
    ("[[:alpha:]]", [0x71]), ("[[:xdigit:][:punct:]]", [0x65, 0x21]), (#"[\w.-]"#, [0x2E, 0x61]), (#"\x41"#, [0x41]),
    ("[]b]", [0x5D, 0x62]), ("é", [0xC3, 0xA9]), (#"\n"#, [0x0A]), (#"[^\d\s]"#, [0x78]),
  ]
  static let alphabet: [UInt8] = Array("aAbB0-._%\n/ ]".utf8) + [0xC3, 0xA9]

  init(rng: SplitMix64) { self.rng = rng }

  mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
  mutating func coin() -> Bool { below(2) == 0 }

  mutating func node(depth: Int) -> GeneratedPattern {
    let choice = depth == 0 ? 0 : below(10)
    switch choice {
    case 0...3:
      let (text, bytes) = Self.atoms[below(Self.atoms.count)]
      return .atom(text, bytes)
    case 4, 5:
      return .sequence((0..<(1 + below(3))).map { _ in node(depth: depth - 1) })
    case 6:
      return .alternation((0..<(2 + below(2))).map { _ in node(depth: depth - 1) })
    case 7, 8:
      let (lo, hi, suffix): (Int, Int?, String) = [
        (0, 1, "?"), (0, nil, "*"), (1, nil, "+"), (2, 2, "{2}"), (1, 3, "{1,3}"), (2, nil, "{2,}"), (0, 2, "{0,2}"),
        (0, nil, "*?"), (1, nil, "+?"), (1, 1200, "{1,1200}"),
      ][below(10)]
      return .repetition(node(depth: depth - 1), min: lo, max: hi, suffix: suffix)
    default:
      if below(6) == 0 { return .anchor(["^", "$", #"\z"#, #"\Z"#, #"\A"#][below(5)]) }
      return .group(node(depth: depth - 1), open: coin() ? "(" : "(?:")
    }
  }

  /// An input the pattern probably matches (anchors aside).
  mutating func sample(_ p: GeneratedPattern) -> [UInt8] {
    switch p {
    case .atom(_, let bytes):
      if bytes.count == 2, bytes[0] == 0xC3 { return bytes }
      return [bytes[below(bytes.count)]]
    case .sequence(let items): return items.flatMap { sample($0) }
    case .alternation(let branches): return sample(branches[below(branches.count)])
    case .repetition(let body, let lo, let hi, _):
      let n = lo + below(min(hi ?? lo + 3, lo + 3) - lo + 1)
      return (0..<n).flatMap { _ in sample(body) }
    case .group(let inner, _): return sample(inner)
    case .anchor: return []
    }
  }

  mutating func mutate(_ input: inout [UInt8]) {
    switch below(4) {
    case 0 where !input.isEmpty: input.remove(at: below(input.count))
    case 1: input.insert(Self.alphabet[below(Self.alphabet.count)], at: below(input.count + 1))
    case 2 where !input.isEmpty: input[below(input.count)] = Self.alphabet[below(Self.alphabet.count)]
    default: input.append(0x0A)
    }
  }
}
