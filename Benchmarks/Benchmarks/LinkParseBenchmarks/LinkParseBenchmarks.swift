// The package-benchmark suites: LinkParse's hot path and Foundation's baseline on the benchmark corpus, and
// zero-allocation probes on one canonical callback.
//
//   make bench         runs every suite (wall clock, malloc counts, throughput for the probes)
//   make bench-check   runs the LinkParse suites and checks their malloc counts against Thresholds/
//
// Corpus suites: one iteration is one pass over the whole corpus (10,000 URLs from generate-corpus.py), so
// their wall clock is per 10,000 URLs (1 ms = 100 ns per URL) and their malloc count is per pass. Each URL is
// its own native String, as an app receives it; the corpus is read once per process, outside the measurement.
//
// Probes (`*-one`): one iteration is one call on one canonical callback String, so their malloc count is the
// number of heap allocations per call: the targets are 0 for parse and parameter iteration, at most 2
// for a full decode.
//
// Every result goes through `blackHole`, so the optimizer cannot drop the work.

import Benchmark
import BenchmarkSupport
import Foundation
import LinkParse
@_spi(Bytes) import LinkParseCore

// MARK: - Corpus

/// The corpus file: `$LINKPARSE_BENCH_CORPUS`, else `Benchmarks/corpus/callbacks.txt` beside this package.
let corpusPath: String = {
  if let path = ProcessInfo.processInfo.environment["LINKPARSE_BENCH_CORPUS"], !path.isEmpty { return path }
  // #filePath: Benchmarks/Benchmarks/LinkParseBenchmarks/LinkParseBenchmarks.swift
  let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  return package.appendingPathComponent("corpus/callbacks.txt").path
}()

/// The benchmark corpus, one native String per URL; read once per process (a global is initialised once).
let corpus: [String] = {
  guard let text = try? String(contentsOfFile: corpusPath, encoding: .utf8) else {
    fatalError("cannot read \(corpusPath): run `python3 Benchmarks/generate-corpus.py Benchmarks/corpus/callbacks.txt`")
  }
  return text.split(separator: "\n").map { String($0) }
}()

// MARK: - Routes

/// 990 generated routes of the shapes a large app or a multi-tenant server has (literal hosts, captures,
/// constrained captures, custom schemes), none ambiguous with another, plus the ten above: 1,000 in all.
let thousandRoutes: [Route] = {
  var routes = realisticRoutes
  for i in 0..<990 {
    switch i % 5 {
    case 0: routes.append(Route("tenant-\(i)", "https://tenant\(i).example.net/auth/{provider}/callback"))
    case 1: routes.append(Route("app-\(i)", "app\(i)://callback/{id:[0-9]+}"))
    case 2: routes.append(Route("api-\(i)", "https://api.example.org/v\(i)/{resource}/{id}"))
    case 3: routes.append(Route("shop-\(i)", "https://shop\(i).example.com/return/{order:[A-Z0-9]+}"))
    default: routes.append(Route("page-\(i)", "https://links.example.ru/section\(i)/{page}"))
    }
  }
  return routes
}()

func makeRouter(_ routes: [Route]) -> Router {
  do {
    return try Router(routes)
  } catch {
    fatalError("the benchmark routes do not compile: \(error.errors)")
  }
}

// MARK: - Full decode

/// Parse, route among the router's routes, validate against the pending authorization (redirect, duplicate
/// critical parameters, state in constant time, issuer) and decode the provider's outcome.
@inline(__always)
func decode(_ string: String, router: Router, pending: PendingAuthorization?) -> Int {
  guard let url = try? ParsedURL(string) else { return 0 }
  let match = try? router.match(url)
  var sum = match?.captureCount ?? 0
  guard let pending else { return sum }
  do {
    let callback = try pending.validate(url, now: 0)
    sum &+= callback.outcome == .success ? 1 : 2
  } catch {
    sum &+= 3
  }
  return sum
}

/// What the decode suites need, made outside the measurement: the URLs, the router of the ten realistic
/// routes, and each URL's pending authorization.
struct DecodeState {
  var corpus: [String]
  var router: Router
  var pending: [PendingAuthorization?]
}

func decodeState(for urls: [String]) -> DecodeState {
  let router = makeRouter(realisticRoutes)
  let pending = urls.map { pendingAuthorization(for: $0, router: router) }
  precondition(pending.contains { $0 != nil }, "no pending authorization for the benchmark's URLs")
  return DecodeState(corpus: urls, router: router, pending: pending)
}

// MARK: - Workloads

@inline(__always)
func parseReadingRanges(_ string: String) -> Int {
  guard let url = try? ParsedURL(string) else { return 0 }
  let r = url.utf8Ranges
  var sum = r.scheme.count &+ r.username.count &+ r.password.count &+ (r.host?.count ?? 0)
  sum &+= Int(url.port ?? 0) &+ r.path.count &+ (r.query?.count ?? 0) &+ (r.fragment?.count ?? 0)
  return sum
}

