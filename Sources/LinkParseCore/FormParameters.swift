// application/x-www-form-urlencoded parsing and serialization, following the WHATWG URL Standard:
// <https://url.spec.whatwg.org/#concept-urlencoded-parser> and
// <https://url.spec.whatwg.org/#concept-urlencoded-serializer>.
//
// Everything here works on the UTF-8 bytes of the source in place (the view's string read through
// `withContiguousStorageIfAvailable`, which for native strings neither copies nor allocates), with byte classes
// computed inline (no lookup tables behind lazily initialised globals). Generic entry points (`some
// StringProtocol` keys) are `@inlinable` shims that hand the key's bytes to non-generic internals, so callers in
// other modules get specialized code.

/// A zero-copy view over `application/x-www-form-urlencoded` text: a URL query, a fragment, or a POST body
/// (Apple's `response_mode=form_post`).
///
/// Parsing follows the URL Standard's application/x-www-form-urlencoded parser: the source is split on `&`,
/// empty sequences are skipped, and each sequence is split at its first `=`. Parameters are produced in
/// source order and duplicates are kept. Nothing is decoded or copied until asked for: ``Parameter/rawName``
/// and ``Parameter/rawValue`` are slices of ``source``, and iterating allocates nothing.
///
/// Decoding (``Parameter/name(_:)``, ``Parameter/value(_:)``) replaces `+` with a space (in ``Encoding/form``
/// only), decodes `%XX` escapes (invalid escapes such as `%zz`, `%4` or a trailing `%` stay as they are), and
/// then decodes UTF-8, replacing invalid sequences with U+FFFD.
///
/// ```swift
/// let params = FormParameters("code=4%2F0Ad&state=a+b&cancelled&code=second")
/// params.count                          // 4
/// params.value(for: "code")             // "4/0Ad"   (the first one)
/// params.values(for: "code")            // ["4/0Ad", "second"]
/// params.value(for: "state")            // "a b"
/// params.contains(named: "cancelled")   // true
/// params.value(for: "cancelled")        // nil      (a bare name has no value)
/// for p in params { print(p.rawName, p.rawValue ?? "<none>") }
/// ```
public struct FormParameters: Sendable, Sequence {
  /// How `+` is read when decoding.
  ///
  /// ```swift
  /// let p = FormParameters("q=a+b%2B").first!
  /// p.value(.form)            // "a b+"
  /// p.value(.percentEncoded)  // "a+b+"
  /// ```
  public enum Encoding: Sendable, Hashable {
    /// `+` means space (application/x-www-form-urlencoded). The default.
    case form
    /// `+` is a literal plus; only `%XX` escapes are decoded.
    case percentEncoded
  }

  /// One `name=value` pair, as raw slices of the source.
  ///
  /// Equality and hashing compare the raw slices (as `Substring`s), not the decoded text.
  ///
  /// ```swift
  /// let p = FormParameters("redirect%5Furi=https%3A%2F%2Fa.ru").first!
  /// p.rawName        // "redirect%5Furi"
  /// p.name()         // "redirect_uri"
  /// p.value()        // "https://a.ru"
  /// ```
  public struct Parameter: Sendable, Hashable {
    /// The name as it appears in the source (still percent-encoded).
    ///
    /// ```swift
    /// FormParameters("a%20b=1").first!.rawName  // "a%20b"
    /// ```
    public var rawName: Substring
    /// The value as it appears in the source, `""` for `name=`, `nil` for a bare `name`.
    ///
    /// ```swift
    /// FormParameters("code=").first!.rawValue       // ""
    /// FormParameters("cancelled").first!.rawValue   // nil
    /// ```
    public var rawValue: Substring?

    /// Makes a parameter from raw (still encoded) slices.
    ///
    /// ```swift
    /// let p = FormParameters.Parameter(rawName: "a%41", rawValue: "1")
    /// p.name()  // "aA"
    /// ```
    public init(rawName: Substring, rawValue: Substring?) {
      self.rawName = rawName
      self.rawValue = rawValue
    }

