// The `main` of every fuzz target.
//
// SwiftPM links an executable with `--defsym main=<module>_main` (so tests can link executables), but with
// `-parse-as-library` nothing defines `<module>_main` and the link fails
// (swiftlang/swift-package-manager#8731). Each target therefore defines `fuzz_<name>_main` itself, and it
// hands control to libFuzzer's driver, exactly as libFuzzer's own `main` would.
import CFuzzerDriver
import FuzzSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The property this process fuzzes (set once, before libFuzzer starts; libFuzzer runs inputs one at a time).
nonisolated(unsafe) private var fuzzedProperty = FuzzProperty.parse

/// Whether the planted crash is armed: `LINKPARSE_FUZZ_PLANTED_CRASH` is `1` (every target) or this target's
/// name (read once, at start).
nonisolated(unsafe) private var plantedCrashArmed = false

/// The bytes that trap when the planted crash is armed, wherever they are in the input.
///
/// Test-only: `Fuzz/test-nightly.sh` arms it (and puts the marker in the dictionary) to prove that
/// `Fuzz/run.sh --nightly` minimizes a crash into `corpus/regressions/` and fails. It lives in the driver, which
/// only the libFuzzer executables link, so the unit tests' replay of `corpus/regressions/` (FuzzSupport's
/// properties) never traps on it.
private let plantedCrashMarker = Array("PLANTED-CRASH".utf8)

/// Runs libFuzzer on `property` with the process's arguments.
public func runFuzzer(
  _ property: FuzzProperty, argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  fuzzedProperty = property
  if let armed = getenv("LINKPARSE_FUZZ_PLANTED_CRASH") {
    plantedCrashArmed = ["1", property.rawValue].contains(String(cString: armed))
  }
  var argc = argc
  var argv = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    // memmem, not a Swift loop: libFuzzer's hook of memmem hands the fuzzer the marker to insert.
    if plantedCrashArmed, let data,
      linkparse_fuzz_contains(data, size, plantedCrashMarker, plantedCrashMarker.count) != 0
    {
      fatalError("planted crash (LINKPARSE_FUZZ_PLANTED_CRASH is set): the input contains PLANTED-CRASH")
    }
    return fuzzOne(fuzzedProperty, data, size)
  }
}
