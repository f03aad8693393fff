// Normalization Form C (UAX #15) of code points, from the generated tables: full canonical decomposition
// (Hangul syllables computed), canonical ordering, canonical composition. Linear in the input: a run of
// combining marks is ordered by a sort of (class, position) keys, never by repeated swaps.

extension UCD {
  // Hangul syllables (Unicode chapter 3.12).
  static let hangulS: UInt32 = 0xAC00
  static let hangulL: UInt32 = 0x1100
  static let hangulV: UInt32 = 0x1161
  static let hangulT: UInt32 = 0x11A7
  static let hangulVCount: UInt32 = 21
  static let hangulTCount: UInt32 = 28
  static let hangulNCount: UInt32 = 21 * 28
  static let hangulSCount: UInt32 = 19 * 21 * 28

  /// Whether any code point of `s` may change under NFC.
  static func mayChangeUnderNFC<S: Sequence<UInt32>>(_ s: S) -> Bool {
    for cp in s where mayChangeUnderNFC(cp) { return true }
    return false
  }

  /// The NFC form of `s`.
  static func nfc<C: Collection<UInt32>>(_ s: C) -> [UInt32] {
    var d: [UInt32] = []
    d.reserveCapacity(s.count &+ 8)
    for cp in s { decompose(cp, into: &d) }
    reorder(&d)
    compose(&d)
    return d
  }

  /// Appends the full canonical decomposition of `cp`.
  static func decompose(_ cp: UInt32, into out: inout [UInt32]) {
    if cp < firstDecomposable {
      out.append(cp)
      return
    }
    let s = cp &- hangulS
    if s < hangulSCount {
      out.append(hangulL &+ s / hangulNCount)
      out.append(hangulV &+ (s % hangulNCount) / hangulTCount)
      let t = s % hangulTCount
      if t != 0 { out.append(hangulT &+ t) }
      return
    }
    let found: Int? = decompositionKeys.withUnsafeBufferPointer { keys in
      let i = lastIndex(atMost: cp, in: keys)
      return keys[i] == cp ? i : nil
    }
    guard let i = found else {
      out.append(cp)
      return
    }
    let v = decompositionValues[i]
    let offset = Int(truncatingIfNeeded: v &>> 5)
    out.append(contentsOf: decompositionScalars[offset..<offset &+ Int(truncatingIfNeeded: v & 31)])
  }

  /// Canonical ordering: each run of code points with a nonzero combining class, stably sorted by class.
  static func reorder(_ s: inout [UInt32]) {
    var i = 0
    let n = s.count
    while i < n {
      guard combiningClass(s[i]) != 0 else {
        i &+= 1
        continue
      }
      var end = i &+ 1
      while end < n && combiningClass(s[end]) != 0 { end &+= 1 }
      if end &- i > 1 {
        // A run shorter than 2^19 sorts keys `class << 40 | position << 21 | code point` (the position keeps
        // the sort stable); a longer one sorts positions by (class, position).
        if end &- i < 1 << 19 {
          var keys = (i..<end).map { k in
            UInt64(combiningClass(s[k])) &<< 40 | UInt64(k &- i) &<< 21 | UInt64(s[k])
          }
          keys.sort()
          for (k, key) in keys.enumerated() { s[i &+ k] = UInt32(truncatingIfNeeded: key & 0x1F_FFFF) }
        } else {
          var order = Array(i..<end)
          let classes = order.map { combiningClass(s[$0]) }
          order.sort { a, b in
            let ca = classes[a &- i]
            let cb = classes[b &- i]
            return ca != cb ? ca < cb : a < b
          }
          let run = order.map { s[$0] }
          for (k, cp) in run.enumerated() { s[i &+ k] = cp }
        }
      }
      i = end
    }
  }

  /// The primary composite of `first` and `second`, if there is one.
  static func composite(_ first: UInt32, _ second: UInt32) -> UInt32? {
    // Hangul: L + V, then LV + T.
    let l = first &- hangulL
    let v = second &- hangulV
    if l < 19 && v < hangulVCount {
      return hangulS &+ (l &* hangulVCount &+ v) &* hangulTCount
    }
    let s = first &- hangulS
    let t = second &- hangulT
    if s < hangulSCount && s % hangulTCount == 0 && t > 0 && t < hangulTCount {
      return first &+ t
    }
    if second < firstCompositionSecond { return nil }
    let key = UInt64(first) &<< 21 | UInt64(second)
    return compositionKeys.withUnsafeBufferPointer { keys -> UInt32? in
      var lo = 0
      var hi = keys.count
      while lo < hi {
        let mid = (lo &+ hi) &>> 1
        if keys[mid] < key { lo = mid &+ 1 } else { hi = mid }
      }
      return lo < keys.count && keys[lo] == key ? compositionValues[lo] : nil
    }
  }

  /// Canonical composition of a decomposed, ordered string, in place.
  static func compose(_ s: inout [UInt32]) {
    let n = s.count
    guard n > 1 else { return }
    var starter = 0
    var lastClass: Int = combiningClass(s[0]) == 0 ? 0 : 256  // 256: no starter yet, nothing composes
    var written = 1
    var k = 1
    while k < n {
      let cp = s[k]
      let cls = Int(combiningClass(cp))
      if lastClass < cls || lastClass == 0, let c = composite(s[starter], cp) {
        s[starter] = c
        k &+= 1
        continue
      }
      if cls == 0 { starter = written }
      lastClass = cls
      s[written] = cp
      written &+= 1
      k &+= 1
    }
    s.removeLast(n &- written)
  }
}
