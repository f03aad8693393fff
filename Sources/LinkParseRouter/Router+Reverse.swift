import LinkParseCore
import LinkParseBytes

extension Router {

  /// Builds a URL for the route called `name` from capture values: reverse routing.
  ///
  /// Values are written percent-encoded, so that they come back unchanged from ``RouteMatch/captures``: a
  /// path capture may contain `/`, `?`, `%` or spaces and still stays one segment; a `{rest...}` value is
  /// split at its `/`s. Each encoded value must satisfy its constraint. The URL is then matched again, and
  /// must select this route with these captures.
  ///
  /// ```swift
  /// let router = try Router([Route("web", "https://{tenant}.example.ru/auth/{provider}/callback?code")])
  /// try router.url(for: "web", captures: ["tenant": "acme", "provider": "vk id"], query: [("code", "1")])
  /// // "https://acme.example.ru/auth/vk%20id/callback?code=1"
  /// ```
  ///
  /// - Parameters:
  ///   - name: The route's name.
  ///   - captures: A value for every capture of the pattern.
  ///   - wildcards: A value for each `*` segment, in order.
  ///   - query: Query parameters, form-encoded in order; they must include the route's required ones.
  /// - Throws: ``RouteError`` with code `unknown-route`, `missing-capture-value`, `unknown-capture-name`,
  ///   `invalid-capture-value`, `missing-query-parameter` or `reverse-route-mismatch`.
  public func url(
    for name: String, captures: [String: String] = [:], wildcards: [String] = [], query: [(String, String)] = []
  ) throws(RouteError) -> String {
    guard let index = compiled.byName[name] else {
      throw RouteError(code: .unknownRoute, route: name, message: "no route is called \"\(name)\"")
    }
    let program = compiled.programs[index]
    let spec = program.spec
    var used: Set<String> = []
    func fail(_ code: RouteError.Code, _ message: String) -> RouteError {
      RouteError(code: code, route: name, pattern: program.route.pattern, message: message)
    }
    func value(_ capture: String) throws(RouteError) -> String {
      guard let v = captures[capture] else {
        throw fail(.missingCaptureValue, "no value for the capture \"\(capture)\"")
      }
      used.insert(capture)
      return v
    }
    /// Writes one component: literals as they are, capture values through `encode`, then checks constraints.
    func write(_ parts: [PartSpec], _ component: ComponentPattern, encode: (String, String) throws(RouteError) -> [UInt8]) throws(RouteError) -> [UInt8] {
      var out: [UInt8] = []
      var constraints = component.parts.makeIterator()
      for part in parts {
        let compiledPart = constraints.next()
        switch part {
        case .literal(let bytes): out += bytes
        case .capture(let captureName, _, _, _):
          let encoded = try encode(captureName, try value(captureName))
          if encoded.isEmpty { throw fail(.invalidCaptureValue, "the capture \"\(captureName)\" cannot be empty") }
          if case .capture(_, let constraint?)? = compiledPart, constraint.matches(encoded) != .match {
            throw fail(
              .invalidCaptureValue,
              "\"\(String(decoding: encoded, as: UTF8.self))\" does not satisfy the constraint of \"\(captureName)\" (\(constraint.source))")
          }
          out += encoded
        }
      }
      return out
    }
    func plain(_ allowed: @escaping (UInt8) -> Bool, _ what: String) -> (String, String) throws(RouteError) -> [UInt8] {
      { (captureName: String, v: String) throws(RouteError) -> [UInt8] in
        let bytes = Array(v.utf8)
        guard bytes.allSatisfy(allowed) else {
          throw fail(.invalidCaptureValue, "\"\(v)\" cannot be written in a \(what) (capture \"\(captureName)\")")
        }
        return bytes
      }
    }
    let segmentEncoder = { (captureName: String, v: String) throws(RouteError) -> [UInt8] in
      if v == "." || v == ".." {
        throw fail(.invalidCaptureValue, "\"\(v)\" would be removed as a dot segment (capture \"\(captureName)\")")
      }
      return Router.encodeComponent(v)
    }

    var url = try write(spec.scheme, program.scheme, encode: plain(Router.isSchemeByte, "scheme"))
    url.append(UInt8(ascii: ":"))
    if let host = spec.host, let compiledHost = program.host {
      url += Array("//".utf8)
      url += try write(host, compiledHost, encode: plain(Router.isHostByte, "host"))
    }
    var wildcardValues = wildcards.makeIterator()
    for (segment, compiledSegment) in zip(spec.segments, program.segments) {
      url.append(UInt8(ascii: "/"))
      switch segment {
      case .wildcard:
        guard let w = wildcardValues.next() else { throw fail(.missingCaptureValue, "no value for a '*' segment") }
        let encoded = try segmentEncoder("*", w)
        if encoded.isEmpty { throw fail(.invalidCaptureValue, "a '*' segment cannot be empty") }
        url += encoded
      case .parts(let parts):
        url += try write(parts, compiledSegment, encode: segmentEncoder)
      }
    }
    if let (restName, _) = spec.rest {
      let v = try value(restName)
      url.append(UInt8(ascii: "/"))
      var first = true
      for piece in v.split(separator: "/", omittingEmptySubsequences: false) {
        if !first { url.append(UInt8(ascii: "/")) }
        first = false
        url += try segmentEncoder(restName, String(piece))
      }
    }
    if let unknown = captures.keys.sorted().first(where: { !used.contains($0) }) {
      throw fail(.unknownCaptureName, "the pattern has no capture \"\(unknown)\"")
    }
    for required in spec.query where !query.contains(where: { $0.0 == required }) {
      throw fail(.missingQueryParameter, "the route requires the query parameter \"\(required)\"")
    }
    var string = String(decoding: url, as: UTF8.self)
    if !query.isEmpty { string += "?" + FormParameters.encode(query) }

    // The promise: the URL selects this route again, with these captures.
    guard let parsed = try? ParsedURL(string) else {
      throw fail(.reverseRouteMismatch, "\(string) is not a valid URL")
    }
    let match: RouteMatch?
    do {
      match = try self.match(parsed)
    } catch {
      throw fail(.reverseRouteMismatch, "\(string): \(error.message)")
    }
    guard let match, match.name == name else {
      throw fail(
        .reverseRouteMismatch,
        match.map { "\(string) is matched by the route \"\($0.name)\", which has priority" } ?? "\(string) does not match the route")
    }
    for capture in match.captures where captures[capture.name] != capture.value {
      throw fail(.reverseRouteMismatch, "\(string) reads the capture \"\(capture.name)\" back as \"\(capture.value)\"")
    }
    return string
  }

  static func isSchemeByte(_ b: UInt8) -> Bool {
    (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
  }

  /// Bytes a host capture can hold and keep through parsing: ASCII letters, digits, `-`, `.`, `_`, `~`.
  static func isHostByte(_ b: UInt8) -> Bool {
    (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
      || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
  }

  /// Percent-encodes with the URL Standard's component set plus `%`: everything but ASCII alphanumerics and
  /// `!'()*-._~` is escaped, so the value is one segment and decodes back unchanged.
  static func encodeComponent(_ value: String) -> [UInt8] {
    var out: [UInt8] = []
    let component = ByteSet.component
    for b in value.utf8 {
      if component.contains(b) {
        out += [UInt8(ascii: "%"), hexDigit(b >> 4), hexDigit(b & 15)]
      } else {
        out.append(b)
      }
    }
    return out
  }
}
