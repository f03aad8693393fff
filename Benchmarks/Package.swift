// swift-tools-version:6.1
// Benchmarks for LinkParse, kept out of the library's dependency graph.
//
//   make bench-compare   LinkParse against Foundation's URLComponents on the benchmark corpus, one line each
//   make bench           the package-benchmark suites (wall clock and malloc counts)
//   make bench-routes    compiling tables of 8,000 and 100,000 routes, seconds each
//   make bench-server    load test of the callback routes (callbacks/s) and of whole web logins against the demo
//                        provider (logins/s), p50/p99, in-memory and PostgreSQL store
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which differs between checkouts (main, repo, …).
let linkParse = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "LinkParseBenchmarks",
  dependencies: [
    .package(path: ".."),
    // package-benchmark: wall clock and malloc counts (the interposer trait supplies the malloc metrics).
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    // The same versions the library resolves: BenchTokens signs its fixture tokens with them.
    .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    // BenchServer: the server it loads and the client that loads it.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // The routes and pending authorizations both measuring programs use.
    .target(name: "BenchmarkSupport", dependencies: [.product(name: "LinkParse", package: linkParse)]),
    .executableTarget(
      name: "BenchCompare",
      dependencies: ["BenchmarkSupport", .product(name: "LinkParse", package: linkParse)]
    ),
    // LinkParseOAuth's token workloads (id_token verification, token-response decoding), ns per item:
    // `swift build -c release --product BenchTokens && .build/release/BenchTokens [--only idtoken-rs256]`.
    .executableTarget(
      name: "BenchTokens",
      dependencies: [
        .product(name: "LinkParse", package: linkParse),
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]
    ),
    // Load test of LinkParseHummingbird's callback routes with the in-memory and PostgreSQL stores:
    // callbacks/s and latency percentiles (`make bench-server`).
    .executableTarget(
      name: "BenchServer",
      dependencies: [
        .product(name: "LinkParse", package: linkParse),
        .product(name: "LinkParseHummingbird", package: linkParse),
        .product(name: "LinkParsePostgres", package: linkParse),
        .product(name: "LinkParseHTTP", package: linkParse),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // Compiling tables of 8,000 and 100,000 routes (`Router(routes)`), seconds per table:
    // `swift build -c release --product BenchRoutes && .build/release/BenchRoutes [--only routes-literal-8000]`.
    .executableTarget(
      name: "BenchRoutes",
      dependencies: [.product(name: "LinkParse", package: linkParse)]
    ),
    // The package-benchmark suites (`make bench`, `make bench-check`), in package-benchmark's layout.
    .executableTarget(
      name: "LinkParseBenchmarks",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "LinkParse", package: linkParse),
      ],
      path: "Benchmarks/LinkParseBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  // A single-threaded measuring tool: Swift 5 mode spares its globals main-actor isolation.
  swiftLanguageModes: [.v5]
)
