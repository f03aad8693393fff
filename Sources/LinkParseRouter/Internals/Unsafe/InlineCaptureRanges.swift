// The in-place storage of `CaptureList`: six capture ranges in a tuple, read and written by index.
//
// Safe because: the tuple is six `CaptureRange`s (plain, homogeneous, laid out contiguously at their stride),
// and every index is checked against `count` by `CaptureList` (`0..<count`, `count <= 6`) before it gets here.

/// Six capture ranges in place, by index (`0..<6`).
///
/// A tuple rather than an `InlineArray`: a struct holding an `InlineArray` is copied and destroyed through
/// runtime value witnesses (generic calls and a `memcpy`), a tuple inline.
struct InlineCaptureRanges: Sendable {
  static let capacity = 6

  private var ranges: (CaptureRange, CaptureRange, CaptureRange, CaptureRange, CaptureRange, CaptureRange) =
    (.none, .none, .none, .none, .none, .none)

  init() {}

  /// Sets ranges `0..<count` to those of `slots[0..<count]`, in place.
  @inline(__always)
  mutating func assign(_ slots: UnsafePointer<CaptureSlot>, count: Int) {
    withUnsafeMutableBytes(of: &ranges) { bytes in
      let ranges = bytes.bindMemory(to: CaptureRange.self)
      for k in 0..<count { ranges[k] = CaptureRange(slots[k]) }
    }
  }

  @inline(__always)
  subscript(_ index: Int) -> CaptureRange {
    withUnsafeBytes(of: ranges) {
      $0.load(fromByteOffset: index * MemoryLayout<CaptureRange>.stride, as: CaptureRange.self)
    }
  }
}
