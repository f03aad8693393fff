// Eight bytes at a time: the few word-wide byte operations the matcher needs (finding delimiters, comparing
// literals, folding ASCII case), in plain integer arithmetic ("SWAR"). A URL's components are short (a scheme,
// a host, a few path segments), so one or two words cover most of them, where a byte loop spends four or
// five instructions per byte.
//
// Words are read little-endian (`UInt64(littleEndian:)`), so byte k of a range is bits 8k..<8k+8 on every
// platform, and the lowest flagged byte of a mask is the first one in memory.

import LinkParseCore
import LinkParseBytes

/// The first `min(count, 8)` bytes at `p` as a word, the bytes past them zero. Reads eight bytes at once
/// when `readable` (how many bytes from `p` are valid memory) allows, else one byte at a time.
@inline(__always)
func prefixWord(_ p: UnsafePointer<UInt8>, count: Int, readable: Int) -> UInt64 {
  let n = min(count, 8)
  if readable >= 8 {
    let w = Words.load64(p)
    return n == 8 ? w : w & lowBytes(n)
  }
  var w: UInt64 = 0
  for k in 0..<n { w |= UInt64(p[k]) &<< UInt64(truncatingIfNeeded: k &* 8) }
  return w
}

/// A literal's first eight bytes (as `prefixWord` reads them) and, when it is longer than eight, its last
/// eight (else 0): what the matcher compares with a component before any other byte.
func literalWords(_ text: [UInt8]) -> (prefix: UInt64, suffix: UInt64) {
  text.withUnsafeBufferPointer { t in
    let p = t.baseAddress ?? UnsafePointer(bitPattern: 1)!
    return (prefixWord(p, count: t.count, readable: t.count), t.count > 8 ? Words.load64(p + (t.count - 8)) : 0)
  }
}

/// The low `n` bytes of a word set (`n` in `0...7`).
@inline(__always)
func lowBytes(_ n: Int) -> UInt64 { (1 &<< UInt64(truncatingIfNeeded: n &* 8)) &- 1 }

/// `w` with each ASCII upper-case letter lower-cased (`asciiLowercased` on every byte).
@inline(__always)
func asciiLowercasedWord(_ w: UInt64) -> UInt64 {
  // On the low seven bits of each byte (no carry crosses bytes): + 0x3F sets the high bit from 'A' (0x41)
  // up, + 0x25 from '[' (0x5B) up. Bytes >= 0x80 (not ASCII) are excluded by `~w`.
  let low = w & 0x7F7F_7F7F_7F7F_7F7F
  let upper = (low &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(low &+ 0x2525_2525_2525_2525) & ~w & 0x8080_8080_8080_8080
  return w | (upper &>> 2)
}

/// The high bit of each byte of `w` that equals `byte`. Exact for the lowest flagged byte; a byte above a
/// real match may be flagged falsely (the borrow of the subtraction), so only the lowest one is meaningful.
@inline(__always)
func bytesEqual(_ w: UInt64, _ byte: UInt8) -> UInt64 {
  let x = w ^ (0x0101_0101_0101_0101 &* UInt64(byte))
  return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
}

/// The index of the first byte of `buf[start..<end]` that is one of `bytes`, or `end`. (Pass a byte twice to
/// look for fewer: the optimizer drops the repeated test.)
@inline(__always)
func firstIndex(
  of bytes: (UInt8, UInt8, UInt8, UInt8), in buf: UnsafePointer<UInt8>, from start: Int, to end: Int
) -> Int {
  var i = start
  while i &+ 8 <= end {
    let w = Words.load64(buf + i)
    let m = bytesEqual(w, bytes.0) | bytesEqual(w, bytes.1) | bytesEqual(w, bytes.2) | bytesEqual(w, bytes.3)
    // The lowest flagged byte of the union is the lowest real match of one of them.
    if m != 0 { return i &+ m.trailingZeroBitCount &>> 3 }
    i &+= 8
  }
  while i < end {
    let b = buf[i]
    if b == bytes.0 || b == bytes.1 || b == bytes.2 || b == bytes.3 { return i }
    i &+= 1
  }
  return end
}

/// Reads a path segment from `start`: where it ends (the first '/', '?' or '#' of `buf[start..<end]`, or
/// `end`) and its first eight bytes as `prefixWord` reads them. One word-wide scan does both for a segment
/// of up to seven bytes, the common case.
@inline(__always)
func scanSegment(_ buf: UnsafePointer<UInt8>, from start: Int, to end: Int) -> (end: Int, prefix: UInt64) {
  let delimiters = (UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "/"))
  guard start &+ 8 <= end else {
    let e = firstIndex(of: delimiters, in: buf, from: start, to: end)
    return (e, prefixWord(buf + start, count: e &- start, readable: end &- start))
  }
  let w = Words.load64(buf + start)
  let m = bytesEqual(w, delimiters.0) | bytesEqual(w, delimiters.1) | bytesEqual(w, delimiters.2)
  if m != 0 {
    let n = m.trailingZeroBitCount &>> 3
    return (start &+ n, w & lowBytes(n))
  }
  return (firstIndex(of: delimiters, in: buf, from: start &+ 8, to: end), w)
}

/// Whether the `count` bytes at `p` equal those at `literal`, folding `p`'s ASCII letters when `caseless`
/// (the literal is stored folded). `p` is valid for `readable` bytes, `literal` for `count` rounded up to a
/// multiple of eight (`ComponentCode` pads its literals).
@inline(__always)
func equalBytes(_ p: UnsafePointer<UInt8>, readable: Int, _ literal: UnsafePointer<UInt8>, count: Int, caseless: Bool) -> Bool {
  var k = 0
  while k < count {
    let remaining = count &- k
    var w = prefixWord(p + k, count: remaining, readable: readable &- k)
    if caseless { w = asciiLowercasedWord(w) }
    if w != prefixWord(literal + k, count: remaining, readable: 8) { return false }
    k &+= 8
  }
  return true
}
