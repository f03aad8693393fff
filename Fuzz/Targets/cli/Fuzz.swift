// The `cli` fuzz target; its property is FuzzProperty.cli (Sources/FuzzSupport).
import FuzzDriver
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzOne(.cli, data, size)
}

/// The entry point SwiftPM's link names `main` (see FuzzDriver.swift).
@_cdecl("fuzz_cli_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(.cli, argc: argc, argv: argv)
}
