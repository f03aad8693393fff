// The writer the parser serializes into: copy-on-divergence.
//
// The parser writes the canonical serialization front to back. While every byte written equals the input
// byte at the same position, the writer stores nothing: it only counts (it is "virtual"). At the first byte
// that differs, it allocates a buffer, copies the input prefix it had been matching, and from then on
// appends for real. So a canonical input — nearly every callback URL — is parsed without allocating, and
// the caller's string becomes the URL's storage.
//
// Appending a run of input bytes that sits at the same position as the output (the common case: a
// component copied unchanged) is a single addition, whatever the run's length.
//
// Safe because: `input` points into memory the parser's caller keeps alive for the whole parse (the body of a
// `withUTF8` / `withContiguousStorageIfAvailable` closure); the writer never escapes it. Every index read
// from `input` is below `count <= input.count` or inside a range the parser took from `input`'s bounds. Once
// diverged, every write to `out` is preceded by `reserve`, so it stays below `capacity`; the writer is
// noncopyable, so the buffer has one owner, which frees it in `deinit`.
public import LinkParseBytes

@usableFromInline
internal struct URLWriter: ~Copyable {
  @usableFromInline let input: UnsafeBufferPointer<UInt8>
  /// Bytes written so far (virtual or real).
  @usableFromInline var count: Int = 0
  /// Whether the output has diverged from the input (and lives in ``out``).
  @usableFromInline var diverged = false
  /// The real output once diverged: `capacity` bytes at `out`, owned by the writer (noncopyable, so that
  /// exactly one writer frees them). A buffer of our own rather than an `[UInt8]`: each append to an array
  /// checked its uniqueness and capacity and went through the generic `append(contentsOf:)`, about a third of
  /// the cost of parsing a URL that needs rewriting. (A `ManagedBuffer` cost more: its generic metadata was
  /// looked up on each creation.)
  @usableFromInline var out: UnsafeMutablePointer<UInt8>? = nil
  @usableFromInline var capacity = 0

  @inlinable init(input: UnsafeBufferPointer<UInt8>) {
    self.input = input
  }

  deinit { out?.deallocate() }

  @inline(never)
  @usableFromInline mutating func diverge() {
    precondition(!diverged)
    grow(to: Swift.max(input.count &+ 16, 64))
    if count > 0 { out!.update(from: input.baseAddress!, count: count) }
    diverged = true
  }

  /// Makes room for at least `needed` bytes in all, keeping the ones written.
  @inline(never)
  @usableFromInline mutating func grow(to needed: Int) {
    let newCapacity = Swift.max(needed, capacity &* 2)
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    if let old = out {
      if count > 0 { bytes.update(from: old, count: count) }
      old.deallocate()
    }
    out = bytes
    capacity = newCapacity
  }

  /// Room for `n` more bytes past ``count`` (diverged writers only).
  @inlinable @inline(__always) mutating func reserve(_ n: Int) {
    if count &+ n > capacity { grow(to: count &+ n) }
  }

  /// The byte at output position `i < count`.
  @inlinable func byte(at i: Int) -> UInt8 {
    diverged ? out![i] : input[i]
  }

  /// The output from position `i <= count` on (valid for `count - i` bytes, until the next write).
  @inlinable func bytes(from i: Int) -> UnsafePointer<UInt8> {
    diverged ? UnsafePointer(out! + i) : input.baseAddress! + i
  }

  /// The output as a string (the input's prefix when not diverged).
  func makeString() -> String {
    let source =
      diverged ? UnsafeBufferPointer(start: out, count: count) : UnsafeBufferPointer(rebasing: input[0..<count])
    return String(unsafeUninitializedCapacity: count) { target in
      if let from = source.baseAddress { target.baseAddress!.update(from: from, count: count) }
      return count
    }
  }

  @inlinable mutating func append(_ b: UInt8) {
    if !diverged {
      if count < input.count && input[count] == b {
        count &+= 1
        return
      }
      diverge()
    }
    reserve(1)
    out![count] = b
    count &+= 1
  }

