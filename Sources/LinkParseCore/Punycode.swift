// Punycode (RFC 3492), the encoding of a non-ASCII label after "xn--". Every step that could overflow is
// checked (section 6.4) and fails instead; both directions cost about the label's length times its number
// of distinct code points, so `UTS46DomainToASCII` bounds the length of the labels it hands here.

/// RFC 3492's Bootstring parameters and its encoder and decoder, on code points (`UInt32`).
enum Punycode {
  static let base: UInt32 = 36
  static let tMin: UInt32 = 1
  static let tMax: UInt32 = 26
  static let skew: UInt32 = 38
  static let damp: UInt32 = 700
  static let initialBias: UInt32 = 72
  static let initialN: UInt32 = 0x80

  /// Bias adaptation (section 6.1). No overflow: `delta` is at most `UInt32.max`, and each step divides.
  static func adapt(_ delta: UInt32, _ count: UInt32, first: Bool) -> UInt32 {
    var delta = first ? delta / damp : delta / 2
    delta &+= delta / count
    var k: UInt32 = 0
    while delta > ((base &- tMin) &* tMax) / 2 {
      delta /= base &- tMin
      k &+= base
    }
    return k &+ (base &- tMin &+ 1) &* delta / (delta &+ skew)
  }

  @inline(__always)
  static func threshold(_ k: UInt32, _ bias: UInt32) -> UInt32 {
    k <= bias ? tMin : (k >= bias &+ tMax ? tMax : k &- bias)
  }

  /// The ASCII digit of a value below 36: a–z for 0–25, 0–9 for 26–35.
  @inline(__always)
  static func digit(_ d: UInt32) -> UInt8 {
    d < 26 ? UInt8(truncatingIfNeeded: d) &+ 0x61 : UInt8(truncatingIfNeeded: d) &+ 0x16
  }

  /// The value of an ASCII digit (either case), or `base` when it is none.
  @inline(__always)
  static func value(_ c: UInt32) -> UInt32 {
    if c &- 0x30 < 10 { return c &- 0x16 }
    if c &- 0x41 < 26 { return c &- 0x41 }
    if c &- 0x61 < 26 { return c &- 0x61 }
    return base
  }

  /// Appends the Punycode encoding of `input` (without "xn--") to `out`; `false` on overflow.
  static func encode(_ input: UnsafeBufferPointer<UInt32>, into out: inout [UInt8]) -> Bool {
    var basicCount: UInt32 = 0
    for c in input where c < 0x80 {
      out.append(UInt8(truncatingIfNeeded: c))
      basicCount &+= 1
    }
    let total = UInt32(truncatingIfNeeded: input.count)
    if basicCount > 0 { out.append(UInt8(ascii: "-")) }
    var n = initialN
    var delta: UInt32 = 0
    var bias = initialBias
    var handled = basicCount
    while handled < total {
      var m = UInt32.max
      for c in input where c >= n && c < m { m = c }
      // delta += (m - n) * (handled + 1), checked.
      let (step, o1) = (m &- n).multipliedReportingOverflow(by: handled &+ 1)
      let (sum, o2) = delta.addingReportingOverflow(step)
      if o1 || o2 { return false }
      delta = sum
      n = m
      for c in input {
        if c < n {
          let (next, o) = delta.addingReportingOverflow(1)
          if o { return false }
          delta = next
        } else if c == n {
          var q = delta
          var k = base
          while true {
            let t = threshold(k, bias)
            if q < t { break }
            out.append(digit(t &+ (q &- t) % (base &- t)))
            q = (q &- t) / (base &- t)
            k &+= base
          }
          out.append(digit(q))
          bias = adapt(delta, handled &+ 1, first: handled == basicCount)
          delta = 0
          handled &+= 1
        }
      }
      let (next, o) = delta.addingReportingOverflow(1)
      if o || n == UInt32.max { return false }
      delta = next
      n &+= 1
    }
    return true
  }

  /// The code points `input` (ASCII, without "xn--") encodes, or `nil` when it is not valid Punycode.
  /// Decoded values are not checked to be Unicode scalars: the caller's validity check refuses them.
  static func decode<C: RandomAccessCollection<UInt32>>(_ input: C) -> [UInt32]? where C.Index == Int {
    let start = input.startIndex
    let end = input.endIndex
    // The basic code points are those before the last delimiter, if any.
    var delimiter = -1
    var j = start
    while j < end {
      if input[j] == 0x2D { delimiter = j }
      j &+= 1
    }
    var output: [UInt32] = []
    var inPos = start
    if delimiter > start {
      for k in start..<delimiter {
        guard input[k] < 0x80 else { return nil }
        output.append(input[k])
      }
      inPos = delimiter &+ 1
    }
    var n = initialN
    var i: UInt32 = 0
    var bias = initialBias
    while inPos < end {
      let oldI = i
      var w: UInt32 = 1
      var k = base
      while true {
        guard inPos < end else { return nil }
        let d = value(input[inPos])
        inPos &+= 1
        guard d < base else { return nil }
        let (dw, o1) = d.multipliedReportingOverflow(by: w)
        let (sum, o2) = i.addingReportingOverflow(dw)
        if o1 || o2 { return nil }
        i = sum
        let t = threshold(k, bias)
        if d < t { break }
        let (nextW, o3) = w.multipliedReportingOverflow(by: base &- t)
        if o3 { return nil }
        w = nextW
        k &+= base
      }
      let count = UInt32(truncatingIfNeeded: output.count &+ 1)
      bias = adapt(i &- oldI, count, first: oldI == 0)
      let (nextN, o) = n.addingReportingOverflow(i / count)
      if o || nextN > 0x10FFFF { return nil }
      n = nextN
      i %= count
      output.insert(n, at: Int(truncatingIfNeeded: i))
      i &+= 1
    }
    return output
  }
}
