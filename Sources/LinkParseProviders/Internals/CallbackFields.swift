// One pass over a callback's parameters that records everything the decoders and the pending-authorization
// checks read: for each known name, the first occurrence's raw value (as UTF-8 offsets into the text the
// parameters are part of), how often the name occurs and where its second occurrence is (duplicate
// detection in source order), and whether the value needs percent-decoding. Names are matched by their
// decoded bytes (form encoding, as `FormParameters.Parameter.hasName` does) against a fixed table; names
// without `%`/`+` are compared raw.
//
// Nothing is allocated and nothing is retained: the slots live in a fixed-size tuple, the scan runs over the
// text's bytes in place, sixteen bytes at a time, and values are read from those bytes (or sliced from the
// text) only when asked for.

import LinkParseCore

/// The parameters of one callback, scanned once.
///
/// Holds the text the parameters are part of (a URL's serialization, or a form source's base string) and,
/// for each ``Key``, where its value lies in that text. Pass it `borrowing`, or `inout` to a decoder (which
/// hands the text on to its result with ``takeText()``): a copy costs a retain of the text.
struct CallbackFields {

  /// The names the decoders and checks read.
  enum Key: Int, CaseIterable {
    case code, state, error, errorDescription, errorURI, iss, sessionState, deviceID, type, expiresIn, extID
    case vkMethod, payload, status, result, errorCode, cancelled, unavailable, authStatusCode, idToken, user

    /// The parameter name.
    var name: String {
      switch self {
      case .code: return "code"
      case .state: return "state"
      case .error: return "error"
      case .errorDescription: return "error_description"
      case .errorURI: return "error_uri"
      case .iss: return "iss"
      case .sessionState: return "session_state"
      case .deviceID: return "device_id"
      case .type: return "type"
      case .expiresIn: return "expires_in"
      case .extID: return "ext_id"
      case .vkMethod: return "vkconnect_auth_provider_method"
      case .payload: return "payload"
      case .status: return "status"
      case .result: return "result"
      case .errorCode: return "error_code"
      case .cancelled: return "cancelled"
      case .unavailable: return "unavailable"
      case .authStatusCode: return "auth_status_code"
      case .idToken: return "id_token"
      case .user: return "user"
      }
    }
  }

  /// What was found for one key.
  struct Slot {
    /// Start and end (UTF-8 offsets into the text) of the first occurrence's raw value; empty for a bare
    /// name.
    var start: UInt32 = 0
    var end: UInt32 = 0
    /// Occurrences, saturating.
    var count: UInt16 = 0
    /// Whether the first occurrence has a `=`.
    var hasValue = false
    /// Whether the first occurrence's raw value contains `%` or `+`.
    var needsDecoding = false
    /// Ordinal (among all parameters) of the second occurrence, when there is one.
    var secondOrdinal: UInt32 = .max

    /// The first occurrence's value as a span: absent unless it is non-empty (RFC 6749 §3.1).
    var span: ValueSpan {
      count > 0 && hasValue && end > start ? ValueSpan(start, end, needsDecoding: needsDecoding) : .absent
    }
  }

  fileprivate typealias Slots = (
    Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot,
    Slot, Slot, Slot
  )

  /// What one scan found: plain values, no references. About 350 bytes: it is filled in place and read
  /// slot by slot, never copied whole on the hot path.
  struct Scan {
    fileprivate var slots: Slots = (
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(),
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot()
    )
    /// Whether some name is `sberIDRedirect` in any ASCII letter case (decoded).
    var hasSberIDRedirect = false
    /// Bit `key.rawValue` set for each key that occurs more than once (so that duplicate checks cost one
    /// test when there are none).
    var repeated: UInt32 = 0
    /// Where the parameters lie in the text (UTF-8 offsets).
    var start: UInt32 = 0
    var end: UInt32 = 0

