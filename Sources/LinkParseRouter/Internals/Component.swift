// Compiled components: a scheme, a host or one path segment of a pattern, and the capture stack they write.

import LinkParseCore

/// Priority classes, best first. A route's priority is the sequence of its components' ranks from the scheme
/// to the end of the path (the end itself ranks as a literal), then the number of required query parameters
/// (more wins), then declaration order.
enum Rank: UInt8, Comparable, Sendable {
  case literal = 0
  case constrained = 1
  case capture = 2
  case wildcard = 3
  case rest = 4

  static func < (a: Rank, b: Rank) -> Bool { a.rawValue < b.rawValue }
}

/// One capture found while matching: a name (an index into the router's name table) and a UTF-8 byte range
/// of the URL's serialization.
struct CaptureSlot {
  var name: Int32
  var start: Int32
  var end: Int32
}

/// The captures of the branch being explored. Backed by caller-provided memory (stack-allocated by
/// `withUnsafeTemporaryAllocation`), so matching allocates nothing.
struct CaptureStack {
  let base: UnsafeMutablePointer<CaptureSlot>
  let capacity: Int
  var count = 0

  init(_ buffer: UnsafeMutableBufferPointer<CaptureSlot>) {
    base = buffer.baseAddress!
    capacity = buffer.count
  }

  mutating func push(_ name: Int32, _ start: Int, _ end: Int) {
    // Capacity is the largest capture count of any route; a branch never holds more than its route's.
    precondition(count < capacity, "capture stack overflow")
    base[count] = CaptureSlot(name: name, start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end))
    count += 1
  }
}

/// FNV-1a over the bytes, optionally ASCII-case-folded. Keys the literal children of a trie node.
@inline(__always)
func literalHash(_ p: UnsafePointer<UInt8>, _ count: Int, folded: Bool) -> UInt64 {
  var h: UInt64 = 0xcbf2_9ce4_8422_2325
  for k in 0..<count {
    h = (h ^ UInt64(folded ? asciiLowercased(p[k]) : p[k])) &* 0x100_0000_01b3
  }
  return h
}

/// A compiled scheme, host or path segment pattern: literal text and captures, or a `*` wildcard.
final class ComponentPattern: Sendable {
  enum Part: Sendable {
    case literal([UInt8])
    case capture(name: Int32, constraint: Constraint?)
  }

  let parts: [Part]
  /// Literals compare ASCII-case-insensitively and constraints run caseless.
  let caseless: Bool
  let rank: Rank
  /// The whole text when the component is a literal (folded when caseless).
  let literal: [UInt8]?
  /// The pattern text, for explanations and errors.
  let display: String

  init(parts: [Part], caseless: Bool, wildcard: Bool, display: String) {
    // Caseless literals are stored folded, so matching folds only the URL's bytes.
    self.parts = !caseless ? parts : parts.map {
      if case .literal(let l) = $0 { .literal(l.map(asciiLowercased)) } else { $0 }
    }
    self.caseless = caseless
    self.display = display
    if wildcard {
      rank = .wildcard
      literal = nil
    } else if parts.allSatisfy({ if case .literal = $0 { true } else { false } }) {
      rank = .literal
      var text: [UInt8] = []
      for case .literal(let l) in self.parts { text += l }
      literal = text
    } else if parts.count == 1, case .capture(_, nil) = parts[0] {
      rank = .capture
      literal = nil
    } else {
      rank = .constrained
      literal = nil
    }
  }

  var captureCount: Int {
    parts.reduce(0) { if case .capture = $1 { $0 + 1 } else { $0 } }
  }

  /// Whether `buf[start..<end]` matches; on a match the captures are pushed on `stack`, otherwise `stack`
  /// is left as it was.
  func match(_ buf: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ stack: inout CaptureStack) -> ConstraintResult {
    switch rank {
    case .wildcard, .rest:
      return end > start ? .match : .noMatch
    case .literal:
      guard let literal, literal.count == end - start else { return .noMatch }
      return equals(buf + start, literal) ? .match : .noMatch
    case .capture, .constrained:
      let mark = stack.count
      let result = matchParts(0, buf, start, end, &stack)
      if result != .match { stack.count = mark }
      return result
    }
  }

  @inline(__always)
  private func equals(_ p: UnsafePointer<UInt8>, _ literal: [UInt8]) -> Bool {
    literal.withUnsafeBufferPointer { lit in
      if caseless {
        for k in 0..<lit.count where asciiLowercased(p[k]) != lit[k] { return false }
      } else {
        for k in 0..<lit.count where p[k] != lit[k] { return false }
      }
      return true
    }
  }

  private func matchParts(
    _ index: Int, _ buf: UnsafePointer<UInt8>, _ pos: Int, _ end: Int, _ stack: inout CaptureStack
  ) -> ConstraintResult {
    if index == parts.count { return pos == end ? .match : .noMatch }
    switch parts[index] {
    case .literal(let lit):
      guard end - pos >= lit.count else { return .noMatch }
      guard equals(buf + pos, lit) else { return .noMatch }
      return matchParts(index + 1, buf, pos + lit.count, end, &stack)
    case .capture(let name, let constraint):
      if index + 1 == parts.count {
        // The last part takes the rest of the component; captures are never empty.
        guard end > pos else { return .noMatch }
        let r = constraint?.matches(buf + pos, count: end - pos) ?? .match
        if r == .match { stack.push(name, pos, end) }
        return r
      }
      // The parser guarantees a literal follows; try each place it occurs, shortest capture first.
      guard case .literal(let next) = parts[index + 1] else { return .noMatch }
      var e = pos + 1
      while e + next.count <= end {
        if equals(buf + e, next) {
          let r = constraint?.matches(buf + pos, count: e - pos) ?? .match
          if r == .limitExceeded { return r }
          if r == .match {
            let mark = stack.count
            stack.push(name, pos, e)
            let rest = matchParts(index + 1, buf, e, end, &stack)
            if rest != .noMatch { return rest }
            stack.count = mark
          }
        }
        e += 1
      }
      return .noMatch
    }
  }

  /// Whether `bytes` as a whole match, for the compile-time ambiguity search.
  func matches(_ bytes: [UInt8]) -> ConstraintResult {
    let captures = max(captureCount, 1)
    return withUnsafeTemporaryAllocation(of: CaptureSlot.self, capacity: captures) { slots in
      var stack = CaptureStack(slots)
      return bytes.withUnsafeBufferPointer { buf in
        match(buf.baseAddress ?? UnsafePointer(bitPattern: 1)!, 0, buf.count, &stack)
      }
    }
  }
}