    /// The decoded name.
    ///
    /// Returns `String(rawName)` without decoding when the name contains neither `%` nor `+`.
    ///
    /// ```swift
    /// FormParameters("c%6Fde+x=1").first!.name()                 // "code x"
    /// FormParameters("c%6Fde+x=1").first!.name(.percentEncoded)  // "code+x"
    /// ```
    public func name(_ encoding: Encoding = .form) -> String {
      FormParameters.decode(rawName, encoding: encoding)
    }

    /// The decoded value, or `nil` for a bare name.
    ///
    /// Returns `String(rawValue)` without decoding when the value contains neither `%` nor `+`.
    ///
    /// ```swift
    /// FormParameters("a=%E2%9C%93").first!.value()  // "✓"
    /// FormParameters("a=%FF").first!.value()        // "\u{FFFD}"
    /// FormParameters("a").first!.value()            // nil
    /// ```
    public func value(_ encoding: Encoding = .form) -> String? {
      rawValue.map { FormParameters.decode($0, encoding: encoding) }
    }

    /// Whether the raw name or value contains `%` or `+`, i.e. whether decoding may change it.
    ///
    /// When this is `false`, ``name(_:)`` and ``value(_:)`` are plain copies of the raw slices in either
    /// encoding.
    ///
    /// ```swift
    /// FormParameters("state=xyz").first!.needsDecoding   // false
    /// FormParameters("state=x%20z").first!.needsDecoding // true
    /// ```
    public var needsDecoding: Bool {
      FormParameters.containsEscapes(rawName, encoding: .form)
        || (rawValue.map { FormParameters.containsEscapes($0, encoding: .form) } ?? false)
    }

    /// The decoded name's bytes (before UTF-8 decoding), produced lazily without allocating.
    ///
    /// ```swift
    /// Array(FormParameters("%FFa=1").first!.decodedNameBytes())  // [0xFF, 0x61]
    /// ```
    public func decodedNameBytes(_ encoding: Encoding = .form) -> PercentDecodedBytes {
      PercentDecodedBytes(rawName, encoding: encoding)
    }

    /// The decoded value's bytes (before UTF-8 decoding), produced lazily without allocating; `nil` for a
    /// bare name.
    ///
    /// ```swift
    /// Array(FormParameters("a=%00+").first!.decodedValueBytes()!)  // [0x00, 0x20]
    /// ```
    public func decodedValueBytes(_ encoding: Encoding = .form) -> PercentDecodedBytes? {
      rawValue.map { PercentDecodedBytes($0, encoding: encoding) }
    }

    /// Whether the decoded name is `name`, comparing UTF-8 bytes (no Unicode normalization) without
    /// allocating.
    ///
    /// ```swift
    /// FormParameters("c%6Fde=1").first!.hasName("code")  // true
    /// ```
    @inlinable
    public func hasName(_ name: some StringProtocol, encoding: Encoding = .form) -> Bool {
      FormParameters.withKeyBytes(name) { hasName(keyBytes: $0, encoding: encoding) }
    }

    @usableFromInline
    internal func hasName(keyBytes key: UnsafeBufferPointer<UInt8>, encoding: Encoding) -> Bool {
      FormParameters.withBytes(rawName) { raw in
        FormParameters.decodedEquals(
          raw, 0, raw.count, key: key, keyHasReplacement: FormParameters.containsReplacement(key),
          form: encoding == .form)
      }
    }
  }

  /// Iterates over the parameters in source order without allocating.
  ///
  /// ```swift
  /// var it = FormParameters("a=1&&b").makeIterator()
  /// it.next()?.rawName  // "a"
  /// it.next()?.rawName  // "b"
  /// it.next()           // nil
  /// ```
  public struct Iterator: IteratorProtocol, Sendable {
    internal var source: Substring
    internal var offset: Int

    internal init(source: Substring) {
      self.source = source
      self.offset = 0
    }

    /// The next parameter, or `nil` at the end.
    ///
    /// ```swift
    /// var it = FormParameters("x=1").makeIterator()
    /// while let p = it.next() { print(p.rawName) }  // x
    /// ```
    public mutating func next() -> Parameter? {
      let start = offset
      let (pair, next) = source.withUTF8 { buf in
        var pairs = FormPairScanner(buf, from: start)
        return (pairs.next(), pairs.position)
      }
      offset = next
      return pair.map { FormParameters.makeParameter(source, $0) }
    }
  }

