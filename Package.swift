// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "LinkParse",
  products: [
    .library(name: "LinkParse", targets: ["LinkParse"]),
    .executable(name: "linkparse", targets: ["linkparse"]),
    // The command's logic as a library, for the fuzz targets in the nested Fuzz/ package.
    .library(name: "LinkParseCLI", targets: ["LinkParseCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
  ],
  targets: [
    // Thin C wrappers over ICU's UTS #46 API. ICU renames its C symbols per version with macros, so Swift
    // cannot call them through a module map; a C file compiled against the installed headers can.
    .target(
      name: "CICUShims",
      linkerSettings: [.linkedLibrary("icuuc")]
    ),
    // SSE2 byte-class masks (header-only, inlined into the Swift callers), where the CPU has SSE2.
    .target(name: "CByteScan"),
    // The WHATWG URL parser and form parameters. No Foundation.
    .target(
      name: "LinkParseCore",
      dependencies: ["CICUShims", "CByteScan"],
      swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
    ),
    // PCRE2 (libpcre2-8) for route constraints. The shim defines PCRE2_CODE_UNIT_WIDTH before including it.
    .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
    // Route patterns, the compiled matcher, PCRE2-backed constraints, ambiguity checks.
    .target(
      name: "LinkParseRouter",
      dependencies: ["LinkParseCore", "CPCRE2"],
      swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
    ),
    // Provider callback decoders, pending-authorization checks, PKCE and request builders.
    .target(
      name: "LinkParseProviders",
      dependencies: ["LinkParseCore", "CByteScan", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
    ),
    // Umbrella module: `import LinkParse`.
    .target(name: "LinkParse", dependencies: ["LinkParseCore", "LinkParseRouter", "LinkParseProviders"]),
    // The `linkparse` command's logic, as a library so tests and fuzzers can drive it.
    .target(
      name: "LinkParseCLI",
      dependencies: [
        "LinkParse",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(name: "linkparse", dependencies: ["LinkParseCLI"]),
    .testTarget(
      name: "LinkParseCoreTests", dependencies: ["LinkParseCore"], exclude: ["expected-failures.txt"]),
    .testTarget(name: "LinkParseRouterTests", dependencies: ["LinkParseRouter"]),
    .testTarget(name: "LinkParseProvidersTests", dependencies: ["LinkParseProviders"]),
    .testTarget(name: "LinkParseTests", dependencies: ["LinkParse"]),
    .testTarget(name: "LinkParseCLITests", dependencies: ["LinkParseCLI", "linkparse"]),
    // Replays corpus/regressions/ through the fuzz targets' properties (FuzzSupport is a symlink to
    // Fuzz/Sources/FuzzSupport, so the properties are compiled from one source).
    .testTarget(
      name: "FuzzRegressionTests",
      dependencies: ["LinkParseCore", "LinkParseRouter", "LinkParseProviders", "LinkParseCLI"]),
  ],
  swiftLanguageModes: [.v6]
)
