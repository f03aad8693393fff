// The byte-level work behind FormParameters: splitting pairs, escape detection, decoding, encoding, UTF-8
// validation. Internal to the module.
public import LinkParseBytes

// MARK: - Internals

extension FormParameters {
  internal static var ampersand: UInt8 { 0x26 }
  internal static var equalsSign: UInt8 { 0x3D }
  internal static var percentSign: UInt8 { 0x25 }
  internal static var plusSign: UInt8 { 0x2B }
  internal static var space: UInt8 { 0x20 }

  /// Slices `source` at a pair's offsets. O(1) for native strings.
  internal static func makeParameter(_ source: Substring, _ pair: FormPair) -> Parameter {
    let utf8 = source.utf8
    let base = utf8.startIndex
    let nameStart = utf8.index(base, offsetBy: pair.nameStart)
    let nameEnd = utf8.index(nameStart, offsetBy: pair.nameEnd &- pair.nameStart)
    guard pair.hasValue else {
      return Parameter(rawName: source[nameStart..<nameEnd], rawValue: nil)
    }
    let valueStart = utf8.index(after: nameEnd)
    let valueEnd = utf8.index(valueStart, offsetBy: pair.end &- pair.nameEnd &- 1)
    return Parameter(rawName: source[nameStart..<nameEnd], rawValue: source[valueStart..<valueEnd])
  }

  /// `source`, made contiguous UTF-8 if it is not already (only bridged strings are not).
  internal static func contiguous(_ source: Substring) -> Substring {
    if source.isContiguousUTF8 { return source }
    var copy = source
    copy.makeContiguousUTF8()
    return copy
  }

