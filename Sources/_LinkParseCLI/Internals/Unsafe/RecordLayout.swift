// The fixed text of a record under a field selection, made once per run, so that a record writes its keys
// as one copy per value instead of testing and writing them key by key.
//
// Safe because: `text` holds `textCount` bytes and `runs` holds `RecordLayout.slotCount` entries, both
// allocated and initialized once in `init` and freed once in `deinit` (the type is non-copyable: nothing
// else frees them or keeps them). Every entry of `runs` is either unselected (`count < 0`) or a range
// `start ..< start + count` inside `0 ..< textCount`, as `init` computed them. The buffers handed out view
// `text` and are used by the caller while the layout is alive (the record writer owns both).

/// What a record writes between its values: `{"line":`, `,"ok":true,"href":`, `,"scheme":`, …, `}\n`. For
/// each value the record may hold (a slot), the bytes before it: the `{` or comma, the key, and any selected
/// member whose value never changes (`"ok":true`) merged into the run of the next value or of the end.
///
/// ```swift
/// let layout = RecordLayout([.value(.line, "\"line\":"), .constant(.ok, "\"ok\":true"), .value(.host, "\"host\":")],
///                           selecting: [.ok, .host])
/// layout.before(.line)  // nil: not selected
/// layout.before(.host)  // {"ok":true,"host":
/// layout.end            // }\n
/// ```
struct RecordLayout: ~Copyable {
  /// One member of a record, in the record's order, named by its key in ``FieldSelection/Keys``.
  enum Member {
    /// A key whose value the writer writes, such as `"host":` (its text: the quoted key and colon, and any
    /// opening bracket the value starts with).
    case value(FieldSelection.Keys, StaticString)
    /// A whole member that is the same in every record of its kind, such as `"ok":true`.
    case constant(FieldSelection.Keys, StaticString)
  }

  /// A slot per key bit of ``FieldSelection/Keys`` (0 ..< 15), and the end's.
  private static let slotCount = 16
  private static let endSlot = 15

  /// A slot's bytes in `text`; `count < 0`: its value is not selected.
  private struct Run {
    var start: Int32
    var count: Int32
  }

  private let text: UnsafeMutablePointer<UInt8>
  private let runs: UnsafeMutablePointer<Run>
  /// The length of all the runs together: the most fixed text one record writes.
  let byteCount: Int

  /// The layout of a record made of `members` with the keys in `selected` written: the first one written
  /// opens the record (`{` in place of its comma); a record with none selected is `{}`.
  init(_ members: [Member], selecting selected: FieldSelection.Keys) {
    var bytes: [UInt8] = []
    var runs = [Run](repeating: Run(start: 0, count: -1), count: Self.slotCount)
    var pending: [UInt8] = []  // the fixed text since the last value
    func close(_ slot: Int) {
      runs[slot] = Run(start: Int32(bytes.count), count: Int32(pending.count))
      bytes += pending
      pending.removeAll()
    }
    for member in members {
      let (key, text, isValue): (FieldSelection.Keys, StaticString, Bool)
      switch member {
      case .value(let k, let t): (key, text, isValue) = (k, t, true)
      case .constant(let k, let t): (key, text, isValue) = (k, t, false)
      }
      guard selected.contains(key) else { continue }
      pending.append(bytes.isEmpty && pending.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
      pending += text.bytes
      if isValue { close(Self.slot(key)) }
    }
    if bytes.isEmpty && pending.isEmpty { pending.append(UInt8(ascii: "{")) }
    pending += "}\n".utf8
    close(Self.endSlot)

    byteCount = bytes.count
    text = .allocate(capacity: bytes.count)
    text.initialize(from: bytes, count: bytes.count)
    self.runs = .allocate(capacity: Self.slotCount)
    self.runs.initialize(from: runs, count: Self.slotCount)
  }

  deinit {
    text.deallocate()
    runs.deallocate()
  }

  /// The slot of a single key: its bit's position.
  @inline(__always)
  private static func slot(_ key: FieldSelection.Keys) -> Int { key.rawValue.trailingZeroBitCount }

  /// The bytes to write before `key`'s value, or `nil` when it is not selected (the value is left out).
  @inline(__always)
  func before(_ key: FieldSelection.Keys) -> UnsafeBufferPointer<UInt8>? {
    let run = runs[Self.slot(key)]
    guard run.count >= 0 else { return nil }
    return UnsafeBufferPointer(start: text + Int(run.start), count: Int(run.count))
  }

  /// The bytes that end the record, after its last value: `}` and a newline, and what comes before them.
  @inline(__always)
  var end: UnsafeBufferPointer<UInt8> {
    let run = runs[Self.endSlot]
    return UnsafeBufferPointer(start: text + Int(run.start), count: Int(run.count))
  }
}
