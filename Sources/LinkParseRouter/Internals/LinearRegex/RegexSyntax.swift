// The constraint syntax the linear-time matcher accepts, parsed into a tree.
//
// The syntax is the part of PCRE2's that a Thompson NFA can run, with the meaning PCRE2 gives it under the
// options the router compiles constraints with (`Constraint+PCRE2.swift`): 8-bit code units without
// `PCRE2_UTF` (so `.` and classes match one byte), ASCII-only character types (`\d` is `[0-9]`, `\w` is
// `[0-9A-Za-z_]`, `\s` is tab, LF, VT, FF, CR and space), newline LF (`.` matches every byte but LF; `$` matches
// at the end or before a final LF), caseless folding of ASCII letters only. The whole capture must match
// (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`), so lazy quantifiers mean what greedy ones do.
//
//   literals and escaped punctuation     a  \.  \/  \-  \{
//   escapes                              \t \n \r \f \e \a  \xhh  \x{hh}
//   any byte but LF                      .
//   classes                              [a-z0-9_]  [^/]  [[:alpha:]]  [\d.-]  []a]
//   character types                      \d \w \s \D \W \S
//   repetition (greedy or lazy)          ?  *  +  {m}  {m,}  {m,n}   with m, n <= maxRepetition
//   alternation, groups                  a|b  (…)  (?:…)  (?<name>…)  (?P<name>…)  (?'name'…)
//   anchors                              ^  $  \A  \z  \Z
//
// Everything else that PCRE2 knows (backreferences, look-around, \b, atomic groups and possessive quantifiers,
// inline options, \p, verbs, \Q…\E, …) is refused as `unsupported` with the byte offset, and what PCRE2 itself
// would reject is `invalid`. Both are reported before a route table is used, never while matching.

/// A set of bytes: 256 bits.
struct ByteClass: Hashable, Sendable {
  var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  static func == (a: ByteClass, b: ByteClass) -> Bool { a.words == b.words }
  func hash(into h: inout Hasher) {
    h.combine(words.0); h.combine(words.1); h.combine(words.2); h.combine(words.3)
  }

  init() {}

  init(_ bytes: some Sequence<UInt8>) {
    for b in bytes { insert(b) }
  }

  init(_ range: ClosedRange<UInt8>) {
    for b in range { insert(b) }
  }

  @inline(__always)
  func contains(_ b: UInt8) -> Bool {
    let bit = UInt64(1) &<< UInt64(b & 63)
    switch b >> 6 {
    case 0: return words.0 & bit != 0
    case 1: return words.1 & bit != 0
    case 2: return words.2 & bit != 0
    default: return words.3 & bit != 0
    }
  }

  mutating func insert(_ b: UInt8) {
    let bit = UInt64(1) &<< UInt64(b & 63)
    switch b >> 6 {
    case 0: words.0 |= bit
    case 1: words.1 |= bit
    case 2: words.2 |= bit
    default: words.3 |= bit
    }
  }

  mutating func formUnion(_ o: ByteClass) {
    words = (words.0 | o.words.0, words.1 | o.words.1, words.2 | o.words.2, words.3 | o.words.3)
  }

  var inverted: ByteClass {
    var c = ByteClass()
    c.words = (~words.0, ~words.1, ~words.2, ~words.3)
    return c
  }

  /// The set with the other case of each ASCII letter in it (PCRE2's caseless matching without UTF or UCP).
  var caseFolded: ByteClass {
    var c = self
    for b in UInt8(ascii: "A")...UInt8(ascii: "Z") where contains(b) || contains(b | 0x20) {
      c.insert(b)
      c.insert(b | 0x20)
    }
    return c
  }

  static let digits = ByteClass(UInt8(ascii: "0")...UInt8(ascii: "9"))
  static let upper = ByteClass(UInt8(ascii: "A")...UInt8(ascii: "Z"))
  static let lower = ByteClass(UInt8(ascii: "a")...UInt8(ascii: "z"))
  static let word: ByteClass = {
    var c = digits
    c.formUnion(upper)
    c.formUnion(lower)
    c.insert(UInt8(ascii: "_"))
    return c
  }()
  /// Tab, LF, VT, FF, CR and space (`\s` and `[:space:]` in PCRE2's default character tables).
  static let space = ByteClass([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20])
  /// Every byte but LF: what `.` matches.
  static let notNewline = ByteClass([0x0A]).inverted
}