    /// Scans the parameters at `range` of `bytes` (the whole text). Offsets are limited to 31 bits (see
    /// ``ValueSpan``): parameters past the first 2 GiB of a text are not read.
    mutating func fill(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
      let end = min(range.upperBound, ValueSpan.maxOffset)
      let start = min(range.lowerBound, end)
      self.start = UInt32(truncatingIfNeeded: start)
      self.end = UInt32(truncatingIfNeeded: end)
      guard let base = bytes.baseAddress, start < end else { return }
      var seamless = false
      var repeated: UInt32 = 0
      withUnsafeMutableBytes(of: &slots) { raw in
        // A homogeneous tuple is laid out as an array.
        CallbackFields.scan(
          base, start, end, raw.baseAddress!.assumingMemoryBound(to: Slot.self), &seamless, &repeated)
      }
      hasSberIDRedirect = seamless
      self.repeated = repeated
    }

    /// The slot of `key`. A switch rather than pointer arithmetic: with a constant key (every call site but
    /// the scan) it folds to a field access.
    @inline(__always)
    func slot(_ key: Key) -> Slot {
      switch key {
      case .code: return slots.0
      case .state: return slots.1
      case .error: return slots.2
      case .errorDescription: return slots.3
      case .errorURI: return slots.4
      case .iss: return slots.5
      case .sessionState: return slots.6
      case .deviceID: return slots.7
      case .type: return slots.8
      case .expiresIn: return slots.9
      case .extID: return slots.10
      case .vkMethod: return slots.11
      case .payload: return slots.12
      case .status: return slots.13
      case .result: return slots.14
      case .errorCode: return slots.15
      case .cancelled: return slots.16
      case .unavailable: return slots.17
      case .authStatusCode: return slots.18
      case .idToken: return slots.19
      case .user: return slots.20
      }
    }

    /// Whether `key` occurs (with or without a value).
    func contains(_ key: Key) -> Bool { slot(key).count > 0 }

    /// Whether one of the keys that make a callback (``ProviderDetector/callbackKeys``) occurs.
    var hasCallbackKey: Bool {
      contains(.code) || contains(.error) || contains(.state) || contains(.idToken) || contains(.cancelled)
        || contains(.unavailable) || contains(.authStatusCode) || contains(.result) || contains(.status)
        || contains(.deviceID) || contains(.payload)
    }
  }

  /// The text the parameters are part of; slot offsets are its UTF-8 offsets.
  private(set) var text: String
  /// Whether ``text`` is known to be ASCII (a URL's serialization): values are then sliced through its UTF-16
  /// view, whose indices are known to be scalar-aligned (cheaper than the UTF-8 view's).
  let isASCII: Bool
  private let scan: Scan

  /// Whether some name is `sberIDRedirect` in any ASCII letter case (decoded).
  var hasSberIDRedirect: Bool { scan.hasSberIDRedirect }

  /// Fields already scanned from `text` (its last use: it is moved in, not retained).
  private init(text: String, isASCII: Bool, scan: borrowing Scan) {
    self.text = text
    self.isASCII = isASCII
    self.scan = copy scan
  }

  // The initializers below scan into a local `Scan` (plain bytes, copied once) rather than into `self`: a
  // closure that captured `self` would make the initializer build a temporary and copy it out, retaining the
  // text.

  /// Scans `parameters` once.
  init(_ parameters: FormParameters) {
    let source = parameters.source
    let text = source.base
    let utf8 = text.utf8
    let start = utf8.distance(from: utf8.startIndex, to: source.startIndex)
    let range = start..<(start &+ source.utf8.count)
    var scan = Scan()
    withUTF8Bytes(text) { scan.fill($0, range) }
    self.init(text: text, isASCII: false, scan: scan)
  }

  /// Scans a URL's callback parameters, `text` its serialization: the query, unless it has none of the
  /// callback keys and the fragment has some (``ProviderDetector/callbackParameters(of:)``).
  init(url text: String, query: Range<Int>?, fragment: Range<Int>?) {
    var scan = Scan()
    withUTF8Bytes(text) { bytes in
      scan.fill(bytes, query ?? 0..<0)
      guard let fragment, !scan.hasCallbackKey else { return }
      var inFragment = Scan()
      inFragment.fill(bytes, fragment)
      if inFragment.hasCallbackKey { scan = inFragment }
    }
    self.init(text: text, isASCII: true, scan: scan)  // a serialization is always ASCII
  }

