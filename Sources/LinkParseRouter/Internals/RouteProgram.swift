// One route compiled on its own: used by `explain`, by reverse routing's check, and by the ambiguity search.
// The trie (CompiledRouter.swift) shares these components between routes for `match`.

import LinkParseCore

/// Where the components of a parsed URL are, as UTF-8 offsets into its `href`.
struct URLView {
  let schemeEnd: Int
  /// From the host's start to the path's start (so a port is part of it).
  let host: Range<Int>?
  let pathStart: Int
  let pathEnd: Int
  let opaquePath: Bool

  init(_ url: ParsedURL) {
    let utf8 = url.href.utf8
    func offset(_ s: Substring) -> Int { utf8.distance(from: utf8.startIndex, to: s.startIndex) }
    schemeEnd = url.scheme.utf8.count
    let path = url.path
    pathStart = offset(path)
    pathEnd = pathStart + path.utf8.count
    let start = pathStart
    host = url.host.map { offset($0)..<start }
    opaquePath = url.hasOpaquePath
  }

  /// The end of the segment that starts after the '/' at `cursor`.
  @inline(__always)
  func segmentEnd(_ buf: UnsafePointer<UInt8>, after cursor: Int) -> Int {
    var e = cursor + 1
    while e < pathEnd && buf[e] != UInt8(ascii: "/") { e += 1 }
    return e
  }
}

/// Calls `body` with the URL's serialization as contiguous bytes (in place for native strings).
func withHrefBytes<R>(_ url: ParsedURL, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
  if let r = url.href.utf8.withContiguousStorageIfAvailable(body) { return r }
  return Array(url.href.utf8).withUnsafeBufferPointer(body)
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
    captureCount = scheme.captureCount + (host?.captureCount ?? 0) + segments.reduce(0) { $0 + $1.captureCount }
      + (rest == nil ? 0 : 1)
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
      let p = buf.baseAddress!
      return withUnsafeTemporaryAllocation(of: CaptureSlot.self, capacity: max(captureCount, 1)) { slots in
        var stack = CaptureStack(slots)
        func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: buf[r]), as: UTF8.self) }
        func step(_ c: ComponentPattern, _ r: Range<Int>, _ where_: RouteExplanation.Component) -> RouteExplanation.Outcome? {
          switch c.match(p, r.lowerBound, r.upperBound, &stack) {
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
        if view.opaquePath {
          return .stopped(at: .path, code: "opaque-path", reason: "the URL has an opaque path, which no pattern matches")
        }
        var cursor = view.pathStart
        for (k, segment) in segments.enumerated() {
          guard cursor < view.pathEnd else {
            return .stopped(
              at: .pathSegment(k + 1), code: "path-too-short",
              reason: "the path ends after \(k) segment\(k == 1 ? "" : "s"), the pattern has \(segments.count)")
          }
          let end = view.segmentEnd(p, after: cursor)
          if let stop = step(segment, (cursor + 1)..<end, .pathSegment(k + 1)) { return stop }
          cursor = end
        }
        if let rest {
          stack.push(rest, cursor < view.pathEnd ? cursor + 1 : view.pathEnd, view.pathEnd)
        } else if cursor < view.pathEnd {
          return .stopped(
            at: .pathSegment(segments.count + 1), code: "path-too-long",
            reason: "the path goes on after \(segments.count) segment\(segments.count == 1 ? "" : "s"): \"\(text(cursor..<view.pathEnd))\"")
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