  /// The string the parameters are read from, always contiguous UTF-8 (a URL's serialization, or the string
  /// or substring's base the view was made over), and the source's UTF-8 offsets in it: ``source`` is
  /// `text[start..<end]`. Offsets rather than a `Substring`, so that a URL's ``ParsedURL/queryParameters``
  /// cost no index arithmetic (two calls into the standard library and a slice, ~190 instructions).
  @usableFromInline internal var text: String
  @usableFromInline internal var start: Int
  @usableFromInline internal var end: Int

  /// A view over `text`'s UTF-8 bytes `start..<end`, which must be contiguous UTF-8 and scalar-aligned.
  @inlinable @inline(__always)
  internal init(text: String, start: Int, end: Int) {
    self.text = text
    self.start = start
    self.end = end
  }

  /// ``source``: `text[start..<end]`.
  internal var storage: Substring {
    let utf8 = text.utf8
    let lower = utf8.index(utf8.startIndex, offsetBy: start)
    return text[lower..<utf8.index(lower, offsetBy: end &- start)]
  }

  /// The string the parameters are read from and the source's UTF-8 offsets in it (for the providers' field
  /// scan, which reads the bytes in place).
  package var textAndBounds: (text: String, bounds: Range<Int>) { (text, start..<end) }

  /// The source the parameters are read from.
  ///
  /// A source that is not stored as contiguous UTF-8 (a bridged string on Apple platforms) is copied once
  /// into native storage when set, so that every later operation can read its bytes in place.
  ///
  /// ```swift
  /// var params = FormParameters("a=1")
  /// params.source = "b=2"
  /// params.first?.rawName  // "b"
  /// ```
  public var source: Substring {
    get { storage }
    set { self = FormParameters(newValue) }
  }

  /// Makes a view over `source`, without copying it.
  ///
  /// ```swift
  /// let url = "myapp://cb?code=1&state=2"
  /// let params = FormParameters(url[url.firstIndex(of: "?")!...].dropFirst())
  /// params.value(for: "state")  // "2"
  /// ```
  public init(_ source: Substring) {
    let source = FormParameters.contiguous(source)
    let utf8 = source.base.utf8
    let start = utf8.distance(from: utf8.startIndex, to: source.startIndex)
    self.init(text: source.base, start: start, end: start &+ source.utf8.count)
  }

  /// Makes a view over `source`, without copying it.
  ///
  /// ```swift
  /// FormParameters("a=1&b=2").count  // 2
  /// ```
  public init(_ source: String) { self.init(source[...]) }

