// The package's one strict JSON reader (RFC 8259): a cursor over a contiguous buffer that reads one token at
// a time and reports where the text stops being JSON (`JSONSyntaxError`: a kind and a byte offset). Its
// callers are thin: `JSONValue`'s parser (LinkParseProviders) builds values, for LinkParseOAuth's
// `JSONValue.parse` and the providers' JSON decoders, and the command's `JSONRecordReader` reads
// `--input-format json` lines.
//
// The grammar lives here only: whitespace, strings (escapes, `\u` with surrogate pairs, UTF-8 validated with
// `UTF8Validation`), numbers, literals, nesting with a depth limit. Strings are skipped sixteen bytes
// at a time to the next byte that needs a look (`"`, `\`, a control, non-ASCII).
//
// Safe because: every read is `bytes[i]` after `i < bytes.count` is checked (a literal's letters after
// `index + length <= count`); the one wide read, sixteen bytes at `base + index` inside strings (x86-64),
// happens only when `index + 16 <= count`, and `Scan.jsonStringSpecial` is given the whole buffer;
// the ranges handed out lie inside the buffer, which the caller keeps alive while it reads.

public import CByteScan  // public: the inlinable scans call it from other modules

/// What a value is, from its first byte.
@usableFromInline package enum JSONToken: Sendable, Hashable {
  case object, array, string, number, `true`, `false`, null
}

/// A string the reader went over: its contents (between the quotes, escapes still in) and whether they
/// contain escapes.
@usableFromInline package struct JSONString: Sendable, Hashable {
  /// The bytes between the quotes.
  @usableFromInline package var range: Range<Int>
  /// Whether any backslash escape occurs (the contents are then not the string's bytes).
  @usableFromInline package var hasEscapes: Bool

  @inlinable package init(range: Range<Int>, hasEscapes: Bool) {
    self.range = range
    self.hasEscapes = hasEscapes
  }
}