  /// Appends `n` bytes at `p` to the diverged output.
  @inlinable @inline(__always) mutating func appendReal(_ p: UnsafePointer<UInt8>, _ n: Int) {
    reserve(n)
    (out! + count).update(from: p, count: n)
    count &+= n
  }

  /// Appends `input[range]` unchanged.
  @inlinable mutating func appendInput(_ range: Range<Int>) {
    if range.isEmpty { return }
    if !diverged {
      if range.lowerBound == count {
        count &+= range.count
        return
      }
      if count &+ range.count <= input.count,
        Words.equal(input.baseAddress! + count, input.baseAddress! + range.lowerBound, range.count)
      {
        count &+= range.count
        return
      }
      diverge()
    }
    appendReal(input.baseAddress! + range.lowerBound, range.count)
  }

  /// Appends bytes from elsewhere (the base URL, a serialized host).
  @inlinable mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.isEmpty { return }
    if !diverged {
      if count &+ bytes.count <= input.count,
        Words.equal(input.baseAddress! + count, bytes.baseAddress!, bytes.count)
      {
        count &+= bytes.count
        return
      }
      diverge()
    }
    appendReal(bytes.baseAddress!, bytes.count)
  }

  @inlinable mutating func append(_ s: StaticString) {
    s.withUTF8Buffer { append(bytes: $0) }
  }

  /// Appends `input[range]` ASCII-lower-cased.
  @inlinable mutating func appendLowercased(_ range: Range<Int>) {
    var i = range.lowerBound
    // Copy the longest prefix that is already lower case in one step.
    while i < range.upperBound && input[i] &- 0x41 >= 26 { i &+= 1 }
    appendInput(range.lowerBound..<i)
    guard i < range.upperBound else { return }
    if !diverged {
      append(asciiLowercased(input[i]))  // diverges: `input[i]` is upper case
      i &+= 1
    }
    reserve(range.upperBound &- i)
    let o = out!
    while i < range.upperBound {
      o[count] = asciiLowercased(input[i])
      count &+= 1
      i &+= 1
    }
  }

  @inlinable mutating func appendPercentEncoded(_ b: UInt8) {
    if diverged {
      reserve(3)
      let o = out! + count
      o[0] = UInt8(ascii: "%")
      o[1] = hexDigit(b &>> 4)
      o[2] = hexDigit(b & 0x0F)
      count &+= 3
      return
    }
    append(UInt8(ascii: "%"))
    append(hexDigit(b &>> 4))
    append(hexDigit(b & 0x0F))
  }

  /// Appends `input[range]`, percent-encoding every byte in `set`.
  @inlinable mutating func appendEncoding(_ range: Range<Int>, _ set: ByteSet) {
    var i = range.lowerBound
    let end = range.upperBound
    while i < end {
      let runStart = i
      while i < end && !set.contains(input[i]) { i &+= 1 }
      appendInput(runStart..<i)
      if i < end {
        appendPercentEncoded(input[i])
        i &+= 1
      }
    }
  }

  @inlinable mutating func appendDecimal(_ value: UInt32) {
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var n = value
    var k = 0
    withUnsafeMutableBytes(of: &digits) { d in
      repeat {
        d[k] = UInt8(truncatingIfNeeded: n % 10) &+ 0x30
        n /= 10
        k &+= 1
      } while n > 0
    }
    withUnsafeBytes(of: &digits) { d in
      var j = k
      while j > 0 {
        j &-= 1
        append(d[j])
      }
    }
  }

  /// Removes output bytes from position `n` on.
  @inlinable mutating func truncate(to n: Int) {
    count = n
  }

  /// Replaces the output byte at `i < count`.
  @inlinable mutating func replace(at i: Int, with b: UInt8) {
    if byte(at: i) == b { return }
    if !diverged { diverge() }
    out![i] = b
  }

  /// Inserts `bytes` at output position `i <= count`.
  @inlinable mutating func insert(_ s: StaticString, at i: Int) {
    if !diverged { diverge() }
    s.withUTF8Buffer { bytes in
      let n = bytes.count
      reserve(n)
      let o = out!
      (o + i + n).update(from: o + i, count: count &- i)  // overlapping: memmove
      (o + i).update(from: bytes.baseAddress!, count: n)
      count &+= n
    }
  }
}
