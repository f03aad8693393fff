/// Where each component of a serialized URL starts and ends.
///
/// ```
///  https://user:pass@example.com:8080/a/b?q=1#frag
///       ^      ^    ^          ^    ^   ^   ^
///       |      |    |          |    |   |   fragmentStart (the '#')
///       |      |    |          |    |   queryStart (the '?')
///       |      |    |          |    pathStart
///       |      |    |          hostEnd (the ':' before the port, when there is one)
///       |      |    hostStart (after '@')
///       |      usernameEnd (the ':' before the password, or the '@')
///       schemeEnd (the ':')
/// ```
///
/// Invariants (checked by `checkInvariants()` in debug builds and by the fuzzers):
/// - `schemeEnd < usernameEnd <= hostStart <= hostEnd <= pathStart <= count`, and storage[schemeEnd] is ':'.
/// - With a host: storage[schemeEnd+1 ..< schemeEnd+3] is "//", usernameEnd >= schemeEnd + 3.
///   Without one: usernameEnd == hostStart == hostEnd == schemeEnd + 1, and pathStart is that or, when the
///   path had to be prefixed with "/." to keep it from reading as an authority, two more.
/// - `queryStart` and `fragmentStart` are `absent` or point at '?' / '#', with queryStart < fragmentStart.
/// - `port` is `absent` or a value below 65536 that is not the scheme's default; the text between
///   hostEnd and pathStart is then ":" followed by its decimal digits.
@usableFromInline
internal struct URLStructure: Sendable, Hashable {
  @usableFromInline static let absent: UInt32 = .max

  @usableFromInline var schemeEnd: UInt32 = 0
  @usableFromInline var usernameEnd: UInt32 = 0
  @usableFromInline var hostStart: UInt32 = 0
  @usableFromInline var hostEnd: UInt32 = 0
  @usableFromInline var pathStart: UInt32 = 0
  @usableFromInline var queryStart: UInt32 = absent
  @usableFromInline var fragmentStart: UInt32 = absent
  /// The port when `portFlag` is set. (Sixteen bits and a flag rather than a `UInt32` that may be `absent`: that
  /// keeps the structure at 32 bytes, and a `ParsedURL` at 48.)
  @usableFromInline var portValue: UInt16 = 0
  @usableFromInline var hostKind: HostKind = .none
  @usableFromInline var flags: UInt8 = 0

  /// The port, or `absent`.
  @inlinable var port: UInt32 {
    get { flags & Self.portFlag != 0 ? UInt32(portValue) : Self.absent }
    set {
      if newValue == Self.absent {
        flags &= ~Self.portFlag
        portValue = 0
      } else {
        flags |= Self.portFlag
        portValue = UInt16(truncatingIfNeeded: newValue)
      }
    }
  }

  @usableFromInline static let specialFlag: UInt8 = 1
  @usableFromInline static let opaquePathFlag: UInt8 = 2
  @usableFromInline static let passwordFlag: UInt8 = 4
  @usableFromInline static let sharesInputFlag: UInt8 = 8
  @usableFromInline static let portFlag: UInt8 = 16

  @usableFromInline init() {}

  @inlinable var isSpecial: Bool {
    get { flags & Self.specialFlag != 0 }
    set { if newValue { flags |= Self.specialFlag } else { flags &= ~Self.specialFlag } }
  }
  @inlinable var hasOpaquePath: Bool {
    get { flags & Self.opaquePathFlag != 0 }
    set { if newValue { flags |= Self.opaquePathFlag } else { flags &= ~Self.opaquePathFlag } }
  }
  @inlinable var hasPassword: Bool {
    get { flags & Self.passwordFlag != 0 }
    set { if newValue { flags |= Self.passwordFlag } else { flags &= ~Self.passwordFlag } }
  }
  @inlinable var sharesInput: Bool {
    get { flags & Self.sharesInputFlag != 0 }
    set { if newValue { flags |= Self.sharesInputFlag } else { flags &= ~Self.sharesInputFlag } }
  }

  /// The end of the path: the query's '?', the fragment's '#', or the end.
  @inlinable func pathEnd(count: Int) -> UInt32 {
    if queryStart != Self.absent { return queryStart }
    if fragmentStart != Self.absent { return fragmentStart }
    return UInt32(truncatingIfNeeded: count)
  }
}
