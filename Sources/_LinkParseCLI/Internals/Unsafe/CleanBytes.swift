// A record's href, when it needs no JSON escaping, as an address range that slices of it are tested against.
//
// Safe because: the range is only compared with other addresses, never read through after `init` (which
// reads `bytes[0..<count]` with `memchr`); a record writes its slices while the href's buffer is alive, and
// a `CleanBytes` does not outlive the record.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A byte range known to hold nothing a JSON string must escape (no `"`, `\` or byte below 0x20), so that
/// any slice of it is written as it is: the href of a record, when a scan found it clean; else empty.
struct CleanBytes {
  private let start: UnsafePointer<UInt8>?
  private let end: UnsafePointer<UInt8>?

  /// `href` (a URL's serialization) if it holds neither `"` nor `\`, else an empty range.
  ///
  /// A serialization holds no byte below 0x20: every percent-encode set holds the C0 controls, and hosts
  /// forbid or encode them. So only `"` (which opaque hosts and paths keep) and `\` (kept by queries,
  /// fragments and non-special paths) can need escaping, and libc's `memchr` finds either faster than a scan
  /// for all three kinds. (`quotesAndBackslashesInTheHrefAreEscaped` tests such hrefs; the `cli` fuzz target
  /// checks that every record is valid JSON.)
  init(href bytes: UnsafeBufferPointer<UInt8>) {
    if let base = bytes.baseAddress, memchr(base, 0x22, bytes.count) == nil, memchr(base, 0x5C, bytes.count) == nil {
      start = base
      end = base + bytes.count
    } else {
      start = nil
      end = nil
    }
  }

  /// Whether `bytes` lie inside the clean range (compared by address: a slice of the same memory).
  @inline(__always)
  func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let start, let end, let base = bytes.baseAddress else { return false }
    return base >= start && base + bytes.count <= end
  }
}
