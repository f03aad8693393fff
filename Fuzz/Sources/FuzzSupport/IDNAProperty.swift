@_spi(Testing) import LinkParseCore

/// The `idna` target: the package's own UTS #46 ToASCII never crashes, answers ASCII, and agrees with ICU's
/// (the oracle; ``IDNAOracle``) apart from the listed Unicode version differences.
///
/// Input layout: one mode byte, then the domain.
/// - bit 0 clear: the bytes are the domain as they are (any bytes, ill-formed UTF-8 included). ICU's Unicode
///   (15.0) may not assign its code points, so only ICU's successes are checked: the package must give the
///   same ASCII domain.
/// - bit 0 set: each pair of bytes picks a code point from ``IDNAOracle/pools`` (code points Unicode 15.0
///   assigns), a byte 0xFF a '.', so the answers must agree for failures too.
///
/// Properties: a success is ASCII; the answers agree as above (where ICU is linked); and a nonempty success
/// maps to itself (ToASCII of its own output gives the output back).
enum IDNAProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard let mode = data.first else { return [] }
    let body = Array(data[1...])
    var problems = Problems()
    var domain: [UInt8]
    if mode & 1 == 1 {
      var scalars = String.UnicodeScalarView()
      var i = 0
      while i < body.count {
        if body[i] == 0xFF {
          scalars.append(".")
          i += 1
          continue
        }
        let cp = IDNAOracle.pick(body[i], i + 1 < body.count ? body[i + 1] : 0)
        if let scalar = Unicode.Scalar(cp) { scalars.append(scalar) }
        i += 2
      }
      domain = Array(String(scalars).utf8)
    } else {
      domain = body
    }
    if domain.isEmpty { return [] }
    let own = IDNAOracle.own(domain)
    // (An empty success, from a domain of ignored code points, is no domain: the URL parser refuses it.)
    if let own, !own.isEmpty {
      problems.check(own.allSatisfy { $0 < 0x80 }, "a success is not ASCII: \(show(own))")
      let again = IDNAOracle.own(own)
      problems.check(again == own, "ToASCII of the output differs: \(String(decoding: own, as: UTF8.self)) -> \(again.map { String(decoding: $0, as: UTF8.self) } ?? "failure")")
    }
    #if canImport(CICUShims)
    if let difference = IDNAOracle.disagreement(domain, assignedOnly: mode & 1 == 1) {
      problems.add("own and ICU differ: \(difference)")
    }
    #endif
    return problems.list
  }
}