  /// The parameters' text (a slice of ``text``).
  var source: Substring { slice(Int(scan.start), Int(scan.end)) }

  /// The parameters' region of ``text``, as a span (present even when empty).
  var sourceSpan: ValueSpan { ValueSpan(scan.start, scan.end, needsDecoding: false) }

  /// ``text``, for a result that reads its values from it: moved out of these fields (which are left with an
  /// empty text and must not be read again), so that the result holds the reference the fields held.
  mutating func takeText() -> CallbackText {
    var taken = ""
    swap(&taken, &text)
    return CallbackText(taken, isASCII: isASCII)
  }

  /// Calls `body` with the UTF-8 bytes of ``text``, in place.
  @inline(__always)
  func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { withUTF8Bytes(text, body) }

  @inline(__always)
  subscript(key: Key) -> Slot { scan.slot(key) }

  /// Whether `key` occurs (with or without a value).
  func contains(_ key: Key) -> Bool { self[key].count > 0 }

  /// Whether one of the keys that make a callback (``ProviderDetector/callbackKeys``) occurs.
  var hasCallbackKey: Bool { scan.hasCallbackKey }

  /// The first of `keys` whose second occurrence comes first in the source, if any occurs twice: what
  /// `FormParameters.firstDuplicate(among:)` returns.
  func firstDuplicate(_ keys: Key...) -> Key? { firstDuplicate(in: keys) }

  /// Throws `duplicate-parameter` naming the first repeated parameter among the critical ones — `code`,
  /// `state`, `error`, `iss`, `device_id` (RFC 6749 §3.1, the same list as `criticalParameters`) — and
  /// `extra` (a decoder's own, such as Apple's `id_token`), by where the repetition occurs in the source.
  func rejectDuplicates(also extra: Key? = nil, _ extra2: Key? = nil) throws(CallbackError) {
    let critical: UInt32 =
      1 << Key.code.rawValue | 1 << Key.state.rawValue | 1 << Key.error.rawValue | 1 << Key.iss.rawValue
      | 1 << Key.deviceID.rawValue
    let extras = (extra.map { UInt32(1) << $0.rawValue } ?? 0) | (extra2.map { UInt32(1) << $0.rawValue } ?? 0)
    guard scan.repeated & (critical | extras) != 0 else { return }
    // Unrolled over the fixed list (a variadic array would be allocated on every call).
    var found: Key?
    var foundOrdinal = UInt32.max
    @inline(__always) func consider(_ key: Key) {
      let slot = self[key]
      if slot.count > 1 && slot.secondOrdinal < foundOrdinal {
        found = key
        foundOrdinal = slot.secondOrdinal
      }
    }
    consider(.code)
    consider(.state)
    consider(.error)
    consider(.iss)
    consider(.deviceID)
    if let extra { consider(extra) }
    if let extra2 { consider(extra2) }
    if let found { throw CallbackError(.duplicateParameter, parameter: found.name) }
  }

  private func firstDuplicate(in keys: [Key]) -> Key? {
    var best: Key?
    var bestOrdinal = UInt32.max
    for key in keys {
      let slot = self[key]
      if slot.count > 1 && slot.secondOrdinal < bestOrdinal {
        best = key
        bestOrdinal = slot.secondOrdinal
      }
    }
    return best
  }

  /// The first occurrence's non-empty value as a span (absent when it is absent, bare or empty).
  func span(_ key: Key) -> ValueSpan { self[key].span }

