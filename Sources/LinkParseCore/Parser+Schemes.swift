// The URL Standard's special schemes, and the base URL a relative reference is resolved against.

internal import CByteScan
import LinkParseBytes

// MARK: - Schemes

enum SchemeKind: UInt8 {
  case other, http, https, ws, wss, ftp, file

  var isSpecial: Bool { self != .other }

  /// The default port, or `URLStructure.absent`.
  var defaultPort: UInt32 {
    switch self {
    case .http, .ws: return 80
    case .https, .wss: return 443
    case .ftp: return 21
    case .file, .other: return URLStructure.absent
    }
  }

  /// Classifies a lower-case scheme of `count` bytes at `p`, which must be followed by at least two readable bytes
  /// (the fast path's `:/`): a word compare instead of ``init(_:)``'s byte-by-byte switch.
  @inline(__always)
  static func lowerCase(_ p: UnsafePointer<UInt8>, count: Int) -> SchemeKind {
    guard count &- 2 < 4 else { return .other }  // 2...5 bytes; the four bytes at `p` are readable
    let w = UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
    switch count {
    case 2: return w & 0xFFFF == 0x7377 ? .ws : .other  // "ws"
    case 3: return w & 0xFF_FFFF == 0x73_7377 ? .wss : w & 0xFF_FFFF == 0x70_7466 ? .ftp : .other  // "wss", "ftp"
    case 4: return w == 0x7074_7468 ? .http : w == 0x656C_6966 ? .file : .other  // "http", "file"
    default: return w == 0x7074_7468 && p[4] == UInt8(ascii: "s") ? .https : .other  // "https"
    }
  }

  /// Classifies a scheme, case-insensitively.
  init(_ s: UnsafeBufferPointer<UInt8>) {
    @inline(__always) func at(_ i: Int) -> UInt8 { asciiLowercased(s[i]) }
    switch s.count {
    case 2 where at(0) == UInt8(ascii: "w") && at(1) == UInt8(ascii: "s"): self = .ws
    case 3 where at(0) == UInt8(ascii: "w") && at(1) == UInt8(ascii: "s") && at(2) == UInt8(ascii: "s"): self = .wss
    case 3 where at(0) == UInt8(ascii: "f") && at(1) == UInt8(ascii: "t") && at(2) == UInt8(ascii: "p"): self = .ftp
    case 4 where at(0) == UInt8(ascii: "h") && at(1) == UInt8(ascii: "t") && at(2) == UInt8(ascii: "t")
      && at(3) == UInt8(ascii: "p"):
      self = .http
    case 4 where at(0) == UInt8(ascii: "f") && at(1) == UInt8(ascii: "i") && at(2) == UInt8(ascii: "l")
      && at(3) == UInt8(ascii: "e"):
      self = .file
    case 5 where at(0) == UInt8(ascii: "h") && at(1) == UInt8(ascii: "t") && at(2) == UInt8(ascii: "t")
      && at(3) == UInt8(ascii: "p") && at(4) == UInt8(ascii: "s"):
      self = .https
    default: self = .other
    }
  }
}

/// A base URL: its serialization's bytes and structure.
struct BaseURL {
  let bytes: UnsafeBufferPointer<UInt8>
  let structure: URLStructure
  let scheme: SchemeKind

  init(bytes: UnsafeBufferPointer<UInt8>, structure: URLStructure) {
    self.bytes = bytes
    self.structure = structure
    self.scheme = SchemeKind(UnsafeBufferPointer(rebasing: bytes[0..<Int(structure.schemeEnd)]))
  }

  func range(_ start: UInt32, _ end: UInt32) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)])
  }

  var pathEnd: UInt32 { structure.pathEnd(count: bytes.count) }
  var queryEnd: UInt32 {
    structure.fragmentStart != URLStructure.absent ? structure.fragmentStart : UInt32(bytes.count)
  }
  /// Everything between the scheme's ':' and the path: "//userinfo@host:port", or nothing without a host.
  var authority: UnsafeBufferPointer<UInt8> {
    guard structure.hostKind != .none else { return range(0, 0) }
    return range(structure.schemeEnd &+ 1, structure.pathStart)
  }
  var path: UnsafeBufferPointer<UInt8> { range(structure.pathStart, pathEnd) }
  /// The query with its '?', or empty.
  var query: UnsafeBufferPointer<UInt8> {
    structure.queryStart == URLStructure.absent ? range(0, 0) : range(structure.queryStart, queryEnd)
  }
}
