// One route compiled on its own: used by `explain`, by reverse routing's check, and by the ambiguity search.
// The trie (CompiledRouter.swift) shares these components between routes for `match`.

@_spi(Bytes) import LinkParseCore

/// Where the scheme, the host (with its port) and the path of a URL start and end, as UTF-8 offsets into its
/// serialization: the parser's stored offsets, read without a scan (`ParsedURL.utf8Ranges` computes every
/// component's range). Segments and the path's end are found in the serialization as they are read: the
/// URL Standard's serializer makes them unambiguous:
///
///     scheme ":" [ "//" [userinfo "@"] host [":" port] | "/." ] path ["?" query] ["#" fragment]
///
/// a path has its '?' and '#' percent-encoded, so a path segment ends at the next '/', '?' or '#', and the
/// path at the first '?' or '#' (found as segments are read, rather than by a scan of its own).
///
/// Meaningless for a URL with an opaque path (`mailto:…`), which no pattern matches.
struct URLView {
  let schemeEnd: Int
  /// From the host's start to the path's start (so a port is part of it).
  let host: Range<Int>?
  let pathStart: Int
  /// Where the path ends (its serialization's '?', '#' or end), from the parser's offsets.
  let pathEndOffset: Int

  /// (`borrowing`: an initializer takes its arguments owned, which costs the caller a retain of the URL.)
  @inline(__always)
  init(_ url: borrowing ParsedURL) {
    let offsets = url.schemeHostPathOffsets
    schemeEnd = offsets.schemeEnd
    host = offsets.hostStart.map { $0..<offsets.pathStart }
    pathStart = offsets.pathStart
    pathEndOffset = offsets.pathEnd
  }

  /// Whether the path ends at `cursor` (the path's start or the end of a segment): no '/' follows.
  @inline(__always)
  func isPathEnd(_ buf: UnsafeBufferPointer<UInt8>, _ cursor: Int) -> Bool {
    cursor == buf.count || buf[cursor] != UInt8(ascii: "/")
  }

  /// The end of the segment that starts after the '/' at `cursor`.
  @inline(__always)
  func segmentEnd(_ buf: UnsafeBufferPointer<UInt8>, after cursor: Int) -> Int {
    let slash = UInt8(ascii: "/")
    return firstIndex(of: (slash, UInt8(ascii: "?"), UInt8(ascii: "#"), slash), in: buf.baseAddress!, from: cursor &+ 1, to: buf.count)
  }

  /// The end of the path, scanning from `cursor` (within the path).
  func pathEnd(_ buf: UnsafeBufferPointer<UInt8>, from cursor: Int) -> Int {
    let (question, hash) = (UInt8(ascii: "?"), UInt8(ascii: "#"))
    return firstIndex(of: (question, hash, question, hash), in: buf.baseAddress!, from: cursor, to: buf.count)
  }
}

/// A route, compiled.
struct RouteProgram: Sendable {
  let index: Int
  let route: Route
  let spec: PatternSpec
  let scheme: ComponentPattern
  let host: ComponentPattern?
  let segments: [ComponentPattern]
  /// The `{name...}` capture's name index.
  let rest: Int32?
  let query: [String]
  /// The rank of each component, the path's end (literal) or rest included.
  let priority: [UInt8]
  let captureCount: Int
  /// The name index of each capture, in the order a match finds them: the scheme's, the host's, each
  /// segment's (each component's in its order), then the rest.
  let captureNames: [Int32]

  init(index: Int, route: Route, spec: PatternSpec, scheme: ComponentPattern, host: ComponentPattern?,
       segments: [ComponentPattern], rest: Int32?) {
    self.index = index
    self.route = route
    self.spec = spec
    self.scheme = scheme
    self.host = host
    self.segments = segments
    self.rest = rest
    self.query = spec.query
    var priority = [scheme.rank.rawValue, host?.rank.rawValue ?? 0]
    priority += segments.map(\.rank.rawValue)
    priority.append(rest == nil ? Rank.literal.rawValue : Rank.rest.rawValue)
    self.priority = priority
    var captureNames: [Int32] = []
    for component in [scheme] + (host.map { [$0] } ?? []) + segments {
      for case .capture(let name, _) in component.parts { captureNames.append(name) }
    }
    if let rest { captureNames.append(rest) }
    self.captureNames = captureNames
    captureCount = captureNames.count
  }

