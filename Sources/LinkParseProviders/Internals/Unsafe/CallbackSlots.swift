// The slots a callback scan fills, written in place: `CallbackFields.Scan` keeps one `Slot` per `Key` in a
// fixed-size tuple (no allocation), and the scan writes them through its address as one array.
//
// Safe because: a homogeneous tuple is laid out as an array of its element; the pointer lives only inside
// `withSlots`'s closure, while the scan is exclusively accessed; every index is a `Key`'s raw value, which
// is below the tuple's count (`Key.allCases.count`, checked by `CallbackNameLookupTests`).
import LinkParseBytes

extension CallbackFields.Scan {
  /// Calls `body` with these slots as a table it can write.
  @inline(__always)
  mutating func withSlots<R>(_ body: (CallbackFields.SlotTable) -> R) -> R {
    withUnsafeMutableBytes(of: &slots) { raw in
      body(CallbackFields.SlotTable(base: raw.baseAddress!.assumingMemoryBound(to: CallbackFields.Slot.self)))
    }
  }
}

extension CallbackFields {
  /// A scan's slots, by key, while ``Scan/withSlots(_:)`` lends them.
  struct SlotTable {
    fileprivate let base: UnsafeMutablePointer<Slot>

    /// Calls `body` with the slot of `key`, in place.
    @inline(__always)
    func update<R>(_ key: Key, _ body: (inout Slot) -> R) -> R { body(&base[key.rawValue]) }
  }
}
