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
    // Named here only for its default traits, which the main package's build enables and a dependency's would
    // not: the same flags, so `--shared-build` reuses the main build's Hummingbird instead of compiling it again.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
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

// `Fuzz/run.sh --shared-build` (the CI smoke) builds into the main package's .build without global sanitizer
// flags: the main package's manifest instruments LinkParse's modules, and these targets instrument themselves and
// link libFuzzer and AddressSanitizer. Other builds pass the flags to every module (FUZZ_SWIFT_FLAGS, run.sh).
if Context.environment["LINKPARSE_FUZZ_INSTRUMENTATION"] != nil {
  for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [
      .unsafeFlags(["-sanitize=fuzzer,address"] + (target.type == .executable ? ["-parse-as-library"] : [])),
    ]
    target.cSettings = (target.cSettings ?? []) + [
      .unsafeFlags(["-fsanitize=undefined", "-fno-sanitize-recover=undefined"]),
    ]
    if target.type == .executable {
      target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
  }
}
