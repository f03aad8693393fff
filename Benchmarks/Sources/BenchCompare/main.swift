// LinkParse against Foundation's URLComponents, on the benchmark corpus, in one process.
//
//   BenchCompare [CORPUS] [--rounds N] [--detail]
//   BenchCompare [CORPUS] --vs-ada N     (for `make bench-ada`: `linkparse parse_ns=… params_ns=… decode_ns=…`
//                                          per round)
//
// Prints one line per comparison, exactly in this form, so that scripts can read it:
//
//   compare=parse linkparse_ns=… foundation_ns=… speedup=…
//   compare=params linkparse_ns=… foundation_ns=… speedup=…
//   compare=decode linkparse_ns=… foundation_ns=… speedup=…
//
// ns per URL, the median over rounds (each round runs the whole corpus once; LinkParse and Foundation rounds
// alternate, so that drift and other load touch both alike). What each side does:
//
// - parse:  LinkParse parses each URL and reads every component (scheme, username, password, host, port,
//           path, query, fragment) as zero-copy views; Foundation runs `URLComponents(string:)` and reads the
//           same components.
// - params: LinkParse parses and iterates every query parameter, decoding each name and value (lazily, as
//           bytes, without building a String); Foundation iterates `URLComponents.queryItems` and reads
//           each name and value.
// - decode: LinkParse parses, routes among 10 routes, decodes the provider's callback (from the query, or
//           the fragment where the callback puts it) and checks it against its pending authorization
//           (redirect, duplicates, state in constant time); Foundation only iterates `queryItems`.
//
// Every result is folded into a checksum that is printed, so the optimizer cannot drop the work.
//
// `--only WORKLOAD [--rounds N]` runs one workload for profilers: parse, params, decode, validate,
// foundation-parse, foundation-params, or route (parse and `Router.match` among the 10 routes; subtract parse
// for match's own cost).

import Foundation
import BenchmarkSupport
import LinkParse
@_spi(Bytes) import LinkParseCore

// MARK: - Input

var corpusPath = "corpus/callbacks.txt"
// 41 rounds (about six seconds for the three comparisons): on a shared VM single rounds vary by up to 2×
// within seconds, and with 15 rounds the decode's median ratio moved by ±10% from run to run.
var rounds = 41
var roundsGiven = false
var detail = false
var only: String? = nil
/// `--vs-ada N`: N rounds for `make bench-ada` (Benchmarks/bench-ada.py), one line each.
var adaRounds: Int? = nil
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--vs-ada": adaRounds = Int(arguments.popFirst() ?? "") ?? 1
  case "--rounds":
    rounds = Int(arguments.popFirst() ?? "") ?? rounds
    roundsGiven = true
  case "--detail": detail = true
  case "--only": only = arguments.popFirst()
  default: corpusPath = argument
  }
}
guard let text = try? String(contentsOfFile: corpusPath, encoding: .utf8) else {
  FileHandle.standardError.write(Data("BenchCompare: cannot read \(corpusPath); run Benchmarks/generate-corpus.py\n".utf8))
  exit(2)
}
// Each URL is its own native String, as an app receives it.
let corpus: [String] = text.split(separator: "\n").map { String($0) }
let count = corpus.count

// MARK: - Timing

func now() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

var checksum = 0

/// Runs the two workloads alternately, `rounds` times each, and returns their median ns per URL.
func compare(_ linkparse: () -> Int, _ foundation: () -> Int) -> (Double, Double) {
  var a: [Double] = []
  var b: [Double] = []
  checksum &+= linkparse() &+ foundation()  // warm-up
  for _ in 0..<rounds {
    var start = now()
    checksum &+= linkparse()
    a.append(Double(now() - start) / Double(count))
    start = now()
    checksum &+= foundation()
    b.append(Double(now() - start) / Double(count))
  }
  return (median(a), median(b))
}

func report(_ name: String, _ result: (Double, Double)) {
  let (l, f) = result
  print(String(format: "compare=%@ linkparse_ns=%.1f foundation_ns=%.1f speedup=%.2f", name, l, f, f / l))
}

// MARK: - parse

@inline(never)
func linkparseParse() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    let r = url.utf8Ranges
    sum &+= r.scheme.count &+ r.username.count &+ r.password.count &+ (r.host?.count ?? 0)
    sum &+= Int(url.port ?? 0) &+ r.path.count &+ (r.query?.count ?? 0) &+ (r.fragment?.count ?? 0)
  }
  return sum
}

@inline(never)
func linkparseParseSubstrings() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    sum &+= url.scheme.utf8.count &+ url.username.utf8.count &+ url.password.utf8.count
    sum &+= (url.host?.utf8.count ?? 0) &+ Int(url.port ?? 0) &+ url.path.utf8.count
    sum &+= (url.query?.utf8.count ?? 0) &+ (url.fragment?.utf8.count ?? 0)
  }
  return sum
}

@inline(never)
func foundationParse() -> Int {
  var sum = 0
  for string in corpus {
    guard let c = URLComponents(string: string) else { continue }
    sum &+= (c.scheme?.utf8.count ?? 0) &+ (c.user?.utf8.count ?? 0) &+ (c.password?.utf8.count ?? 0)
    sum &+= (c.host?.utf8.count ?? 0) &+ (c.port ?? 0) &+ c.path.utf8.count
    sum &+= (c.query?.utf8.count ?? 0) &+ (c.fragment?.utf8.count ?? 0)
  }
  return sum
}

