// The capture stack's storage: slots on the machine stack for the length of a match, the counters a search
// may report into, and the query parameters it may read.
//
// Safe because: `withCaptureSlots` hands out `capacity` slots that live for its body only, and the stacks made
// from them are used within it (`CaptureStack` is not escaped: the search and the matchers run inside the
// body); `push` checks the capacity; `best` holds `capacity` slots, and a route writes at most its
// captures plus its rest (`maxCaptures + 1`). `SearchCounters` writes only the caller's statistics, which
// outlive the search; `QueryView` reads parameters that `withQuery` holds for its body.

import LinkParseCore

/// The captures of the branch being explored. Backed by caller-provided memory (stack-allocated by
/// `withCaptureSlots`), so matching allocates nothing.
struct CaptureStack {
  let base: UnsafeMutablePointer<CaptureSlot>
  let capacity: Int
  var count = 0

  init(_ buffer: UnsafeMutableBufferPointer<CaptureSlot>) {
    base = buffer.baseAddress!
    capacity = buffer.count
  }

  @inline(__always)
  mutating func push(_ name: Int32, _ start: Int, _ end: Int) {
    // Capacity is the largest capture count of any route; a branch never holds more than its route's.
    precondition(count < capacity, "capture stack overflow")
    base[count] = CaptureSlot(name: name, start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end))
    count += 1
  }
}

/// Runs `body` with a stack of `capacity` capture slots, in stack memory.
@inline(__always)
func withCaptureSlots<R>(capacity: Int, _ body: (inout CaptureStack) throws -> R) rethrows -> R {
  try withUnsafeTemporaryAllocation(of: CaptureSlot.self, capacity: capacity) { slots in
    var stack = CaptureStack(slots)
    return try body(&stack)
  }
}

/// Runs `body` with a capture stack of `capacity` slots and, after it, `capacity` slots for the best route's
/// captures, in stack memory.
@inline(__always)
func withCaptureSlots<R>(
  capacity: Int, _ body: (CaptureStack, UnsafeMutablePointer<CaptureSlot>) -> R
) -> R {
  withUnsafeTemporaryAllocation(of: CaptureSlot.self, capacity: 2 * capacity) { slots in
    body(CaptureStack(UnsafeMutableBufferPointer(rebasing: slots[0..<capacity])), slots.baseAddress! + capacity)
  }
}

/// The statistics a search reports into, when the caller asked for them.
struct SearchCounters {
  let target: UnsafeMutablePointer<CompiledRouter.SearchStatistics>?

  @inline(__always)
  func nodeVisited() { target?.pointee.nodesVisited += 1 }

  @inline(__always)
  func componentTried() { target?.pointee.componentsTried += 1 }

  /// Back to zero, for a search that starts again.
  @inline(__always)
  func reset() { target?.pointee = CompiledRouter.SearchStatistics() }
}

/// The URL's query parameters, held by the caller for the length of a search (`withQuery`).
struct QueryView {
  let parameters: UnsafePointer<FormParameters>

  /// Whether every one of `names` is present.
  @inline(__always)
  func containsAll(_ names: [String]) -> Bool {
    names.allSatisfy { parameters.pointee.contains(named: $0) }
  }
}

/// Runs `body` with a view of `parameters` (no copy, no reference count while the search reads it).
@inline(__always)
func withQuery<R, E: Error>(_ parameters: FormParameters, _ body: (QueryView) throws(E) -> R) throws(E) -> R {
  try withUnsafePointer(to: parameters) { (p) throws(E) -> R in try body(QueryView(parameters: p)) }
}
