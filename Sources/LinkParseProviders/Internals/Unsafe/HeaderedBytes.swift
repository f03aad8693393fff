// One object holding a header and a run of bytes in a single allocation, read in place: the storage of a
// `PendingAuthorization` (its header is what `validate` reads first; its bytes are the redirect URI's
// serialization, the state and the issuer's form-encoding, compared without retaining any `String`).
//
// Safe because: the object is never written after `make` returns (a change makes a new one); the header and
// elements' addresses are the object's, fixed while it lives, and every caller holds the object for as long
// as it reads through them; `bytes(_:_:)` returns only ranges within the `count` bytes `make` copied in (the
// header records their lengths).

internal import CByteScan

/// A header and `count` bytes in one object (`ManagedBuffer`), read in place.
final class HeaderedBytes<Header>: ManagedBuffer<Header, UInt8> {

  /// A new object with `header` and a copy of `bytes`.
  static func make(_ header: Header, bytes: [UInt8]) -> HeaderedBytes<Header> {
    let object = unsafeDowncast(create(minimumCapacity: max(bytes.count, 1)) { _ in header }, to: Self.self)
    object.withUnsafeMutablePointerToElements { elements in
      bytes.withUnsafeBufferPointer { elements.initialize(from: $0.baseAddress!, count: $0.count) }
    }
    return object
  }

  /// The header, read in place through its address (an addressor: `ManagedBuffer.header` is a class's `var`,
  /// whose every read is checked for exclusive access at run time, and reading one field through a getter
  /// would copy all of them).
  @inline(__always)
  var fields: Header {
    unsafeAddress { UnsafePointer(withUnsafeMutablePointerToHeader { $0 }) }
  }

  /// The bytes at `start..<start + count`, or nil when `count` is -1 (a value not kept).
  @inline(__always)
  func bytes(_ start: Int, _ count: Int) -> UnsafeBufferPointer<UInt8>? {
    guard count >= 0 else { return nil }
    return withUnsafeMutablePointerToElements { UnsafeBufferPointer(start: $0 + start, count: count) }
  }

  /// Asks the CPU for the object's first four cache lines (its header and usually its bytes), so that their
  /// misses overlap when a server's many pending authorizations are out of cache.
  @inline(__always)
  func prefetch() {
    linkparse_prefetch(UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()), 256)
  }
}

/// A reference to an object that is never written after it is made, as `Sendable` as a value: the one unchecked
/// conformance for the values built on ``HeaderedBytes`` (`PendingAuthorization` is plainly `Sendable`; a
/// `ManagedBuffer` subclass cannot conform itself).
struct Immutable<Object: AnyObject>: @unchecked Sendable {
  /// The object; whoever makes an `Immutable` promises never to write it again.
  let object: Object

  @inline(__always)
  init(_ object: Object) { self.object = object }
}
