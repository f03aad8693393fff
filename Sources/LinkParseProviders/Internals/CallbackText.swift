// How decoded results hold their values: the text they were decoded from (kept once, a reference to the
// URL's or body's own storage) and, for each value, a span of it named after the value
// (`VKIDSuccess.spans.deviceID`). `Substring`s and decoded `String`s are made when a value is read, so
// decoding a callback allocates nothing and retains its text once.

@_spi(Bytes) import LinkParseCore
import LinkParseBytes

/// Where a value lies in a ``CallbackText``: its raw bytes' UTF-8 offsets, and whether they need form-decoding
/// (they contain `%` or `+`). Eight bytes; ``absent`` for a value that was not sent.
///
/// ```swift
/// // text "code=a%2Fb&state=s":  code → ValueSpan(5, 10, needsDecoding: true)
/// ```
struct ValueSpan: Hashable, Sendable {
  /// Offsets are below 2³¹ (texts larger than 2 GiB are read only up to there).
  static let maxOffset = Int(Int32.max)

  /// The first byte, or `UInt32.max` when absent.
  private let start: UInt32
  /// The end (exclusive) in the low 31 bits; bit 31 set when the raw bytes need form-decoding.
  private let endAndFlag: UInt32

  /// No value.
  static let absent = ValueSpan(start: .max, endAndFlag: 0)

  private init(start: UInt32, endAndFlag: UInt32) {
    self.start = start
    self.endAndFlag = endAndFlag
  }

  /// The bytes `start..<end` (both at most ``maxOffset``).
  init(_ start: UInt32, _ end: UInt32, needsDecoding: Bool) {
    self.start = start
    self.endAndFlag = end | (needsDecoding ? 0x8000_0000 : 0)
  }

  var isAbsent: Bool { start == .max }
  /// The same bytes, kept as they are (never decoded): for values a result reads raw.
  var raw: ValueSpan { isAbsent ? self : ValueSpan(start, UInt32(upperBound), needsDecoding: false) }
  var lowerBound: Int { Int(start) }
  var upperBound: Int { Int(endAndFlag & 0x7FFF_FFFF) }
  var needsDecoding: Bool { endAndFlag & 0x8000_0000 != 0 }
}

/// The text a decoded result's values are read from: a URL's serialization or a form source's base string,
/// shared (not copied) with it.
///
/// ```swift
/// let text = CallbackText("code=a%2Fb", isASCII: true)
/// text.value(ValueSpan(5, 10, needsDecoding: true))  // "a/b"
/// ```
struct CallbackText: Sendable {
  /// The text.
  let string: String
  /// Whether ``string`` is known to be ASCII: slices then go through the UTF-16 view (see ``slice(_:_:_:ascii:)``).
  let isASCII: Bool

  init(_ string: String, isASCII: Bool) {
    self.string = string
    self.isASCII = isASCII
  }

  /// The raw (still form-encoded) bytes of `span`, or `nil` when it is absent.
  func raw(_ span: ValueSpan) -> Substring? {
    span.isAbsent ? nil : Self.slice(string, span.lowerBound, span.upperBound, ascii: isASCII)
  }

  /// The decoded value of `span`, or `nil` when it is absent: a slice of the text when nothing needs
  /// decoding, a decoded copy otherwise.
  func value(_ span: ValueSpan) -> Substring? { Self.value(span, in: string, ascii: isASCII) }

  /// ``value(_:)`` of a span of `string`.
  static func value(_ span: ValueSpan, in string: String, ascii: Bool) -> Substring? {
    guard !span.isAbsent else { return nil }
    guard span.needsDecoding else { return slice(string, span.lowerBound, span.upperBound, ascii: ascii) }
    return Substring(decodedString(span.lowerBound, span.upperBound, in: string))
  }

  /// `string`'s bytes `start..<end` (on scalar boundaries) form-decoded into a new `String` as
  /// `FormParameters.decode` makes it (`+` to space, `%XX` escapes, then UTF-8 with U+FFFD replacement),
  /// read in place: no index into `string` is made (a slice's two indices cost more than the decoding).
  static func decodedString(_ start: Int, _ end: Int, in string: String) -> String {
    withUTF8Bytes(string) { bytes in
      withFormDecoded(UnsafeBufferPointer(rebasing: bytes[start..<end])) { String(decoding: $0, as: UTF8.self) }
    }
  }

  /// `string`'s bytes `start..<end`, which lie on scalar boundaries (they are next to ASCII delimiters).
  ///
  /// When `string` is ASCII its UTF-16 offsets equal its UTF-8 ones, and the UTF-16 view's ASCII fast path
  /// makes indices already known to be scalar-aligned (as `ParsedURL` slices its components).
  static func slice(_ string: String, _ start: Int, _ end: Int, ascii: Bool) -> Substring {
    if ascii {
      let utf16 = string.utf16
      let lower = utf16.index(utf16.startIndex, offsetBy: start)
      let upper = utf16.index(lower, offsetBy: end &- start)
      return string[lower..<upper]
    }
    let utf8 = string.utf8
    let lower = utf8.index(utf8.startIndex, offsetBy: start)
    let upper = utf8.index(lower, offsetBy: end &- start)
    return string[lower..<upper]
  }

  /// Calls `body` with `span`'s bytes in the text, still form-encoded, as a view that decodes on demand;
  /// nothing when the span is absent. No `Substring` is made. `unflagged`: the span was stored as raw
  /// (``ValueSpan/raw``) although its bytes are to be decoded, so whether they need it is found by looking.
  func withDecodedBytes(_ span: ValueSpan, unflagged: Bool = false, _ body: (FormParameters.UnsafeDecodedBytes) -> Void) {
    guard !span.isAbsent else { return }
    withUTF8Bytes(string) { bytes in
      let start = bytes.baseAddress.map { $0 + span.lowerBound }
      let raw = UnsafeBufferPointer(start: start, count: span.upperBound &- span.lowerBound)
      let flag = unflagged || span.needsDecoding
      body(FormParameters.UnsafeDecodedBytes(raw: raw, encoding: .form, mayContainEscapes: flag, mayContainPlus: flag))
    }
  }

  /// A text holding values one after another (already decoded: none needs decoding again), and the span of
  /// each: how results made from values rather than decoded (their initializers, and their setters, which
  /// store all of a result's values anew) build their text.
  ///
  /// ```swift
  /// var builder = CallbackText.Builder()
  /// let code = builder.append("c")   // 0..<1
  /// let state = builder.append(nil)  // absent
  /// let scope = builder.append("s")  // 1..<2
  /// builder.text.string              // "cs"
  /// ```
  struct Builder {
    private var string = ""
    private var isASCII = true

    /// Appends `value` and gives its span; ``ValueSpan/absent`` for `nil`.
    mutating func append(_ value: Substring?) -> ValueSpan {
      guard let value else { return .absent }
      let start = string.utf8.count
      string += value
      isASCII = isASCII && value.utf8.allSatisfy { $0 < 0x80 }
      return ValueSpan(UInt32(start), UInt32(string.utf8.count), needsDecoding: false)
    }

    /// The text of the values appended so far.
    var text: CallbackText { CallbackText(string, isASCII: isASCII) }
  }
}