  /// Calls `body` with the UTF-8 bytes of the whole ``text`` (the source is `start..<end` of them), in place.
  @inlinable @inline(__always)
  internal func withTextBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    // Borrowed (a `var` copy for `withUTF8` cost a retain and a release). `text` is always contiguous UTF-8;
    // the copy is for safety only.
    if let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = text
    return try copy.withUTF8(body)
  }

  /// Calls `body` with the source's UTF-8 bytes (offsets from the source's start), in place.
  @inlinable @inline(__always)
  internal func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    let (start, end) = (self.start, self.end)
    return try withTextBytes { text in try body(UnsafeBufferPointer(rebasing: text[start..<end])) }
  }

  /// Calls `body` with the UTF-8 bytes of `string`, in place when possible.
  @inline(__always)
  internal static func withBytes<R>(_ string: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var string = string
    return string.withUTF8(body)
  }

  /// Calls `body` with the UTF-8 bytes of a lookup key, in place when possible.
  /// (In a specialized caller the casts fold away; other `StringProtocol` types are copied once.)
  @inlinable
  @inline(__always)
  internal static func withKeyBytes<R>(_ key: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if var string = key as? String { return string.withUTF8(body) }
    if var substring = key as? Substring { return substring.withUTF8(body) }
    var copy = String(key)
    return copy.withUTF8(body)
  }

  /// Whether the serializer leaves `byte` as it is: ASCII alphanumerics and `*-._` (outside the
  /// application/x-www-form-urlencoded percent-encode set).
  @inline(__always)
  internal static func isFormUnreserved(_ byte: UInt8) -> Bool { !ByteSet.formURLEncoded.contains(byte) }

  internal static func containsEscapes(_ raw: Substring, encoding: Encoding) -> Bool {
    withBytes(raw) { containsEscapes($0, form: encoding == .form) }
  }

  @inline(__always)
  internal static func containsEscapes(_ buf: UnsafeBufferPointer<UInt8>, form: Bool) -> Bool {
    if form {
      for byte in buf where byte == percentSign || byte == plusSign { return true }
    } else {
      for byte in buf where byte == percentSign { return true }
    }
    return false
  }

  /// Whether `key` contains U+FFFD (EF BF BD), which a decoded name can produce from invalid UTF-8.
  internal static func containsReplacement(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
    guard key.count >= 3 else { return false }
    var i = 0
    while i &+ 2 < key.count {
      if key[i] == 0xEF && key[i &+ 1] == 0xBF && key[i &+ 2] == 0xBD { return true }
      i &+= 1
    }
    return false
  }

  /// The decoded byte at `i` — a valid `%XX` escape's value, a space for `+` in form encoding, else the
  /// byte itself — advancing `i` past what it read (three bytes or one). `i < end`.
  @inlinable @inline(__always)
  internal static func decodedByte(_ buf: UnsafeBufferPointer<UInt8>, at i: inout Int, end: Int, form: Bool) -> UInt8 {
    let byte = buf[i]
    i &+= 1
    if byte == 0x25 {
      if i &+ 1 < end && isASCIIHexDigit(buf[i]) && isASCIIHexDigit(buf[i &+ 1]) {
        let value = LinkParseBytes.hexValue(buf[i]) &<< 4 | LinkParseBytes.hexValue(buf[i &+ 1])
        i &+= 2
        return value
      }
      return byte
    }
    return form && byte == 0x2B ? 0x20 : byte
  }

  /// Whether `buf[start..<end]`, decoded, equals the name whose UTF-8 bytes are `key`. Allocates only when
  /// the bytes differ, `key` contains U+FFFD and the raw name has escapes (invalid UTF-8 may decode to it).
  @inline(__always)
  internal static func decodedEquals(
    _ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
    key: UnsafeBufferPointer<UInt8>, keyHasReplacement: Bool, form: Bool
  ) -> Bool {
    let keyCount = key.count
    // Decoding only shrinks: an escape turns 3 bytes into 1.
    if keyCount > end &- start { return false }
    var i = start
    var j = 0
    var equal = true
    while i < end {
      let byte = decodedByte(buf, at: &i, end: end, form: form)
      if j == keyCount || key[j] != byte {
        equal = false
        break
      }
      j &+= 1
    }
    if equal && j == keyCount { return true }
    guard keyHasReplacement else { return false }
    // The decoded bytes may be invalid UTF-8 that decodes to U+FFFD: compare the decoded strings.
    let raw = UnsafeBufferPointer(rebasing: buf[start..<end])
    guard containsEscapes(raw, form: false) else { return false }
    let decoded = String(unsafeUninitializedCapacity: raw.count) { decode(raw, into: $0, form: form) }
    return decoded.utf8.elementsEqual(key)
  }

  /// Appends the form-encoding of `string` to `out`.
  internal static func appendFormEncoded(_ string: some StringProtocol, to out: inout [UInt8]) {
    for byte in string.utf8 {
      if isFormUnreserved(byte) {
        out.append(byte)
      } else if byte == space {
        out.append(plusSign)
      } else {
        out.append(percentSign)
        out.append(LinkParseBytes.hexDigit(byte &>> 4))
        out.append(LinkParseBytes.hexDigit(byte & 0x0F))
      }
    }
  }

  /// A source string for a POST body: the bytes themselves when they are valid UTF-8, otherwise the bytes
  /// with every byte outside a valid UTF-8 sequence written as `%XX`.
  internal static func sourceString(fromBody buf: UnsafeBufferPointer<UInt8>) -> String {
    let count = buf.count
    var invalid = 0
    var i = 0
    while i < count {
      if buf[i] < 0x80 {
        i &+= 1
        continue
      }
      let length = UTF8Validation.sequenceLength(buf, at: i)
      if length == 0 {
        invalid &+= 1
        i &+= 1
      } else {
        i &+= length
      }
    }
    if invalid == 0 { return String(decoding: buf, as: UTF8.self) }
    return String(unsafeUninitializedCapacity: count &+ 2 &* invalid) { out in
      var i = 0
      var o = 0
      while i < count {
        let byte = buf[i]
        let length = byte < 0x80 ? 1 : UTF8Validation.sequenceLength(buf, at: i)
        if length == 0 {
          out[o] = percentSign
          out[o &+ 1] = LinkParseBytes.hexDigit(byte &>> 4)
          out[o &+ 2] = LinkParseBytes.hexDigit(byte & 0x0F)
          o &+= 3
          i &+= 1
        } else {
          for k in 0..<length { out[o &+ k] = buf[i &+ k] }
          o &+= length
          i &+= length
        }
      }
      return o
    }
  }
}
