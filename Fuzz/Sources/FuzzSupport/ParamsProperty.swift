@_spi(Bytes) import LinkParseCore

/// The `params` target: `application/x-www-form-urlencoded` parsing, decoding, lookup and encoding over
/// arbitrary bytes (a query, a fragment, or a POST body: the input is used whole).
///
/// Properties:
/// - `FormParameters(utf8:)` yields the pairs of a byte-level reference implementation of the URL Standard's
///   urlencoded parser, with the same decoded bytes (`form` and `percentEncoded`), and `name()`/`value()`
///   are those bytes decoded with U+FFFD replacement; for valid UTF-8, `FormParameters(String)` sees the same;
/// - `count`, `isEmpty`, `first` agree with iteration; `FormParameters.decode(raw)` agrees with `value()`;
/// - lookups (`first(named:)`, `contains`, `all`, `values`, the one-pass `first(named: [String])`) find the
///   first parameters whose decoded name has the key's bytes;
/// - decoded → `FormParameters.encode` → parsed → decoded gives the same pairs, and encoding again gives the
///   same text; `formEncode` writes only unreserved bytes, `+` and `%XX`, and decodes back.
enum ParamsProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    var problems = Problems()
    let params = FormParameters(utf8: data)
    let parameters = Array(params)

    // Against the reference parser, in both encodings.
    for form in [true, false] {
      let encoding: FormParameters.Encoding = form ? .form : .percentEncoded
      let reference = referencePairs(data, form: form)
      problems.check(
        reference.count == parameters.count,
        "\(encoding): \(parameters.count) parameters, the reference finds \(reference.count)")
      for (p, r) in zip(parameters, reference) {
        let name = Array(p.decodedNameBytes(encoding))
        let value = p.decodedValueBytes(encoding).map(Array.init)
        problems.check(name == r.name, "\(encoding): decoded name \(show(name)), reference \(show(r.name))")
        problems.check(
          value == r.value,
          "\(encoding): decoded value \(value.map(show) ?? "nil"), reference \(r.value.map(show) ?? "nil")")
        problems.check(
          p.name(encoding).utf8.elementsEqual(String(decoding: r.name, as: UTF8.self).utf8),
          "\(encoding): name() is not the decoded bytes with replacement: \(show(p.name(encoding)))")
        problems.check(
          p.value(encoding).map { Array($0.utf8) } == r.value.map { Array(String(decoding: $0, as: UTF8.self).utf8) },
          "\(encoding): value() is not the decoded bytes with replacement")
        problems.check(
          FormParameters.decode(p.rawName, encoding: encoding).utf8.elementsEqual(p.name(encoding).utf8),
          "\(encoding): FormParameters.decode(rawName) != name()")
        if !p.decodedNameBytes(encoding).needsDecoding {
          problems.check(name == Array(p.rawName.utf8), "\(encoding): a name that needs no decoding changed")
        }
        problems.check(
          p.decodedNameBytes(encoding).underestimatedCount <= name.count, "\(encoding): underestimatedCount too big")
      }
    }

    // forEachDecoded: the same pairs, as in-place views.
    for encoding in [FormParameters.Encoding.form, .percentEncoded] {
      var index = 0
      params.forEachDecoded(encoding: encoding) { name, value in
        defer { index += 1 }
        guard index < parameters.count else { return problems.add("forEachDecoded(\(encoding)): more pairs than iteration") }
        let p = parameters[index]
        let expectedName = Array(p.decodedNameBytes(encoding))
        problems.check(Array(name) == expectedName, "forEachDecoded(\(encoding)) name \(index)")
        problems.check(name.count == expectedName.count, "forEachDecoded(\(encoding)) name count \(index)")
        problems.check(name.string.utf8.elementsEqual(p.name(encoding).utf8), "forEachDecoded(\(encoding)) name string")
        problems.check(name == p.name(encoding) || !isValidUTF8Array(expectedName), "forEachDecoded(\(encoding)) name ==")
        problems.check(name.needsDecoding == p.decodedNameBytes(encoding).needsDecoding, "forEachDecoded needsDecoding")
        let expectedValue = p.decodedValueBytes(encoding).map(Array.init)
        problems.check(value.map(Array.init) == expectedValue, "forEachDecoded(\(encoding)) value \(index)")
        problems.check(value?.count == expectedValue?.count, "forEachDecoded(\(encoding)) value count \(index)")
        problems.check(
          value?.string.utf8.elementsEqual(p.value(encoding)!.utf8) ?? (p.value(encoding) == nil),
          "forEachDecoded(\(encoding)) value string")
      }
      problems.check(index == parameters.count, "forEachDecoded(\(encoding)) gave \(index) pairs, iteration \(parameters.count)")
    }

    problems.check(params.count == parameters.count, "count \(params.count) but \(parameters.count) iterated")
    problems.check(params.isEmpty == parameters.isEmpty, "isEmpty disagrees with iteration")
    problems.check(params.first == parameters.first, "first disagrees with iteration")

    if isValidUTF8(data) {
      let fromString = Array(FormParameters(String(decoding: data, as: UTF8.self)))
      problems.check(fromString == parameters, "FormParameters(String) and FormParameters(utf8:) disagree")
    }

    // Lookups, for the first few distinct names (each lookup is a scan).
    let names = parameters.map { Array($0.name().utf8) }
    var looked: [[UInt8]] = []
    for name in names where !looked.contains(name) {
      looked.append(name)
      if looked.count > 8 { break }
      let key = String(decoding: name, as: UTF8.self)
      let firstIndex = names.firstIndex(of: name)!
      let all = names.indices.filter { names[$0] == name }
      problems.check(params.first(named: key) == parameters[firstIndex], "first(named: \(show(key))) is not the first")
      problems.check(params.contains(named: key), "contains(named: \(show(key))) is false")
      problems.check(params.all(named: key) == all.map { parameters[$0] }, "all(named: \(show(key)))")
      problems.check(
        params.values(for: key).map { Array($0.utf8) } == all.map { Array((parameters[$0].value() ?? "").utf8) },
        "values(for: \(show(key)))")
    }
    if !looked.isEmpty {
      let keys = looked.map { String(decoding: $0, as: UTF8.self) } + ["code", "state"]
      let batch = params.first(named: keys)
      let single = keys.map { params.first(named: $0) }
      problems.check(batch == single, "first(named: [String]) disagrees with first(named:)")
    }

    // Encode round trip.
    let pairs = parameters.map { ($0.name(), $0.value() ?? "") }
    let encoded = FormParameters.encode(pairs)
    let reparsed = FormParameters(encoded).map { ($0.name(), $0.value() ?? "") }
    problems.check(
      reparsed.count == pairs.count
        && zip(reparsed, pairs).allSatisfy { $0.0.utf8.elementsEqual($1.0.utf8) && $0.1.utf8.elementsEqual($1.1.utf8) },
      "decoded -> encode -> parse -> decoded changed the pairs (encoded \(show(encoded)))")
    problems.check(
      FormParameters.encode(reparsed).utf8.elementsEqual(encoded.utf8), "encoding is not stable: \(show(encoded))")
    problems.check(
      encoded.utf8.allSatisfy { isFormUnreserved($0) || $0 == 0x25 || $0 == 0x2B || $0 == 0x26 || $0 == 0x3D },
      "encode wrote a byte outside the form-urlencoded set: \(show(encoded))")

    // formEncode of the input decoded as text, and back.
    let text = String(decoding: data, as: UTF8.self)
    let formEncoded = FormParameters.formEncode(text)
    problems.check(
      formEncoded.utf8.allSatisfy { isFormUnreserved($0) || $0 == 0x25 || $0 == 0x2B },
      "formEncode wrote a reserved byte: \(show(formEncoded))")
    problems.check(
      FormParameters.decode(formEncoded).utf8.elementsEqual(text.utf8), "decode(formEncode(s)) != s for \(show(text))")

    if !problems.list.isEmpty { problems.add("input \(show(data))") }
    return problems.list
  }

  static func isValidUTF8Array(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer(isValidUTF8) }

  /// ASCII alphanumerics and `*-._`.
  static func isFormUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2A, 0x2D, 0x2E, 0x5F: return true
    default: return false
    }
  }

  /// The URL Standard's application/x-www-form-urlencoded parser on bytes, written plainly.
  static func referencePairs(_ bytes: UnsafeBufferPointer<UInt8>, form: Bool) -> [(name: [UInt8], value: [UInt8]?)] {
    var result: [(name: [UInt8], value: [UInt8]?)] = []
    for sequence in bytes.split(separator: 0x26, omittingEmptySubsequences: true) {
      if let equals = sequence.firstIndex(of: 0x3D) {
        result.append(
          (percentDecode(sequence[..<equals], form: form), percentDecode(sequence[(equals + 1)...], form: form)))
      } else {
        result.append((percentDecode(sequence[...], form: form), nil))
      }
    }
    return result
  }

  static func percentDecode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, form: Bool) -> [UInt8] {
    func hex(_ byte: UInt8) -> UInt8? {
      switch byte {
      case 0x30...0x39: return byte - 0x30
      case 0x41...0x46: return byte - 0x41 + 10
      case 0x61...0x66: return byte - 0x61 + 10
      default: return nil
      }
    }
    var out: [UInt8] = []
    var i = bytes.startIndex
    while i < bytes.endIndex {
      let byte = bytes[i]
      if byte == 0x25, i + 2 < bytes.endIndex, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) {
        out.append(high << 4 | low)
        i += 3
      } else {
        out.append(form && byte == 0x2B ? 0x20 : byte)
        i += 1
      }
    }
    return out
  }
}