  /// The first occurrence's raw value (`nil` when absent or bare).
  func rawValue(_ key: Key) -> Substring? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue else { return nil }
    return slice(Int(slot.start), Int(slot.end))
  }

  /// The first occurrence's decoded value, or `nil` when it is absent, bare or empty (RFC 6749 §3.1). A
  /// slice of the text when nothing needs decoding; otherwise a decoded copy.
  func value(_ key: Key) -> Substring? { CallbackText.value(span(key), in: text, ascii: isASCII) }

  /// Whether the first occurrence has a non-empty value.
  func isNonEmpty(_ key: Key) -> Bool {
    let slot = self[key]
    return slot.count > 0 && slot.hasValue && slot.end > slot.start
  }

  /// The first occurrence's decoded value as a `String`, or `nil` when it is absent, bare or empty.
  func string(_ key: Key) -> String? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue, slot.end > slot.start else { return nil }
    return FormParameters.decode(slice(Int(slot.start), Int(slot.end)))
  }

  /// Whether the first occurrence's decoded value (bare counts as `""`) equals `literal`, without
  /// allocating.
  func value(_ key: Key, equals literal: StaticString) -> Bool {
    let slot = self[key]
    guard slot.count > 0 else { return false }
    return withDecodedValue(slot) { decoded in
      guard decoded.count == literal.utf8CodeUnitCount else { return false }
      let l = literal.utf8Start
      for i in 0..<decoded.count where decoded[i] != l[i] { return false }
      return true
    }
  }

  /// Whether the first occurrence's decoded value (bare counts as `""`) is all ASCII.
  func valueIsASCII(_ key: Key) -> Bool {
    withDecodedValue(key) { bytes in !bytes.contains { $0 >= 0x80 } }
  }

  /// The first occurrence's decoded value as `FormParameters.Parameter.value()` gives it (`nil` when absent
  /// or bare).
  func valueString(_ key: Key) -> String? {
    rawValue(key).map { FormParameters.decode($0) }
  }

  /// Calls `body` with the decoded bytes of the first occurrence's value (empty for a bare name or an absent
  /// key).
  func withDecodedValue<R>(_ key: Key, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withDecodedValue(self[key], body)
  }

  @inline(__always)
  private func withDecodedValue<R>(_ slot: Slot, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withBytes { buf in
      let raw = UnsafeBufferPointer(rebasing: buf[Int(slot.start)..<Int(slot.end)])
      return slot.needsDecoding ? withFormDecoded(raw, body) : body(raw)
    }
  }

  @inline(__always)
  private func slice(_ start: Int, _ end: Int) -> Substring {
    CallbackText.slice(text, start, end, ascii: isASCII)
  }

  // MARK: Scanning

  /// Scans the parameters in `start..<end` of `base`, filling `slots` (indexed by ``Key/rawValue``).
  ///
  /// Safety: `base` is valid for `0..<end`; block loads read sixteen bytes at `i` only when `i + 16 <= end`,
  /// or the sixteen bytes ending at `end` only when `end >= 16` (see ``Delimiters``).
  private static func scan(
    _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ slots: UnsafeMutablePointer<Slot>,
    _ seamless: inout Bool, _ repeated: inout UInt32
  ) {
    var i = start
    var ordinal: UInt32 = 0
    while i < end {
      // One `name[=value]` sequence; empty ones are skipped.
      let name = Delimiters.find(Delimiters.NameEnd.self, base, from: i, to: end)
      let hasValue = name.index < end && base[name.index] == 0x3D
      if name.index == i && !hasValue {
        i &+= 1
        continue
      }
      let nameBytes = UnsafeBufferPointer(start: base + i, count: name.index &- i)
      let key: Key?
      if name.escaped {
        key = withFormDecoded(nameBytes) { decoded in
          if isSeamlessKey(decoded) { seamless = true }
          return lookup(decoded)
        }
      } else {
        if nameBytes.count == 14 && isSeamlessKey(nameBytes) { seamless = true }
        key = lookup(nameBytes)
      }
      let valueStart = hasValue ? name.index &+ 1 : name.index
      // Only a known key's value is checked for escapes.
      let value =
        !hasValue ? (index: name.index, escaped: false)
        : key != nil ? Delimiters.find(Delimiters.ValueEnd.self, base, from: valueStart, to: end)
        : Delimiters.find(Delimiters.SkippedValueEnd.self, base, from: valueStart, to: end)
      if let key {
        let slot = slots + key.rawValue
        if slot.pointee.count == 0 {
          slot.pointee.start = UInt32(truncatingIfNeeded: valueStart)
          slot.pointee.end = UInt32(truncatingIfNeeded: value.index)
          slot.pointee.hasValue = hasValue
          slot.pointee.needsDecoding = value.escaped
        } else if slot.pointee.count == 1 {
          slot.pointee.secondOrdinal = ordinal
          repeated |= 1 << key.rawValue
        }
        if slot.pointee.count < .max { slot.pointee.count &+= 1 }
      }
      ordinal &+= 1
      i = value.index &+ 1
    }
  }

  /// Whether `name` is `sberIDRedirect` in any ASCII letter case.
  private static func isSeamlessKey(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    guard name.count == 14 else { return false }
    let expected: StaticString = "sberidredirect"
    let e = expected.utf8Start
    for j in 0..<14 {
      var b = name[j]
      if b >= 0x41 && b <= 0x5A { b |= 0x20 }
      if b != e[j] { return false }
    }
    return true
  }

  @inline(__always)
  private static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    let l = literal.utf8Start
    for i in 0..<name.count where name[i] != l[i] { return false }
    return true
  }

  /// The key whose name is exactly `name`.
  private static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
    switch name.count {
    case 3: return equals(name, "iss") ? .iss : nil
    case 4:
      if equals(name, "code") { return .code }
      if equals(name, "type") { return .type }
      if equals(name, "user") { return .user }
      return nil
    case 5:
      if equals(name, "state") { return .state }
      if equals(name, "error") { return .error }
      return nil
    case 6:
      if equals(name, "status") { return .status }
      if equals(name, "result") { return .result }
      if equals(name, "ext_id") { return .extID }
      return nil
    case 7: return equals(name, "payload") ? .payload : nil
    case 8: return equals(name, "id_token") ? .idToken : nil
    case 9:
      if equals(name, "device_id") { return .deviceID }
      if equals(name, "error_uri") { return .errorURI }
      if equals(name, "cancelled") { return .cancelled }
      return nil
    case 10:
      if equals(name, "expires_in") { return .expiresIn }
      if equals(name, "error_code") { return .errorCode }
      return nil
    case 11: return equals(name, "unavailable") ? .unavailable : nil
    case 13: return equals(name, "session_state") ? .sessionState : nil
    case 16: return equals(name, "auth_status_code") ? .authStatusCode : nil
    case 17: return equals(name, "error_description") ? .errorDescription : nil
    case 30: return equals(name, "vkconnect_auth_provider_method") ? .vkMethod : nil
    default: return nil
    }
  }
}

