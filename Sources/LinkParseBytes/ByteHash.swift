// The byte hashes the modules share: FNV-1a over a byte range (the router's literal children, the IDNA
// cache's sets) and a three-word hash of keys of at least eight bytes (the router's literal-only routes).
//
// Safe because: `fnv1a` reads `bytes[k]` for `k < bytes.count` only (nothing when `baseAddress` is nil);
// `threeWords` reads three unaligned eight-byte words at offsets 0, (count - 8) / 2 and count - 8, all inside
// the `count >= 8` bytes its caller passes (checked in debug builds), and reads nothing else.
//
// Why two: FNV-1a reads every byte (four or five instructions each), which the router's literal children (a
// component each) and the IDNA cache (a miss costs ICU's pass) afford. The literal-only route table hashes
// the URL's whole `scheme://host/path`, 30 to 80 bytes, on every match: three words keep that to about 15
// instructions (a hit is confirmed by comparing every byte anyway), where FNV-1a would add an estimated 150
// to 400 per URL to the route workload's 2,230 (callgrind, with parsing).

/// Non-cryptographic hashes of byte ranges, for tables that confirm a hit by comparing bytes. Not keyed: do
/// not use them where an attacker choosing colliding inputs matters more than a few extra comparisons.
@usableFromInline package enum ByteHash {

  /// 64-bit FNV-1a over `bytes`, each ASCII upper-case letter lower-cased first when `folded` (so texts that
  /// differ only in ASCII case hash alike).
  ///
  /// ```swift
  /// Array("Vk.RU".utf8).withUnsafeBufferPointer { ByteHash.fnv1a($0, folded: true) }
  ///   == Array("vk.ru".utf8).withUnsafeBufferPointer { ByteHash.fnv1a($0) }  // true
  /// ```
  @inlinable @inline(__always)
  package static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>, folded: Bool = false) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    guard let p = bytes.baseAddress else { return h }
    for k in 0..<bytes.count {
      h = (h ^ UInt64(folded ? asciiLowercased(p[k]) : p[k])) &* 0x100_0000_01b3
    }
    return h
  }

  /// A hash of the `count` bytes at `p` (at least eight) from their count and three of their words: the
  /// first, the middle and the last. Equal ranges hash alike; ranges that differ only between the words
  /// sampled collide, so a table keyed by it compares every byte of a candidate.
  ///
  /// ```swift
  /// let key = Array("myapp://sberidauth".utf8)
  /// key.withUnsafeBufferPointer { ByteHash.threeWords($0.baseAddress!, count: $0.count) }
  /// ```
  @inlinable @inline(__always)
  package static func threeWords(_ p: UnsafePointer<UInt8>, count: Int) -> UInt64 {
    assert(count >= 8, "threeWords needs at least eight bytes")
    let first = Words.load64(p)
    let middle = Words.load64(p + ((count &- 8) &>> 1))
    let last = Words.load64(p + (count &- 8))
    var h = (UInt64(truncatingIfNeeded: count) ^ first) &* 0x9E37_79B9_7F4A_7C15
    h = (h ^ middle) &* 0xC2B2_AE3D_27D4_EB4F
    h = (h ^ last) &* 0x1656_67B1_9E37_79F9
    return h ^ (h &>> 29)
  }
}
