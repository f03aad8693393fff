// An integer's decimal digits, formatted into a scratch area on the stack.
//
// Safe because: the scratch is 24 bytes and the longest text is 20 (`Int.min`: a sign and 19 digits);
// every store is at `index` after `index` moved down by the bytes stored, from 24, so `4 <= index < 24`;
// the buffer handed to `body` is `scratch[index..<24]` and does not outlive the call.

/// Formats integers in decimal without allocating.
enum DecimalDigits {
  /// Calls `body` with the ASCII decimal text of `value` (a `-` first when negative).
  @inline(__always)
  static func with<R>(_ value: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
    return withUnsafeMutableBytes(of: &digits) { scratch in
      var index = scratch.count
      // Two digits per division (a line number has five or six).
      while magnitude >= 100 {
        let (rest, pair) = magnitude.quotientAndRemainder(dividingBy: 100)
        index &-= 2
        scratch[index] = UInt8(truncatingIfNeeded: pair / 10) &+ 0x30
        scratch[index &+ 1] = UInt8(truncatingIfNeeded: pair % 10) &+ 0x30
        magnitude = rest
      }
      if magnitude >= 10 {
        index &-= 2
        scratch[index] = UInt8(truncatingIfNeeded: magnitude / 10) &+ 0x30
        scratch[index &+ 1] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
      } else {
        index &-= 1
        scratch[index] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30
      }
      if value < 0 {
        index &-= 1
        scratch[index] = 0x2D
      }
      let length = scratch.count &- index
      return body(UnsafeBufferPointer(
        start: scratch.baseAddress!.advanced(by: index).assumingMemoryBound(to: UInt8.self), count: length))
    }
  }
}
