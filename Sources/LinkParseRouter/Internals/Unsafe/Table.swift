// Flat tables of plain values that the compiled router's search reads without touching a reference count:
// `Table` is a typed base address, `Arena` owns the memory of every table made through it.
//
// Safe because: a table is only made by `Arena.table`, which allocates `max(count, 1)` elements and
// initializes the first `count`; the arena frees them in its `deinit`, and every owner of a table (the
// compiled router, a component pattern) keeps the arena as long as it keeps the table. Readers index within
// the runs and counts the tables were built with (`TrieTables.Run`, `LinearRoutes.count`, `StaticRoutes.mask`);
// elements are trivial values, so nothing needs deinitializing.

import LinkParseCore
import LinkParseBytes

/// A table of `Element`s in memory owned by an `Arena`. Reads project straight into the memory (only the field
/// read is loaded); writes are for building (StaticRoutes' open addressing), before any search.
struct Table<Element>: @unchecked Sendable {
  // @unchecked: written while its owner is built, only read afterwards, from any thread.
  private let base: UnsafeMutablePointer<Element>

  fileprivate init(_ base: UnsafeMutablePointer<Element>) { self.base = base }

  @inline(__always)
  subscript(_ i: Int) -> Element {
    unsafeAddress { UnsafePointer(base + i) }
    nonmutating unsafeMutableAddress { base + i }
  }

  @inline(__always)
  subscript(_ i: Int32) -> Element {
    unsafeAddress { UnsafePointer(base + Int(i)) }
    nonmutating unsafeMutableAddress { base + Int(i) }
  }

  /// The `count` elements from `start`, as a buffer (component literals and parts).
  func buffer(from start: Int = 0, count: Int) -> UnsafeBufferPointer<Element> {
    UnsafeBufferPointer(start: base + start, count: count)
  }
}

extension Table where Element == UInt8 {
  /// Whether `bytes[0..<count]` equals the `count` bytes of this table from `start` (`Words.equal`: reads
  /// nothing outside either range).
  @inline(__always)
  func equals(_ bytes: Bytes, count: Int, at start: Int) -> Bool {
    Words.equal(bytes.start, UnsafePointer(base + start), count)
  }
}

/// The owner of the tables made through it: frees them all when it goes.
final class Arena: @unchecked Sendable {
  // @unchecked: tables are added while the owner is built (one thread), never afterwards.
  private var blocks: [UnsafeMutableRawPointer] = []

  init() {}

  /// A table holding a copy of `items` (at least one element allocated, so the base is never dangling).
  func table<T>(_ items: [T]) -> Table<T> {
    let p = UnsafeMutablePointer<T>.allocate(capacity: max(items.count, 1))
    p.initialize(from: items, count: items.count)
    blocks.append(UnsafeMutableRawPointer(p))
    return Table(p)
  }

  /// A table of `count` copies of `value`.
  func table<T>(repeating value: T, count: Int) -> Table<T> {
    let p = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
    p.initialize(repeating: value, count: count)
    blocks.append(UnsafeMutableRawPointer(p))
    return Table(p)
  }

  deinit {
    // Trivial elements: nothing to deinitialize.
    for block in blocks { block.deallocate() }
  }
}
