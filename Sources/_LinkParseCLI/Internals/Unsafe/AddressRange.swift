// Where a buffer lies in memory, to tell whether another buffer is a slice of it; and a byte search.
//
// Safe because: nothing here reads or writes through a pointer except `memchr`, which reads only
// `bytes[0..<bytes.count]`; the range is computed from a buffer's own start and count, and `contains`
// only compares addresses (both ends of the tested buffer must lie inside the range).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The addresses `bytes.baseAddress ..< bytes.baseAddress + bytes.count` of a buffer, or an empty range.
///
/// (For `CleanBytes` in RecordWriter.swift, which still does this arithmetic and `memchr` itself.)
struct AddressRange {
  private let start: UnsafePointer<UInt8>?
  private let end: UnsafePointer<UInt8>?

  /// A range holding no buffer.
  static var empty: AddressRange { AddressRange(start: nil, end: nil) }

  private init(start: UnsafePointer<UInt8>?, end: UnsafePointer<UInt8>?) {
    self.start = start
    self.end = end
  }

  /// The memory of `bytes` (empty when it has no base address).
  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    start = bytes.baseAddress
    end = bytes.baseAddress.map { $0 + bytes.count }
  }

  /// Whether `bytes` lie inside the range (compared by address: a slice of the same memory).
  @inline(__always)
  func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let start, let end, let base = bytes.baseAddress else { return false }
    return base >= start && base + bytes.count <= end
  }
}

/// Byte searches with libc.
enum ByteSearch {
  /// Whether `bytes` hold `byte`, found by libc's `memchr`.
  @inline(__always)
  static func contains(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    return memchr(base, Int32(byte), bytes.count) != nil
  }
}
