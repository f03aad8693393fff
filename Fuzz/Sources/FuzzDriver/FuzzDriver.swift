// The `main` of every fuzz target.
//
// SwiftPM links an executable with `--defsym main=<module>_main` (so tests can link executables), but with
// `-parse-as-library` nothing defines `<module>_main` and the link fails
// (swiftlang/swift-package-manager#8731). Each target therefore defines `fuzz_<name>_main` itself, and it
// hands control to libFuzzer's driver, exactly as libFuzzer's own `main` would.
import CFuzzerDriver
import FuzzSupport

/// The property this process fuzzes (set once, before libFuzzer starts; libFuzzer runs inputs one at a time).
nonisolated(unsafe) private var fuzzedProperty = FuzzProperty.parse

/// Runs libFuzzer on `property` with the process's arguments.
public func runFuzzer(
  _ property: FuzzProperty, argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  fuzzedProperty = property
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(fuzzedProperty, data, size) }
}
