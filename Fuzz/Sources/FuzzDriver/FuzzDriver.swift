// The `main` of every fuzz target.
//
// SwiftPM links an executable with `--defsym main=<module>_main` (so tests can link executables), but with
// `-parse-as-library` nothing defines `<module>_main` and the link fails
// (swiftlang/swift-package-manager#8731). Each target therefore defines `fuzz_<name>_main` itself, and it
// hands control to libFuzzer's driver, exactly as libFuzzer's own `main` would.
import CFuzzerDriver
import FuzzSupport

/// Runs libFuzzer on `property` with the process's arguments.
public func runFuzzer(
  _ property: FuzzProperty, argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  var argc = argc
  var argv = argv
  let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  switch property {
  case .parse: callback = { data, size in fuzzOne(.parse, data, size) }
  case .params: callback = { data, size in fuzzOne(.params, data, size) }
  case .cli: callback = { data, size in fuzzOne(.cli, data, size) }
  case .providers: callback = { data, size in fuzzOne(.providers, data, size) }
  case .router: callback = { data, size in fuzzOne(.router, data, size) }
  }
  return LLVMFuzzerRunDriver(&argc, &argv, callback)
}
