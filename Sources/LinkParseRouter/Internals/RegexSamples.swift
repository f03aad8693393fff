// Sample texts for a regex, for the ambiguity search: strings generated from a common subset of the syntax
// (literals, escapes, classes, groups, alternation, quantifiers) plus fixed probes. Nothing here has to be
// right: every sample is run through the real constraints (PCRE2 or the linear matcher) before it is used.

enum RegexSamples {
  static let cap = 96
  static let probes = [
    "0", "1", "7", "42", "123", "2024", "0000", "a", "z", "A", "Z", "x", "abc", "x1", "a1b2", "_", "-", ".", "~",
    "ab-c", "a_b", "a.b", "%41", "abcdef0123",
  ].map { Array($0.utf8) }

  static func generate(_ regex: String) -> [[UInt8]] {
    var parser = Generator(bytes: Array(regex.utf8))
    var result = parser.alternation() ?? []
    if parser.i != parser.bytes.count { result = [] }
    for p in probes where !result.contains(p) { result.append(p) }
    return result
  }

  static func product(_ a: [[UInt8]], _ b: [[UInt8]]) -> [[UInt8]] {
    var result: [[UInt8]] = []
    outer: for x in a {
      for y in b {
        result.append(x + y)
        if result.count >= cap { break outer }
      }
    }
    return result
  }

  struct Generator {
    let bytes: [UInt8]
    var i = 0

    mutating func alternation() -> [[UInt8]]? {
      var result: [[UInt8]] = []
      while true {
        guard let seq = sequence() else { return nil }
        result += seq
        if i < bytes.count && bytes[i] == UInt8(ascii: "|") { i += 1; continue }
        return Array(result.prefix(cap))
      }
    }

    mutating func sequence() -> [[UInt8]]? {
      var result: [[UInt8]] = [[]]
      while i < bytes.count && bytes[i] != UInt8(ascii: "|") && bytes[i] != UInt8(ascii: ")") {
        guard let atom = atom() else { return nil }
        let reps = quantifier()
        var options: [[UInt8]] = []
        for r in reps {
          var repeated: [[UInt8]] = [[]]
          for _ in 0..<r { repeated = RegexSamples.product(repeated, atom) }
          options += repeated
        }
        result = RegexSamples.product(result, options)
      }
      return result
    }

    mutating func quantifier() -> [Int] {
      guard i < bytes.count else { return [1] }
      var reps: [Int]
      switch bytes[i] {
      case UInt8(ascii: "*"): reps = [0, 1, 2]; i += 1
      case UInt8(ascii: "+"): reps = [1, 2]; i += 1
      case UInt8(ascii: "?"): reps = [0, 1]; i += 1
      case UInt8(ascii: "{"):
        var j = i + 1
        var n = 0, m: Int? = nil, sawComma = false, digits = 0
        while j < bytes.count, bytes[j] != UInt8(ascii: "}") {
          let b = bytes[j]
          if b &- 0x30 < 10 {
            if sawComma { m = (m ?? 0) * 10 + Int(b - 0x30) } else { n = n * 10 + Int(b - 0x30); digits += 1 }
          } else if b == UInt8(ascii: ","), !sawComma {
            sawComma = true
          } else {
            return [1]  // a literal '{'
          }
          j += 1
        }
        guard j < bytes.count, digits > 0, n <= 64 else { return [1] }
        i = j + 1
        reps = [n]
        if sawComma, (m ?? n + 1) > n { reps.append(n + 1) }
      default:
        return [1]
      }
      if i < bytes.count && (bytes[i] == UInt8(ascii: "?") || bytes[i] == UInt8(ascii: "+")) { i += 1 }
      return reps
    }

