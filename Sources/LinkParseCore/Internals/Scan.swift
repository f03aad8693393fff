// Wide scans: find the first byte that needs attention, sixteen bytes at a time.
//
// Most of a callback URL is its path and query, and most of their bytes need nothing done to them. These
// scans compare sixteen bytes at once (`SIMD16<UInt8>`, which LLVM lowers to SSE2 compares and a mask
// test), and fall back to one byte at a time only for the last sixteen bytes of a range and to locate a
// hit within its block. Each returns the index of the first byte of `start..<end` that is in its set, or
// `end`.
//
// Every set contains the C0 controls, space, DEL and all non-ASCII bytes: a byte b is outside the visible
// ASCII range 0x21...0x7E exactly when (b - 0x21) mod 256 >= 0x5E.
//
// Safety: callers pass `base` valid for `0..<end`; every load reads 16 bytes at `i` with `i + 16 <= end`
// (`tabOrNewline` also reads the sixteen bytes ending at `end`, only when `end - start >= 16`).

@inline(__always)
private func load16(_ base: UnsafePointer<UInt8>, _ i: Int) -> SIMD16<UInt8> {
  UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
}

// `any(_:)` and `.|` on `SIMDMask` go through generic lane-by-lane code in this toolchain (a profile showed
// them three times slower than a byte loop), while the element-wise compares lower to single instructions.
// So each comparison's mask is reinterpreted as two UInt64 words, combined with integer OR, and tested.
@inline(__always)
private func words(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD2<UInt64> { unsafeBitCast(m, to: SIMD2<UInt64>.self) }

@inline(__always)
private func eq(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD2<UInt64> { words(v .== SIMD16(repeating: c)) }

@inline(__always)
private func isZero(_ w: SIMD2<UInt64>) -> Bool { w[0] | w[1] == 0 }

@inline(__always)
private func notVisibleASCII(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> {
  words((v &- SIMD16(repeating: 0x21)) .>= SIMD16(repeating: 0x5E))
}

@inline(__always)
private func notVisibleASCII(_ b: UInt8) -> Bool { b &- 0x21 >= 0x5E }

/// The index of the first lane whose mask byte is set, given that one is.
@inline(__always)
private func firstLane(_ w: SIMD2<UInt64>) -> Int {
  w[0] != 0 ? w[0].trailingZeroBitCount &>> 3 : 8 &+ (w[1].trailingZeroBitCount &>> 3)
}

package enum Scan {

  /// Stops at the query percent-encode set (which includes '#', the fragment's start) and, for special
  /// URLs, at '\''.
  @inline(__always)
  static func query(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, special: Bool) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> {
      let m = notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x23) | eq(v, 0x3C) | eq(v, 0x3E)
      return special ? m | eq(v, 0x27) : m
    }
    var i = start
    while i &+ 16 <= end {
      let m = block(load16(base, i))
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    let set: ByteSet = special ? .specialQuery : .query
    while i < end && !set.contains(base[i]) { i &+= 1 }
    return i
  }

  /// Stops at the fragment percent-encode set.
  @inline(__always)
  static func fragment(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> {
      notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x3C) | eq(v, 0x3E) | eq(v, 0x60)
    }
    var i = start
    while i &+ 16 <= end {
      let m = block(load16(base, i))
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    let set = ByteSet.fragment
    while i < end && !set.contains(base[i]) { i &+= 1 }
    return i
  }

  /// Stops at the path percent-encode set (which includes '?' and '#'), at '/', and for special URLs at '\'.
  /// `end` is the end of the input, not of the segment: the segment ends at one of these bytes anyway, so
  /// blocks of sixteen can run past it.
  @inline(__always)
  static func pathSegment(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, special: Bool) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> {
      var m = notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x23) | eq(v, 0x3C) | eq(v, 0x3E)
      m = m | eq(v, 0x3F) | eq(v, 0x5E) | eq(v, 0x60) | eq(v, 0x7B) | eq(v, 0x7D) | eq(v, 0x2F)
      return special ? m | eq(v, 0x5C) : m
    }
    var i = start
    while i &+ 16 <= end {
      let m = block(load16(base, i))
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    let set: ByteSet = special ? .specialPathSegmentEnd : .pathSegmentEnd
    while i < end && !set.contains(base[i]) { i &+= 1 }
    return i
  }

  /// Stops at an ASCII tab or newline (0x09, 0x0A, 0x0D). One compare per block ("below 0x0E", rare in a
  /// URL) and an exact look only at a block that has such a byte; the last partial block is read as the
  /// sixteen bytes ending at `end` (rereading bytes already known to be clean is harmless here).
  @inline(__always)
  static func tabOrNewline(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    @inline(__always) func exact(_ from: Int, _ to: Int) -> Int? {
      var k = from
      while k < to {
        let b = base[k]
        if b == 0x09 || b == 0x0A || b == 0x0D { return k }
        k &+= 1
      }
      return nil
    }
    var i = start
    while i &+ 16 <= end {
      if !isZero(words(load16(base, i) .< SIMD16(repeating: 0x0E))), let k = exact(i, i &+ 16) { return k }
      i &+= 16
    }
    if i < end {
      if end &- start >= 16 {
        if isZero(words(load16(base, end &- 16) .< SIMD16(repeating: 0x0E))) { return end }
      }
      return exact(i, end) ?? end
    }
    return end
  }

  /// The index of the first `a` or `b` in `start..<end`, or `end`.
  @inline(__always)
  static func firstOf(_ a: UInt8, _ b: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> { eq(v, a) | eq(v, b) }
    var i = start
    while i &+ 16 <= end {
      let m = block(load16(base, i))
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    while i < end && base[i] != a && base[i] != b { i &+= 1 }
    return i
  }

  /// The index of the first `a` in `start..<end`, or `end`.
  @inline(__always)
  static func first(_ a: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD2<UInt64> { eq(v, a) }
    var i = start
    while i &+ 16 <= end {
      let m = block(load16(base, i))
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    while i < end && base[i] != a { i &+= 1 }
    return i
  }

  /// Stops at the bytes a JSON string must escape: below 0x20, `"` and `\`. (Shared with the CLI's JSON
  /// writer, hence `package`.)
  @inline(__always)
  package static func jsonEscapable(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    var i = start
    while i &+ 16 <= end {
      let v = load16(base, i)
      let m = words(v .< SIMD16(repeating: 0x20)) | eq(v, 0x22) | eq(v, 0x5C)
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    while i < end {
      let b = base[i]
      if b < 0x20 || b == 0x22 || b == 0x5C { return i }
      i &+= 1
    }
    return i
  }
}
