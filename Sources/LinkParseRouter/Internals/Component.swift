// Compiled components: a scheme, a host or one path segment of a pattern, and the capture stack they write.

import LinkParseCore
import LinkParseBytes

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
struct CaptureSlot: Sendable {
  var name: Int32
  var start: Int32
  var end: Int32
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
  /// The same pattern in flat memory owned by this object, which matching reads (see ``ComponentCode``).
  let code: ComponentCode
  /// Owns `code`'s memory.
  private let arena = Arena()

  init(parts: [Part], caseless: Bool, wildcard: Bool, display: String) {
    // Caseless literals are stored folded, so matching folds only the URL's bytes.
    let parts = !caseless ? parts : parts.map {
      if case .literal(let l) = $0 { .literal(l.map(asciiLowercased)) } else { $0 }
    }
    self.parts = parts
    self.caseless = caseless
    self.display = display
    let rank: Rank
    if wildcard {
      rank = .wildcard
      literal = nil
    } else if parts.allSatisfy({ if case .literal = $0 { true } else { false } }) {
      rank = .literal
      var text: [UInt8] = []
      for case .literal(let l) in parts { text += l }
      literal = text
    } else if parts.count == 1, case .capture(_, nil) = parts[0] {
      rank = .capture
      literal = nil
    } else {
      rank = .constrained
      literal = nil
    }
    self.rank = rank
    code = ComponentCode(rank: rank, caseless: caseless, literal: literal, parts: parts, arena: arena)
  }

  /// Whether matching this component never hits the PCRE2 limits: its constraints (if any) are matched
  /// natively.
  var cannotHitLimits: Bool {
    parts.allSatisfy { if case .capture(_, let c?) = $0 { c.isNative } else { true } }
  }

  var captureCount: Int {
    parts.reduce(0) { if case .capture = $1 { $0 + 1 } else { $0 } }
  }

  /// Whether `buf[start..<end]` matches; on a match the captures are pushed on `stack`, otherwise `stack`
  /// is left as it was.
  func match(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ stack: inout CaptureStack) -> ConstraintResult {
    code.match(buf, start, end, &stack)
  }

  /// Whether `bytes` as a whole match, for the compile-time ambiguity search.
  func matches(_ bytes: [UInt8]) -> ConstraintResult {
    return withCaptureSlots(capacity: max(captureCount, 1)) { stack in
      // Padded so that an empty text still has a base address.
      return (bytes + [0]).withUnsafeBufferPointer { buf in
        match(UnsafeBufferPointer(rebasing: buf[..<bytes.count]), 0, bytes.count, &stack)
      }
    }
  }
}

/// A component pattern laid out in memory that its ``ComponentPattern`` allocates once (in its arena, freed
/// with it): the literal bytes and the parts behind plain pointers, the constraints unretained. Matching reads
/// it without touching a reference count (a `[Part]` of enums holding arrays and classes costs a retain and
/// a release per part read), and the router's trie keeps a table of these structs, one per pattern.
///
/// Valid only while its `ComponentPattern` lives: the router holds every pattern for its own lifetime.
struct ComponentCode: @unchecked Sendable {
  // @unchecked: the memory is written once in `init` and only read afterwards, from any thread.

  /// One part: literal bytes (`name` < 0), or a capture with an optional constraint.
  struct PartCode {
    let literal: UnsafeBufferPointer<UInt8>
    let name: Int32
    /// Kept alive by the pattern's `parts`.
    let constraint: Unmanaged<Constraint>?
  }

  let rank: Rank
  let caseless: Bool
  /// The whole text when `rank` is `.literal` (folded when caseless), else empty.
  let literal: UnsafeBufferPointer<UInt8>
  let parts: UnsafeBufferPointer<PartCode>