/// Calls `body` with `raw` form-decoded (`+` to space, `%XX` escapes) into a temporary buffer.
func withFormDecoded<R>(_ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(raw.count, 1)) { out in
    var o = 0
    for byte in FormParameters.UnsafeDecodedBytes(raw: raw, encoding: .form) {
      out[o] = byte
      o &+= 1
    }
    return body(UnsafeBufferPointer(rebasing: out[..<o]))
  }
}

/// Finding the end of a name or value sixteen bytes at a time.
///
/// In this toolchain the `SIMD16<UInt8>` comparisons (`.==`, `.<`) and `pointwiseMin` go through generic
/// lane-by-lane code, while `^`, `&+`, `&` and `|` lower to single SSE2/NEON instructions. So a lane is
/// matched arithmetically: with `x = v ^ c` (zero exactly where `v == c`), the high bit of `(x &+ 0x7F) | x`
/// is clear exactly where `x` is zero (for `x` in 1...0x7F the sum reaches 0x80; for `x` ≥ 0x80 the `| x`
/// sets it). The block's 128 bits are then read as two `UInt64` words, whose set high bits (one per lane,
/// lane 0 lowest) `trailingZeroBitCount` finds.
enum Delimiters {
  private static let highBits: UInt64 = 0x8080_8080_8080_8080

  @inline(__always)
  private static func load16(_ base: UnsafePointer<UInt8>, _ i: Int) -> SIMD16<UInt8> {
    UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
  }

