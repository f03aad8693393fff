// Lazy percent-decoding of a raw name or value, one byte at a time, without allocating.

// MARK: - PercentDecodedBytes

extension FormParameters {
  /// The bytes of a raw (percent-encoded) slice after `+` and `%XX` decoding, produced lazily one at a time
  /// without allocating. Invalid escapes (`%zz`, `%4`, a trailing `%`) yield their bytes unchanged. The bytes
  /// are not UTF-8 decoded: `%FF` yields `0xFF`.
  ///
  /// ```swift
  /// let bytes = FormParameters.PercentDecodedBytes("a+%41%zz")
  /// Array(bytes)  // [0x61, 0x20, 0x41, 0x25, 0x7A, 0x7A]
  /// bytes.elementsEqual("a A%zz".utf8)  // true
  /// ```
  public struct PercentDecodedBytes: Sequence, Sendable, Hashable {
    /// The raw slice.
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("%41").raw  // "%41"
    /// ```
    public var raw: Substring
    /// Whether `+` decodes to a space.
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("+", encoding: .percentEncoded).encoding  // .percentEncoded
    /// ```
    public var encoding: Encoding

    /// Makes a lazy decoded view of `raw`.
    ///
    /// ```swift
    /// Array(FormParameters.PercentDecodedBytes("x+y", encoding: .percentEncoded))  // [0x78, 0x2B, 0x79]
    /// ```
    public init(_ raw: Substring, encoding: Encoding = .form) {
      self.raw = raw
      self.encoding = encoding
    }

    /// Makes a lazy decoded view of `raw`.
    ///
    /// ```swift
    /// let raw = "%41+"
    /// Array(FormParameters.PercentDecodedBytes(raw))  // [0x41, 0x20]
    /// ```
    public init(_ raw: String, encoding: Encoding = .form) {
      self.init(raw[...], encoding: encoding)
    }

    /// Whether decoding changes anything: `raw` contains `%` (or `+` in ``Encoding/form``).
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("a+b").needsDecoding                            // true
    /// FormParameters.PercentDecodedBytes("a+b", encoding: .percentEncoded).needsDecoding // false
    /// ```
    public var needsDecoding: Bool { FormParameters.containsEscapes(raw, encoding: encoding) }

    /// A lower bound on the number of decoded bytes (each escape shrinks 3 bytes to 1).
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("%41%42").underestimatedCount  // 2
    /// ```
    public var underestimatedCount: Int { (raw.utf8.count &+ 2) / 3 }

    /// Returns an iterator over the decoded bytes.
    ///
    /// ```swift
    /// var it = FormParameters.PercentDecodedBytes("%7E").makeIterator()
    /// it.next()  // 0x7E
    /// ```
    public func makeIterator() -> Iterator {
      Iterator(raw: raw, form: encoding == .form)
    }

    /// Iterates over the decoded bytes.
    ///
    /// ```swift
    /// var it = FormParameters.PercentDecodedBytes("%").makeIterator()
    /// it.next()  // 0x25
    /// it.next()  // nil
    /// ```
    public struct Iterator: IteratorProtocol, Sendable {
      internal var raw: Substring
      internal var offset: Int
      internal let count: Int
      internal let form: Bool

      internal init(raw: Substring, form: Bool) {
        self.raw = raw
        self.offset = 0
        self.count = raw.utf8.count
        self.form = form
      }

      /// The next decoded byte, or `nil` at the end.
      ///
      /// ```swift
      /// var it = FormParameters.PercentDecodedBytes("+").makeIterator()
      /// it.next()  // 0x20
      /// ```
      public mutating func next() -> UInt8? {
        let count = self.count
        var i = offset
        guard i < count else { return nil }
        let form = self.form
        let byte = raw.withUTF8 { buf in FormParameters.decodedByte(buf, at: &i, end: count, form: form) }
        offset = i
        return byte
      }
    }
  }
}