  /// Makes a view over a POST body (e.g. Apple's `form_post` callback) given as UTF-8 bytes.
  ///
  /// When `bytes` are valid UTF-8 they become the ``source`` as they are. Otherwise every byte that is not
  /// part of a valid UTF-8 sequence is written into the source as `%XX` (upper-case hex), so the source is
  /// a valid `String` while ``Parameter/decodedNameBytes(_:)`` / ``Parameter/decodedValueBytes(_:)`` still
  /// yield exactly the original bytes, as the standard's byte-based parser would (and ``Parameter/value(_:)``
  /// decodes them with U+FFFD replacement). In that case ``Parameter/rawName`` / ``Parameter/rawValue`` show
  /// the escapes rather than the original bytes. Splitting is unaffected: the escapes contain no `&` or `=`.
  ///
  /// ```swift
  /// let body: [UInt8] = Array("code=abc&user=".utf8) + [0xFF, 0x41]
  /// let params = FormParameters(utf8: body)
  /// params.source                                          // "code=abc&user=%FFA"
  /// Array(params.first(named: "user")!.decodedValueBytes()!)  // [0xFF, 0x41]
  /// params.value(for: "user")                              // "\u{FFFD}A"
  /// ```
  public init<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) {
    let string =
      bytes.withContiguousStorageIfAvailable { FormParameters.sourceString(fromBody: $0) }
      ?? Array(bytes).withUnsafeBufferPointer { FormParameters.sourceString(fromBody: $0) }
    self.init(string)
  }

  /// Returns an iterator over the parameters in source order.
  ///
  /// ```swift
  /// for p in FormParameters("a=1&a=2") { print(p.value()!) }  // 1, 2
  /// ```
  public func makeIterator() -> Iterator { Iterator(source: storage) }

  /// The number of parameters (non-empty `&`-separated sequences), counted in one pass without allocating.
  ///
  /// ```swift
  /// FormParameters("&&a=1&&b&").count  // 2
  /// ```
  public var count: Int {
    withBytes { buf in
      var count = 0
      var inSequence = false
      for byte in buf {
        if byte == FormParameters.ampersand {
          inSequence = false
        } else if !inSequence {
          inSequence = true
          count &+= 1
        }
      }
      return count
    }
  }

  /// Whether there are no parameters (the source is empty or only `&`s).
  ///
  /// ```swift
  /// FormParameters("&&").isEmpty  // true
  /// FormParameters("=").isEmpty   // false (one parameter, empty name and value)
  /// ```
  public var isEmpty: Bool {
    withBytes { buf in
      for byte in buf where byte != FormParameters.ampersand { return false }
      return true
    }
  }

  /// The first parameter in source order, or `nil` when there are none.
  ///
  /// ```swift
  /// FormParameters("&a=1&b=2").first?.rawName  // "a"
  /// ```
  public var first: Parameter? {
    var iterator = makeIterator()
    return iterator.next()
  }

  // MARK: Lookup

  /// The first parameter whose decoded name is `name`, or `nil`.
  ///
  /// Names are compared by their UTF-8 bytes (no Unicode normalization), decoding the raw name on the fly:
  /// nothing is allocated while searching.
  ///
  /// ```swift
  /// let p = FormParameters("c%6Fde=1&code=2").first(named: "code")
  /// p?.rawName  // "c%6Fde"
  /// p?.value()  // "1"
  /// ```
  @inlinable
  public func first(named name: some StringProtocol, encoding: Encoding = .form) -> Parameter? {
    FormParameters.withKeyBytes(name) { first(keyBytes: $0, encoding: encoding) }
  }

  @usableFromInline
  internal func first(keyBytes key: UnsafeBufferPointer<UInt8>, encoding: Encoding) -> Parameter? {
    let form = encoding == .form
    let keyHasReplacement = FormParameters.containsReplacement(key)
    let found = withBytes { buf -> FormPair? in
      var pairs = FormPairScanner(buf)
      while let pair = pairs.next() {
        if FormParameters.decodedEquals(
          buf, pair.nameStart, pair.nameEnd, key: key, keyHasReplacement: keyHasReplacement, form: form)
        {
          return pair
        }
      }
      return nil
    }
    // The source's slice only for a parameter found (a miss makes no indices).
    return found.map { FormParameters.makeParameter(storage, $0) }
  }

  /// The decoded value of the first parameter named `name`, or `nil` when there is none **or when that
  /// parameter is a bare name** (`?cancelled`). Use ``contains(named:encoding:)`` to tell those apart, or
  /// `first(named: name)?.value() ?? ""` for `URLSearchParams.get` semantics.
  ///
  /// ```swift
  /// let params = FormParameters("code=x%2By&cancelled")
  /// params.value(for: "code")       // "x+y"
  /// params.value(for: "cancelled")  // nil
  /// params.value(for: "missing")    // nil
  /// ```
  @inlinable
  public func value(for name: some StringProtocol, encoding: Encoding = .form) -> String? {
    first(named: name, encoding: encoding)?.value(encoding)
  }

  /// Whether some parameter's decoded name is `name` (with or without a value).
  ///
  /// ```swift
  /// FormParameters("error=access_denied&cancelled").contains(named: "cancelled")  // true
  /// ```
  @inlinable
  public func contains(named name: some StringProtocol, encoding: Encoding = .form) -> Bool {
    first(named: name, encoding: encoding) != nil
  }

  /// Every parameter whose decoded name is `name`, in source order.
  ///
  /// ```swift
  /// FormParameters("scope=a&x=1&scope=b").all(named: "scope").map { $0.value()! }  // ["a", "b"]
  /// ```
  @inlinable
  public func all(named name: some StringProtocol, encoding: Encoding = .form) -> [Parameter] {
    FormParameters.withKeyBytes(name) { all(keyBytes: $0, encoding: encoding) }
  }

  @usableFromInline
  internal func all(keyBytes key: UnsafeBufferPointer<UInt8>, encoding: Encoding) -> [Parameter] {
    let source = storage
    let form = encoding == .form
    let keyHasReplacement = FormParameters.containsReplacement(key)
    return withBytes { buf -> [Parameter] in
      var result: [Parameter] = []
      var pairs = FormPairScanner(buf)
      while let pair = pairs.next() {
        if FormParameters.decodedEquals(
          buf, pair.nameStart, pair.nameEnd, key: key, keyHasReplacement: keyHasReplacement, form: form)
        {
          result.append(FormParameters.makeParameter(source, pair))
        }
      }
      return result
    }
  }

  /// The decoded values of every parameter named `name`, in source order. Like `URLSearchParams.getAll`,
  /// a bare name contributes an empty string, so the result has one element per occurrence.
  ///
  /// ```swift
  /// FormParameters("a=1&a&a=3").values(for: "a")  // ["1", "", "3"]
  /// ```
  @inlinable
  public func values(for name: some StringProtocol, encoding: Encoding = .form) -> [String] {
    all(named: name, encoding: encoding).map { $0.value(encoding) ?? "" }
  }

  /// The first parameter for each of `names`, found in one pass over the source.
  ///
  /// The result has one element per element of `names`, in the same order; `nil` where no parameter has
  /// that name. The scan stops as soon as every name has been found. Only the result array is allocated.
  ///
  /// ```swift
  /// let found = FormParameters("state=s&code=c").first(named: ["code", "state", "error"])
  /// found.map { $0?.value() }  // ["c", "s", nil]
  /// ```
  public func first(named names: [String], encoding: Encoding = .form) -> [Parameter?] {
    guard !names.isEmpty else { return [] }
    let source = storage
    let form = encoding == .form
    // The keys' bytes, laid end to end, so comparing needs no per-key setup.
    var keyBytes: [UInt8] = []
    keyBytes.reserveCapacity(names.reduce(0) { $0 &+ $1.utf8.count })
    var keyEnds: [Int] = []
    keyEnds.reserveCapacity(names.count)
    for name in names {
      keyBytes.append(contentsOf: name.utf8)
      keyEnds.append(keyBytes.count)
    }
    // Offsets of the pairs found (trivial values: no reference counting while scanning).
    var found = [FormPair?](repeating: nil, count: names.count)
    keyBytes.withUnsafeBufferPointer { allKeys in
      var keyStart = 0
      var keyHasReplacement = [Bool]()
      keyHasReplacement.reserveCapacity(keyEnds.count)
      for keyEnd in keyEnds {
        keyHasReplacement.append(
          FormParameters.containsReplacement(UnsafeBufferPointer(rebasing: allKeys[keyStart..<keyEnd])))
        keyStart = keyEnd
      }
      withBytes { buf in
        var remaining = names.count
        var pairs = FormPairScanner(buf)
        while remaining > 0, let pair = pairs.next() {
          var keyStart = 0
          for k in 0..<keyEnds.count {
            let keyEnd = keyEnds[k]
            defer { keyStart = keyEnd }
            guard found[k] == nil else { continue }
            let key = UnsafeBufferPointer(rebasing: allKeys[keyStart..<keyEnd])
            if FormParameters.decodedEquals(
              buf, pair.nameStart, pair.nameEnd, key: key,
              keyHasReplacement: keyHasReplacement[k], form: form)
            {
              found[k] = pair
              remaining -= 1
            }
          }
        }
      }
    }
    return found.map { $0.map { FormParameters.makeParameter(source, $0) } }
  }

  /// The first decoded value for each of `names`, found in one pass (see `first(named: [String])`; as with
  /// ``value(for:encoding:)``, a bare name gives `nil`).
  ///
  /// ```swift
  /// FormParameters("state=s&code=c&error").firstValues(for: ["code", "state", "error"])  // ["c", "s", nil]
  /// ```
  public func firstValues(for names: [String], encoding: Encoding = .form) -> [String?] {
    first(named: names, encoding: encoding).map { $0?.value(encoding) }
  }
}