  /// High bit set in every lane that is not `c` (the other bits are noise).
  @inline(__always)
  private static func notEqual(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> {
    let x = v ^ SIMD16(repeating: c)
    return (x &+ SIMD16(repeating: 0x7F)) | x
  }

  /// The lanes of a block (high bit of each byte, lane 0 lowest; two words) that end a name or value, and
  /// those that hold an escape.
  @inline(__always)
  private static func classify(
    _ v: SIMD16<UInt8>, equals: Bool, escapes: Bool
  ) -> (stop0: UInt64, stop1: UInt64, escape0: UInt64, escape1: UInt64) {
    var notStop = notEqual(v, 0x26)  // &
    if equals { notStop = notStop & notEqual(v, 0x3D) }  // =
    let s = unsafeBitCast(notStop, to: SIMD2<UInt64>.self)
    guard escapes else { return (~s[0] & highBits, ~s[1] & highBits, 0, 0) }
    let e = unsafeBitCast(notEqual(v, 0x25) & notEqual(v, 0x2B), to: SIMD2<UInt64>.self)  // % +
    return (~s[0] & highBits, ~s[1] & highBits, ~e[0] & highBits, ~e[1] & highBits)
  }

  /// The first lane set in the two words, or 16.
  @inline(__always)
  private static func firstLane(_ w0: UInt64, _ w1: UInt64) -> Int {
    w0 != 0 ? w0.trailingZeroBitCount &>> 3 : (w1 != 0 ? 8 &+ (w1.trailingZeroBitCount &>> 3) : 16)
  }

  /// What ends a run, and whether escapes are tracked: a type per combination, so that ``find(_:_:from:to:)``
  /// is specialized for each with its flags folded.
  protocol Kind {
    /// `=` ends the run too (a name).
    static var equals: Bool { get }
    /// Whether a `%` or `+` before the end is reported.
    static var escapes: Bool { get }
  }
  /// A name: ends at `&` or `=`; escapes tracked.
  enum NameEnd: Kind {
    static var equals: Bool { true }
    static var escapes: Bool { true }
  }
  /// A known key's value: ends at `&`; escapes tracked.
  enum ValueEnd: Kind {
    static var equals: Bool { false }
    static var escapes: Bool { true }
  }
  /// Any other value: ends at `&`.
  enum SkippedValueEnd: Kind {
    static var equals: Bool { false }
    static var escapes: Bool { false }
  }

  /// The index of the first `&` (and, for a name, `=`) in `from..<end`, or `end`; and, when `K` tracks
  /// escapes, whether a `%` or `+` comes before it.
  ///
  /// Safety: `base` is valid for `0..<end`. Whole blocks are read at `i` with `i + 16 <= end`; the last
  /// partial block is read as the sixteen bytes ending at `end` (when `end >= 16`), its lanes before `i`
  /// ignored.
  @inline(__always)
  static func find<K: Kind>(
    _ kind: K.Type, _ base: UnsafePointer<UInt8>, from: Int, to end: Int
  ) -> (index: Int, escaped: Bool) {
    let equals = K.equals
    let escapes = K.escapes
    var i = from
    var escaped = false
    while i &+ 16 <= end {
      let m = classify(load16(base, i), equals: equals, escapes: escapes)
      let lane = firstLane(m.stop0, m.stop1)
      if escapes && firstLane(m.escape0, m.escape1) < lane { escaped = true }
      if lane < 16 { return (i &+ lane, escaped) }
      i &+= 16
    }
    guard i < end else { return (end, escaped) }
    if end >= 16 {
      // The block ending at `end`; its first `skip` lanes (1...15) were read already or precede `from`.
      let skip = i &- (end &- 16)
      var m = classify(load16(base, end &- 16), equals: equals, escapes: escapes)
      let keep0: UInt64 = skip < 8 ? ~0 &<< UInt64(skip &* 8) : 0
      let keep1: UInt64 = skip < 8 ? ~0 : ~0 &<< UInt64((skip &- 8) &* 8)
      m.stop0 &= keep0
      m.stop1 &= keep1
      let lane = firstLane(m.stop0, m.stop1)
      if escapes && firstLane(m.escape0 & keep0, m.escape1 & keep1) < lane { escaped = true }
      return (lane < 16 ? end &- 16 &+ lane : end, escaped)
    }
    while i < end {
      let b = base[i]
      if b == 0x26 || (equals && b == 0x3D) { return (i, escaped) }
      if escapes && (b == 0x25 || b == 0x2B) { escaped = true }
      i &+= 1
    }
    return (end, escaped)
  }
}
