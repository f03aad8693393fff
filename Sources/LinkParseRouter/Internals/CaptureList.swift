// The captures a `RouteMatch` keeps: byte ranges of the URL's href, in place for the first few, so that a
// match allocates nothing. Their names are the matched route's, in pattern order (`RouteProgram.captureNames`):
// every capture of a pattern captures on every match.

/// A capture's UTF-8 range in the URL's href.
struct CaptureRange: Sendable {
  var start: Int32
  var end: Int32

  static let none = CaptureRange(start: 0, end: 0)

  init(start: Int32, end: Int32) {
    self.start = start
    self.end = end
  }

  init(_ slot: CaptureSlot) {
    self.init(start: slot.start, end: slot.end)
  }
}

/// The captures of a match: up to `inlineCapacity` ranges stored in place (`InlineCaptureRanges`), all of
/// them in an array beyond that.
struct CaptureList: Sendable {
  /// How many captures fit in place (six, 48 bytes). Deep-link and callback patterns have one to four.
  static let inlineCapacity = InlineCaptureRanges.capacity

  /// The number of captures.
  private(set) var count = 0
  private var inline = InlineCaptureRanges()
  /// Every capture, when there are more than `inlineCapacity`.
  private var overflow: [CaptureRange]?

  /// No captures.
  init() {}

  /// Sets the captures to the ranges of `slots[0..<count]`. Writes the fields in place: no copy of the
  /// whole value, and no allocation up to `inlineCapacity` captures.
  mutating func assign(_ slots: UnsafePointer<CaptureSlot>, count: Int) {
    self.count = count
    if count > Self.inlineCapacity {
      overflow = (0..<count).map { CaptureRange(slots[$0]) }
      return
    }
    inline.assign(slots, count: count)
  }

  /// The capture at `index` (`0..<count`).
  subscript(index: Int) -> CaptureRange {
    precondition(index >= 0 && index < count, "capture index out of range")
    if let overflow { return overflow[index] }
    return inline[index]
  }
}
