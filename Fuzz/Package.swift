// swift-tools-version:6.1
// LinkParse's fuzz targets: a nested package, so the sanitizer flags (`-sanitize=fuzzer,address`) stay out of
// the library's own build graph. Build and run them with `Fuzz/run.sh` (see the README's "Fuzzing").
//
// Each target is an executable whose `LLVMFuzzerTestOneInput` calls one property in `FuzzSupport`; libFuzzer
// supplies `main`, so the executables are compiled with `-parse-as-library`. FuzzSupport's sources are in
// Sources/FuzzSupport here, but the module belongs to the main package (product `_LinkParseFuzzSupport`), whose
// regression test replays corpus/regressions/ through the same properties.
import PackageDescription

/// The fuzz targets: `fuzz-<name>` runs `FuzzProperty.<name>` over `corpus/<name>/`.
let targetNames = ["parse", "params", "cli", "providers", "router", "tokens", "regex", "idna", "cookies", "server"]

let package = Package(
  name: "LinkParseFuzz",
  dependencies: [
    .package(name: "LinkParse", path: ".."),
  ],
  targets: [
    // libFuzzer's driver, declared for Swift, and the `main` every target hands to it (see FuzzDriver.swift).
    .target(name: "CFuzzerDriver"),
    .target(name: "FuzzDriver", dependencies: ["CFuzzerDriver", .product(name: "_LinkParseFuzzSupport", package: "LinkParse")]),
  ] + targetNames.map { name in
    .executableTarget(
      name: "fuzz-\(name)",
      dependencies: ["FuzzDriver", .product(name: "_LinkParseFuzzSupport", package: "LinkParse")],
      path: "Targets/\(name)")
  },
  swiftLanguageModes: [.v6]
)
