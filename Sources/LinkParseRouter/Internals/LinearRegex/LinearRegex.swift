// The linear-time constraint matcher: RE2's idea for the router's anchored, whole-capture constraints.
//
// A constraint is parsed (RegexSyntax.swift), compiled into a Thompson NFA (RegexProgram.swift) and then, once
// per route table, into a DFA by subset construction over byte equivalence classes (bytes no byte set tells
// apart share a column). A match is one table read per byte. Where the DFA would pass its budget of states,
// matching simulates the NFA instead, state set by state set. Either way the cost is O(instructions × input)
// at worst, whatever the pattern: `(a+)+$` on 100,000 `a`s and a `!` is a 100,001-step walk.
//
// The DFA's states are the NFA's state sets made inside the input (no anchor holds there; `$` waits in the set),
// so two inputs take the NFA's path instead: the empty one (the start is also the end) and one that ends in an
// LF when the pattern has `$` or `\Z` (the anchor may hold before that LF). Captures are never empty, and URLs
// hold no raw LF, so a router only meets them through direct calls.
//
// Safe because: the tables are allocated once in `init`, written there, freed in `deinit` and only read
// between; a transition holds a row offset `state * classCount` of a state that exists (`0` is the dead state's
// row), and a column is `classOf[b]` < `classCount`, so every read is inside `transitions`.

/// A compiled constraint that matches whole inputs in linear time.
final class LinearRegex: @unchecked Sendable {
  /// DFA states at most; a constraint with more runs on the NFA.
  static let maxStates = 1_024
  /// The subset construction's work budget: state-set members stepped plus instructions visited by closures.
  static let maxConstructionWork = 2_000_000

  let program: RegexProgram
  /// Byte → equivalence class (256 entries).
  private let classOf: UnsafeMutablePointer<UInt8>
  private let classCount: Int
  /// `state * classCount + class` → the next state's row offset (`0`: dead); nil when the DFA was not built.
  private let transitions: UnsafeMutablePointer<Int32>?
  /// Per state: whether the input may end there.
  private let accepting: UnsafeMutablePointer<Bool>?
  private let startRow: Int32
  /// How many DFA states were built (0: none, the NFA runs).
  let stateCount: Int

  /// Compiles `source`, caseless when asked (ASCII letters).
  init(_ source: String, caseless: Bool) throws(RegexSyntaxError) {
    let tree = try RegexParser.parse(source, caseless: caseless)
    program = try RegexProgram(tree)

    // Byte equivalence classes: refine the partition of 0...255 by each byte set.
    var classOf = [UInt16](repeating: 0, count: 256)
    var count = 1
    for set in program.classes {
      var remap: [Int: UInt16] = [:]
      var newCount = 0
      for b in 0..<256 {
        let key = Int(classOf[b]) << 1 | (set.contains(UInt8(b)) ? 1 : 0)
        if let c = remap[key] {
          classOf[b] = c
        } else {
          remap[key] = UInt16(newCount)
          classOf[b] = UInt16(newCount)
          newCount += 1
        }
      }
      count = newCount
    }
    classCount = count
    self.classOf = .allocate(capacity: 256)
    for b in 0..<256 { self.classOf[b] = UInt8(classOf[b]) }
    var representative = [UInt8](repeating: 0, count: count)
    for b in (0..<256).reversed() { representative[Int(classOf[b])] = UInt8(b) }

    // Subset construction, abandoned past the budget.
    var builder = StateSetBuilder(program)
    var sets: [[Int32]] = [[]]
    var index: [[Int32]: Int32] = [[]: 0]
    let start = builder.closure(CollectionOfOne(0), AnchorContext(atStart: true, atEnd: false, beforeFinalNewline: false))
    var rows: [Int32] = Array(repeating: 0, count: count)
    var work = 0
    var built = true
    func state(_ set: [Int32]) -> Int32? {
      if let known = index[set] { return known }
      guard sets.count < Self.maxStates else { return nil }
      let id = Int32(sets.count)
      sets.append(set)
      index[set] = id
      rows += repeatElement(0, count: count)
      return id
    }
    let startID = state(start)!
    var k = 1
    construction: while k < sets.count {
      let set = sets[k]
      for c in 0..<count {
        work += set.count + 1
        guard work + builder.visited <= Self.maxConstructionWork else { built = false; break construction }
        let moved = builder.step(set, representative[c], classes: program.classes)
        let target = moved.isEmpty ? [] : builder.closure(moved, .middle)
        guard let t = state(target) else { built = false; break construction }
        rows[k * count + c] = t * Int32(count)
      }
      k += 1
    }
    if built {
      let table = UnsafeMutablePointer<Int32>.allocate(capacity: rows.count)
      table.initialize(from: rows, count: rows.count)
      let accept = UnsafeMutablePointer<Bool>.allocate(capacity: sets.count)
      for (s, set) in sets.enumerated() { (accept + s).initialize(to: s != 0 && builder.acceptsAtEnd(set)) }
      transitions = table
      accepting = accept
      stateCount = sets.count
    } else {
      transitions = nil
      accepting = nil
      stateCount = 0
    }
    startRow = startID * Int32(count)
  }

  deinit {
    classOf.deallocate()
    transitions?.deallocate()
    accepting?.deallocate()
  }

  /// Whether the `count` bytes at `start` match the whole constraint.
  func matches(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
    guard let transitions, let accepting, count > 0,
      !(program.hasFinalNewlineAnchor && start[count - 1] == 0x0A)
    else {
      return simulate(start, count: count)
    }
    var row = Int(startRow)
    var p = start
    let end = start + count
    while p < end {
      row = Int(transitions[row &+ Int(classOf[Int(p.pointee)])])
      if row == 0 { return false }
      p += 1
    }
    return accepting[row / classCount]
  }

  /// The NFA, one state set per position: O(instructions × count).
  func simulate(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
    var builder = StateSetBuilder(program)
    func context(_ p: Int) -> AnchorContext {
      AnchorContext(atStart: p == 0, atEnd: p == count, beforeFinalNewline: p == count - 1 && start[p] == 0x0A)
    }
    var set = builder.closure(CollectionOfOne(0), context(0))
    for p in 0..<count {
      let moved = builder.step(set, start[p], classes: program.classes)
      if moved.isEmpty { return false }
      set = builder.closure(moved, context(p + 1))
    }
    return builder.hasMatch(set)
  }
}