  init(rank: Rank, caseless: Bool, literal: [UInt8]?, parts: [ComponentPattern.Part], arena: Arena) {
    self.rank = rank
    self.caseless = caseless
    // One block for every literal byte: the whole literal first, then each literal part's, then eight zero
    // bytes, so that comparisons can read whole words past the end of any of them (`equalBytes`).
    var bytes = literal ?? []
    for case .literal(let l) in parts { bytes += l }
    bytes += repeatElement(0, count: 8)
    let storage = arena.table(bytes)
    self.literal = storage.buffer(from: 0, count: literal?.count ?? 0)
    var codes: [PartCode] = []
    var offset = literal?.count ?? 0
    for part in parts {
      switch part {
      case .literal(let l):
        codes.append(PartCode(literal: storage.buffer(from: offset, count: l.count), name: -1, constraint: nil))
        offset += l.count
      case .capture(let name, let constraint):
        codes.append(PartCode(
          literal: storage.buffer(from: 0, count: 0), name: name, constraint: constraint.map { Unmanaged.passUnretained($0) }))
      }
    }
    self.parts = arena.table(codes).buffer(count: codes.count)
  }

  /// Whether `buf[start..<end]` matches; on a match the captures are pushed on `stack`, otherwise `stack`
  /// is left as it was.
  @inline(__always)
  func match(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ stack: inout CaptureStack) -> ConstraintResult {
    // Tests in the order of how often the search meets each rank (literal children are mostly found by the
    // search's own comparison), rather than a `switch`: its jump table's indirect branch was mispredicted.
    if rank == .capture {
      // `{name}`: the whole component, never empty.
      guard end > start else { return .noMatch }
      stack.push(parts[0].name, start, end)
      return .match
    }
    if rank == .constrained {
      let mark = stack.count
      let result = matchParts(0, buf, start, end, &stack)
      if result != .match { stack.count = mark }
      return result
    }
    if rank == .literal {
      guard literal.count == end - start else { return .noMatch }
      return equals(buf, start, literal) ? .match : .noMatch
    }
    // `*` and `{rest...}`.
    return end > start ? .match : .noMatch
  }

  /// Whether the bytes of `buf` from `start` begin with `literal` (the caller checked the length).
  @inline(__always)
  private func equals(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: UnsafeBufferPointer<UInt8>) -> Bool {
    Bytes(buf).equals(at: start, literal, count: literal.count, caseless: caseless)
  }

  @inline(__always)
  private func constraintResult(_ part: PartCode, _ buf: UnsafeBufferPointer<UInt8>, _ start: Int, count: Int) -> ConstraintResult {
    guard let constraint = part.constraint else { return .match }
    let p = Bytes(buf).address(start)
    return constraint._withUnsafeGuaranteedRef { $0.matches(p, count: count) }
  }

  private func matchParts(
    _ index: Int, _ buf: UnsafeBufferPointer<UInt8>, _ pos: Int, _ end: Int, _ stack: inout CaptureStack
  ) -> ConstraintResult {
    if index == parts.count { return pos == end ? .match : .noMatch }
    let part = parts[index]
    if part.name < 0 {
      let lit = part.literal
      guard end - pos >= lit.count else { return .noMatch }
      guard equals(buf, pos, lit) else { return .noMatch }
      return matchParts(index + 1, buf, pos + lit.count, end, &stack)
    }
    if index + 1 == parts.count {
      // The last part takes the rest of the component; captures are never empty.
      guard end > pos else { return .noMatch }
      let r = constraintResult(part, buf, pos, count: end - pos)
      if r == .match { stack.push(part.name, pos, end) }
      return r
    }
    // The parser guarantees a literal follows; try each place it occurs, shortest capture first.
    let next = parts[index + 1]
    guard next.name < 0 else { return .noMatch }
    var e = pos + 1
    let first = next.literal[0]
    while e + next.literal.count <= end {
      if (caseless ? asciiLowercased(buf[e]) : buf[e]) == first && equals(buf, e, next.literal) {
        let r = constraintResult(part, buf, pos, count: e - pos)
        if r == .limitExceeded { return r }
        if r == .match {
          let mark = stack.count
          stack.push(part.name, pos, e)
          // The literal that follows is known to be at `e`: go on after it.
          let rest = matchParts(index + 2, buf, e + next.literal.count, end, &stack)
          if rest != .noMatch { return rest }
          stack.count = mark
        }
      }
      e += 1
    }
    return .noMatch
  }
}
