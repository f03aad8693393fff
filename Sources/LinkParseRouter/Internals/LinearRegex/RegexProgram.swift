// A parsed constraint compiled into a Thompson NFA (Russ Cox, "Regular Expression Matching Can Be Simple And
// Fast"), and the state sets that simulate it: the NFA runs in O(instructions × input), and its subsets become
// the linear matcher's DFA states (LinearRegex.swift).
//
// The program's size is known before it is written (`size(of:)`, saturating), so `(a{1000}){1000}` is refused
// without building a million instructions.

/// A Thompson NFA over bytes.
struct RegexProgram: Sendable {
  /// Instructions at most: a constraint beyond it is refused (`unsupported-regex`).
  static let maxInstructions = 10_000

  enum Op: UInt8, Sendable {
    /// Consume one byte of `classes[y]`, go to `x`.
    case byte
    /// Go to `x` and to `y`.
    case split
    /// Go to `x`.
    case jump
    /// Go to `x` at the start of the input.
    case start
    /// Go to `x` at the end of the input (`\z`).
    case end
    /// Go to `x` at the end of the input or before an LF that ends it (`$`, `\Z`).
    case endOrFinalNewline
    /// The whole input matched (when reached at its end).
    case match
  }

  struct Instruction: Sendable {
    var op: Op
    var x: Int32
    var y: Int32
  }

  private(set) var instructions: [Instruction] = []
  /// The byte sets `byte` instructions consume, each once.
  private(set) var classes: [ByteClass] = []
  private var classIndex: [ByteClass: Int32] = [:]
  /// Whether the program has a `$` or `\Z` (so an input ending in LF takes the NFA's path).
  private(set) var hasFinalNewlineAnchor = false

  /// Compiles `node`, or throws `unsupported` when the program would exceed ``maxInstructions``.
  init(_ node: RegexNode) throws(RegexSyntaxError) {
    let size = Self.size(of: node)
    guard size < Self.maxInstructions else {
      throw RegexSyntaxError(
        kind: .unsupported, offset: 0,
        message: "the constraint needs more than \(Self.maxInstructions) NFA states (large counted repetitions); "
          + "use + or * or smaller counts")
    }
    instructions.reserveCapacity(size + 1)
    emit(node)
    append(.match)
  }

  /// The instruction count of `node`'s code, saturated at `maxInstructions`.
  static func size(of node: RegexNode) -> Int {
    let cap = maxInstructions
    switch node {
    case .empty: return 0
    case .byte, .start, .end: return 1
    case .concatenation(let items):
      return items.reduce(0) { min($0 + size(of: $1), cap) }
    case .alternation(let branches):
      return branches.reduce(2 * (branches.count - 1)) { min($0 + size(of: $1), cap) }
    case .repetition(let body, let lo, let hi):
      let s = size(of: body)
      // Counts are at most RegexParser.maxRepetition and s at most cap: no product overflows.
      guard let hi else { return min(lo == 0 ? s + 2 : lo * s + 1, cap) }
      return min(lo * s + (hi - lo) * (s + 1), cap)
    }
  }

  private mutating func append(_ op: Op, _ x: Int, _ y: Int = 0) {
    instructions.append(Instruction(op: op, x: Int32(x), y: Int32(y)))
  }

  private mutating func append(_ op: Op) { append(op, 0) }

  private var next: Int { instructions.count }