@inline(__always)
func parseReadingSubstrings(_ string: String) -> Int {
  guard let url = try? ParsedURL(string) else { return 0 }
  var sum = url.scheme.utf8.count &+ url.username.utf8.count &+ url.password.utf8.count
  sum &+= (url.host?.utf8.count ?? 0) &+ Int(url.port ?? 0) &+ url.path.utf8.count
  sum &+= (url.query?.utf8.count ?? 0) &+ (url.fragment?.utf8.count ?? 0)
  return sum
}

@inline(__always)
func parseIteratingParameters(_ string: String) -> Int {
  guard let url = try? ParsedURL(string) else { return 0 }
  var sum = 0
  url.queryParameters.forEachDecoded { name, value in
    sum &+= name.count &+ (value?.count ?? 0)
  }
  return sum
}

@inline(__always)
func route(_ string: String, _ router: Router) -> Int {
  guard let url = try? ParsedURL(string), let match = try? router.match(url) else { return 0 }
  return match.captureCount &+ 1
}

@inline(__always)
func foundationComponents(_ string: String) -> Int {
  guard let c = URLComponents(string: string) else { return 0 }
  var sum = (c.scheme?.utf8.count ?? 0) &+ (c.user?.utf8.count ?? 0) &+ (c.password?.utf8.count ?? 0)
  sum &+= (c.host?.utf8.count ?? 0) &+ (c.port ?? 0) &+ c.path.utf8.count
  sum &+= (c.query?.utf8.count ?? 0) &+ (c.fragment?.utf8.count ?? 0)
  return sum
}

@inline(__always)
func foundationQueryItems(_ string: String) -> Int {
  guard let c = URLComponents(string: string) else { return 0 }
  var sum = 0
  for item in c.queryItems ?? [] {
    sum &+= item.name.utf8.count &+ (item.value?.utf8.count ?? 0)
  }
  return sum
}

// MARK: - Probes

/// One canonical VK ID app callback, as a native String made at run time (not a literal in the binary).
func canonicalCallback() -> String {
  var url = "vk7915193://vk.ru/blank.html?code=vk2.a.Xk3vB9qLmN4pR7sT1uW5yZ8cD2fG6hJ0kL3nP9qS"
  url += "&state=d9F3kL8mQ2rT6vX1zB5nC7pW4yH0jG&device_id=Rk7Vz2Lq9Xw4Np1Ts6Ym3Bc8Hd5Jf0Ga"
  url += "&type=code_v2&expires_in=600"
  return url
}

// MARK: - Suites

let benchmarks: @Sendable () -> Void = {
  // Time is reported, never checked: only the malloc counts have committed thresholds (Thresholds/).
  // The default tolerance, strict (0 at p90), makes any rise above a committed count a failure.
  let corpusSuite = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal],
    warmupIterations: 2,
    maxDuration: .seconds(2),
    maxIterations: 60
  )
  let probe = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 100,
    maxDuration: .seconds(1),
    maxIterations: 50_000
  )

  // LinkParse on the corpus.

  Benchmark("parse", configuration: corpusSuite) { benchmark, corpus in
    for string in corpus { blackHole(parseReadingRanges(string)) }
  } setup: {
    corpus
  }

  Benchmark("parse-substrings", configuration: corpusSuite) { benchmark, corpus in
    for string in corpus { blackHole(parseReadingSubstrings(string)) }
  } setup: {
    corpus
  }

  Benchmark("params", configuration: corpusSuite) { benchmark, corpus in
    for string in corpus { blackHole(parseIteratingParameters(string)) }
  } setup: {
    corpus
  }

  Benchmark("router-10", configuration: corpusSuite) { benchmark, state in
    for string in state.corpus { blackHole(route(string, state.router)) }
  } setup: {
    (corpus: corpus, router: makeRouter(realisticRoutes))
  }

  Benchmark("router-1000", configuration: corpusSuite) { benchmark, state in
    for string in state.corpus { blackHole(route(string, state.router)) }
  } setup: {
    (corpus: corpus, router: makeRouter(thousandRoutes))
  }

  Benchmark("decode", configuration: corpusSuite) { benchmark, state in
    for (string, pending) in zip(state.corpus, state.pending) {
      blackHole(decode(string, router: state.router, pending: pending))
    }
  } setup: {
    decodeState(for: corpus)
  }

  // Foundation's baseline on the same corpus, in the same process.

  Benchmark("foundation-urlcomponents", configuration: corpusSuite) { benchmark, corpus in
    for string in corpus { blackHole(foundationComponents(string)) }
  } setup: {
    corpus
  }

  Benchmark("foundation-queryitems", configuration: corpusSuite) { benchmark, corpus in
    for string in corpus { blackHole(foundationQueryItems(string)) }
  } setup: {
    corpus
  }

  // Zero-allocation probes: one call per iteration on one canonical callback.

  Benchmark("parse-one", configuration: probe) { benchmark, string in
    blackHole(parseReadingRanges(string))
  } setup: {
    canonicalCallback()
  }

  Benchmark("params-one", configuration: probe) { benchmark, string in
    blackHole(parseIteratingParameters(string))
  } setup: {
    canonicalCallback()
  }

  Benchmark("decode-one", configuration: probe) { benchmark, state in
    blackHole(decode(state.corpus[0], router: state.router, pending: state.pending[0]))
  } setup: {
    decodeState(for: [canonicalCallback()])
  }
}