/// `parse` as `make bench-ada` compares it with Ada's: the href and every component read (the href is the
/// stored serialization: reading it costs nothing more).
@inline(never)
func linkparseParseAll() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    let r = url.utf8Ranges
    sum &+= url.href.utf8.count &+ r.scheme.count &+ r.username.count &+ r.password.count &+ (r.host?.count ?? 0)
    sum &+= Int(url.port ?? 0) &+ r.path.count &+ (r.query?.count ?? 0) &+ (r.fragment?.count ?? 0)
  }
  return sum
}

// MARK: - params

@inline(never)
func linkparseParams() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    url.queryParameters.forEachDecoded { name, value in
      sum &+= name.count &+ (value?.count ?? 0)
    }
  }
  return sum
}

@inline(never)
func linkparseParamsStrings() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    for parameter in url.queryParameters {
      sum &+= parameter.name().utf8.count &+ (parameter.value()?.utf8.count ?? 0)
    }
  }
  return sum
}

@inline(never)
func foundationParams() -> Int {
  var sum = 0
  for string in corpus {
    guard let c = URLComponents(string: string) else { continue }
    for item in c.queryItems ?? [] {
      sum &+= item.name.utf8.count &+ (item.value?.utf8.count ?? 0)
    }
  }
  return sum
}

// MARK: - decode

let router = try! Router(realisticRoutes)

/// For each URL, the pending authorization an app would hold for it (made outside the timing). Only for the
/// workloads that read it: making them matches every URL once, which would show up in a profile of `--only
/// route` (callgrind counts the calls made outside `--toggle-collect` too).
let pending: [PendingAuthorization?] =
  only == nil || only == "decode" || only == "validate" || adaRounds != nil
  ? corpus.map { pendingAuthorization(for: $0, router: router) } : []
@inline(never)
func linkparseDecode() -> Int {
  var sum = 0
  for (i, string) in corpus.enumerated() {
    guard let url = try? ParsedURL(string) else { continue }
    let match = try? router.match(url)
    sum &+= match?.captureCount ?? 0
    guard let pending = pending[i] else { continue }
    sum &+= validated(pending, url)
  }
  return sum
}

/// Validates `url` against `pending` (`now` 0: nothing expires): 1 for a success, 2 for another outcome, 3 for
/// a rejection.
@inline(__always)
func validated(_ pending: PendingAuthorization, _ url: ParsedURL) -> Int {
  switch Result(catching: { () throws(CallbackError) -> ProviderCallback in try pending.validate(url, now: 0) }) {
  case .success(let callback): return callback.outcome == .success ? 1 : 2
  case .failure: return 3
  }
}

/// Parse and validate against the pending authorization, without the router: isolates `validate` for
/// profilers (subtract `parse`, which walks the corpus the same way). Not a compare line.
@inline(never)
func linkparseValidate() -> Int {
  var sum = 0
  var i = -1
  for string in corpus {
    i &+= 1
    guard let url = try? ParsedURL(string) else { continue }
    guard let pending = pending[i] else { continue }
    sum &+= validated(pending, url)
  }
  return sum
}

// MARK: - route

/// Parse and route only (no decode), for profiling `Router.match` (`--only route`; subtract `--only parse`).
@inline(never)
func linkparseRoute() -> Int {
  var sum = 0
  for string in corpus {
    guard let url = try? ParsedURL(string) else { continue }
    guard let match = try? router.match(url) else { continue }
    sum &+= 1 &+ match.routeIndex &+ match.captureCount
  }
  return sum
}

// MARK: - Run

/// Context for people goes to stderr; stdout has only the comparison lines.
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
note(
  "corpus: \(corpusPath), \(count) URLs, \(corpus.reduce(0) { $0 + $1.utf8.count } / max(count, 1)) bytes per URL on average; \(rounds) rounds")
if let adaRounds {
  // `make bench-ada`: one warm-up pass of each, then one line per round; the driver interleaves these
  // processes with Ada's and takes the medians.
  checksum &+= linkparseParseAll() &+ linkparseParams() &+ linkparseDecode()
  for _ in 0..<adaRounds {
    var t = now()
    checksum &+= linkparseParseAll()
    let parse = Double(now() - t) / Double(count)
    t = now()
    checksum &+= linkparseParams()
    let params = Double(now() - t) / Double(count)
    t = now()
    checksum &+= linkparseDecode()
    let decode = Double(now() - t) / Double(count)
    print(String(format: "linkparse parse_ns=%.1f params_ns=%.1f decode_ns=%.1f", parse, params, decode))
  }
  note("checksum: \(checksum)")
  exit(0)
}
if let only {
  // One workload, once (or `--rounds N` times), for profilers (`valgrind --tool=callgrind … --only decode`,
  // `perf record … --only decode --rounds 50`).
  let workloads = [
    "parse": linkparseParse, "params": linkparseParams, "decode": linkparseDecode,
    "validate": linkparseValidate, "route": linkparseRoute,
    "foundation-parse": foundationParse, "foundation-params": foundationParams,
  ]
  guard let workload = workloads[only] else {
    note("BenchCompare: no workload \(only)")
    exit(2)
  }
  // The fastest round, for A/B comparisons on a noisy machine (the minimum is the least disturbed).
  var fastest = Double.infinity
  for _ in 0..<(roundsGiven ? rounds : 1) {
    let start = now()
    checksum &+= workload()
    fastest = min(fastest, Double(now() - start) / Double(count))
  }
  note("fastest round: \(String(format: "%.1f", fastest)) ns per URL")
  note("checksum: \(checksum)")
  exit(0)
}
report("parse", compare(linkparseParse, foundationParse))
report("params", compare(linkparseParams, foundationParams))
report("decode", compare(linkparseDecode, foundationParams))
if detail {
  report("parse-substrings", compare(linkparseParseSubstrings, foundationParse))
  report("params-strings", compare(linkparseParamsStrings, foundationParams))
}
note("checksum: \(checksum)")
