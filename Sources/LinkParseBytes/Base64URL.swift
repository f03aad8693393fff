// The package's one base64url codec: the encoder behind PKCE, `state` and `nonce` values and Apple's client
// secret, and one decoder with two modes: strict (RFC 7515 §2, for id_token parts: the offset of the first
// bad byte) and lenient (base64url or base64, padding anywhere: the peek at Apple's id_token claims).
//
// Safe because: the group loop reads `p[i]` to `p[i + 3]` only while `i + 4 <= input.count` and stores four
// bytes at `q + o` only while `o + 4 <= out.count`; the table is read at `byte + 256 * k` with `k < 4`, inside
// its 1,024 entries; the general loop writes `out[o]` through the buffer's subscript, and callers size `out`
// as ``Base64URL/decode(_:into:mode:)`` documents (three bytes per four characters, and three more).

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2).
package enum Base64URL {
  /// How ``Base64URL/decode(_:into:mode:)`` reads its input.
  package enum Mode: Sendable, Hashable {
    /// RFC 7515 §2: only `A–Z a–z 0–9 - _`, no `=`, not 4n+1 characters. A failure is the offset of the first
    /// byte outside the alphabet, or of the last byte of a 4n+1 text.
    case strict
    /// Base64url or standard base64 (`+` and `/` too), `=` skipped wherever it stands, any length (bits that
    /// make no whole byte are dropped). A failure is the offset of the first other byte.
    case lenient
  }

  /// Where a text stops being base64url.
  package struct Failure: Error, Sendable, Hashable {
    package init(offset: Int) { self.offset = offset }
    /// The byte offset of the first byte the mode refuses.
    package var offset: Int
  }

  /// 256 bits from `generator`, base64url without padding (43 characters): a PKCE verifier, a `state`, a
  /// `nonce`.
  package static func randomToken(using generator: inout some RandomNumberGenerator) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for _ in 0..<4 {
      var word = generator.next()
      for _ in 0..<8 {
        bytes.append(UInt8(truncatingIfNeeded: word))
        word >>= 8
      }
    }
    return encode(bytes)
  }

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Encodes without padding.
  package static func encode(_ bytes: some Sequence<UInt8>) -> String {
    let input = Array(bytes)
    var out: [UInt8] = []
    out.reserveCapacity((input.count * 4 + 2) / 3)
    var i = 0
    while i + 3 <= input.count {
      let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
      out.append(alphabet[Int(n & 63)])
      i += 3
    }
    let rest = input.count - i
    if rest == 1 {
      let n = UInt32(input[i]) << 16
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
    } else if rest == 2 {
      let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
      out.append(alphabet[Int(n >> 18 & 63)])
      out.append(alphabet[Int(n >> 12 & 63)])
      out.append(alphabet[Int(n >> 6 & 63)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes `text` as `mode` says.
  ///
  /// ```swift
  /// Base64URL.decode("-_8".utf8, mode: .strict)   // .success([0xFB, 0xFF])
  /// Base64URL.decode("ab+d".utf8, mode: .strict)  // .failure(offset 2)
  /// ```
  package static func decode(_ text: some Collection<UInt8>, mode: Mode) -> Result<[UInt8], Failure> {
    if let result = text.withContiguousStorageIfAvailable({ decode($0, mode: mode) }) { return result }
    return Array(text).withUnsafeBufferPointer { decode($0, mode: mode) }
  }

  /// Decodes `input` as `mode` says into a new array.
  package static func decode(_ input: UnsafeBufferPointer<UInt8>, mode: Mode) -> Result<[UInt8], Failure> {
    var result = Result<Int, Failure>.success(0)
    let out = [UInt8](unsafeUninitializedCapacity: input.count / 4 * 3 + 3) { out, initialized in
      result = decode(input, into: out, mode: mode)
      if case .success(let n) = result { initialized = n } else { initialized = 0 }
    }
    return result.map { _ in out }
  }

  /// Decodes base64url or standard base64, with or without padding (``Mode/lenient``); `nil` on any other
  /// byte.
  package static func decode(_ string: some StringProtocol) -> [UInt8]? {
    withUTF8Bytes(string) { try? decode($0, mode: .lenient).get() }
  }

  /// Decodes `input` as `mode` says into `out` (at least `input.count / 4 * 3 + 3` bytes), returning the
  /// number of bytes written.
  package static func decode(
    _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, mode: Mode
  ) -> Result<Int, Failure> {
    // One copy of the loops per mode (a generic specialized for each), each with its tests folded.
    mode == .strict ? decode(input, into: out, as: StrictMode.self) : decode(input, into: out, as: LenientMode.self)
  }

  /// Calls `body` with `input` decoded leniently into a temporary buffer (on the stack when small), or with
  /// `nil` when it is not base64url.
  @inline(__always)
  package static func withDecoded<R>(
    _ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) -> R
  ) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: input.count / 4 * 3 + 3) { out in
      guard case .success(let n) = decode(input, into: out, mode: .lenient) else { return body(nil) }
      return body(UnsafeBufferPointer(rebasing: out[..<n]))
    }
  }

  private static func decode<M: DecodeMode>(
    _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, as _: M.Type
  ) -> Result<Int, Failure> {
    let strict = M.strict
    guard let p = input.baseAddress, let q = out.baseAddress else {
      return input.isEmpty ? .success(0) : .failure(Failure(offset: 0))
    }
    let n = input.count
    let refused = strict ? notInGroup | standardOnly : notInGroup
    var i = 0
    var o = 0
    // Whole groups of four alphabet characters, three bytes at a time, through the table (its pointer read
    // once per call): each character's sextet already in place, so a group is four loads and `|`s, one test
    // and one four-byte store (its fourth byte is overwritten by the next group, or lies past the bytes
    // returned; `o + 4 <= out.count` holds for every group of a buffer of the documented size, and is tested
    // anyway). The first group holding a byte the mode refuses, or `=`, goes to the general loop below
    // (which starts, like this one ends, on a group boundary).
    placedSextets.withUnsafeBufferPointer { table in
      let t = table.baseAddress!
      while i &+ 4 <= n && o &+ 4 <= out.count {
        let v =
          t[Int(p[i])] | t[256 &+ Int(p[i &+ 1])] | t[512 &+ Int(p[i &+ 2])] | t[768 &+ Int(p[i &+ 3])]
        if v & refused != 0 { break }
        // The three bytes are bits 23...0 of `v`: shifted to the top, big-endian puts them first in memory
        // (the flag bits fall off the top).
        UnsafeMutableRawPointer(q + o).storeBytes(of: (v &<< 8).bigEndian, as: UInt32.self)
        o &+= 3
        i &+= 4
      }
    }
    var buffer: UInt32 = 0
    var bits = 0
    while i < n {
      let byte = p[i]
      let value = sextet(byte)
      if value >= 64 || (strict && (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/"))) {
        if value == 64 && !strict {  // `=`
          i &+= 1
          continue
        }
        return .failure(Failure(offset: i))
      }
      buffer = buffer << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out[o] = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
        o += 1
      }
      i &+= 1
    }
    // 4n+1 characters: the last one carries 6 bits, not a whole byte.
    if strict && n % 4 == 1 { return .failure(Failure(offset: n - 1)) }
    return .success(o)
  }

  /// ``sextet(_:)`` of every byte at each position of a group of four, for the group loop of
  /// ``decode(_:into:mode:)``: entry `256 * k + byte` is the sextet shifted to its place in the group's 24
  /// bits (`18 - 6 * k`), or ``notInGroup`` for `=` and the bytes outside the alphabets; `+` and `/` also
  /// carry ``standardOnly``. Read through one pointer per call (so the lazily initialised global is touched
  /// once per token, not per byte).
  private static let placedSextets: [UInt32] = (0..<1024).map { entry in
    let byte = UInt8(truncatingIfNeeded: entry)
    let value = sextet(byte)
    guard value < 64 else { return notInGroup }
    let placed = UInt32(value) &<< UInt32(18 &- 6 &* (entry >> 8))
    return byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") ? placed | standardOnly : placed
  }

  /// The bit of ``placedSextets`` that marks a byte the group loop leaves to the general one.
  private static let notInGroup: UInt32 = 1 << 31

  /// The bit of ``placedSextets`` that marks standard base64's `+` and `/` (refused by ``Mode/strict``).
  private static let standardOnly: UInt32 = 1 << 30

  /// The 6-bit value of a base64 or base64url character; 64 for `=`, 255 for anything else.
  @inline(__always)
  static func sextet(_ byte: UInt8) -> UInt8 {
    let upper = byte &- 0x41  // A-Z → 0…25
    if upper < 26 { return upper }
    let lower = byte &- 0x61  // a-z → 26…51
    if lower < 26 { return lower &+ 26 }
    let digit = byte &- 0x30  // 0-9 → 52…61
    if digit < 10 { return digit &+ 52 }
    switch byte {
    case 0x2D, 0x2B: return 62  // - +
    case 0x5F, 0x2F: return 63  // _ /
    case 0x3D: return 64  // =
    default: return 255
    }
  }
}

/// ``Base64URL/Mode`` as a type, so that each mode gets its own copy of the decoding loops.
private protocol DecodeMode { static var strict: Bool { get } }
private enum StrictMode: DecodeMode { static var strict: Bool { true } }
private enum LenientMode: DecodeMode { static var strict: Bool { false } }
