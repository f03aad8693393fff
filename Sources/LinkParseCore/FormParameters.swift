// STUB: replaced by the FormParameters implementation (see issue 2). The API below is fixed.

/// A view over `application/x-www-form-urlencoded` bytes: a query, a fragment, or a POST body.
public struct FormParameters: Sendable, Sequence {
  /// How `+` is read when decoding.
  public enum Encoding: Sendable, Hashable {
    /// `+` means space (application/x-www-form-urlencoded). The default.
    case form
    /// `+` is a literal plus; only `%XX` escapes are decoded.
    case percentEncoded
  }

  /// One `name=value` pair, as raw slices of the source.
  public struct Parameter: Sendable, Hashable {
    /// The name as it appears in the source (still percent-encoded).
    public var rawName: Substring
    /// The value as it appears in the source, `""` for `name=`, `nil` for a bare `name`.
    public var rawValue: Substring?
    /// The decoded name.
    public func name(_ encoding: Encoding = .form) -> String { String(rawName) }
    /// The decoded value, or `nil` for a bare name.
    public func value(_ encoding: Encoding = .form) -> String? { rawValue.map(String.init) }
  }

  public struct Iterator: IteratorProtocol {
    public mutating func next() -> Parameter? { nil }
  }

  /// The source the parameters are read from.
  public var source: Substring

  public init(_ source: Substring) { self.source = source }
  public init(_ source: String) { self.source = source[...] }

  public func makeIterator() -> Iterator { Iterator() }

  /// The first decoded value for `name`, or `nil`.
  public func value(for name: some StringProtocol, encoding: Encoding = .form) -> String? { nil }
}
