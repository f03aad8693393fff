// application/x-www-form-urlencoded parsing and serialization, following the WHATWG URL Standard:
// <https://url.spec.whatwg.org/#concept-urlencoded-parser> and
// <https://url.spec.whatwg.org/#concept-urlencoded-serializer>.
//
// Everything here works on the UTF-8 bytes of the source in place (`Substring.withUTF8`, which for native
// strings neither copies nor allocates), with byte classes computed inline (no lookup tables behind lazily
// initialised globals). Generic entry points (`some StringProtocol` keys) are `@inlinable` shims that hand the
// key's bytes to non-generic internals, so callers in other modules get specialized code.

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
      let pair = source.withUTF8 { FormParameters.scanPair($0, from: start) }
      guard let pair else {
        offset = Int.max
        return nil
      }
      offset = pair.end
      return FormParameters.makeParameter(source, pair)
    }
  }

  /// Storage behind ``source``; always contiguous UTF-8.
  internal var storage: Substring

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
    set { storage = FormParameters.contiguous(newValue) }
  }

  /// Makes a view over `source`, without copying it.
  ///
  /// ```swift
  /// let url = "myapp://cb?code=1&state=2"
  /// let params = FormParameters(url[url.firstIndex(of: "?")!...].dropFirst())
  /// params.value(for: "state")  // "2"
  /// ```
  public init(_ source: Substring) { self.storage = FormParameters.contiguous(source) }

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
    FormParameters.withBytes(storage) { buf in
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
    FormParameters.withBytes(storage) { buf in
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
    let source = storage
    let form = encoding == .form
    let keyHasReplacement = FormParameters.containsReplacement(key)
    return FormParameters.withBytes(source) { buf -> Parameter? in
      var offset = 0
      while let pair = FormParameters.scanPair(buf, from: offset) {
        offset = pair.end
        if FormParameters.decodedEquals(
          buf, pair.nameStart, pair.nameEnd, key: key, keyHasReplacement: keyHasReplacement, form: form)
        {
          return FormParameters.makeParameter(source, pair)
        }
      }
      return nil
    }
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
    return FormParameters.withBytes(source) { buf -> [Parameter] in
      var result: [Parameter] = []
      var offset = 0
      while let pair = FormParameters.scanPair(buf, from: offset) {
        offset = pair.end
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
    var found = [RawPair?](repeating: nil, count: names.count)
    keyBytes.withUnsafeBufferPointer { allKeys in
      var keyStart = 0
      var keyHasReplacement = [Bool]()
      keyHasReplacement.reserveCapacity(keyEnds.count)
      for keyEnd in keyEnds {
        keyHasReplacement.append(
          FormParameters.containsReplacement(UnsafeBufferPointer(rebasing: allKeys[keyStart..<keyEnd])))
        keyStart = keyEnd
      }
      FormParameters.withBytes(source) { buf in
        var remaining = names.count
        var offset = 0
        while remaining > 0, let pair = FormParameters.scanPair(buf, from: offset) {
          offset = pair.end
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

  // MARK: Decoding any slice

  /// Decodes one raw name or value: `+` to space (in ``Encoding/form``), `%XX` escapes, then UTF-8 with
  /// U+FFFD replacement. Returns `String(raw)` without decoding when there is nothing to decode.
  ///
  /// ```swift
  /// FormParameters.decode("a+b%21%zz")                    // "a b!%zz"
  /// FormParameters.decode("a+b", encoding: .percentEncoded)  // "a+b"
  /// ```
  public static func decode(_ raw: Substring, encoding: Encoding = .form) -> String {
    let form = encoding == .form
    return withBytes(raw) { buf -> String in
      guard containsEscapes(buf, form: form) else { return String(raw) }
      return String(unsafeUninitializedCapacity: buf.count) { out in
        decode(buf, into: out, form: form)
      }
    }
  }

  /// Decodes one raw name or value given as a `String`; see ``decode(_:encoding:)-(Substring,_)``.
  ///
  /// ```swift
  /// let raw = "100%25+sure"
  /// FormParameters.decode(raw)  // "100% sure"
  /// ```
  public static func decode(_ raw: String, encoding: Encoding = .form) -> String {
    decode(raw[...], encoding: encoding)
  }

  // MARK: Serialization

  /// Serializes `pairs` as `application/x-www-form-urlencoded` (the URL Standard's serializer): each name and
  /// value is UTF-8 encoded and passed through ``formEncode(_:)``, pairs are joined with `&`.
  ///
  /// ```swift
  /// FormParameters.encode([("response_type", "code"), ("scope", "openid email"), ("q", "a&b=c")])
  /// // "response_type=code&scope=openid+email&q=a%26b%3Dc"
  /// ```
  public static func encode(_ pairs: some Sequence<(String, String)>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(pairs.underestimatedCount &* 16)
    var first = true
    for (name, value) in pairs {
      if !first { out.append(ampersand) }
      first = false
      appendFormEncoded(name, to: &out)
      out.append(equalsSign)
      appendFormEncoded(value, to: &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Serializes ordered `name: value` pairs written as a dictionary literal; see the `Sequence` overload.
  ///
  /// ```swift
  /// FormParameters.encode(["client_id": "app", "redirect_uri": "myapp://cb"])
  /// // "client_id=app&redirect_uri=myapp%3A%2F%2Fcb"
  /// ```
  public static func encode(_ pairs: KeyValuePairs<String, String>) -> String {
    encode(pairs.lazy.map { ($0.key, $0.value) })
  }

  /// Percent-encodes `string` with the application/x-www-form-urlencoded percent-encode set, writing space
  /// as `+`: everything except ASCII alphanumerics and `*-._` is written as `%XX` (upper-case hex) of its
  /// UTF-8 bytes.
  ///
  /// ```swift
  /// FormParameters.formEncode("a b+c/é")  // "a+b%2Bc%2F%C3%A9"
  /// ```
  public static func formEncode(_ string: some StringProtocol) -> String {
    var extra = 0
    var hasSpace = false
    for byte in string.utf8 where !isFormUnreserved(byte) {
      if byte == space { hasSpace = true } else { extra &+= 2 }
    }
    if extra == 0 && !hasSpace { return String(string) }
    var out: [UInt8] = []
    out.reserveCapacity(string.utf8.count &+ extra)
    appendFormEncoded(string, to: &out)
    return String(decoding: out, as: UTF8.self)
  }
}

// MARK: - PercentDecodedBytes

extension FormParameters {
  /// The bytes of a raw (percent-encoded) slice after `+` and `%XX` decoding, produced lazily one at a time
  /// without allocating. Invalid escapes (`%zz`, `%4`, a trailing `%`) yield their bytes unchanged. The bytes
  /// are not UTF-8 decoded: `%FF` yields `0xFF`.
  ///
  /// ```swift
  /// let bytes = FormParameters.PercentDecodedBytes("a+%41%zz")
  /// Array(bytes)  // [0x61, 0x20, 0x41, 0x25, 0x7A, 0x7A]
  /// bytes.elementsEqual("a A%zz".utf8)  // true
  /// ```
  public struct PercentDecodedBytes: Sequence, Sendable, Hashable {
    /// The raw slice.
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("%41").raw  // "%41"
    /// ```
    public var raw: Substring
    /// Whether `+` decodes to a space.
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("+", encoding: .percentEncoded).encoding  // .percentEncoded
    /// ```
    public var encoding: Encoding

    /// Makes a lazy decoded view of `raw`.
    ///
    /// ```swift
    /// Array(FormParameters.PercentDecodedBytes("x+y", encoding: .percentEncoded))  // [0x78, 0x2B, 0x79]
    /// ```
    public init(_ raw: Substring, encoding: Encoding = .form) {
      self.raw = raw
      self.encoding = encoding
    }

    /// Makes a lazy decoded view of `raw`.
    ///
    /// ```swift
    /// let raw = "%41+"
    /// Array(FormParameters.PercentDecodedBytes(raw))  // [0x41, 0x20]
    /// ```
    public init(_ raw: String, encoding: Encoding = .form) {
      self.init(raw[...], encoding: encoding)
    }

    /// Whether decoding changes anything: `raw` contains `%` (or `+` in ``Encoding/form``).
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("a+b").needsDecoding                            // true
    /// FormParameters.PercentDecodedBytes("a+b", encoding: .percentEncoded).needsDecoding // false
    /// ```
    public var needsDecoding: Bool { FormParameters.containsEscapes(raw, encoding: encoding) }

    /// A lower bound on the number of decoded bytes (each escape shrinks 3 bytes to 1).
    ///
    /// ```swift
    /// FormParameters.PercentDecodedBytes("%41%42").underestimatedCount  // 2
    /// ```
    public var underestimatedCount: Int { (raw.utf8.count &+ 2) / 3 }

    /// Returns an iterator over the decoded bytes.
    ///
    /// ```swift
    /// var it = FormParameters.PercentDecodedBytes("%7E").makeIterator()
    /// it.next()  // 0x7E
    /// ```
    public func makeIterator() -> Iterator {
      Iterator(raw: raw, form: encoding == .form)
    }

    /// Iterates over the decoded bytes.
    ///
    /// ```swift
    /// var it = FormParameters.PercentDecodedBytes("%").makeIterator()
    /// it.next()  // 0x25
    /// it.next()  // nil
    /// ```
    public struct Iterator: IteratorProtocol, Sendable {
      internal var raw: Substring
      internal var offset: Int
      internal let count: Int
      internal let form: Bool

      internal init(raw: Substring, form: Bool) {
        self.raw = raw
        self.offset = 0
        self.count = raw.utf8.count
        self.form = form
      }

      /// The next decoded byte, or `nil` at the end.
      ///
      /// ```swift
      /// var it = FormParameters.PercentDecodedBytes("+").makeIterator()
      /// it.next()  // 0x20
      /// ```
      public mutating func next() -> UInt8? {
        let count = self.count
        var i = offset
        guard i < count else { return nil }
        let form = self.form
        let byte = raw.withUTF8 { buf in FormParameters.decodedByte(buf, at: &i, end: count, form: form) }
        offset = i
        return byte
      }
    }
  }
}

// MARK: - Internals

extension FormParameters {
  internal static var ampersand: UInt8 { 0x26 }
  internal static var equalsSign: UInt8 { 0x3D }
  internal static var percentSign: UInt8 { 0x25 }
  internal static var plusSign: UInt8 { 0x2B }
  internal static var space: UInt8 { 0x20 }

  /// Offsets (in UTF-8 bytes from the source's start) of one `name[=value]` sequence.
  internal struct RawPair {
    var nameStart: Int
    /// End of the name: the first `=`, or `end` when there is none.
    var nameEnd: Int
    /// `true` when the sequence has a `=` (so the value starts at `nameEnd + 1`).
    var hasValue: Bool
    /// End of the sequence: the `&` after it, or the end of the source.
    var end: Int
  }

  /// The next non-empty sequence at or after `start`, or `nil`. Scans sixteen bytes at a time.
  @inline(__always)
  internal static func scanPair(_ buf: UnsafeBufferPointer<UInt8>, from start: Int) -> RawPair? {
    let count = buf.count
    var i = start
    while i < count && buf[i] == ampersand { i &+= 1 }
    guard i < count, let base = buf.baseAddress else { return nil }
    let nameStart = i
    let stop = Scan.firstOf(ampersand, equalsSign, base, i, count)
    if stop == count || buf[stop] == ampersand {
      return RawPair(nameStart: nameStart, nameEnd: stop, hasValue: false, end: stop)
    }
    let end = Scan.first(ampersand, base, stop &+ 1, count)
    return RawPair(nameStart: nameStart, nameEnd: stop, hasValue: true, end: end)
  }

  /// Slices `source` at a pair's offsets. O(1) for native strings.
  internal static func makeParameter(_ source: Substring, _ pair: RawPair) -> Parameter {
    let utf8 = source.utf8
    let base = utf8.startIndex
    let nameStart = utf8.index(base, offsetBy: pair.nameStart)
    let nameEnd = utf8.index(nameStart, offsetBy: pair.nameEnd &- pair.nameStart)
    guard pair.hasValue else {
      return Parameter(rawName: source[nameStart..<nameEnd], rawValue: nil)
    }
    let valueStart = utf8.index(after: nameEnd)
    let valueEnd = utf8.index(valueStart, offsetBy: pair.end &- pair.nameEnd &- 1)
    return Parameter(rawName: source[nameStart..<nameEnd], rawValue: source[valueStart..<valueEnd])
  }

  /// `source`, made contiguous UTF-8 if it is not already (only bridged strings are not).
  internal static func contiguous(_ source: Substring) -> Substring {
    if source.isContiguousUTF8 { return source }
    var copy = source
    copy.makeContiguousUTF8()
    return copy
  }

  /// Calls `body` with the UTF-8 bytes of `string`, in place when possible.
  @inline(__always)
  internal static func withBytes<R>(_ string: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var string = string
    return string.withUTF8(body)
  }

  /// Calls `body` with the UTF-8 bytes of a lookup key, in place when possible.
  /// (In a specialized caller the casts fold away; other `StringProtocol` types are copied once.)
  @inlinable
  @inline(__always)
  internal static func withKeyBytes<R>(_ key: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if var string = key as? String { return string.withUTF8(body) }
    if var substring = key as? Substring { return substring.withUTF8(body) }
    var copy = String(key)
    return copy.withUTF8(body)
  }

  /// Whether the serializer leaves `byte` as it is: ASCII alphanumerics and `*-._` (outside the
  /// application/x-www-form-urlencoded percent-encode set).
  @inline(__always)
  internal static func isFormUnreserved(_ byte: UInt8) -> Bool { !ByteSet.formURLEncoded.contains(byte) }

  internal static func containsEscapes(_ raw: Substring, encoding: Encoding) -> Bool {
    withBytes(raw) { containsEscapes($0, form: encoding == .form) }
  }

  @inline(__always)
  internal static func containsEscapes(_ buf: UnsafeBufferPointer<UInt8>, form: Bool) -> Bool {
    if form {
      for byte in buf where byte == percentSign || byte == plusSign { return true }
    } else {
      for byte in buf where byte == percentSign { return true }
    }
    return false
  }

  /// Whether `key` contains U+FFFD (EF BF BD), which a decoded name can produce from invalid UTF-8.
  internal static func containsReplacement(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
    guard key.count >= 3 else { return false }
    var i = 0
    while i &+ 2 < key.count {
      if key[i] == 0xEF && key[i &+ 1] == 0xBF && key[i &+ 2] == 0xBD { return true }
      i &+= 1
    }
    return false
  }

  /// Decodes `buf` into `out` (at least `buf.count` bytes), returning the number of bytes written.
  ///
  /// Eight bytes at a time while eight remain: the bytes before the word's first `%` (or `+` in form
  /// encoding) are copied with one eight-byte store, then that byte is decoded alone. The store is in bounds:
  /// decoding never lengthens, so `o <= i` and `o + 8 <= i + 8 <= buf.count <= out.count`; the bytes it writes
  /// past the copied ones are overwritten by later ones or lie past the count returned.
  @usableFromInline
  internal static func decode(
    _ buf: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, form: Bool
  ) -> Int {
    let count = buf.count
    guard let src = buf.baseAddress, let dst = out.baseAddress else { return 0 }
    var i = 0
    var o = 0
    while i < count {
      if i &+ 8 <= count {
        let word = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
        let stop = firstEscapeByte(UInt64(littleEndian: word), form: form)
        UnsafeMutableRawPointer(dst + o).storeBytes(of: word, as: UInt64.self)
        i &+= stop
        o &+= stop
        if stop == 8 { continue }
      }
      dst[o] = decodedByte(buf, at: &i, end: count, form: form)
      o &+= 1
    }
    return o
  }

  /// The index (0...7, lowest byte first) of the first `%` (or `+` when `form`) among the eight bytes of
  /// `word`, or 8 when there is none.
  ///
  /// `(x &- 0x01…) & ~x & 0x80…` sets the high bit of each zero byte of `x`, and may also set it in bytes
  /// above a zero byte (a borrow), never below one: so its lowest set bit is exact, for each of the two
  /// tests and for their union.
  @inline(__always)
  internal static func firstEscapeByte(_ word: UInt64, form: Bool) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    let percent = word ^ (ones &* UInt64(percentSign))
    var found = (percent &- ones) & ~percent & highBits
    if form {
      let plus = word ^ (ones &* UInt64(plusSign))
      found |= (plus &- ones) & ~plus & highBits
    }
    return found.trailingZeroBitCount &>> 3
  }

  /// The decoded byte at `i` — a valid `%XX` escape's value, a space for `+` in form encoding, else the
  /// byte itself — advancing `i` past what it read (three bytes or one). `i < end`.
  @inlinable @inline(__always)
  internal static func decodedByte(_ buf: UnsafeBufferPointer<UInt8>, at i: inout Int, end: Int, form: Bool) -> UInt8 {
    let byte = buf[i]
    i &+= 1
    if byte == 0x25 {
      if i &+ 1 < end && isASCIIHexDigit(buf[i]) && isASCIIHexDigit(buf[i &+ 1]) {
        let value = LinkParseCore.hexValue(buf[i]) &<< 4 | LinkParseCore.hexValue(buf[i &+ 1])
        i &+= 2
        return value
      }
      return byte
    }
    return form && byte == 0x2B ? 0x20 : byte
  }

  /// Whether `buf[start..<end]`, decoded, equals the name whose UTF-8 bytes are `key`. Allocates only when
  /// the bytes differ, `key` contains U+FFFD and the raw name has escapes (invalid UTF-8 may decode to it).
  @inline(__always)
  internal static func decodedEquals(
    _ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
    key: UnsafeBufferPointer<UInt8>, keyHasReplacement: Bool, form: Bool
  ) -> Bool {
    let keyCount = key.count
    // Decoding only shrinks: an escape turns 3 bytes into 1.
    if keyCount > end &- start { return false }
    var i = start
    var j = 0
    var equal = true
    while i < end {
      let byte = decodedByte(buf, at: &i, end: end, form: form)
      if j == keyCount || key[j] != byte {
        equal = false
        break
      }
      j &+= 1
    }
    if equal && j == keyCount { return true }
    guard keyHasReplacement else { return false }
    // The decoded bytes may be invalid UTF-8 that decodes to U+FFFD: compare the decoded strings.
    let raw = UnsafeBufferPointer(rebasing: buf[start..<end])
    guard containsEscapes(raw, form: false) else { return false }
    let decoded = String(unsafeUninitializedCapacity: raw.count) { decode(raw, into: $0, form: form) }
    return decoded.utf8.elementsEqual(key)
  }

  /// Appends the form-encoding of `string` to `out`.
  internal static func appendFormEncoded(_ string: some StringProtocol, to out: inout [UInt8]) {
    for byte in string.utf8 {
      if isFormUnreserved(byte) {
        out.append(byte)
      } else if byte == space {
        out.append(plusSign)
      } else {
        out.append(percentSign)
        out.append(LinkParseCore.hexDigit(byte &>> 4))
        out.append(LinkParseCore.hexDigit(byte & 0x0F))
      }
    }
  }

  /// The length of the valid UTF-8 sequence starting at `buf[i]`, or 0 when the byte there does not start
  /// one (Unicode Table 3-7: no overlongs, surrogates, or code points above U+10FFFF).
  @inline(__always)
  internal static func validSequenceLength(_ buf: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
    let count = buf.count
    @inline(__always) func continuation(_ j: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
      j < count && buf[j] >= low && buf[j] <= high
    }
    switch buf[i] {
    case 0x00...0x7F:
      return 1
    case 0xC2...0xDF:
      return continuation(i &+ 1) ? 2 : 0
    case 0xE0:
      return continuation(i &+ 1, 0xA0) && continuation(i &+ 2) ? 3 : 0
    case 0xE1...0xEC, 0xEE...0xEF:
      return continuation(i &+ 1) && continuation(i &+ 2) ? 3 : 0
    case 0xED:
      return continuation(i &+ 1, 0x80, 0x9F) && continuation(i &+ 2) ? 3 : 0
    case 0xF0:
      return continuation(i &+ 1, 0x90) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    case 0xF1...0xF3:
      return continuation(i &+ 1) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    case 0xF4:
      return continuation(i &+ 1, 0x80, 0x8F) && continuation(i &+ 2) && continuation(i &+ 3) ? 4 : 0
    default:
      return 0
    }
  }

  /// A source string for a POST body: the bytes themselves when they are valid UTF-8, otherwise the bytes
  /// with every byte outside a valid UTF-8 sequence written as `%XX`.
  internal static func sourceString(fromBody buf: UnsafeBufferPointer<UInt8>) -> String {
    let count = buf.count
    var invalid = 0
    var i = 0
    while i < count {
      if buf[i] < 0x80 {
        i &+= 1
        continue
      }
      let length = validSequenceLength(buf, i)
      if length == 0 {
        invalid &+= 1
        i &+= 1
      } else {
        i &+= length
      }
    }
    if invalid == 0 { return String(decoding: buf, as: UTF8.self) }
    return String(unsafeUninitializedCapacity: count &+ 2 &* invalid) { out in
      var i = 0
      var o = 0
      while i < count {
        let byte = buf[i]
        let length = byte < 0x80 ? 1 : validSequenceLength(buf, i)
        if length == 0 {
          out[o] = percentSign
          out[o &+ 1] = LinkParseCore.hexDigit(byte &>> 4)
          out[o &+ 2] = LinkParseCore.hexDigit(byte & 0x0F)
          o &+= 3
          i &+= 1
        } else {
          for k in 0..<length { out[o &+ k] = buf[i &+ k] }
          o &+= length
          i &+= length
        }
      }
      return o
    }
  }
}
