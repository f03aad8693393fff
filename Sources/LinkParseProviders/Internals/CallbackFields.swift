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

@_spi(Bytes) public import LinkParseCore
import LinkParseBytes

/// The parameters of one callback, scanned once.
///
/// Holds the text the parameters are part of (a URL's serialization, or a form source's base string) and,
/// for each ``Key``, where its value lies in that text. Pass it `inout` (a decoder hands the text on to its
/// result with ``takeText()``): a copy costs a retain of the text and a `memcpy` of ~400 bytes, and a
/// function that borrows it from a caller's `inout` gets a copy unless it is inlined (so the checks on the hot
/// path take it `inout`, or are inlined with their rare cases out of line).
struct CallbackFields {

  /// The names the decoders and checks read.
  enum Key: Int, CaseIterable {
    case code, state, error, errorDescription, errorURI, iss, sessionState, deviceID, type, expiresIn, extID
    case vkMethod, payload, status, result, errorCode, cancelled, unavailable, authStatusCode, idToken, user
    case accessToken, tokenType, scope

    /// This key's bit in a mask of keys (``Scan/repeated``, ``rejectDuplicates(also:)``).
    @inline(__always)
    var bit: UInt32 { 1 << UInt32(rawValue) }

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
      case .accessToken: return "access_token"
      case .tokenType: return "token_type"
      case .scope: return "scope"
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

  typealias Slots = (
    Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot,
    Slot, Slot, Slot, Slot, Slot, Slot
  )

  /// What one scan found: plain values, no references. About 400 bytes: it is filled in place and read
  /// slot by slot, never copied whole on the hot path.
  struct Scan {
    var slots: Slots = (
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(),
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot()
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
      var recorder = PairRecorder()
      withSlots { slots in
        var pairs = FormPairScanner(base, from: start, to: end)
        pairs.forEach { recorder.add(base, slots, $0) }
      }
      hasSberIDRedirect = recorder.seamless
      repeated = recorder.repeated
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
      case .accessToken: return slots.21
      case .tokenType: return slots.22
      case .scope: return slots.23
      }
    }

    /// Whether `key` occurs (with or without a value).
    func contains(_ key: Key) -> Bool { slot(key).count > 0 }

    /// Whether one of the keys that make a callback (``ProviderDetector/callbackKeys``) occurs.
    var hasCallbackKey: Bool {
      contains(.code) || contains(.error) || contains(.state) || contains(.idToken) || contains(.cancelled)
        || contains(.unavailable) || contains(.authStatusCode) || contains(.result) || contains(.status)
        || contains(.deviceID) || contains(.payload) || contains(.accessToken)
    }
  }

  /// The text the parameters are part of; slot offsets are its UTF-8 offsets.
  private(set) var text: String
  /// Whether ``text`` is known to be ASCII (a URL's serialization): values are then sliced through its UTF-16
  /// view, whose indices are known to be scalar-aligned (cheaper than the UTF-8 view's).
  let isASCII: Bool
  private var scan: Scan

  /// Whether some name is `sberIDRedirect` in any ASCII letter case (decoded).
  var hasSberIDRedirect: Bool { scan.hasSberIDRedirect }

  // The initializers scan into `self.scan` before storing `text`, whose last use is then the store: it is
  // moved, not retained. (A closure capturing `self` would make them build a temporary and copy it out.)

  /// Scans `parameters` once.
  init(_ parameters: FormParameters) {
    let (text, bounds) = parameters.textAndBounds
    isASCII = false
    scan = Scan()
    Self.fill(&scan, text, bounds, fragment: nil)
    self.text = text
  }

  /// Scans a URL's callback parameters, `text` its serialization: the query, unless it has none of the
  /// callback keys and the fragment has some (``ProviderDetector/callbackParameters(of:)``).
  ///
  /// Inlined, so that the scan fills the caller's variable in place (an initializer's result is otherwise
  /// built aside and copied out, ~400 bytes).
  @inline(__always)
  init(url text: String, query: Range<Int>?, fragment: Range<Int>?) {
    isASCII = true  // a serialization is always ASCII
    scan = Scan()
    Self.fill(&scan, text, query ?? 0..<0, fragment: fragment)
    self.text = text
  }

  /// ``init(url:query:fragment:)`` with the query already scanned by the caller (``CallbackQueryScan``).
  @inline(__always)
  init(url text: String, scannedQuery: inout CallbackQueryScan, fragment: Range<Int>?) {
    isASCII = true
    scannedQuery.finish()
    scan = scannedQuery.scan
    if let fragment, !scan.hasCallbackKey { Self.fillFromFragment(&scan, text, fragment) }
    self.text = text
  }

  /// Scans `range` of `text` into `scan`; then, when it holds no callback key, `fragment` instead if that
  /// holds one.
  private static func fill(_ scan: inout Scan, _ text: String, _ range: Range<Int>, fragment: Range<Int>?) {
    withUTF8Bytes(text) { bytes in
      scan.fill(bytes, range)
      guard let fragment, !scan.hasCallbackKey else { return }
      var inFragment = Scan()
      inFragment.fill(bytes, fragment)
      if inFragment.hasCallbackKey { scan = inFragment }
    }
  }