  /// Whether `self` has priority over `other` when both match a URL.
  func outranks(_ other: RouteProgram) -> Bool {
    if priority != other.priority { return priority.lexicographicallyPrecedes(other.priority) }
    if query.count != other.query.count { return query.count > other.query.count }
    return index < other.index
  }

  /// Matches this route alone against `url`, saying where it stopped when it does not match.
  func trace(_ url: ParsedURL, names: [String]) -> RouteExplanation.Outcome {
    let view = URLView(url)
    return withHrefBytes(url) { buf -> RouteExplanation.Outcome in
      let pathEnd = view.pathEnd(buf, from: view.pathStart)
      return withCaptureSlots(capacity: max(captureCount, 1)) { stack in
        func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: buf[r]), as: UTF8.self) }
        func step(_ c: ComponentPattern, _ r: Range<Int>, _ where_: RouteExplanation.Component) -> RouteExplanation.Outcome? {
          switch c.match(buf, r.lowerBound, r.upperBound, &stack) {
          case .match: return nil
          case .noMatch:
            return .stopped(at: where_, code: "no-match", reason: "\"\(text(r))\" does not match \"\(c.display)\"")
          case .limitExceeded:
            return .stopped(
              at: where_, code: RouteError.Code.constraintLimitExceeded.rawValue,
              reason: "a constraint of \"\(c.display)\" hit the PCRE2 limits on \"\(text(r).prefix(64))\"")
          }
        }
        if let stop = step(scheme, 0..<view.schemeEnd, .scheme) { return stop }
        switch (host, view.host) {
        case (nil, nil): break
        case (nil, let h?):
          return .stopped(at: .host, code: "unexpected-host", reason: "the URL has a host (\"\(text(h))\"), the pattern has none")
        case (_?, nil):
          return .stopped(at: .host, code: "missing-host", reason: "the URL has no host")
        case (let c?, let h?):
          if let stop = step(c, h, .host) { return stop }
        }
        if url.hasOpaquePath {
          return .stopped(at: .path, code: "opaque-path", reason: "the URL has an opaque path, which no pattern matches")
        }
        var cursor = view.pathStart
        for (k, segment) in segments.enumerated() {
          guard cursor < pathEnd else {
            return .stopped(
              at: .pathSegment(k + 1), code: "path-too-short",
              reason: "the path ends after \(k) segment\(k == 1 ? "" : "s"), the pattern has \(segments.count)")
          }
          let end = view.segmentEnd(buf, after: cursor)
          if let stop = step(segment, (cursor + 1)..<end, .pathSegment(k + 1)) { return stop }
          cursor = end
        }
        if let rest {
          stack.push(rest, cursor < pathEnd ? cursor + 1 : pathEnd, pathEnd)
        } else if cursor < pathEnd {
          return .stopped(
            at: .pathSegment(segments.count + 1), code: "path-too-long",
            reason: "the path goes on after \(segments.count) segment\(segments.count == 1 ? "" : "s"): \"\(text(cursor..<pathEnd))\"")
        }
        if !query.isEmpty {
          let params = url.queryParameters
          for name in query where !params.contains(named: name) {
            return .stopped(at: .query, code: "missing-query-parameter", reason: "the query has no \"\(name)\" parameter")
          }
        }
        let captures = (0..<stack.count).map { k -> (name: String, value: String) in
          let slot = stack.base[k]
          return (names[Int(slot.name)], FormParameters.decode(text(Int(slot.start)..<Int(slot.end))[...], encoding: .percentEncoded))
        }
        return .matched(captures: captures)
      }
    }
  }
}
