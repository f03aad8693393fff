// swift-tools-version:6.1
// LinkParse's fuzz targets: a nested package, so the sanitizer flags (`-sanitize=fuzzer,address`) stay out of
// the library's own build graph. Build and run them with `Fuzz/run.sh` (see the README's "Fuzzing").
//
// Every target is one executable, `fuzz-linkparse`, started under the name `fuzz-<target>`: the name chooses the
// property (`FuzzProperty.<target>` in FuzzSupport), so the targets share one build and one link. libFuzzer
// supplies `main`, so it is compiled with `-parse-as-library`. FuzzSupport's sources are in Sources/FuzzSupport
// here, but the module belongs to the main package (product `_LinkParseFuzzSupport`), whose regression test
// replays corpus/regressions/ through the same properties.
import PackageDescription

let package = Package(
  name: "LinkParseFuzz",
  dependencies: [
    .package(name: "LinkParse", path: ".."),
  ],
  targets: [
    // libFuzzer's driver, declared for Swift, and the `main` every target hands to it (see FuzzDriver.swift).
    .target(name: "CFuzzerDriver"),
    .target(name: "FuzzDriver", dependencies: ["CFuzzerDriver", .product(name: "_LinkParseFuzzSupport", package: "LinkParse")]),
    // The one fuzz executable; Fuzz/run.sh gives it the name of each target (FuzzProperty's cases).
    .executableTarget(
      name: "fuzz-linkparse",
      dependencies: ["FuzzDriver", .product(name: "_LinkParseFuzzSupport", package: "LinkParse")],
      path: "Targets"),
  ],
  swiftLanguageModes: [.v6]
)
