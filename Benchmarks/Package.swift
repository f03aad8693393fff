// swift-tools-version:6.1
// Benchmarks for LinkParse, kept out of the library's dependency graph.
//
//   make bench-compare   LinkParse against Foundation's URLComponents on the benchmark corpus, one line each
//   make bench           the package-benchmark suites (wall clock and malloc counts)
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which differs between checkouts (main, repo, …).
let linkParse = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "LinkParseBenchmarks",
  dependencies: [
    .package(path: ".."),
  ],
  targets: [
    .executableTarget(
      name: "BenchCompare",
      dependencies: [.product(name: "LinkParse", package: linkParse)]
    ),
  ],
  // A single-threaded measuring tool: Swift 5 mode spares its globals main-actor isolation.
  swiftLanguageModes: [.v5]
)
