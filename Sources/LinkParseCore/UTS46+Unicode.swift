// The Unicode properties UTS #46 ToASCII reads, from the generated tables of `UTS46Tables.swift`
// (`Scripts/idna-tables.py`): the IDNA mapping, NFC, bidi classes, joining types and combining marks.
//
// Every table is sorted and searched by bisection; a "range table" entry is `start << 8 | value` for a run of
// code points that starts there and ends where the next entry starts. Code points are `UInt32`s, never
// `Unicode.Scalar`s: a value decoded from Punycode may be a surrogate or lie beyond U+10FFFF, and it must be
// refused as a value, not trap.

/// The Unicode data of the package's own IDNA.
enum UCD {
  /// The index of the last element of `table` at most `key`; `table[0]` is at most every key (each table
  /// starts at code point 0).
  @inline(__always)
  static func lastIndex(atMost key: UInt32, in table: UnsafeBufferPointer<UInt32>) -> Int {
    var lo = 0
    var hi = table.count
    while hi &- lo > 1 {
      let mid = (lo &+ hi) &>> 1  // lo < mid < hi <= table.count: in bounds
      if table[mid] <= key { lo = mid } else { hi = mid }
    }
    return lo
  }

  /// The index of the entry of `table` that holds `cp` (searched for as `key`): in the BMP only the entries
  /// of `cp`'s 256-code-point block (from `blocks`) are bisected.
  @inline(__always)
  static func index(
    _ cp: UInt32, key: UInt32, in table: UnsafeBufferPointer<UInt32>, blocks: UnsafeBufferPointer<UInt16>
  ) -> Int {
    var lo = 0
    var hi = table.count
    if cp < 0x1_0000 {
      let b = Int(truncatingIfNeeded: cp &>> 8)  // < 256 = blocks.count
      lo = Int(truncatingIfNeeded: blocks[b])
      if b < 255 { hi = Int(truncatingIfNeeded: blocks[b &+ 1]) &+ 1 }
    }
    while hi &- lo > 1 {
      let mid = (lo &+ hi) &>> 1  // lo < mid < hi <= table.count: in bounds
      if table[mid] <= key { lo = mid } else { hi = mid }
    }
    return lo
  }

  /// The value of `cp`'s run in a range table (`start << 8 | value`) with its block index.
  @inline(__always)
  static func rangeValue(_ cp: UInt32, in table: [UInt32], _ blocks: [UInt16]) -> UInt8 {
    table.withUnsafeBufferPointer { t in
      blocks.withUnsafeBufferPointer { b in
        UInt8(truncatingIfNeeded: t[index(cp, key: cp &<< 8 | 0xFF, in: t, blocks: b)])
      }
    }
  }

  // MARK: - The IDNA mapping table

  /// A flag of ``map(_:into:)``: the mapping's output may change under NFC.
  static let mayChangeUnderNFCFlag: UInt32 = 1
  /// A flag of ``map(_:into:)``: the mapping's output holds a right-to-left code point (R, AL or AN).
  static let rightToLeftFlag: UInt32 = 2

  /// Appends the UTS #46 mapping of `cp` (non-transitional: deviations are kept) to `out`: the code point
  /// itself when valid, its mapping, or nothing when ignored. Returns the flags of what it appended
  /// (``mayChangeUnderNFCFlag``, ``rightToLeftFlag``), or `nil` when `cp` is disallowed.
  @inline(__always)
  static func map(_ cp: UInt32, into out: inout [UInt32]) -> UInt32? {
    let (start, value) = uts46Run(cp)
    switch value &>> 29 {
    case 0:
      out.append(cp)
    case 1:
      return nil
    case 2:
      break
    case 3:
      // A signed 27-bit delta; the generator checked that every mapped code point lands on a code point.
      let delta = Int32(bitPattern: value &<< 5) &>> 5
      out.append(UInt32(bitPattern: Int32(bitPattern: cp) &+ delta))
    case 4:
      let offset = Int(truncatingIfNeeded: (value &>> 5) & 0x3F_FFFF)
      let count = Int(truncatingIfNeeded: value & 31)
      out.append(contentsOf: uts46Scalars[offset..<offset &+ count])
    default:
      out.append((cp &- start) & 1 == 0 ? cp &+ 1 : cp)
    }
    return (value &>> 27) & 3
  }

  /// Whether `cp`'s status is valid or deviation (what UTS #46 section 4.1 asks of a label's code points
  /// under nontransitional processing). Values beyond U+10FFFF are not.
  static func isValid(_ cp: UInt32) -> Bool {
    if cp > 0x10FFFF { return false }
    let (start, value) = uts46Run(cp)
    switch value &>> 29 {
    case 0: return true
    case 5: return (cp &- start) & 1 == 1
    default: return false
    }
  }

  /// The start and value of `cp`'s run in the mapping table.
  @inline(__always)
  static func uts46Run(_ cp: UInt32) -> (UInt32, UInt32) {
    uts46Starts.withUnsafeBufferPointer { starts in
      uts46Blocks.withUnsafeBufferPointer { blocks in
        let i = index(cp, key: cp, in: starts, blocks: blocks)
        return (starts[i], uts46Values[i])
      }
    }
  }

  // MARK: - Properties

  /// The Bidi_Class values RFC 5893 names (every other class reads as `other`), in the generator's order.
  enum BidiClass: UInt8 {
    case other, L, R, AL, AN, EN, ES, CS, ET, ON, BN, NSM
  }

  static func bidiClass(_ cp: UInt32) -> BidiClass {
    if cp < 0x80 {
      // ASCII letters are L, digits EN; the rest comes from the table.
      if (cp | 0x20) &- 0x61 < 26 { return .L }
      if cp &- 0x30 < 10 { return .EN }
    }
    return BidiClass(rawValue: rangeValue(cp, in: bidiClasses, bidiClassesBlocks)) ?? .other
  }

  /// Joining_Type as RFC 5892's CONTEXTJ rule reads it.
  enum JoiningType: UInt8 {
    case other, L, D, R, T
  }

  static func joiningType(_ cp: UInt32) -> JoiningType {
    JoiningType(rawValue: rangeValue(cp, in: joiningTypes, joiningTypesBlocks)) ?? .other
  }

  static func combiningClass(_ cp: UInt32) -> UInt8 {
    cp < nfcFirstUnsafe ? 0 : rangeValue(cp, in: combiningClasses, combiningClassesBlocks)
  }

  /// Whether `cp`'s General_Category is a Mark (Mn, Mc, Me).
  static func isMark(_ cp: UInt32) -> Bool {
    cp >= 0x300 && rangeValue(cp, in: markRuns, markRunsBlocks) != 0
  }

  /// Whether a string holding `cp` may change under NFC: not NFC_Quick_Check=Yes with combining class 0.
  @inline(__always)
  static func mayChangeUnderNFC(_ cp: UInt32) -> Bool {
    cp >= nfcFirstUnsafe && rangeValue(cp, in: nfcQuickCheck, nfcQuickCheckBlocks) != 0
  }
}
