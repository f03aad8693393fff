// swift-tools-version:6.1
// LinkParse's fuzz targets: a nested package, so the sanitizer flags (`-sanitize=fuzzer,address`) stay out of
// the library's own build graph. Build and run them with `Fuzz/run.sh` (see the README's "Fuzzing").
//
// Each target is an executable whose `LLVMFuzzerTestOneInput` calls one property in `FuzzSupport`; libFuzzer
// supplies `main`, so the executables are compiled with `-parse-as-library`.
import PackageDescription

/// The fuzz targets: `fuzz-<name>` runs `FuzzProperty.<name>` over `corpus/<name>/`.
let targetNames = ["parse", "params", "cli", "providers", "router", "tokens"]

let package = Package(
  name: "LinkParseFuzz",
  dependencies: [
    .package(name: "LinkParse", path: ".."),
  ],
  targets: [
    // The properties, the strict JSON validator and the helpers every target shares. The main package's
    // regression test compiles this same folder (Tests/FuzzRegressionTests/FuzzSupport is a symlink to it).
    .target(
      name: "FuzzSupport",
      dependencies: [
        .product(name: "LinkParse", package: "LinkParse"),
        .product(name: "_LinkParseCLI", package: "LinkParse"),
      ]
    ),
    // libFuzzer's driver, declared for Swift, and the `main` every target hands to it (see FuzzDriver.swift).
    .target(name: "CFuzzerDriver"),
    .target(name: "FuzzDriver", dependencies: ["CFuzzerDriver", "FuzzSupport"]),
  ] + targetNames.map { name in
    .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver", "FuzzSupport"], path: "Targets/\(name)")
  },
  swiftLanguageModes: [.v6]
)
