// The `regex` fuzz target; its property is FuzzProperty.regex (Sources/FuzzSupport).
import FuzzDriver
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzOne(.regex, data, size)
}

/// The entry point SwiftPM's link names `main` (see FuzzDriver.swift).
@_cdecl("fuzz_regex_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(.regex, argc: argc, argv: argv)
}