/// A parsed constraint.
indirect enum RegexNode: Sendable {
  /// Matches the empty string.
  case empty
  /// One byte of the set.
  case byte(ByteClass)
  case concatenation([RegexNode])
  case alternation([RegexNode])
  /// `max` nil: unbounded.
  case repetition(RegexNode, min: Int, max: Int?)
  /// `^` and `\A`: the start of the capture.
  case start
  /// `$` and `\Z` (`beforeFinalNewline`: also before an LF that ends the capture), `\z`.
  case end(beforeFinalNewline: Bool)
}

/// Why the linear matcher cannot take a constraint.
struct RegexSyntaxError: Error, Sendable {
  enum Kind: Sendable {
    /// Not a valid pattern, for PCRE2 either.
    case invalid
    /// Valid PCRE2 syntax (or possibly so) that the linear matcher does not run.
    case unsupported
  }

  var kind: Kind
  /// The byte offset into the constraint.
  var offset: Int
  var message: String
}

/// A recursive-descent parser over the constraint's UTF-8 bytes. Nesting is bounded (``maxDepth``), so a
/// hostile pattern cannot exhaust the stack.
struct RegexParser {
  /// Groups nest at most this deep (PCRE2's default limit is 250).
  static let maxDepth = 200
  /// The largest count in `{m}`, `{m,}` and `{m,n}`.
  static let maxRepetition = 1_000

  let bytes: [UInt8]
  let caseless: Bool
  var i = 0
  var depth = 0
  /// The named groups' names: PCRE2 refuses a name used twice.
  var groupNames: Set<ArraySlice<UInt8>> = []

  init(_ source: String, caseless: Bool) {
    bytes = Array(source.utf8)
    self.caseless = caseless
  }

  static func parse(_ source: String, caseless: Bool) throws(RegexSyntaxError) -> RegexNode {
    var parser = RegexParser(source, caseless: caseless)
    let node = try parser.alternation()
    if parser.i < parser.bytes.count {
      // alternation() stops only at the end or at a ')' it did not open.
      throw parser.invalid("unmatched closing parenthesis", at: parser.i)
    }
    return node
  }

  private func invalid(_ message: String, at offset: Int) -> RegexSyntaxError {
    RegexSyntaxError(kind: .invalid, offset: offset, message: message)
  }

  private func unsupported(_ message: String, at offset: Int) -> RegexSyntaxError {
    RegexSyntaxError(kind: .unsupported, offset: offset, message: message)
  }

  private var current: UInt8? { i < bytes.count ? bytes[i] : nil }

  private func peek(_ k: Int) -> UInt8? { i + k < bytes.count ? bytes[i + k] : nil }

  mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
    var branches = [try sequence()]
    while current == UInt8(ascii: "|") {
      i += 1
      branches.append(try sequence())
    }
    return branches.count == 1 ? branches[0] : .alternation(branches)
  }

  private mutating func sequence() throws(RegexSyntaxError) -> RegexNode {
    var items: [RegexNode] = []
    while let b = current, b != UInt8(ascii: "|"), b != UInt8(ascii: ")") {
      let atomStart = i
      if isQuantifierStart() {
        throw invalid("quantifier does not follow a repeatable item", at: i)
      }
      let atom = try atom()
      if let (min, max) = try quantifier() {
        if case .start = atom { throw unsupported("a quantifier on an anchor", at: atomStart) }
        if case .end = atom { throw unsupported("a quantifier on an anchor", at: atomStart) }
        if isQuantifierStart() {
          throw unsupported("a quantifier after a quantifier (put the repeated part in a group)", at: i)
        }
        items.append(.repetition(atom, min: min, max: max))
      } else {
        items.append(atom)
      }
    }
    switch items.count {
    case 0: return .empty
    case 1: return items[0]
    default: return .concatenation(items)
    }
  }

  /// Whether `?`, `*`, `+` or a counted repetition `{m}`, `{m,}`, `{m,n}` starts at `i`.
  private func isQuantifierStart() -> Bool {
    guard let b = current else { return false }
    if b == UInt8(ascii: "?") || b == UInt8(ascii: "*") || b == UInt8(ascii: "+") { return true }
    return b == UInt8(ascii: "{") && countedRepetition(at: i) != nil
  }

  /// The `{m}`, `{m,}` or `{m,n}` at `k`: its bounds (saturated, checked by the caller) and where it ends.
  private func countedRepetition(at k: Int) -> (min: Int, max: Int?, end: Int)? {
    var j = k + 1
    func number() -> Int? {
      let start = j
      var n = 0
      while j < bytes.count, bytes[j] &- 0x30 < 10 {
        n = Swift.min(n * 10 + Int(bytes[j] &- 0x30), 1_000_000)
        j += 1
      }
      return j > start ? n : nil
    }
    guard let min = number() else { return nil }
    var max: Int? = min
    if j < bytes.count, bytes[j] == UInt8(ascii: ",") {
      j += 1
      max = number()
    }
    guard j < bytes.count, bytes[j] == UInt8(ascii: "}") else { return nil }
    return (min, max, j + 1)
  }

  private mutating func quantifier() throws(RegexSyntaxError) -> (Int, Int?)? {
    guard let b = current else { return nil }
    let start = i
    let bounds: (Int, Int?)
    switch b {
    case UInt8(ascii: "?"): bounds = (0, 1); i += 1
    case UInt8(ascii: "*"): bounds = (0, nil); i += 1
    case UInt8(ascii: "+"): bounds = (1, nil); i += 1
    case UInt8(ascii: "{"):
      guard let (min, max, end) = countedRepetition(at: i) else { return nil }
      if let max, max < min { throw invalid("numbers out of order in {} quantifier", at: end - 1) }
      if (max ?? min) > Self.maxRepetition {
        throw unsupported(
          "counted repetition above \(Self.maxRepetition) (use + or * for an unbounded run)", at: start)
      }
      bounds = (min, max)
      i = end
    default:
      return nil
    }
    // A lazy quantifier matches the same whole captures as a greedy one; a possessive one does not.
    if current == UInt8(ascii: "?") {
      i += 1
    } else if current == UInt8(ascii: "+") {
      throw unsupported("possessive quantifiers (remove the '+')", at: i)
    }
    return bounds
  }

  private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
    let start = i
    let b = bytes[i]
    i += 1
    switch b {
    case UInt8(ascii: "("):
      return try group(start)
    case UInt8(ascii: "["):
      return .byte(try characterClass(start))
    case UInt8(ascii: "."):
      return .byte(.notNewline)
    case UInt8(ascii: "^"):
      return .start
    case UInt8(ascii: "$"):
      return .end(beforeFinalNewline: true)
    case UInt8(ascii: "\\"):
      guard let e = current else { throw invalid("\\ at end of pattern", at: start) }
      i += 1
      switch e {
      case UInt8(ascii: "A"): return .start
      case UInt8(ascii: "z"): return .end(beforeFinalNewline: false)
      case UInt8(ascii: "Z"): return .end(beforeFinalNewline: true)
      default:
        switch try escape(e, at: start, inClass: false) {
        case .byte(let v): return literal(v)
        case .set(let set): return .byte(set)
        }
      }
    case UInt8(ascii: "{"):
      // Not a counted repetition (the sequence checked): PCRE2 reads it as a literal, newer versions as
      // `{,n}` or with spaces. Written `\{`, it means the same everywhere.
      throw unsupported("a literal '{' must be written \\{", at: start)
    default:
      return literal(b)
    }
  }

  private func literal(_ b: UInt8) -> RegexNode {
    let set = ByteClass([b])
    return .byte(caseless ? set.caseFolded : set)
  }

  private mutating func group(_ start: Int) throws(RegexSyntaxError) -> RegexNode {
    if current == UInt8(ascii: "*") {
      throw unsupported("PCRE2 verbs such as (*UTF) or (*SKIP)", at: start)
    }
    if current == UInt8(ascii: "?") {
      i += 1
      switch current {
      case UInt8(ascii: ":"):
        i += 1
      case UInt8(ascii: "<") where peek(1) == UInt8(ascii: "=") || peek(1) == UInt8(ascii: "!"),
        UInt8(ascii: "="), UInt8(ascii: "!"):
        throw unsupported("look-ahead and look-behind assertions", at: start)
      case UInt8(ascii: "<"), UInt8(ascii: "'"):
        try groupName(start)
      case UInt8(ascii: "P") where peek(1) == UInt8(ascii: "<"):
        i += 1
        try groupName(start)
      case UInt8(ascii: ">"):
        throw unsupported("atomic groups (use (?:…))", at: start)
      default:
        throw unsupported("(?…) groups other than (?:…) and named groups (inline options, comments, recursion…)", at: start)
      }
    }
    depth += 1
    if depth > Self.maxDepth {
      throw unsupported("groups nested more than \(Self.maxDepth) deep", at: start)
    }
    let inner = try alternation()
    depth -= 1
    guard current == UInt8(ascii: ")") else { throw invalid("missing closing parenthesis", at: bytes.count) }
    i += 1
    return inner
  }

  /// Skips `<name>` or `'name'` (the capture's name has no meaning for a constraint).
  private mutating func groupName(_ start: Int) throws(RegexSyntaxError) {
    let close = bytes[i] == UInt8(ascii: "<") ? UInt8(ascii: ">") : UInt8(ascii: "'")
    i += 1
    let nameStart = i
    while let b = current, b == UInt8(ascii: "_") || (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 { i += 1 }
    guard i > nameStart, bytes[nameStart] &- 0x30 >= 10, current == close else {
      throw invalid("a group name is a letter or '_' followed by letters, digits or '_'", at: nameStart)
    }
    guard i - nameStart <= 32 else { throw invalid("group name is too long (at most 32 bytes)", at: nameStart) }
    guard groupNames.insert(bytes[nameStart..<i]).inserted else {
      throw invalid("two named groups have the same name", at: nameStart)
    }
    i += 1
  }

  private enum Escape {
    case byte(UInt8)
    case set(ByteClass)
  }

  /// The escape `\e` (after the backslash at `at`); `i` is past `e`.
  private mutating func escape(_ e: UInt8, at start: Int, inClass: Bool) throws(RegexSyntaxError) -> Escape {
    switch e {
    case UInt8(ascii: "d"): return .set(.digits)
    case UInt8(ascii: "D"): return .set(ByteClass.digits.inverted)
    case UInt8(ascii: "w"): return .set(.word)
    case UInt8(ascii: "W"): return .set(ByteClass.word.inverted)
    case UInt8(ascii: "s"): return .set(.space)
    case UInt8(ascii: "S"): return .set(ByteClass.space.inverted)
    case UInt8(ascii: "t"): return .byte(0x09)
    case UInt8(ascii: "n"): return .byte(0x0A)
    case UInt8(ascii: "r"): return .byte(0x0D)
    case UInt8(ascii: "f"): return .byte(0x0C)
    case UInt8(ascii: "e"): return .byte(0x1B)
    case UInt8(ascii: "a"): return .byte(0x07)
    case UInt8(ascii: "b") where inClass: return .byte(0x08)
    case UInt8(ascii: "x"):
      return .byte(try hexEscape(start))
    case UInt8(ascii: "b"), UInt8(ascii: "B"):
      throw unsupported("word boundaries (\\b, \\B)", at: start)
    case UInt8(ascii: "0")...UInt8(ascii: "9"):
      throw unsupported("backreferences and octal escapes (write \\xhh for a byte)", at: start)
    case UInt8(ascii: "g"), UInt8(ascii: "k"):
      throw unsupported("backreferences", at: start)
    default:
      if (e | 0x20) &- 0x61 < 26 {
        throw unsupported("the escape \\\(Character(Unicode.Scalar(e))) (only \\d \\w \\s \\D \\W \\S \\t \\n \\r \\f \\e \\a \\xhh, "
          + "\\A \\z \\Z and escaped punctuation)", at: start)
      }
      // Escaped punctuation, digits aside, and any other byte: itself.
      return .byte(e)
    }
  }

  /// `\xhh` (exactly two hex digits) or `\x{h}`, `\x{hh}`; `i` is past the `x`.
  private mutating func hexEscape(_ start: Int) throws(RegexSyntaxError) -> UInt8 {
    func hex(_ b: UInt8?) -> UInt8? {
      guard let b else { return nil }
      if b &- 0x30 < 10 { return b &- 0x30 }
      if (b | 0x20) &- 0x61 < 6 { return (b | 0x20) &- 0x61 &+ 10 }
      return nil
    }
    if current == UInt8(ascii: "{") {
      var j = i + 1
      var value = 0
      while j < bytes.count, let d = hex(bytes[j]), j - i <= 2 {
        value = value * 16 + Int(d)
        j += 1
      }
      guard j > i + 1, j < bytes.count, bytes[j] == UInt8(ascii: "}") else {
        throw unsupported("\\x{…} with more than two hex digits (one byte, at most \\x{ff})", at: start)
      }
      i = j + 1
      return UInt8(value)
    }
    guard let h = hex(current), let l = hex(peek(1)) else {
      throw unsupported("\\x takes exactly two hex digits here (\\x41)", at: start)
    }
    i += 2
    return h << 4 | l
  }

  private mutating func characterClass(_ start: Int) throws(RegexSyntaxError) -> ByteClass {
    if let c = current, c == UInt8(ascii: ":") || c == UInt8(ascii: ".") || c == UInt8(ascii: "=") {
      // PCRE2 refuses `[:alpha:]` outside a class, and reads `[:…]` otherwise: written `[\:…]`, it is clear.
      throw unsupported("a class that starts with '\(Character(Unicode.Scalar(c)))' (a POSIX class goes inside "
        + "brackets, [[:alpha:]]; a literal is written [\\\(Character(Unicode.Scalar(c)))…])", at: start)
    }
    var negated = false
    if current == UInt8(ascii: "^") {
      negated = true
      i += 1
    }
    var set = ByteClass()
    var first = true
    while true {
      guard let b = current else { throw invalid("missing terminating ] for character class", at: bytes.count) }
      if b == UInt8(ascii: "]") && !first { i += 1; break }
      first = false
      let itemStart = i
      switch try classItem() {
      case .set(let s):
        if current == UInt8(ascii: "-"), let next = peek(1), next != UInt8(ascii: "]") {
          throw unsupported("a range that starts with a character type or class", at: itemStart)
        }
        set.formUnion(s)
      case .byte(let lo):
        guard current == UInt8(ascii: "-"), let next = peek(1), next != UInt8(ascii: "]") else {
          set.insert(lo)
          continue
        }
        i += 1
        let hiStart = i
        guard case .byte(let hi) = try classItem() else {
          throw unsupported("a range that ends with a character type or class", at: hiStart)
        }
        guard lo <= hi else { throw invalid("range out of order in character class", at: hiStart) }
        set.formUnion(ByteClass(lo...hi))
      }
    }
    if caseless { set = set.caseFolded }
    return negated ? set.inverted : set
  }

  /// One byte, character type or POSIX class of a `[…]`.
  private mutating func classItem() throws(RegexSyntaxError) -> Escape {
    let start = i
    let b = bytes[i]
    i += 1
    if b == UInt8(ascii: "\\") {
      guard let e = current else { throw invalid("\\ at end of pattern", at: start) }
      i += 1
      return try escape(e, at: start, inClass: true)
    }
    if b == UInt8(ascii: "["), let c = current,
      c == UInt8(ascii: ":") || c == UInt8(ascii: ".") || c == UInt8(ascii: "=")
    {
      guard c == UInt8(ascii: ":") else { throw unsupported("POSIX collating elements [. .] and [= =]", at: start) }
      return .set(try posixClass(start))
    }
    return .byte(b)
  }

  /// `[:name:]` or `[:^name:]`; `i` is at the first ':'.
  private mutating func posixClass(_ start: Int) throws(RegexSyntaxError) -> ByteClass {
    var j = i + 1
    var negated = false
    if j < bytes.count, bytes[j] == UInt8(ascii: "^") { negated = true; j += 1 }
    let nameStart = j
    while j < bytes.count, (bytes[j] | 0x20) &- 0x61 < 26 { j += 1 }
    guard j + 1 < bytes.count, bytes[j] == UInt8(ascii: ":"), bytes[j + 1] == UInt8(ascii: "]") else {
      throw unsupported("a '[:' that does not start a POSIX class such as [:alpha:] (write \\[)", at: start)
    }
    var name = String(decoding: bytes[nameStart..<j], as: UTF8.self)
    // PCRE2: caseless [:lower:] and [:upper:] are [:alpha:], before any negation.
    if caseless && (name == "lower" || name == "upper") { name = "alpha" }
    var set: ByteClass
    switch name {
    case "alpha": set = .upper; set.formUnion(.lower)
    case "digit": set = .digits
    case "alnum": set = .upper; set.formUnion(.lower); set.formUnion(.digits)
    case "upper": set = .upper
    case "lower": set = .lower
    case "space": set = .space
    case "blank": set = ByteClass([0x09, 0x20])
    case "cntrl": set = ByteClass(0x00...0x1F); set.insert(0x7F)
    case "graph": set = ByteClass(0x21...0x7E)
    case "print": set = ByteClass(0x20...0x7E)
    case "punct":
      set = ByteClass(0x21...0x2F); set.formUnion(ByteClass(0x3A...0x40))
      set.formUnion(ByteClass(0x5B...0x60)); set.formUnion(ByteClass(0x7B...0x7E))
    case "xdigit":
      set = .digits; set.formUnion(ByteClass(0x41...0x46)); set.formUnion(ByteClass(0x61...0x66))
    case "word": set = .word
    case "ascii": set = ByteClass(0x00...0x7F)
    default:
      throw invalid("unknown POSIX class name", at: nameStart)
    }
    i = j + 2
    return negated ? set.inverted : set
  }
}
