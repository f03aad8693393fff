// Looking a parameter name up in the generated name table (`CallbackNameTable.swift`).
//
// Safe because: `n` is checked to be 3...30 first; the name's words are read at offsets `0`, `n - 8`, `8` and
// `n - 16` only when `n` is at least 8 (16 for the last two), at `0` and `n - 4` only when it is at least 4,
// and two bytes plus one otherwise — never outside `name`; the entry is one of the table's 64, and its 30
// name bytes cover the same offsets.

import LinkParseCore
import LinkParseBytes

extension CallbackFields {
  /// The key whose name is exactly `name`: one slot of the generated ``nameTable`` (by ``nameSlot(_:_:)``), then
  /// the bytes compared as words — the first and last (overlapping, never outside the name), and for names
  /// longer than sixteen bytes the two in between. No indirect branch: a `switch` on the length compiled to a
  /// jump table that names of random lengths kept mispredicting.
  @inline(__always)
  static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
    let n = name.count
    guard n >= 3 && n <= 30, let p = name.baseAddress else { return nil }
    let entry = nameTable.utf8Start + nameSlot(p, n) &* 32
    guard Int(entry[0]) == n else { return nil }
    let q = entry + 2
    if n >= 8 {
      guard Words.load64(p) == Words.load64(q), Words.load64(p + (n &- 8)) == Words.load64(q + (n &- 8)) else {
        return nil
      }
      if n > 16 {
        guard Words.load64(p + 8) == Words.load64(q + 8), Words.load64(p + (n &- 16)) == Words.load64(q + (n &- 16))
        else { return nil }
      }
    } else if n >= 4 {
      guard Words.load32(p) == Words.load32(q), Words.load32(p + (n &- 4)) == Words.load32(q + (n &- 4)) else {
        return nil
      }
    } else {
      guard Words.load16(p) == Words.load16(q), p[2] == q[2] else { return nil }
    }
    // A case's tag is its declaration index, which is its raw value (`Key(rawValue:)` was a call).
    return unsafeBitCast(entry[1], to: Key.self)
  }
}
