// Compile-time check that no two routes can match the same URL with the same priority.
//
// Two routes can only tie when their rank sequences and their numbers of query requirements are equal. Equal
// rank sequences put literals at the same components of both routes, and two literals match a common text
// only when they are equal ASCII-case-insensitively (byte-equal when both are case-sensitive, which implies
// it). So routes are first bucketed by their priority, query count, whether they have a host, and the folded
// text of every literal component: any two routes that might tie share a bucket, and most routes of a large
// table of literals are alone in theirs. Within a bucket, two routes are ambiguous when every pair of
// corresponding components can match a common text:
// - literals: equal (ASCII-case-insensitively when either side is caseless);
// - `*` and `{rest...}`: always;
// - captures and constraints: a witness is searched among sample texts generated from both components
//   (literal parts, probes, and strings generated from each regex, see RegexSamples.swift).
// A witness URL is assembled from the component witnesses and checked by running both routes on it, so a
// reported example always really matches both. Overlaps of regexes that no sample exposes are not found;
// the router then prefers the route declared first.
//
// Building the buckets is linear in the size of the table; the pairs compared are those within a bucket,
// which differ only in their captures, constraints and `*`s.

import LinkParseCore
import LinkParseBytes

struct AmbiguityCheck {
  let programs: [RouteProgram]
  let names: [String]

  /// What two routes that might tie have in common.
  struct BucketKey: Hashable {
    var priority: [UInt8]
    var queryCount: Int
    /// A route without a host ranks its host as a literal: told apart here.
    var hasHost: Bool
    /// The text of each literal component, ASCII-case-folded, from the scheme to the last segment.
    var literals: [[UInt8]]

    init(_ p: RouteProgram) {
      priority = p.priority
      queryCount = p.query.count
      hasHost = p.host != nil
      literals = []
      for c in [p.scheme] + (p.host.map { [$0] } ?? []) + p.segments {
        if let literal = c.literal { literals.append(c.caseless ? literal : literal.map(asciiLowercased)) }
      }
    }
  }

  /// Every ambiguity: one error for each pair of routes found to tie, on the one declared last.
  func run() -> [RouteError] {
    // Positions in `programs` (not route indices: routes that failed to compile are missing), in order.
    var buckets: [[Int]] = []
    var bucketOf: [BucketKey: Int] = [:]
    bucketOf.reserveCapacity(programs.count)
    for (k, p) in programs.enumerated() {
      let key = BucketKey(p)
      if let b = bucketOf[key] {
        buckets[b].append(k)
      } else {
        bucketOf[key] = buckets.count
        buckets.append([k])
      }
    }
    var errors: [RouteError] = []
    for bucket in buckets where bucket.count > 1 {
      for b in 1..<bucket.count {
        for a in 0..<b {
          if let error = check(programs[bucket[a]], programs[bucket[b]]) { errors.append(error) }
        }
      }
    }
    return errors
  }

  /// The ambiguity of `b` with `a` (declared before it), or `nil` when no URL was found that both match with
  /// the same priority.
  func check(_ a: RouteProgram, _ b: RouteProgram) -> RouteError? {
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
