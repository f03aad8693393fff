// Wide scans: find the first byte that needs attention, sixteen bytes at a time.
//
// Most of a callback URL is its path and query, and most of their bytes need nothing done to them. These
// scans compare sixteen bytes at once (`SIMD16<UInt8>`, which LLVM lowers to SSE2 compares and a mask
// test); the last partial block is read as the sixteen bytes that end the input, so a byte loop runs only
// for inputs shorter than sixteen bytes. Each returns the index of the first byte of `start..<end` that is
// in its set, or `end`.
//
// Every set contains the C0 controls, space, DEL and all non-ASCII bytes: a byte b is outside the visible
// ASCII range 0x21...0x7E exactly when (b - 0x21) mod 256 >= 0x5E.
//
// Safety: callers pass `base` valid for `0..<end` (the whole buffer, with absolute indices: the final block
// may start before `start`); every load reads 16 bytes at `i` with `0 <= i` and `i + 16 <= end`.

public import CByteScan  // public: the inlinable masks below call it from other modules

@inlinable @inline(__always)
package func load16(_ base: UnsafePointer<UInt8>, _ i: Int) -> SIMD16<UInt8> {
  UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
}

// `any(_:)` and `.|` on `SIMDMask` go through generic lane-by-lane code in this toolchain (a profile showed
// them three times slower than a byte loop), while the element-wise compares lower to single instructions.
// So each comparison's mask is reinterpreted as a byte vector (0x00 or 0xFF per lane) and combined with
// integer OR on `SIMD16<UInt8>` — one `por` each; LLVM even merges pairs of compares such as '"'/'#' into one
// masked compare. Combining them as `SIMD2<UInt64>` words instead made LLVM shuffle the halves at every
// step (twice the instructions per block). Only the combined mask is read as two words, to test and locate.
@inlinable @inline(__always)
package func lanes(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> { unsafeBitCast(m, to: SIMD16<UInt8>.self) }

@inlinable @inline(__always)
package func words(_ m: SIMD16<UInt8>) -> SIMD2<UInt64> { unsafeBitCast(m, to: SIMD2<UInt64>.self) }

@inlinable @inline(__always)
package func eq(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> { lanes(v .== SIMD16(repeating: c)) }

@inlinable @inline(__always)
package func isZero(_ m: SIMD16<UInt8>) -> Bool {
  let w = words(m)
  return w[0] | w[1] == 0
}

@inlinable @inline(__always)
package func notVisibleASCII(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
  lanes((v &- SIMD16(repeating: 0x21)) .>= SIMD16(repeating: 0x5E))
}

@inlinable @inline(__always)
package func notVisibleASCII(_ b: UInt8) -> Bool { b &- 0x21 >= 0x5E }

/// The index of the first lane whose mask byte is set, given that one is.
@inlinable @inline(__always)
package func firstLane(_ m: SIMD16<UInt8>) -> Int {
  let w = words(m)
  return w[0] != 0 ? w[0].trailingZeroBitCount &>> 3 : 8 &+ (w[1].trailingZeroBitCount &>> 3)
}

/// The high bit of each of the eight bytes of `w`, gathered into one byte (byte k's bit becomes bit k): the
/// multiplication moves bit 8k+7 to bit 56+k for every k at once, without carries between them.
@inlinable @inline(__always)
package func gatherHighBits(_ w: UInt64) -> UInt64 {
  ((w & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) &>> 56
}

/// A compare mask as sixteen bits, lane k at bit k (what SSE2's `pmovmskb` does, which Swift cannot name).
@inlinable @inline(__always)
package func bitmask(_ m: SIMD16<UInt8>) -> UInt32 {
  let w = words(m)
  return UInt32(truncatingIfNeeded: gatherHighBits(w[0]) | gatherHighBits(w[1]) &<< 8)
}

/// The index of the first byte of `start..<end` that `block` flags (it maps sixteen bytes to a mask of 0x00
/// or 0xFF lanes), or `end`. Blocks of sixteen from `start` (tested in pairs); then, when the input has
/// sixteen bytes, the sixteen ending at `end` with the lanes already scanned shifted out of the mask (no byte
/// loop for the tail, which is most of a short component); only inputs shorter than sixteen bytes use `byte`.
@inlinable @inline(__always)
func scan(
  _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ block: (SIMD16<UInt8>) -> SIMD16<UInt8>,
  _ byte: (UInt8) -> Bool
) -> Int {
  var i = start
  // Two blocks per test while they fit (one branch per 32 bytes on long runs such as a query), then one.
  while i &+ 32 <= end {
    let m0 = block(load16(base, i))
    let m1 = block(load16(base, i &+ 16))
    if !isZero(m0 | m1) { return isZero(m0) ? i &+ 16 &+ firstLane(m1) : i &+ firstLane(m0) }
    i &+= 32
  }
  if i &+ 16 <= end {
    let m = block(load16(base, i))
    if !isZero(m) { return i &+ firstLane(m) }
    i &+= 16
  }
  guard i < end else { return end }
  if end >= 16 {
    let last = end &- 16
    let bits = bitmask(block(load16(base, last))) &>> UInt32(i &- last)
    return bits == 0 ? end : i &+ bits.trailingZeroBitCount
  }
  while i < end && !byte(base[i]) { i &+= 1 }
  return i
}

/// The lanes of `v` in the path percent-encode set (which includes '?' and '#') and, for special URLs, at '\'.
@inlinable @inline(__always)
func pathEncoded(_ v: SIMD16<UInt8>, special: Bool) -> SIMD16<UInt8> {
  var m = notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x23) | eq(v, 0x3C) | eq(v, 0x3E)
  m = m | eq(v, 0x3F) | eq(v, 0x5E) | eq(v, 0x60) | eq(v, 0x7B) | eq(v, 0x7D)
  return special ? m | eq(v, 0x5C) : m
}

@usableFromInline package enum Scan {

  /// Stops at the query percent-encode set (which includes '#', the fragment's start) and, for special
  /// URLs, at '\''.
  @inlinable @inline(__always)
  package static func query(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, special: Bool) -> Int {
    #if arch(x86_64)
    // Thirty-two bytes a step where the CPU has AVX2 (chosen at run time: the package targets baseline
    // x86-64): the query is most of a callback URL.
    if linkparse_cpu_has_avx2() != 0 { return linkparse_query_end_avx2(base, start, end, special ? 1 : 0) }
    #endif
    let set: ByteSet = special ? .specialQuery : .query
    return scan(base, start, end, { v in
      let m = notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x23) | eq(v, 0x3C) | eq(v, 0x3E)
      return special ? m | eq(v, 0x27) : m
    }, set.contains)
  }

  /// Stops at the fragment percent-encode set.
  @inlinable @inline(__always)
  package static func fragment(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in
      notVisibleASCII(v) | eq(v, 0x22) | eq(v, 0x3C) | eq(v, 0x3E) | eq(v, 0x60)
    }, ByteSet.fragment.contains)
  }

  /// Stops at the first byte that is not a lower-case scheme byte (`a`–`z`, digits, `+`, `-`, `.`).
  @inlinable @inline(__always)
  package static func lowerCaseScheme(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    lowerCaseAlphanumeric(or: 0x2B, 0x2D, 0x2E, base, start, end)
  }

  /// Stops where a path's bytes stop being plainly canonical: at the path percent-encode set (which includes
  /// '?' and '#'), for special URLs at '\', and at a '.' or '%' right after a '/' (a segment that might be a
  /// dot segment; the caller measures it). One pass over the whole path, where ``pathSegment(_:_:_:special:)``
  /// restarts at every '/'. `start` is at least 1: each block is compared with the one a byte before it.
  /// (Its own loop rather than `scan`'s: each block also reads the byte before it, so the tail block needs
  /// seventeen bytes, and paths are short enough that testing blocks in pairs cost more than it saved.)
  @inlinable @inline(__always)
  package static func path(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, special: Bool) -> Int {
    @inline(__always) func block(_ i: Int) -> SIMD16<UInt8> {
      let v = load16(base, i)
      let afterSlash = eq(load16(base, i &- 1), 0x2F)
      return pathEncoded(v, special: special) | (afterSlash & (eq(v, 0x2E) | eq(v, 0x25)))
    }
    var i = start
    while i &+ 16 <= end {
      let m = block(i)
      if !isZero(m) { return i &+ firstLane(m) }
      i &+= 16
    }
    guard i < end else { return end }
    if end >= 17 {
      let last = end &- 16
      let bits = bitmask(block(last)) &>> UInt32(i &- last)
      return bits == 0 ? end : i &+ bits.trailingZeroBitCount
    }
    let set: ByteSet = special ? .specialPathSegmentEnd : .pathSegmentEnd
    while i < end {
      let b = base[i]
      if b != 0x2F && set.contains(b) { return i }
      if (b == 0x2E || b == 0x25) && base[i &- 1] == 0x2F { return i }
      i &+= 1
    }
    return end
  }

  /// Stops at the path percent-encode set (which includes '?' and '#'), at '/', and for special URLs at '\'.
  /// `end` is the end of the input, not of the segment: the segment ends at one of these bytes anyway, so
  /// blocks of sixteen can run past it.
  @inlinable @inline(__always)
  package static func pathSegment(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, special: Bool) -> Int {
    let set: ByteSet = special ? .specialPathSegmentEnd : .pathSegmentEnd
    return scan(base, start, end, { v in pathEncoded(v, special: special) | eq(v, 0x2F) }, set.contains)
  }

  /// Stops at the first byte that is not a lower-case ASCII letter, a digit, '.', '-' or '_' (the bytes of a
  /// host the fast path accepts as canonical). `end` is the input's end: the host ends at such a byte anyway.
  @inlinable @inline(__always)
  package static func simpleHost(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    lowerCaseAlphanumeric(or: 0x2E, 0x2D, 0x5F, base, start, end)
  }

  /// Stops at the first byte that is neither a lower-case ASCII letter, a digit, nor `a`, `b` or `c`.
  @inline(__always)
  @inlinable static func lowerCaseAlphanumeric(
    or a: UInt8, _ b: UInt8, _ c: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int
  ) -> Int {
    @inline(__always) func block(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
      let letter = lanes((v &- SIMD16(repeating: 0x61)) .< SIMD16(repeating: 26))
      let digit = lanes((v &- SIMD16(repeating: 0x30)) .< SIMD16(repeating: 10))
      return ~(letter | digit | eq(v, a) | eq(v, b) | eq(v, c))
    }
    @inline(__always) func byte(_ x: UInt8) -> Bool {
      !(x &- 0x61 < 26 || x &- 0x30 < 10 || x == a || x == b || x == c)
    }
    #if arch(x86_64)
    // Thirty-two bytes at once where the CPU has AVX2: one block holds nearly every scheme and host.
    if linkparse_cpu_has_avx2() != 0 { return linkparse_alnum_end_avx2(base, start, end, a, b, c) }
    #endif
    // Schemes and hosts are short: the first sixteen bytes nearly always hold their end, so that block is
    // tried alone first (`scan` starts with pairs of blocks: twice the compares, and a loop to leave).
    if start &+ 16 <= end {
      let m = block(load16(base, start))
      if !isZero(m) { return start &+ firstLane(m) }
      return scan(base, start &+ 16, end, block, byte)
    }
    return scan(base, start, end, block, byte)
  }

  /// Stops at the first byte that is not ASCII (0x80 and above).
  @inlinable @inline(__always)
  package static func nonASCII(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in lanes(v .>= SIMD16(repeating: 0x80)) }, { $0 >= 0x80 })
  }

  /// Stops at an ASCII tab or newline (0x09, 0x0A, 0x0D). One compare per block ("below 0x0E", rare in a
  /// URL) and an exact look only at a block that has such a byte; the last partial block is read as the
  /// sixteen bytes ending at `end` (rereading bytes already known to be clean is harmless here).
  @inlinable @inline(__always)
  package static func tabOrNewline(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
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
      if !isZero(lanes(load16(base, i) .< SIMD16(repeating: 0x0E))), let k = exact(i, i &+ 16) { return k }
      i &+= 16
    }
    if i < end {
      if end &- start >= 16 {
        if isZero(lanes(load16(base, end &- 16) .< SIMD16(repeating: 0x0E))) { return end }
      }
      return exact(i, end) ?? end
    }
    return end
  }

  /// The index of the first `a` or `b` in `start..<end`, or `end`.
  @inlinable @inline(__always)
  package static func firstOf(_ a: UInt8, _ b: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in eq(v, a) | eq(v, b) }, { $0 == a || $0 == b })
  }

  /// The index of the first `a` in `start..<end`, or `end`.
  @inline(__always)
  package static func first(_ a: UInt8, _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in eq(v, a) }, { $0 == a })
  }

  /// The bytes that split or escape form-encoded text (`&`, `=`, `%`, `+`) among the sixteen at `i`: bit k
  /// set when byte `i + k` is one (``FormPairScanner``). SSE2's compares and `pmovmskb` (CByteScan) on
  /// x86-64, where gathering the mask's high bits (``bitmask(_:)``) takes ten instructions more.
  @inlinable @inline(__always)
  package static func formSpecialMask(_ base: UnsafePointer<UInt8>, _ i: Int) -> UInt32 {
    #if arch(x86_64)
    return linkparse_mask16_any4(base + i, 0x26, 0x3D, 0x25, 0x2B)
    #else
    let v = load16(base, i)
    return bitmask(eq(v, 0x26) | eq(v, 0x3D) | eq(v, 0x25) | eq(v, 0x2B))
    #endif
  }

  #if arch(x86_64)
  /// The bytes ``formSpecialMask(_:_:)`` flags in `base[start..<end]`, 64 to a word of `words` (bit k of word j
  /// for byte `start + 64 j + k`; `words` holds `(end - start + 63) / 64`). One call into CByteScan for a whole
  /// query, 32 bytes a step where the CPU has AVX2. `base` must be readable for `0..<end`.
  @inlinable @inline(__always)
  package static func formBitmap(
    _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into words: UnsafeMutablePointer<UInt64>
  ) {
    linkparse_form_bitmap(base, start, end, words)
  }
  #endif

  /// Whether `b` is one of the bytes ``formSpecialMask(_:_:)`` flags.
  @inlinable @inline(__always)
  package static func isFormSpecial(_ b: UInt8) -> Bool { b == 0x26 || b == 0x3D || b == 0x25 || b == 0x2B }

  /// Whether any of the `count` bytes at `start` must be escaped in a JSON string (below 0x20, `"`, `\`).
  /// Reads whole blocks of sixteen: the caller guarantees that the fifteen bytes after `start + count` are
  /// readable (the CLI's JSON writer checks a string after copying it into its own buffer, which keeps that
  /// slack); lanes past `count` are masked out.
  @inlinable @inline(__always)
  package static func hasJSONEscapable(_ start: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    @inline(__always) func block(_ i: Int) -> SIMD16<UInt8> {
      let v = load16(start, i)
      return lanes(v .< SIMD16(repeating: 0x20)) | eq(v, 0x22) | eq(v, 0x5C)
    }
    var i = 0
    while i &+ 32 <= count {  // two blocks per test
      if !isZero(block(i) | block(i &+ 16)) { return true }
      i &+= 32
    }
    if i &+ 16 <= count {
      if !isZero(block(i)) { return true }
      i &+= 16
    }
    guard i < count else { return false }
    return bitmask(block(i)) & ((1 &<< UInt32(count &- i)) &- 1) != 0
  }

  /// Stops at the bytes a JSON string reader must look at: `"`, `\`, controls below 0x20 and non-ASCII (to
  /// validate its UTF-8): the JSON reader's string scan.
  package static func jsonStringSpecial(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in
      lanes((v &- SIMD16(repeating: 0x20)) .>= SIMD16(repeating: 0x60)) | eq(v, 0x22) | eq(v, 0x5C)
    }, isJSONStringSpecial)
  }

  /// Whether a JSON string reader must look at `b`: the bytes ``jsonStringSpecial(_:_:_:)`` stops at (and
  /// CByteScan's `linkparse_mask16_json_string` flags).
  @inlinable @inline(__always)
  package static func isJSONStringSpecial(_ b: UInt8) -> Bool { b &- 0x20 >= 0x60 || b == 0x22 || b == 0x5C }

  /// Stops at the bytes a JSON string must escape: below 0x20, `"` and `\` (`JSONText.quoted`, the command's
  /// streaming writer).
  @inlinable @inline(__always)
  package static func jsonEscapable(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
    scan(base, start, end, { v in lanes(v .< SIMD16(repeating: 0x20)) | eq(v, 0x22) | eq(v, 0x5C) }, {
      $0 < 0x20 || $0 == 0x22 || $0 == 0x5C
    })
  }
}
