// Allocation-free iteration over parameters as byte views of the source, for hot paths. A
// `FormParameters.Parameter` holds two `Substring`s, which cost a few dozen instructions each to make;
// these views cost nothing until they are read.
//
// Byte-level API: behind `@_spi(Bytes)` (`@_spi(Bytes) import LinkParseCore`), for LinkParse's own modules,
// benchmarks and fuzzers. Applications use `FormParameters`' `Parameter`s, `value(for:)` and `values(for:)`.
import LinkParseBytes

extension FormParameters {

  /// A parameter's name or value as it appears in the source, percent-decoded on demand.
  ///
  /// It views the source's bytes in place and is valid only inside the closure that received it: do not
  /// store it or let it escape. Reading ``count`` scans for escapes; iterating decodes byte by byte;
  /// ``string`` makes a `String` (the only step that may allocate).
  ///
  /// ```swift
  /// FormParameters("name=J%C3%B6rg+K").forEachDecoded { name, value in
  ///   value?.count   // 6
  ///   value?.string  // "Jörg K"
  /// }
  /// ```
  @_spi(Bytes) public struct UnsafeDecodedBytes: Sequence {
    /// The raw (still encoded) bytes.
    public let raw: UnsafeBufferPointer<UInt8>
    /// How `+` is read.
    public let encoding: Encoding
    /// False when the bytes are known to contain no '%' (then ``count`` is `raw.count`).
    @usableFromInline package let mayContainEscapes: Bool
    /// False when the bytes are known to contain no '+'.
    @usableFromInline package let mayContainPlus: Bool

    @inlinable
    public init(raw: UnsafeBufferPointer<UInt8>, encoding: Encoding) {
      self.raw = raw
      self.encoding = encoding
      self.mayContainEscapes = true
      self.mayContainPlus = true
    }

    /// A view whose bytes are known to contain no `%` (`mayContainEscapes` false) or no `+`
    /// (`mayContainPlus` false): what a scan that already looked at them can say.
    @inlinable
    package init(raw: UnsafeBufferPointer<UInt8>, encoding: Encoding, mayContainEscapes: Bool, mayContainPlus: Bool) {
      self.raw = raw
      self.encoding = encoding
      self.mayContainEscapes = mayContainEscapes
      self.mayContainPlus = mayContainPlus
    }

    /// Whether decoding changes anything (the raw bytes contain `%`, or `+` in form encoding).
    @inlinable
    public var needsDecoding: Bool {
      let form = encoding == .form && mayContainPlus
      if !mayContainEscapes && !form { return false }
      for b in raw where b == 0x25 || (form && b == 0x2B) { return true }
      return false
    }

    /// The number of decoded bytes: the raw count less two for every valid `%XX` escape.
    @inlinable
    public var count: Int { mayContainEscapes ? countingEscapes : raw.count }

    /// ``count`` when the bytes may contain escapes.
    @usableFromInline
    var countingEscapes: Int {
      // Byte by byte: the values that hold escapes are short, and a scan call to each `%` cost more (about
      // 110 instructions a call, several a value, against 5 a byte here).
      let end = raw.count
      var n = end
      var i = 0
      while i &+ 2 < end {
        if raw[i] == 0x25 && isASCIIHexDigit(raw[i &+ 1]) && isASCIIHexDigit(raw[i &+ 2]) {
          n &-= 2
          i &+= 3
        } else {
          i &+= 1
        }
      }
      return n
    }

    /// The decoded bytes as a `String` (UTF-8, invalid sequences replaced by U+FFFD).
    public var string: String {
      if !needsDecoding { return String(decoding: raw, as: UTF8.self) }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(raw.count)
      for b in self { bytes.append(b) }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// Calls `body` with the decoded bytes: the raw bytes themselves when decoding changes nothing, else a
    /// temporary buffer (on the stack when small) — without making a `String`. The bytes may be invalid UTF-8
    /// (an escape can decode to anything). Valid only inside `body`.
    ///
    /// ```swift
    /// FormParameters("q=a%20b").forEachDecoded { _, value in
    ///   value?.withDecodedBytes { Array($0) }  // [0x61, 0x20, 0x62]
    /// }
    /// ```
    @inlinable  // specialized in the caller: unspecialized, the generic result costs runtime metadata lookups
    public func withDecodedBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
      guard needsDecoding else { return try body(raw) }
      return try FormParameters.withDecoded(raw, form: encoding == .form, body)
    }

    /// Whether the decoded bytes equal `other`'s UTF-8 bytes.
    public static func == (lhs: UnsafeDecodedBytes, rhs: some StringProtocol) -> Bool {
      var iterator = lhs.makeIterator()
      for b in rhs.utf8 {
        guard iterator.next() == b else { return false }
      }
      return iterator.next() == nil
    }

    @inlinable
    public func makeIterator() -> Iterator { Iterator(raw: raw, form: encoding == .form) }

    /// Decodes one byte at a time.
    public struct Iterator: IteratorProtocol {
      @usableFromInline let raw: UnsafeBufferPointer<UInt8>
      @usableFromInline let form: Bool
      @usableFromInline var index = 0

      @inlinable
      init(raw: UnsafeBufferPointer<UInt8>, form: Bool) {
        self.raw = raw
        self.form = form
      }

      @inlinable
      public mutating func next() -> UInt8? {
        let end = raw.count
        guard index < end else { return nil }
        return FormParameters.decodedByte(raw, at: &index, end: end, form: form)
      }
    }
  }

  /// Calls `body` for each parameter in order, with its name and value (`nil` for a bare key) as views that
  /// decode on demand — without allocating and without making substrings.
  ///
  /// The views are valid only inside `body`.
  ///
  /// ```swift
  /// var total = 0
  /// try ParsedURL("https://a.ru/cb?code=x%2By&state=s").queryParameters.forEachDecoded { name, value in
  ///   total += name.count + (value?.count ?? 0)
  /// }
  /// ```
  @inlinable @inline(__always)
  @_spi(Bytes) public func forEachDecoded(
    encoding: Encoding = .form, _ body: (UnsafeDecodedBytes, UnsafeDecodedBytes?) throws -> Void
  ) rethrows {
    // Inlined: `body` runs in the scanner's loop (a closure call per pair cost more than the pair).
    // `rethrows` rather than typed throws: a generic error type here costs a runtime metadata lookup per
    // call, more than the iteration itself.
    let (start, end) = (self.start, self.end)
    try withTextBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var pairs = FormPairScanner(base, from: start, to: end)
      try pairs.forEach { pair in
        // The scanner saw every '%' and '+': each view knows whether it needs decoding at all (most do not).
        let name = UnsafeDecodedBytes(
          base, from: pair.nameStart, to: pair.nameEnd, flags: pair.nameFlags, encoding: encoding)
        guard pair.hasValue else { return try body(name, nil) }
        try body(
          name, UnsafeDecodedBytes(base, from: pair.valueStart, to: pair.end, flags: pair.valueFlags, encoding: encoding))
      }
    }
  }
}
