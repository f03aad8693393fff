// Bytes read and compared a word at a time: the loads every module's byte code uses (little-endian, so byte
// k of a word is bits 8k..<8k+8 on every platform) and the one memory comparison.
//
// Safe because: each load reads exactly its width at `p`, which the caller guarantees readable (every call
// site states the bound it relies on); `equal` reads only `a[0..<n]` and `b[0..<n]`.

/// Word loads and comparisons of raw bytes.
@usableFromInline package enum Words {
  /// The eight bytes at `p`, byte 0 lowest. `p` must be readable for eight bytes.
  @inlinable @inline(__always)
  package static func load64(_ p: UnsafePointer<UInt8>) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
  }

  /// The four bytes at `p`, byte 0 lowest.
  @inlinable @inline(__always)
  package static func load32(_ p: UnsafePointer<UInt8>) -> UInt32 {
    UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
  }

  /// The two bytes at `p`, byte 0 lowest.
  @inlinable @inline(__always)
  package static func load16(_ p: UnsafePointer<UInt8>) -> UInt16 {
    UInt16(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt16.self))
  }

  /// Whether the `n` bytes at `a` and `b` are equal, eight at a time: from eight bytes on, the last partial
  /// word is compared as the eight bytes that end at `n` (overlapping ones already compared); nothing is read
  /// outside either range.
  ///
  /// ```swift
  /// Array("state".utf8).withUnsafeBufferPointer { s in Words.equal(s.baseAddress!, s.baseAddress!, 5) }  // true
  /// ```
  @inlinable @inline(__always)
  package static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    if a == b { return true }
    var i = 0
    while i &+ 8 <= n {
      if load64(a + i) != load64(b + i) { return false }
      i &+= 8
    }
    if i < n && n >= 8 { return load64(a + (n &- 8)) == load64(b + (n &- 8)) }
    while i < n {
      if a[i] != b[i] { return false }
      i &+= 1
    }
    return true
  }

  /// Whether `buffer[offset..<offset + other.count]` equals `other` (`offset + other.count <= buffer.count`).
  @inlinable @inline(__always)
  package static func equal(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let a = buffer.baseAddress, let b = other.baseAddress, !other.isEmpty else { return other.isEmpty }
    return equal(a + offset, b, other.count)
  }

  /// Whether the `count` bytes at `a + i` and `b + j` are equal.
  @inlinable @inline(__always)
  package static func equal(
    _ a: UnsafePointer<UInt8>, at i: Int, _ b: UnsafePointer<UInt8>, at j: Int, count: Int
  ) -> Bool {
    equal(a + i, b + j, count)
  }
}
