// Compiling large route tables: `Router(routes)`, which `linkparse routes check` and `--routes` run, in one
// process.
//
//   BenchRoutes [--only NAME] [--rounds N]
//
// Prints one line per table, exactly in this form, so that scripts can read it:
//
//   bench=routes-literal-8000 routes=8000 seconds=… min_seconds=… rounds=…
//
// seconds is the median over rounds (each compiles the whole table, after one warm-up compile of a
// thousand routes), min the fastest round. Tables:
//
// - routes-literal-N:  `https://example.com/x/I` for I below N: literal routes sharing their scheme and host,
//                      all of one priority (the ambiguity check's largest group).
// - routes-segment-N:  `https://example.com/a/I/b`: the differing literal between two shared ones.
// - routes-mixed-N:    by fifths, literal routes, caseless ones requiring `?code`, `/u/{id:[0-9]+}/pI`,
//                      `/f/I/{rest...}` and `/w/*/I?code&state`, all on one scheme and host.
//
// N is 8,000 and 100,000. Build and run in release:
//   cd Benchmarks && swift build -c release --product BenchRoutes && .build/release/BenchRoutes

import Foundation
import LinkParse

// MARK: - Arguments

var only: String? = nil
var rounds = 3
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--only": only = arguments.popFirst()
  case "--rounds": rounds = max(1, Int(arguments.popFirst() ?? "") ?? rounds)
  default:
    FileHandle.standardError.write(Data("BenchRoutes: unknown argument \(argument)\n".utf8))
    exit(2)
  }
}

// MARK: - Tables

func literal(_ n: Int) -> [Route] {
  (0..<n).map { Route("r\($0)", "https://example.com/x/\($0)") }
}

func segment(_ n: Int) -> [Route] {
  (0..<n).map { Route("r\($0)", "https://example.com/a/\($0)/b") }
}

func mixed(_ n: Int) -> [Route] {
  (0..<n).map { i in
    switch i % 5 {
    case 0: Route("r\(i)", "https://example.com/x/\(i)")
    case 1: Route("r\(i)", "https://example.com/X/\(i)?code", options: .caseInsensitivePath)
    case 2: Route("r\(i)", "https://example.com/u/{id:[0-9]+}/p\(i)")
    case 3: Route("r\(i)", "https://example.com/f/\(i)/{rest...}")
    default: Route("r\(i)", "https://example.com/w/*/\(i)?code&state")
    }
  }
}

// MARK: - Run

func now() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Compiles `routes`, failing the run when the table does not compile: every table here is valid.
func compile(_ routes: [Route]) -> Int {
  do {
    return try Router(routes).routes.count
  } catch {
    FileHandle.standardError.write(Data("BenchRoutes: the table does not compile: \(error.errors.prefix(3))\n".utf8))
    exit(1)
  }
}

var workloads: [(name: String, routes: () -> [Route])] = []
for n in [8_000, 100_000] {
  workloads += [
    ("routes-literal-\(n)", { literal(n) }), ("routes-segment-\(n)", { segment(n) }),
    ("routes-mixed-\(n)", { mixed(n) }),
  ]
}

if let only, !workloads.contains(where: { $0.name == only }) {
  FileHandle.standardError.write(
    Data("BenchRoutes: no table \(only); tables: \(workloads.map(\.name).joined(separator: ", "))\n".utf8))
  exit(2)
}
var checksum = compile(mixed(1_000))  // warm-up
for (name, make) in workloads where only == nil || only == name {
  let routes = make()
  var seconds: [Double] = []
  for _ in 0..<rounds {
    let start = now()
    checksum &+= compile(routes)
    seconds.append(Double(now() - start) / 1e9)
  }
  seconds.sort()
  print(
    String(
      format: "bench=%@ routes=%d seconds=%.3f min_seconds=%.3f rounds=%d", name, routes.count,
      seconds[seconds.count / 2], seconds[0], rounds))
}
print("checksum=\(checksum)")
