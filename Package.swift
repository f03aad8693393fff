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
  ],
  targets: [
    // Thin C wrappers over ICU's UTS #46 API. ICU renames its C symbols per version with macros, so Swift
    // cannot call them through a module map; a C file compiled against the installed headers can.
    .target(
      name: "CICUShims",
      linkerSettings: [.linkedLibrary("icuuc")]
    ),
    // The WHATWG URL parser and form parameters. No Foundation.
    .target(
      name: "LinkParseCore",
      dependencies: ["CICUShims"],
      swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
    ),
    // Umbrella module: `import LinkParse`.
    .target(name: "LinkParse", dependencies: ["LinkParseCore"]),
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
    .testTarget(name: "LinkParseTests", dependencies: ["LinkParse"]),
    .testTarget(name: "LinkParseCLITests", dependencies: ["LinkParseCLI", "linkparse"]),
    // Replays corpus/regressions/ through the fuzz targets' properties (FuzzSupport is a symlink to
    // Fuzz/Sources/FuzzSupport, so the properties are compiled from one source).
    .testTarget(name: "FuzzRegressionTests", dependencies: ["LinkParseCore", "LinkParseCLI"]),
  ],
  swiftLanguageModes: [.v6]
)