    mutating func atom() -> [[UInt8]]? {
      let b = bytes[i]
      i += 1
      switch b {
      case UInt8(ascii: "("):
        if i < bytes.count && bytes[i] == UInt8(ascii: "?") {
          i += 1
          guard i < bytes.count else { return nil }
          if bytes[i] == UInt8(ascii: ":") {
            i += 1
          } else if bytes[i] == UInt8(ascii: "<") || bytes[i] == UInt8(ascii: "P") || bytes[i] == UInt8(ascii: "'") {
            if bytes[i] == UInt8(ascii: "P") { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "<") || bytes[i] == UInt8(ascii: "'") else { return nil }
            // `(?<=` / `(?<!` are lookbehinds: not generated.
            if i + 1 < bytes.count && (bytes[i + 1] == UInt8(ascii: "=") || bytes[i + 1] == UInt8(ascii: "!")) { return nil }
            while i < bytes.count && bytes[i] != UInt8(ascii: ">") && bytes[i] != UInt8(ascii: "'") { i += 1 }
            i += 1
          } else {
            return nil
          }
        }
        guard let inner = alternation(), i < bytes.count, bytes[i] == UInt8(ascii: ")") else { return nil }
        i += 1
        return inner
      case UInt8(ascii: "["):
        return characterClass()
      case UInt8(ascii: "."):
        return [[UInt8(ascii: "a")], [UInt8(ascii: "0")]]
      case UInt8(ascii: "^"), UInt8(ascii: "$"):
        return [[]]
      case UInt8(ascii: "\\"):
        guard i < bytes.count else { return nil }
        let e = bytes[i]
        i += 1
        return escape(e)
      default:
        return [[b]]
      }
    }

    func escape(_ e: UInt8) -> [[UInt8]]? {
      switch e {
      case UInt8(ascii: "d"): return ["0", "7"].map { Array($0.utf8) }
      case UInt8(ascii: "w"): return ["a", "0", "_"].map { Array($0.utf8) }
      case UInt8(ascii: "s"): return [[0x20]]
      case UInt8(ascii: "D"), UInt8(ascii: "S"): return [[UInt8(ascii: "a")]]
      case UInt8(ascii: "W"): return [[UInt8(ascii: "-")]]
      case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "A"), UInt8(ascii: "z"), UInt8(ascii: "Z"): return [[]]
      default:
        if (e | 0x20) &- 0x61 < 26 || e &- 0x30 < 10 { return nil }  // backreferences, \p{…}, \x…: not generated
        return [[e]]
      }
    }

    mutating func characterClass() -> [[UInt8]]? {
      var negated = false
      if i < bytes.count && bytes[i] == UInt8(ascii: "^") { negated = true; i += 1 }
      var chars: [UInt8] = []
      var first = true
      while i < bytes.count && (bytes[i] != UInt8(ascii: "]") || first) {
        first = false
        var c = bytes[i]
        i += 1
        if c == UInt8(ascii: "[") && i < bytes.count && bytes[i] == UInt8(ascii: ":") {
          // POSIX class such as [:alpha:]: take a letter and a digit.
          while i < bytes.count && bytes[i] != UInt8(ascii: "]") { i += 1 }
          i += 1
          chars += [UInt8(ascii: "a"), UInt8(ascii: "0")]
          continue
        }
        if c == UInt8(ascii: "\\") && i < bytes.count {
          let e = bytes[i]
          i += 1
          if let options = escape(e), options.allSatisfy({ $0.count == 1 }) {
            if (e | 0x20) &- 0x61 < 26 { chars += options.map { $0[0] }; continue }
            c = e
          } else {
            continue
          }
        }
        if i + 1 < bytes.count && bytes[i] == UInt8(ascii: "-") && bytes[i + 1] != UInt8(ascii: "]") {
          let hi = bytes[i + 1]
          i += 2
          if hi >= c { chars += [c, hi, c + (hi - c) / 2] }
          continue
        }
        chars.append(c)
      }
      guard i < bytes.count else { return nil }
      i += 1
      if negated { return RegexSamples.probes.filter { $0.count == 1 } }
      var unique: [UInt8] = []
      for c in chars where !unique.contains(c) { unique.append(c) }
      return unique.prefix(6).map { [$0] }
    }
  }
}
