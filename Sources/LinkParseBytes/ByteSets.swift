// Byte classes used by the parser, as 128-bit masks held in two UInt64 literals.
//
// Every set is a computed static property returning a literal, so reading one in a hot loop costs two
// register loads and a shift — never a `swift_once` check for a lazily initialised global. Bytes >= 0x80 are
// in every percent-encode set (every non-ASCII code point is encoded), and in none of the other sets.
// `ByteSetTests` proves each mask equal, for all 256 bytes, to a predicate written from the standard's text.

/// `package`: the router percent-encodes with the same sets.
@usableFromInline
package struct ByteSet: Sendable {
  @usableFromInline let low: UInt64   // bytes 0x00 ..< 0x40
  @usableFromInline let high: UInt64  // bytes 0x40 ..< 0x80
  @usableFromInline let includesNonASCII: Bool

  @inlinable @inline(__always)
  package init(low: UInt64, high: UInt64, includesNonASCII: Bool) {
    self.low = low
    self.high = high
    self.includesNonASCII = includesNonASCII
  }

  @inlinable @inline(__always)
  package func contains(_ byte: UInt8) -> Bool {
    if byte < 0x40 { return (low &>> UInt64(byte)) & 1 != 0 }
    if byte < 0x80 { return (high &>> UInt64(byte &- 0x40)) & 1 != 0 }
    return includesNonASCII
  }
}

extension ByteSet {
  // Percent-encode sets (https://url.spec.whatwg.org/#percent-encoded-bytes).

  /// C0 controls and every byte above U+007E.
  @inlinable package static var c0Control: ByteSet {
    ByteSet(low: 0x0000_0000_FFFF_FFFF, high: 0x8000_0000_0000_0000, includesNonASCII: true)
  }
  /// C0 control set plus space, `"`, `<`, `>`, and backtick.
  @inlinable package static var fragment: ByteSet {
    ByteSet(low: 0x5000_0005_FFFF_FFFF, high: 0x8000_0001_0000_0000, includesNonASCII: true)
  }
  /// C0 control set plus space, `"`, `#`, `<`, `>`.
  @inlinable package static var query: ByteSet {
    ByteSet(low: 0x5000_000D_FFFF_FFFF, high: 0x8000_0000_0000_0000, includesNonASCII: true)
  }
  /// Query set plus `'`.
  @inlinable package static var specialQuery: ByteSet {
    ByteSet(low: 0x5000_008D_FFFF_FFFF, high: 0x8000_0000_0000_0000, includesNonASCII: true)
  }
  /// Query set plus `?`, `^`, backtick, `{`, `}`.
  @inlinable package static var path: ByteSet {
    ByteSet(low: 0xD000_000D_FFFF_FFFF, high: 0xA800_0001_4000_0000, includesNonASCII: true)
  }
  /// Path set plus `/`, `:`, `;`, `=`, `@`, `[` to `^`, `|`.
  @inlinable package static var userinfo: ByteSet {
    ByteSet(low: 0xFC00_800D_FFFF_FFFF, high: 0xB800_0001_7800_0001, includesNonASCII: true)
  }
  /// Path set plus `/`: where a path segment's run of unchanged bytes ends.
  @inlinable package static var pathSegmentEnd: ByteSet {
    ByteSet(low: 0xD000_800D_FFFF_FFFF, high: 0xA800_0001_4000_0000, includesNonASCII: true)
  }
  /// Path set plus `/` and `\`: the same for special URLs.
  @inlinable package static var specialPathSegmentEnd: ByteSet {
    ByteSet(low: 0xD000_800D_FFFF_FFFF, high: 0xA800_0001_5000_0000, includesNonASCII: true)
  }
  /// Userinfo set plus `$` to `&`, `+`, `,`.
  @inlinable package static var component: ByteSet {
    ByteSet(low: 0xFC00_987D_FFFF_FFFF, high: 0xB800_0001_7800_0001, includesNonASCII: true)
  }
  /// Component set plus `!`, `'` to `)`, `~`.
  @inlinable package static var formURLEncoded: ByteSet {
    ByteSet(low: 0xFC00_9BFF_FFFF_FFFF, high: 0xF800_0001_7800_0001, includesNonASCII: true)
  }

  // Host code points (https://url.spec.whatwg.org/#host-miscellaneous).

  /// NUL, tab, LF, CR, space, `#`, `/`, `:`, `<`, `>`, `?`, `@`, `[`, `\`, `]`, `^`, `|`.
  @inlinable package static var forbiddenHost: ByteSet {
    ByteSet(low: 0xD400_8009_0000_2601, high: 0x1000_0000_7800_0001, includesNonASCII: false)
  }
  /// Forbidden host code points plus C0 controls, `%`, and DEL.
  @inlinable package static var forbiddenDomain: ByteSet {
    ByteSet(low: 0xD400_8029_FFFF_FFFF, high: 0x9000_0000_7800_0001, includesNonASCII: false)
  }
}

extension ByteSet {
  /// Forbidden domain code points plus `A`-`Z` and every non-ASCII byte: the bytes of a host that need a
  /// closer look before it can be copied as a domain.
  @inlinable package static var domainAttention: ByteSet {
    ByteSet(low: 0xD400_8029_FFFF_FFFF, high: 0x9000_0000_7FFF_FFFF, includesNonASCII: true)
  }
}

// MARK: - ASCII helpers

@inlinable @inline(__always)
package func isASCIIAlpha(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }

@inlinable @inline(__always)
package func isASCIIDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

@inlinable @inline(__always)
package func isASCIIHexDigit(_ b: UInt8) -> Bool { isASCIIDigit(b) || (b | 0x20) &- 0x61 < 6 }

@inlinable @inline(__always)
package func asciiLowercased(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }

/// The value of an ASCII hex digit; the caller has checked `isASCIIHexDigit`.
@inlinable @inline(__always)
package func hexValue(_ b: UInt8) -> UInt8 { isASCIIDigit(b) ? b &- 0x30 : (b | 0x20) &- 0x61 &+ 10 }

/// Upper-case hex digit for a nibble (0...15).
@inlinable @inline(__always)
package func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x37 }

/// Scheme code points after the first: ASCII alphanumeric, `+`, `-`, `.`.
@inlinable @inline(__always)
package func isSchemeByte(_ b: UInt8) -> Bool {
  isASCIIAlpha(b) || isASCIIDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
}

extension Duration {
  /// The whole seconds of a time limit, rounded down (the package keeps Unix seconds), at least 0.
  @inlinable
  package var wholeSeconds: Int64 { max(0, components.seconds) }
}
