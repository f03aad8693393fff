// The `main` of the fuzz executable.
//
// Every target is one executable, `fuzz-linkparse`, under the name `fuzz-<target>` (Fuzz/run.sh makes those names
// as links beside it; .clusterfuzzlite/build.sh copies it under each): the name it was started by chooses the
// property, so one link step serves every target and libFuzzer's -fork, -jobs and -merge children (started by
// the same name) fuzz the same one. `LINKPARSE_FUZZ_TARGET=<target>` chooses when the name does not.
//
// SwiftPM links an executable with `--defsym main=<module>_main` (so tests can link executables), but with
// `-parse-as-library` nothing defines `<module>_main` and the link fails
// (swiftlang/swift-package-manager#8731). The executable therefore defines `fuzz_linkparse_main` itself, and it
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

/// The property named by the program's name (`…/fuzz-<target>`) or by `LINKPARSE_FUZZ_TARGET`; `nil` when
/// neither names one.
public func selectedProperty(argv0: String) -> FuzzProperty? {
  if let name = getenv("LINKPARSE_FUZZ_TARGET").map({ String(cString: $0) }), !name.isEmpty {
    return FuzzProperty(rawValue: name)
  }
  let base = argv0.split(separator: "/").last.map(String.init) ?? argv0
  guard base.hasPrefix("fuzz-") else { return nil }
  return FuzzProperty(rawValue: String(base.dropFirst("fuzz-".count)))
}

/// Runs libFuzzer, with the process's arguments, on the property its name chooses (see above); exits with
/// status 2 and the target names when none is chosen.
public func runFuzzer(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  let argv0 = argv?.pointee.map { String(cString: $0) } ?? ""
  guard let property = selectedProperty(argv0: argv0) else {
    let names = FuzzProperty.allCases.map(\.rawValue).joined(separator: ", ")
    let message = Array(
      "\(argv0): no fuzz target chosen: start it as fuzz-<target> (a link to it) or set LINKPARSE_FUZZ_TARGET; targets: \(names)\n"
        .utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    return 2
  }
  return runFuzzer(property, argc: argc, argv: argv)
}

/// The property of this process, for `LLVMFuzzerTestOneInput` (libFuzzer's own entry, which its runtime
/// references; the driver above passes its own callback).
public func fuzzSelected(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  fuzzOne(fuzzedProperty, data, size)
}

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