  /// `fragment` of `text` scanned into `scan` when it holds a callback key (and `scan`, a query's, none).
  @inline(never)
  private static func fillFromFragment(_ scan: inout Scan, _ text: String, _ fragment: Range<Int>) {
    withUTF8Bytes(text) { bytes in
      var inFragment = Scan()
      inFragment.fill(bytes, fragment)
      if inFragment.hasCallbackKey { scan = inFragment }
    }
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
  /// `extra` (a decoder's own: every other parameter it reads to decide the outcome, such as VK's `type` or
  /// Sber's `status`; ``Key/bit``s or'ed together), by where the repetition occurs in the source. A repeat is
  /// rejected whatever the order of the values: which one a decoder would read must never decide the outcome.
  ///
  /// Inlined: the test that finds no repetition is one `and`; the search for the first one is out of line.
  /// `mutating` though it changes nothing: a non-inlined borrow of these fields (~400 bytes) from a caller's
  /// `inout` copies them whole, even where only the rare path uses them, while `inout` passes their address.
  @inline(__always)
  mutating func rejectDuplicates(also extra: UInt32 = 0) throws(CallbackError) {
    let critical = Key.code.bit | Key.state.bit | Key.error.bit | Key.iss.bit | Key.deviceID.bit
    let repeated = scan.repeated & (critical | extra)
    guard repeated != 0 else { return }
    try throwFirstDuplicate(repeated)
  }

  /// ``rejectDuplicates(also:)`` once some of the keys in `repeated` (a mask of ``Key/bit``s) are known to
  /// repeat: throws for the one whose second occurrence comes first in the source.
  @inline(never)
  private func throwFirstDuplicate(_ repeated: UInt32) throws(CallbackError) {
    var found: Key?
    var foundOrdinal = UInt32.max
    var bits = repeated
    while bits != 0 {
      let raw = bits.trailingZeroBitCount
      bits &= bits &- 1
      guard let key = Key(rawValue: raw) else { continue }
      let slot = self[key]
      if slot.count > 1 && slot.secondOrdinal < foundOrdinal {
        found = key
        foundOrdinal = slot.secondOrdinal
      }
    }
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

  // MARK: Rare paths of the checks (out of line)

  /// Whether these are one of the Sber apps' state-less error grammars, which the decoder certainly reads as a
  /// failure: Android `result=FAILURE` or a non-empty `error_code`, iOS `status=fail` (with its `error`).
  @inline(never)
  mutating func isStatelessSberError() -> Bool {
    value(.result, equals: "FAILURE") || isNonEmpty(.errorCode)
      || isNonEmpty(.status) && withDecodedValue(.status, SberIDCallback.isFailStatus(bytes:))
  }

  /// The error the provider reported in these parameters, for a rejection to carry
  /// (``CallbackError/providerError``): `error` (as ``ProviderError`` reads it), else a non-empty
  /// `error_code` (the Sber Android app's) as the code.
  @inline(never)
  mutating func reportedProviderError() -> ProviderError? {
    if let error = ProviderError(&self) { return error }
    if let errorCode = string(.errorCode) { return ProviderError(code: OAuthErrorCode(rawValue: errorCode)) }
    return nil
  }

  /// A `state-mismatch` for these parameters, carrying the provider's error when they hold one.
  @inline(never)
  mutating func stateMismatch(found: String?) -> CallbackError {
    CallbackError(.stateMismatch, parameter: "state", found: found, providerError: reportedProviderError())
  }

  /// The `oauth.state` of a VK SDK 1.x `payload` (non-empty), or `nil` when there is no payload, it is not
  /// valid JSON, or it has no state.
  @inline(never)
  func legacyPayloadState() -> String? {
    guard let json = string(.payload), let decoded = JSONSupport.decodeVKPayload(json) else { return nil }
    return decoded.state.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Whether the `payload` is VK SDK 1.x JSON the decoder reads (whatever its state).
  @inline(never)
  func legacyPayloadIsJSON() -> Bool {
    guard let json = string(.payload) else { return false }
    return JSONSupport.decodeVKPayload(json) != nil
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
  ///
  /// Made from the text's bytes in place (``CallbackText/decodedString(_:_:in:)``), as
  /// `FormParameters.decode` makes it, without slicing the text.
  func string(_ key: Key) -> String? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue, slot.end > slot.start else { return nil }
    return CallbackText.decodedString(Int(slot.start), Int(slot.end), in: text)
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

  /// Whether the first occurrence's raw value (still form-encoded) is exactly `bytes` (false when it is absent or
  /// bare).
  @inline(__always)
  func rawValue(_ key: Key, is bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue, Int(slot.end &- slot.start) == bytes.count else { return false }
    return withBytes { buf in Words.equal(buf, at: Int(slot.start), bytes) }
  }

  /// Calls `body` with the decoded bytes of the first occurrence's value (empty for a bare name or an absent
  /// key).
  @inline(__always)
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

  // MARK: Recording

  /// What a scan records of each non-empty pair, in order: the known names' first values, counts and second
  /// occurrences, and whether a name is `sberIDRedirect`. Shared by the scan above and by callers that split
  /// the pairs themselves (``CallbackQueryScan``).
  fileprivate struct PairRecorder {
    var ordinal: UInt32 = 0
    var seamless = false
    var repeated: UInt32 = 0

    /// One pair of `base` (``FormPairScanner``'s offsets).
    @inline(__always)
    mutating func add(_ base: UnsafePointer<UInt8>, _ slots: SlotTable, _ pair: FormPair) {
      let name = pair.nameBytes(in: base)
      let key: Key?
      if pair.nameFlags != 0 {
        key = lookupEscapedName(name)
      } else {
        if name.count == 14 && isSeamlessKey(name) { seamless = true }
        key = lookup(name)
      }
      if let key {
        if pair.hasValue {
          record(slots, key, pair.valueStart, pair.end, hasValue: true, escaped: pair.valueFlags != 0)
        } else {
          record(slots, key, pair.end, pair.end, hasValue: false, escaped: false)
        }
      }
      ordinal &+= 1
    }

    /// The key of a name with `%` or `+`, decoded first. Out of line: its temporary buffer would otherwise
    /// give the block visitor a stack frame check and spills on every call.
    @inline(never)
    private mutating func lookupEscapedName(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
      withFormDecoded(name) { decoded in
        if isSeamlessKey(decoded) { seamless = true }
        return lookup(decoded)
      }
    }

    private mutating func record(
      _ slots: SlotTable, _ key: Key, _ valueStart: Int, _ valueEnd: Int, hasValue: Bool, escaped: Bool
    ) {
      let ordinal = self.ordinal
      let repeats = slots.update(key) { slot -> Bool in
        defer { if slot.count < .max { slot.count &+= 1 } }
        if slot.count == 0 {
          slot.start = UInt32(truncatingIfNeeded: valueStart)
          slot.end = UInt32(truncatingIfNeeded: valueEnd)
          slot.hasValue = hasValue
          slot.needsDecoding = escaped
        } else if slot.count == 1 {
          slot.secondOrdinal = ordinal
          return true
        }
        return false
      }
      if repeats { repeated |= 1 << key.rawValue }
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
}

/// Calls `body` with `raw` form-decoded (`+` to space, `%XX` escapes): `raw` itself when it has neither,
/// otherwise a copy decoded into a temporary buffer by Core's bulk decoder.
@inline(__always)
func withFormDecoded<R>(_ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  FormParameters.UnsafeDecodedBytes(raw: raw, encoding: .form).withDecodedBytes(body)
}

/// A URL's query scanned for its callback by a caller that splits the pairs itself, as it iterates them for
/// its own use (the command line tool lists them):
/// ``ProviderDetector/decode(url:scannedQuery:ssoPolicy:decoded:rejected:)`` then decodes without scanning the
/// query a second time. Records exactly what the decoders' own scan records.
///
/// ```swift
/// url.withUnsafeUTF8 { href in
///   var scan = CallbackQueryScan(query: query)
///   var pairs = FormPairScanner(href.baseAddress!, from: query.lowerBound, to: query.upperBound)
///   while let pair = pairs.next() { scan.add(pair, href: href.baseAddress!) }
///   ProviderDetector.decode(url: url, scannedQuery: &scan, decoded: { print($0.outcome) }, rejected: { print($0, $1) })
/// }
/// ```
@_spi(Bytes) public struct CallbackQueryScan {
  fileprivate var scan = CallbackFields.Scan()
  private var recorder = CallbackFields.PairRecorder()

  /// A scan of the query at `query` (UTF-8 offsets into the URL's serialization), `nil` for none. Offsets are
  /// limited as the decoders' own scan limits them (``ValueSpan``): `isUsable` is false past that.
  public init(query: Range<Int>?) {
    let range = query ?? 0..<0
    scan.start = UInt32(truncatingIfNeeded: range.lowerBound)
    scan.end = UInt32(truncatingIfNeeded: range.upperBound)
    isUsable = range.upperBound <= ValueSpan.maxOffset
  }

  /// Whether the offsets fit the decoders' record (else decode with ``ProviderDetector/decode(url:ssoPolicy:)``).
  public let isUsable: Bool

  /// Records one pair, as ``FormPairScanner`` gives it from the URL's serialization at `href`.
  public mutating func add(_ pair: FormPair, href: UnsafePointer<UInt8>) {
    guard isUsable else { return }
    scan.withSlots { recorder.add(href, $0, pair) }
  }

  /// Completes the scan with what the recorder found about all the pairs.
  fileprivate mutating func finish() {
    scan.hasSberIDRedirect = recorder.seamless
    scan.repeated = recorder.repeated
  }
}
