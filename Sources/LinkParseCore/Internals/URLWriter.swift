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
// Safety: `input` points into memory the parser's caller keeps alive for the whole parse (the body of a
// `withUTF8` / `withContiguousStorageIfAvailable` closure); the writer never escapes it. Every index read
// from `input` is below `count <= input.count` or inside a range the parser took from `input`'s bounds.

@usableFromInline
internal struct URLWriter {
  @usableFromInline let input: UnsafeBufferPointer<UInt8>
  /// Bytes written so far (virtual or real).
  @usableFromInline var count: Int = 0
  /// The real output, once it has diverged from the input.
  @usableFromInline var buffer: [UInt8] = []
  @usableFromInline var diverged = false

  @inlinable init(input: UnsafeBufferPointer<UInt8>) {
    self.input = input
  }

  @inline(never)
  @usableFromInline mutating func diverge() {
    precondition(!diverged)
    buffer.reserveCapacity(Swift.max(input.count &+ 16, 64))
    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<count]))
    diverged = true
  }

  /// The byte at output position `i < count`.
  @inlinable func byte(at i: Int) -> UInt8 {
    diverged ? buffer[i] : input[i]
  }

  @inlinable mutating func append(_ b: UInt8) {
    if !diverged {
      if count < input.count && input[count] == b {
        count &+= 1
        return
      }
      diverge()
    }
    buffer.append(b)
    count &+= 1
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
        memoryEqual(input.baseAddress! + count, input.baseAddress! + range.lowerBound, range.count)
      {
        count &+= range.count
        return
      }
      diverge()
    }
    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: input[range]))
    count &+= range.count
  }

  /// Appends bytes from elsewhere (the base URL, a serialized host).
  @inlinable mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.isEmpty { return }
    if !diverged {
      if count &+ bytes.count <= input.count,
        memoryEqual(input.baseAddress! + count, bytes.baseAddress!, bytes.count)
      {
        count &+= bytes.count
        return
      }
      diverge()
    }
    buffer.append(contentsOf: bytes)
    count &+= bytes.count
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
    while i < range.upperBound {
      append(asciiLowercased(input[i]))
      i &+= 1
    }
  }

  @inlinable mutating func appendPercentEncoded(_ b: UInt8) {
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
    if diverged { buffer.removeLast(count &- n) }
    count = n
  }

  /// Replaces the output byte at `i < count`.
  @inlinable mutating func replace(at i: Int, with b: UInt8) {
    if byte(at: i) == b { return }
    if !diverged { diverge() }
    buffer[i] = b
  }

  /// Inserts `bytes` at output position `i <= count`.
  @inlinable mutating func insert(_ s: StaticString, at i: Int) {
    if !diverged { diverge() }
    s.withUTF8Buffer { bytes in
      buffer.insert(contentsOf: bytes, at: i)
      count &+= bytes.count
    }
  }
}

/// Whether the `n` bytes at `a` and `b` are equal, eight at a time: from eight bytes on, the last partial word
/// is compared as the eight bytes that end at `n` (overlapping ones already compared); nothing is read outside
/// either range. (Shared with the router's and the providers' byte comparisons, hence `package`.)
@inlinable @inline(__always)
package func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
  if a == b { return true }
  @inline(__always) func word(_ p: UnsafePointer<UInt8>, _ at: Int) -> UInt64 {
    UnsafeRawPointer(p + at).loadUnaligned(as: UInt64.self)
  }
  var i = 0
  while i &+ 8 <= n {
    if word(a, i) != word(b, i) { return false }
    i &+= 8
  }
  if i < n && n >= 8 { return word(a, n &- 8) == word(b, n &- 8) }
  while i < n {
    if a[i] != b[i] { return false }
    i &+= 1
  }
  return true
}
