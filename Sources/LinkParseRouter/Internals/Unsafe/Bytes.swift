// The URL's serialization as the matchers read it: offsets into one buffer instead of pointers, with the word
// reads and comparisons they need.
//
// Safe because: a `Bytes` is made from a non-empty buffer that outlives it (`withHrefBytes`' body, or a
// padded literal); every read stays within `0..<count`: `word(endingAt:)` needs `end >= 8`, the others take
// `readable` from `count` (`prefixWord`, `scanSegment`, `equalBytes`, WordMatching.swift), and literals
// compared with `equals` are padded to a multiple of eight (`ComponentCode`).

import LinkParseCore
import LinkParseBytes

/// A read-only view of bytes by offset.
struct Bytes {
  /// The first byte (for the fenced helpers only).
  let start: UnsafePointer<UInt8>
  let count: Int

  @inline(__always)
  init(_ buf: UnsafeBufferPointer<UInt8>) {
    start = buf.baseAddress!
    count = buf.count
  }

  /// The view of `buf`, or nil when it has no memory (an empty buffer).
  @inline(__always)
  static func of(_ buf: UnsafeBufferPointer<UInt8>) -> Bytes? {
    guard let base = buf.baseAddress else { return nil }
    return Bytes(UnsafeBufferPointer(start: base, count: buf.count))
  }

  /// The same bytes as a buffer.
  @inline(__always)
  var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

  @inline(__always)
  subscript(_ i: Int) -> UInt8 { start[i] }

  /// The address of byte `i` (`i <= count`), for APIs that take a pointer (constraints).
  @inline(__always)
  func address(_ i: Int) -> UnsafePointer<UInt8> { start + i }

  /// The eight bytes that end at `end` (`8 <= end <= count`), byte 0 lowest.
  @inline(__always)
  func word(endingAt end: Int) -> UInt64 { Words.load64(start + (end &- 8)) }

  /// The first `min(n, 8)` bytes from `i` as a word, the bytes past them zero (see `prefixWord`).
  @inline(__always)
  func prefixWord(at i: Int, count n: Int) -> UInt64 {
    LinkParseRouter.prefixWord(start + i, count: n, readable: count &- i)
  }

  /// The path segment from `i`: where it ends ('/', '?', '#' or `count`) and its prefix word (`scanSegment`).
  @inline(__always)
  func scanSegment(from i: Int) -> (end: Int, prefix: UInt64) {
    LinkParseRouter.scanSegment(start, from: i, to: count)
  }

  /// Whether the `n` bytes from `i` equal `literal[offset..<offset + n]` (its ASCII letters folded when
  /// `caseless`; `literal` is padded, see `equalBytes`).
  @inline(__always)
  func equals(at i: Int, _ literal: UnsafeBufferPointer<UInt8>, from offset: Int = 0, count n: Int, caseless: Bool) -> Bool {
    equalBytes(start + i, readable: count &- i, literal.baseAddress! + offset, count: n, caseless: caseless)
  }

  /// `ByteHash.fnv1a` of the bytes `i..<end`.
  @inline(__always)
  func fnv1a(_ i: Int, _ end: Int, folded: Bool) -> UInt64 {
    ByteHash.fnv1a(UnsafeBufferPointer(start: start + i, count: end &- i), folded: folded)
  }

  /// `ByteHash.threeWords` of the first `n` bytes (`8 <= n <= count`).
  @inline(__always)
  func threeWordsHash(count n: Int) -> UInt64 { ByteHash.threeWords(start, count: n) }
}
