// Compile-time check that no two routes can match the same URL with the same priority.
//
// Two routes can only tie when their rank sequences and their numbers of query requirements are equal, so
// routes are grouped by those first and only compared within a group. Two routes of a group are ambiguous
// when every pair of corresponding components can match a common text:
// - literals: equal (ASCII-case-insensitively when either side is caseless);
// - `*` and `{rest...}`: always;
// - captures and constraints: a witness is searched among sample texts generated from both components
//   (literal parts, probes, and strings generated from each regex, see RegexSamples.swift).
// A witness URL is assembled from the component witnesses and checked by running both routes on it, so a
// reported example always really matches both. Overlaps of regexes that no sample exposes are not found;
// the router then prefers the route declared first.

import LinkParseCore

struct AmbiguityCheck {
  let programs: [RouteProgram]
  let names: [String]

  func run() -> [RouteError] {
    var groups: [[UInt8]: [Int]] = [:]
    // Positions in `programs` (not route indices: routes that failed to compile are missing).
    for (k, p) in programs.enumerated() {
      groups[p.priority + [UInt8(truncatingIfNeeded: p.query.count), 255], default: []].append(k)
    }
    var errors: [RouteError] = []
    for members in groups.values where members.count > 1 {
      // Literal-only groups are the large ones (1,000 `/x/N` routes): bucket those by their folded text.
      var buckets: [[UInt8]: [Int]] = [:]
      for m in members { buckets[literalKey(programs[m]), default: []].append(m) }
      for bucket in buckets.values where bucket.count > 1 {
        for a in 0..<bucket.count {
          for b in (a + 1)..<bucket.count {
            if let error = check(programs[bucket[a]], programs[bucket[b]]) { errors.append(error) }
          }
        }
      }
    }
    return errors
  }

  /// A key equal for any two routes that might overlap: the folded text of the scheme and host literals (path
  /// literals may be case-sensitive on one side only, so they are left out).
  private func literalKey(_ p: RouteProgram) -> [UInt8] {
    var key: [UInt8] = []
    for c in [p.scheme, p.host] {
      if let literal = c?.literal { key += literal }
      key.append(0)
    }
    return key
  }

  private func check(_ a: RouteProgram, _ b: RouteProgram) -> RouteError? {
    guard (a.host == nil) == (b.host == nil), a.segments.count == b.segments.count, (a.rest == nil) == (b.rest == nil)
    else { return nil }
    guard let scheme = overlap(a.scheme, b.scheme) else { return nil }
    var url = String(decoding: scheme, as: UTF8.self) + ":"
    if let ha = a.host, let hb = b.host {
      guard let host = overlap(ha, hb) else { return nil }
      url += "//" + String(decoding: host, as: UTF8.self)
    }
    for (sa, sb) in zip(a.segments, b.segments) {
      guard let segment = overlap(sa, sb) else { return nil }
      url += "/" + String(decoding: segment, as: UTF8.self)
    }
    var query: [String] = []
    for name in a.query + b.query where !query.contains(name) { query.append(name) }
    if !query.isEmpty { url += "?" + query.map { FormParameters.formEncode($0) }.joined(separator: "&") }
    // Keep only witnesses that really match both routes.
    guard let parsed = try? ParsedURL(url),
      case .matched = a.trace(parsed, names: names),
      case .matched = b.trace(parsed, names: names)
    else { return nil }
    return RouteError(
      code: .ambiguousRoutes, route: b.route.name, pattern: b.route.pattern,
      message: "routes \"\(a.route.name)\" and \"\(b.route.name)\" both match \(parsed.href) with the same priority",
      otherRoute: a.route.name, exampleURL: parsed.href, routeIndex: b.index)
  }

  /// A text both components match, or `nil` when none was found.
  private func overlap(_ a: ComponentPattern, _ b: ComponentPattern) -> [UInt8]? {
    if let la = a.literal, let lb = b.literal {
      if la == lb { return a.caseless ? lb : la }
      if a.caseless || b.caseless, la.map(asciiLowercased) == lb.map(asciiLowercased) { return a.caseless ? lb : la }
      return nil
    }
    for sample in samples(a) + samples(b) where a.matches(sample) == .match && b.matches(sample) == .match {
      return sample
    }
    return nil
  }

  private func samples(_ c: ComponentPattern) -> [[UInt8]] {
    if c.rank == .wildcard { return [Array("x".utf8)] }
    var result: [[UInt8]] = [[]]
    for part in c.parts {
      let options: [[UInt8]]
      switch part {
      case .literal(let l): options = [l]
      case .capture(_, let constraint):
        options = constraint.map { RegexSamples.generate($0.source) } ?? [Array("x".utf8), Array("1".utf8)]
      }
      result = RegexSamples.product(result, options)
    }
    return result
  }
}
