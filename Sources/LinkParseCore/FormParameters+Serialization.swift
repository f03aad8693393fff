// Decoding any raw slice, and application/x-www-form-urlencoded serialization
// (<https://url.spec.whatwg.org/#concept-urlencoded-serializer>).

extension FormParameters {
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