  private mutating func emit(_ node: RegexNode) {
    switch node {
    case .empty:
      break
    case .byte(let set):
      let index: Int32
      if let known = classIndex[set] {
        index = known
      } else {
        index = Int32(classes.count)
        classes.append(set)
        classIndex[set] = index
      }
      append(.byte, next + 1, Int(index))
    case .start:
      append(.start, next + 1)
    case .end(let beforeFinalNewline):
      if beforeFinalNewline { hasFinalNewlineAnchor = true }
      append(beforeFinalNewline ? .endOrFinalNewline : .end, next + 1)
    case .concatenation(let items):
      for item in items { emit(item) }
    case .alternation(let branches):
      // split L1, L2; L1: a; jump end; L2: split …; last branch.
      var jumps: [Int] = []
      for (k, branch) in branches.enumerated() {
        if k == branches.count - 1 {
          emit(branch)
        } else {
          let split = next
          append(.split, split + 1)
          emit(branch)
          jumps.append(next)
          append(.jump, 0)
          instructions[split].y = Int32(next)
        }
      }
      for j in jumps { instructions[j].x = Int32(next) }
    case .repetition(let body, let lo, let hi):
      if hi == nil && lo > 0 {
        // lo - 1 copies, then the last copy looping back to itself.
        for _ in 0..<(lo - 1) { emit(body) }
        let loop = next
        emit(body)
        append(.split, loop, next + 1)
      } else {
        for _ in 0..<lo { emit(body) }
        if let hi {
          // Each optional copy: split over it.
          for _ in lo..<hi {
            let split = next
            append(.split, split + 1)
            emit(body)
            instructions[split].y = Int32(next)
          }
        } else {
          // x*: L: split body, out; body; jump L.
          let split = next
          append(.split, split + 1)
          emit(body)
          append(.jump, split)
          instructions[split].y = Int32(next)
        }
      }
    }
  }
}

/// Where in the input a state set is: which anchors hold there.
struct AnchorContext {
  var atStart: Bool
  var atEnd: Bool
  /// At the last byte, which is an LF.
  var beforeFinalNewline: Bool

  /// Inside the input: neither at its start nor at its end. `end` instructions stay in the set, pending.
  static let middle = AnchorContext(atStart: false, atEnd: false, beforeFinalNewline: false)
}

/// Builds state sets of a program: the instructions reachable without consuming a byte.
struct StateSetBuilder {
  let program: [RegexProgram.Instruction]
  private var mark: [UInt32]
  private var generation: UInt32 = 0
  private var stack: [Int32] = []
  /// Instructions visited by every closure so far: the cost of building, which the DFA's budget bounds.
  private(set) var visited = 0

  init(_ program: RegexProgram) {
    self.program = program.instructions
    mark = Array(repeating: 0, count: program.instructions.count)
  }

  /// The closure of `roots` in `context`: the `byte` and `match` instructions reached, and the end anchors
  /// that do not hold in `context` (kept so that a later context at the end can follow them). Sorted.
  mutating func closure(_ roots: some Sequence<Int32>, _ context: AnchorContext) -> [Int32] {
    generation &+= 1
    if generation == 0 {
      for k in mark.indices { mark[k] = 0 }
      generation = 1
    }
    var result: [Int32] = []
    stack.removeAll(keepingCapacity: true)
    for r in roots { stack.append(r) }
    while let pc = stack.popLast() {
      let i = Int(pc)
      guard mark[i] != generation else { continue }
      mark[i] = generation
      visited &+= 1
      let inst = program[i]
      switch inst.op {
      case .byte, .match:
        result.append(pc)
      case .split:
        stack.append(inst.y)
        stack.append(inst.x)
      case .jump:
        stack.append(inst.x)
      case .start:
        if context.atStart { stack.append(inst.x) }
      case .end:
        if context.atEnd { stack.append(inst.x) } else { result.append(pc) }
      case .endOrFinalNewline:
        if context.atEnd || context.beforeFinalNewline { stack.append(inst.x) } else { result.append(pc) }
      }
    }
    result.sort()
    return result
  }

  /// The instructions that `set` moves to on byte `b`.
  func step(_ set: [Int32], _ b: UInt8, classes: [ByteClass]) -> [Int32] {
    var next: [Int32] = []
    for pc in set {
      let inst = program[Int(pc)]
      if inst.op == .byte && classes[Int(inst.y)].contains(b) { next.append(inst.x) }
    }
    return next
  }

  /// Whether `set` (a closure) holds `match`.
  func hasMatch(_ set: [Int32]) -> Bool {
    set.contains { program[Int($0)].op == .match }
  }

  /// Whether `set` (a closure made inside the input) matches when the input ends here.
  mutating func acceptsAtEnd(_ set: [Int32]) -> Bool {
    hasMatch(closure(set, AnchorContext(atStart: false, atEnd: true, beforeFinalNewline: false)))
  }
}
