// One pass over a callback's parameters that records everything the decoders and the pending-authorization
// checks read: for each known name, the first occurrence's raw value (as byte offsets into the source), how
// often the name occurs and where its second occurrence is (duplicate detection in source order), and
// whether the value needs percent-decoding. Names are matched by their decoded bytes (form encoding, as
// `FormParameters.Parameter.hasName` does) against a fixed table; names without `%`/`+` are compared raw.
// Nothing is allocated: the slots live in a fixed-size tuple and values are sliced from the source on use.

import LinkParseCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The parameters of one callback, scanned once.
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
    /// Start and end (UTF-8 offsets into the source) of the first occurrence's raw value; empty for a bare
    /// name.
    var start: Int32 = 0
    var end: Int32 = 0
    /// Occurrences, saturating.
    var count: UInt16 = 0
    /// Whether the first occurrence has a `=`.
    var hasValue = false
    /// Whether the first occurrence's raw value contains `%` or `+`.
    var needsDecoding = false
    /// Ordinal (among all parameters) of the second occurrence, when there is one.
    var secondOrdinal: Int32 = .max
  }

  fileprivate typealias Slots = (
    Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot,
    Slot, Slot, Slot
  )

  /// The string the parameters are read from; values are slices of it.
  private let base: String
  /// Where the parameters start in `base` (UTF-8 offset); slot offsets are relative to it.
  private let offset: Int
  /// Whether `base` is known to be ASCII (a URL's serialization), so that UTF-16 offsets equal UTF-8 ones
  /// and slices can use the UTF-16 view's scalar-aligned indices (cheaper than the UTF-8 view's).
  private let asciiBase: Bool
  private var slots: Slots
  /// Whether some name is `sberIDRedirect` in any ASCII letter case (decoded).
  private(set) var hasSberIDRedirect = false

  /// Scans `parameters` once.
  init(_ parameters: FormParameters) {
    self.init(source: parameters.source)
  }

  /// Scans `source` once.
  @inline(__always)
  init(source: Substring) {
    // The scan fills a local value (a closure capturing `self` would copy the whole struct in and out).
    var scanner = Scanner()
    var bytes = source
    bytes.withUTF8 { scanner.scan($0) }
    base = source.base
    offset = source.base.utf8.distance(from: source.base.startIndex, to: source.startIndex)
    asciiBase = false
    slots = scanner.slots
    hasSberIDRedirect = scanner.hasSberIDRedirect
  }

  /// Scans the bytes `range` of a URL's serialization (its query or fragment) once.
  @inline(__always)
  init(url: ParsedURL, range: Range<Int>?) {
    var scanner = Scanner()
    var href = url.href
    let range = range ?? 0..<0
    href.withUTF8 { scanner.scan(UnsafeBufferPointer(rebasing: $0[range])) }
    base = href
    offset = range.lowerBound
    asciiBase = true  // a serialization is always ASCII
    slots = scanner.slots
    hasSberIDRedirect = scanner.hasSberIDRedirect
  }

  /// The parameters' source.
  var source: Substring {
    let utf8 = base.utf8
    let lower = utf8.index(utf8.startIndex, offsetBy: offset)
    return base[lower...]
  }

  // A switch rather than pointer arithmetic: with a constant key (every call site but the scan) it folds to
  // a field access.
  @inline(__always)
  subscript(key: Key) -> Slot { CallbackFields.slot(slots, key) }

  @inline(__always)
  fileprivate static func slot(_ slots: Slots, _ key: Key) -> Slot {
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
  func contains(_ key: Key) -> Bool { self[key].count > 0 }

  /// The first of `keys` whose second occurrence comes first in the source, if any occurs twice: what
  /// `FormParameters.firstDuplicate(among:)` returns.
  func firstDuplicate(_ keys: Key...) -> Key? { firstDuplicate(in: keys) }

  /// Throws `duplicate-parameter` naming the first repeated parameter among the critical ones — `code`,
  /// `state`, `error`, `iss`, `device_id` (RFC 6749 §3.1, the same list as `criticalParameters`) — and
  /// `extra` (a decoder's own, such as Apple's `id_token`), by where the repetition occurs in the source.
  func rejectDuplicates(also extra: Key...) throws(CallbackError) {
    var found = firstDuplicate(.code, .state, .error, .iss, .deviceID)
    if let other = firstDuplicate(in: extra), found.map({ self[other].secondOrdinal < self[$0].secondOrdinal }) ?? true {
      found = other
    }
    if let found { throw CallbackError(.duplicateParameter, parameter: found.name) }
  }

  private func firstDuplicate(in keys: [Key]) -> Key? {
    var best: Key?
    var bestOrdinal = Int32.max
    for key in keys {
      let slot = self[key]
      if slot.count > 1 && slot.secondOrdinal < bestOrdinal {
        best = key
        bestOrdinal = slot.secondOrdinal
      }
    }
    return best
  }

  /// The first occurrence's raw value (`nil` when absent or bare).
  func rawValue(_ key: Key) -> Substring? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue else { return nil }
    return slice(slot)
  }

  /// The first occurrence's decoded value, or `nil` when it is absent, bare or empty (RFC 6749 §3.1). A
  /// slice of the source when nothing needs decoding; otherwise a decoded copy.
  func value(_ key: Key) -> Substring? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue, slot.end > slot.start else { return nil }
    let raw = slice(slot)
    return slot.needsDecoding ? Substring(FormParameters.decode(raw)) : raw
  }

  /// Whether the first occurrence has a non-empty value.
  func isNonEmpty(_ key: Key) -> Bool {
    let slot = self[key]
    return slot.count > 0 && slot.hasValue && slot.end > slot.start
  }

  /// The first occurrence's decoded value as a `String`, or `nil` when it is absent, bare or empty.
  func string(_ key: Key) -> String? {
    let slot = self[key]
    guard slot.count > 0, slot.hasValue, slot.end > slot.start else { return nil }
    return FormParameters.decode(slice(slot))
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

  /// Calls `body` with the decoded bytes of the first occurrence's value (empty for a bare name).
  func withDecodedValue<R>(_ key: Key, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withDecodedValue(self[key], body)
  }

  @inline(__always)
  private func withDecodedValue<R>(_ slot: Slot, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    Self.withDecodedValue(base, offset, slot, body)
  }

  /// Static: a method would copy `self` first.
  private static func withDecodedValue<R>(
    _ base: String, _ offset: Int, _ slot: Slot, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    var bytes = base
    return bytes.withUTF8 { buf in
      let raw = UnsafeBufferPointer(rebasing: buf[(offset &+ Int(slot.start))..<(offset &+ Int(slot.end))])
      guard slot.needsDecoding else { return body(raw) }
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(raw.count, 1)) { out in
        var o = 0
        for byte in FormParameters.UnsafeDecodedBytes(raw: raw, encoding: .form) {
          out[o] = byte
          o &+= 1
        }
        return body(UnsafeBufferPointer(rebasing: out[..<o]))
      }
    }
  }

  @inline(__always)
  private func slice(_ slot: Slot) -> Substring {
    Self.slice(base, offset &+ Int(slot.start), Int(slot.end &- slot.start), ascii: asciiBase)
  }

  /// `base`'s bytes `start..<start + length` (static: a method would copy `self` first).
  private static func slice(_ base: String, _ start: Int, _ length: Int, ascii asciiBase: Bool) -> Substring {
    if asciiBase {
      // As `ParsedURL` slices its components: see ``asciiBase``.
      let utf16 = base.utf16
      let lower = utf16.index(utf16.startIndex, offsetBy: start)
      let upper = utf16.index(lower, offsetBy: length)
      return base[lower..<upper]
    }
    let utf8 = base.utf8
    let lower = utf8.index(utf8.startIndex, offsetBy: start)
    let upper = utf8.index(lower, offsetBy: length)
    return base[lower..<upper]
  }

  // MARK: Scanning

  /// The scan's state: the slots being filled.
  private struct Scanner {
    var slots: Slots = (
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot(),
      Slot(), Slot(), Slot(), Slot(), Slot(), Slot(), Slot()
    )
    var hasSberIDRedirect = false


    mutating func scan(_ buf: UnsafeBufferPointer<UInt8>) {
      var seamless = false
      withUnsafeMutableBytes(of: &slots) { raw in
        // A homogeneous tuple is laid out as an array.
        Self.scan(buf, raw.baseAddress!.assumingMemoryBound(to: Slot.self), &seamless)
      }
      hasSberIDRedirect = seamless
    }

    private static func scan(
      _ buf: UnsafeBufferPointer<UInt8>, _ slots: UnsafeMutablePointer<Slot>, _ seamless: inout Bool
    ) {
      guard let base = buf.baseAddress else { return }
      let count = buf.count
      var i = 0
      var ordinal: Int32 = 0
      while i < count {
        // One `name[=value]` sequence, found with memchr; empty ones are skipped.
        let end = memchr(base + i, 0x26, count &- i).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count
        if end == i {
          i &+= 1
          continue
        }
        let equals = memchr(base + i, 0x3D, end &- i).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
        let nameEnd = equals ?? end
        let name = UnsafeBufferPointer(start: base + i, count: nameEnd &- i)
        var nameEscaped = false
        for b in name where b == 0x25 || b == 0x2B {
          nameEscaped = true
          break
        }
        let key: Key?
        if nameEscaped {
          key = CallbackFields.withDecodedName(name) { decoded in
            if isSeamlessKey(decoded) { seamless = true }
            return CallbackFields.lookup(decoded)
          }
        } else {
          if name.count == 14 && isSeamlessKey(name) { seamless = true }
          key = CallbackFields.lookup(name)
        }
        if let key {
          let slot = slots + key.rawValue
          if slot.pointee.count == 0 {
            let valueStart = equals.map { $0 &+ 1 } ?? end
            slot.pointee.start = Int32(truncatingIfNeeded: valueStart)
            slot.pointee.end = Int32(truncatingIfNeeded: end)
            slot.pointee.hasValue = equals != nil
            let length = end &- valueStart
            slot.pointee.needsDecoding =
              length > 0 && (memchr(base + valueStart, 0x25, length) != nil || memchr(base + valueStart, 0x2B, length) != nil)
          } else if slot.pointee.count == 1 {
            slot.pointee.secondOrdinal = ordinal
          }
          if slot.pointee.count < .max { slot.pointee.count &+= 1 }
        }
        ordinal &+= 1
        i = end &+ 1
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

  /// Decodes an escaped name (form encoding) and calls `body` with the decoded bytes.
  fileprivate static func withDecodedName<R>(
    _ name: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(name.count, 1)) { out in
      var o = 0
      for byte in FormParameters.UnsafeDecodedBytes(raw: name, encoding: .form) {
        out[o] = byte
        o &+= 1
      }
      return body(UnsafeBufferPointer(rebasing: out[..<o]))
    }
  }

  @inline(__always)
  private static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    let l = literal.utf8Start
    for i in 0..<name.count where name[i] != l[i] { return false }
    return true
  }

  /// The key whose name is exactly `name`.
  fileprivate static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
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