/// A strict RFC 8259 reader over `bytes`, one token at a time.
///
/// ```swift
/// var reader = JSONReader(buffer, maximumDepth: 128)   // buffer: {"a": [1, "x"]}
/// reader.skipWhitespace()
/// if try reader.enter(.object) {
///   repeat {
///     let key = try reader.key()                       // range of `a`
///     try reader.colon()
///     try reader.skipValue()
///   } while try reader.next(.object)
/// }
/// try reader.expectEnd()
/// ```
@usableFromInline package struct JSONReader {
  /// The text.
  @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
  /// The read position.
  @usableFromInline package var index = 0
  /// How many containers are open.
  @usableFromInline package var depth = 0
  /// How deep containers may nest: the bracket that would open one more level is ``JSONSyntaxError/Kind/tooDeep``.
  @usableFromInline package let maximumDepth: Int
  /// Whether bytes above 0x7F in strings must be well-formed UTF-8 (`false`: they pass unchecked, and the
  /// caller repairs them when it makes a `String`).
  @usableFromInline package let validatesUTF8: Bool
  /// Whether a digit right after a leading `0` is ``JSONSyntaxError/Kind/leadingZero`` (`false`: the number
  /// ends at the `0`, and the digit is whatever the caller expects next).
  @usableFromInline package let diagnosesLeadingZeros: Bool
  /// Whether any string read so far had a `\u` escape.
  @usableFromInline package var sawUnicodeEscape = false

  @inlinable
  package init(
    _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, validatesUTF8: Bool = true,
    diagnosesLeadingZeros: Bool = true
  ) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
    self.validatesUTF8 = validatesUTF8
    self.diagnosesLeadingZeros = diagnosesLeadingZeros
  }

  /// The byte at the read position, `nil` at the end.
  @inline(__always)
  @inlinable package var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  @inlinable
  @inline(__always)
  func fail(_ kind: JSONSyntaxError.Kind, at offset: Int, start: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(kind, at: offset, start: start)
  }

  // MARK: Whitespace and structure

  /// Skips spaces, tabs, line feeds and carriage returns.
  @inlinable
  @inline(__always)
  package mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index &+= 1
      default: return
      }
    }
  }

  /// Only whitespace may follow: ``JSONSyntaxError/Kind/trailingData`` at the first other byte.
  @inlinable
  package mutating func expectEnd() throws(JSONSyntaxError) {
    skipWhitespace()
    if index < bytes.count { throw fail(.trailingData, at: index) }
  }

  /// What the value at the read position is (nothing consumed); ``JSONSyntaxError/Kind/expectedValue`` when
  /// no value starts there.
  @inlinable
  @inline(__always)
  package func value() throws(JSONSyntaxError) -> JSONToken {
    guard index < bytes.count else { throw fail(.expectedValue, at: index) }
    switch bytes[index] {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "t"): return .true
    case UInt8(ascii: "f"): return .false
    case UInt8(ascii: "n"): return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    default: throw fail(.expectedValue, at: index)
    }
  }

  /// At `{` or `[`: one level deeper (``JSONSyntaxError/Kind/tooDeep`` at the bracket past
  /// ``maximumDepth``), past the bracket and the whitespace after it. `false` when the container is empty:
  /// its closing bracket is consumed and the level left.
  @inlinable
  @inline(__always)
  package mutating func enter(_ container: JSONSyntaxError.Container) throws(JSONSyntaxError) -> Bool {
    guard depth < maximumDepth else { throw fail(.tooDeep, at: index) }
    depth &+= 1
    index &+= 1
    skipWhitespace()
    if index < bytes.count && bytes[index] == container.close {
      index &+= 1
      depth &-= 1
      return false
    }
    return true
  }

  /// After a member or element: whitespace, then `,` (and the whitespace after it: `true`, another one
  /// follows) or the closing bracket (`false`: the container is done and its level left).
  @inlinable
  @inline(__always)
  package mutating func next(_ container: JSONSyntaxError.Container) throws(JSONSyntaxError) -> Bool {
    skipWhitespace()
    guard index < bytes.count else { throw fail(.expectedCommaOrEnd(container), at: index) }
    let byte = bytes[index]
    if byte == UInt8(ascii: ",") {
      index &+= 1
      skipWhitespace()
      return true
    }
    guard byte == container.close else { throw fail(.expectedCommaOrEnd(container), at: index) }
    index &+= 1
    depth &-= 1
    return false
  }

  /// An object's key at the read position (after ``enter(_:)`` or ``next(_:)``).
  @inlinable
  @inline(__always)
  package mutating func key(pairingSurrogates: Bool = true) throws(JSONSyntaxError) -> JSONString {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail(.expectedKey, at: index) }
    return try string(pairingSurrogates: pairingSurrogates)
  }

  /// Whitespace, `:` and whitespace, between a key and its value.
  @inlinable
  @inline(__always)
  package mutating func colon() throws(JSONSyntaxError) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail(.expectedColon, at: index) }
    index &+= 1
    skipWhitespace()
  }

  /// Checks and skips the value at the read position, whatever it is. `pairingSurrogates: false` checks
  /// only the syntax of `\u` escapes (a caller that never decodes the value need not refuse a lone
  /// surrogate).
  @inlinable
  package mutating func skipValue(pairingSurrogates: Bool = true) throws(JSONSyntaxError) {
    switch try value() {
    case .object:
      guard try enter(.object) else { return }
      repeat {
        _ = try key(pairingSurrogates: pairingSurrogates)
        try colon()
        try skipValue(pairingSurrogates: pairingSurrogates)
      } while try next(.object)
    case .array:
      guard try enter(.array) else { return }
      repeat { try skipValue(pairingSurrogates: pairingSurrogates) } while try next(.array)
    case .string: _ = try string(pairingSurrogates: pairingSurrogates)
    case .number: _ = try number()
    case .true: try literal(.true)
    case .false: try literal(.false)
    case .null: try literal(.null)
    }
  }

  // MARK: Scalars

  /// The literal at the read position (its first letter already seen by ``value()``).
  @inlinable
  package mutating func literal(_ literal: JSONSyntaxError.Literal) throws(JSONSyntaxError) {
    let word: StaticString
    switch literal {
    case .true: word = "true"
    case .false: word = "false"
    case .null: word = "null"
    }
    let n = word.utf8CodeUnitCount
    let l = word.utf8Start
    if bytes.count &- index >= n {
      var j = 0
      while j < n && bytes[index &+ j] == l[j] { j &+= 1 }
      if j == n {
        index &+= n
        return
      }
    }
    var j = 0
    while index &+ j < bytes.count && bytes[index &+ j] == l[j] { j &+= 1 }
    throw fail(.invalidLiteral(literal), at: index &+ j, start: index)
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` at the read position (on `-` or a digit): the
  /// number's range.
  @inlinable
  package mutating func number() throws(JSONSyntaxError) -> Range<Int> {
    let start = index
    @inline(__always) func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] &- 0x30 < 10 }
    @inline(__always) func digits() { while isDigit(index) { index &+= 1 } }
    if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index &+= 1 }
    guard isDigit(index) else { throw fail(.expectedDigit(.integer), at: index) }
    if bytes[index] == UInt8(ascii: "0") {
      index &+= 1
      if diagnosesLeadingZeros && isDigit(index) { throw fail(.leadingZero, at: index &- 1) }
    } else {
      digits()
    }
    if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
      index &+= 1
      guard isDigit(index) else { throw fail(.expectedDigit(.fraction), at: index) }
      digits()
    }
    if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
      index &+= 1
      if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
        index &+= 1
      }
      guard isDigit(index) else { throw fail(.expectedDigit(.exponent), at: index) }
      digits()
    }
    return start..<index
  }

  /// The string at the read position (on its `"`), checked: no unescaped control, valid escapes, `\u`
  /// surrogates paired (unless `pairingSurrogates` is `false`), UTF-8 well-formed (when ``validatesUTF8``).
  @inlinable
  package mutating func string(pairingSurrogates: Bool = true) throws(JSONSyntaxError) -> JSONString {
    index &+= 1
    let start = index
    let count = bytes.count
    var escaped = false
    guard let base = bytes.baseAddress else { throw fail(.unterminatedString, at: index) }
    while true {
      // Plain ASCII runs are skipped sixteen bytes at a time: on x86-64 with SSE2 masks, in place (most
      // strings are short keys and values, and a call per string into Core's scan cost more than the scan).
      #if arch(x86_64)
      while index &+ 16 <= count {
        let mask = linkparse_mask16_json_string(base + index)
        if mask != 0 {
          index &+= mask.trailingZeroBitCount
          break
        }
        index &+= 16
      }
      while index < count && !Scan.isJSONStringSpecial(bytes[index]) { index &+= 1 }
      #else
      index = Scan.jsonStringSpecial(base, index, count)
      #endif
      guard index < count else { throw fail(.unterminatedString, at: count) }
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        let range = start..<index
        index &+= 1
        return JSONString(range: range, hasEscapes: escaped)
      case UInt8(ascii: "\\"):
        escaped = true
        try escape(pairingSurrogates: pairingSurrogates)
      case 0..<0x20:
        throw fail(.controlCharacter, at: index)
      case 0x80...:
        guard validatesUTF8 else {
          index &+= 1
          continue
        }
        let n = UTF8Validation.sequenceLength(bytes, at: index)
        guard n > 0 else { throw utf8Failure(at: index) }
        index &+= n
      default:
        index &+= 1
      }
    }
  }

  /// The escape at the read position (its backslash), checked.
  @inlinable
  mutating func escape(pairingSurrogates: Bool) throws(JSONSyntaxError) {
    let at = index
    guard index &+ 1 < bytes.count else { throw fail(.unterminatedString, at: bytes.count) }
    let letter = bytes[index &+ 1]
    index &+= 2
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
      UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      return
    case UInt8(ascii: "u"):
      sawUnicodeEscape = true
      let first = try hex4()
      guard pairingSurrogates else { return }
      if first >= 0xDC00 && first <= 0xDFFF { throw fail(.loneLowSurrogate(first), at: at) }
      guard first >= 0xD800 && first <= 0xDBFF else { return }
      guard index &+ 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index &+ 1] == UInt8(ascii: "u")
      else { throw fail(.loneHighSurrogate(first), at: at) }
      let secondAt = index
      index &+= 2
      let second = try hex4()
      guard second >= 0xDC00 && second <= 0xDFFF else {
        throw fail(.unpairedHighSurrogate(first), at: secondAt, start: at)
      }
    default:
      throw fail(.invalidEscape, at: at)
    }
  }

  /// Four hex digits at the read position.
  @inlinable
  mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
    var value: UInt16 = 0
    for _ in 0..<4 {
      guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
        throw fail(.expectedHexDigit, at: index)
      }
      value = value << 4 | UInt16(digit)
      index &+= 1
    }
    return value
  }

  @inlinable
  @inline(__always)
  static func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: return b &- 0x30
    case 0x41...0x46: return b &- 0x41 &+ 10
    case 0x61...0x66: return b &- 0x61 &+ 10
    default: return nil
    }
  }

  /// Where the ill-formed sequence at `i` goes wrong (`UTF8Validation.sequenceLength(bytes, at: i) == 0`):
  /// its lead byte, or the first continuation byte that no well-formed sequence has there. Each prefix is
  /// asked of `UTF8Validation` completed with 0x80 (a valid third and fourth byte after any lead).
  @inlinable
  func utf8Failure(at i: Int) -> JSONSyntaxError {
    let lead = bytes[i]
    // Table 3-7's lead bytes: C2–DF start two bytes, E0–EF three, F0–F4 four.
    let length = lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 0
    var probe: [UInt8] = [lead, 0x80, 0x80, 0x80]
    for k in 1..<max(length, 1) {
      guard i &+ k < bytes.count else { return fail(.invalidUTF8(.truncated), at: i &+ k) }
      probe[k] = bytes[i &+ k]
      let n = probe.withUnsafeBufferPointer {
        UTF8Validation.sequenceLength(UnsafeBufferPointer(rebasing: $0[..<length]), at: 0)
      }
      if n == 0 { return fail(.invalidUTF8(.inSequence(bytes[i &+ k])), at: i &+ k) }
    }
    return fail(.invalidUTF8(.cannotStart(lead)), at: i)
  }

  // MARK: Decoding

  /// The contents of `string` (read by ``string(pairingSurrogates:)`` with surrogates paired) as a
  /// `String`: from its bytes in place when it has no escapes, else decoded in `scratch` (reused). Bytes
  /// that are not UTF-8 (a reader that does not validate) become U+FFFD.
  @inlinable
  package func text(_ string: JSONString, scratch: inout [UInt8]) -> String {
    let contents = UnsafeBufferPointer(rebasing: bytes[string.range])
    guard string.hasEscapes else { return String(decoding: contents, as: UTF8.self) }
    scratch.removeAll(keepingCapacity: true)
    unescape(string, into: &scratch)
    return String(decoding: scratch, as: UTF8.self)
  }

  /// Appends the contents of `string` to `out` with its escapes decoded (a lone surrogate, which only a
  /// string read without pairing can hold, as U+FFFD).
  @inlinable
  package func unescape(_ string: JSONString, into out: inout [UInt8]) {
    var i = string.range.lowerBound
    let end = string.range.upperBound
    var run = i
    while i < end {
      guard bytes[i] == UInt8(ascii: "\\") else {
        i &+= 1
        continue
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
      let letter = bytes[i &+ 1]
      i &+= 2
      switch letter {
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = UInt32(hexAt(i))
        i &+= 4
        if scalar >= 0xD800 && scalar <= 0xDBFF && i &+ 6 <= end && bytes[i] == UInt8(ascii: "\\")
          && bytes[i &+ 1] == UInt8(ascii: "u")
        {
          let low = UInt32(hexAt(i &+ 2))
          if low >= 0xDC00 && low <= 0xDFFF {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            i &+= 6
          }
        }
        appendUTF8(Unicode.Scalar(scalar) ?? "\u{FFFD}", to: &out)
      default: out.append(letter)  // `"`, `\`, `/`
      }
      run = i
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<end]))
  }

  /// The four hex digits at `i` (checked when the string was read).
  @inlinable
  func hexAt(_ i: Int) -> UInt16 {
    var value: UInt16 = 0
    for k in 0..<4 { value = value << 4 | UInt16(Self.hexValue(bytes[i &+ k]) ?? 0) }
    return value
  }

  /// UTF-8 by hand (a `String` per escape would allocate).
  @inlinable
  func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
    let v = scalar.value
    switch v {
    case 0..<0x80:
      out.append(UInt8(v))
    case 0x80..<0x800:
      out.append(UInt8(0xC0 | v >> 6))
      out.append(UInt8(0x80 | v & 0x3F))
    case 0x800..<0x10000:
      out.append(UInt8(0xE0 | v >> 12))
      out.append(UInt8(0x80 | v >> 6 & 0x3F))
      out.append(UInt8(0x80 | v & 0x3F))
    default:
      out.append(UInt8(0xF0 | v >> 18))
      out.append(UInt8(0x80 | v >> 12 & 0x3F))
      out.append(UInt8(0x80 | v >> 6 & 0x3F))
      out.append(UInt8(0x80 | v & 0x3F))
    }
  }
}
