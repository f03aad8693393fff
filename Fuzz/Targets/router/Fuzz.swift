// The `router` fuzz target; its property is FuzzProperty.router (Sources/FuzzSupport).
import FuzzDriver
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzOne(.router, data, size)
}

/// The entry point SwiftPM's link names `main` (see FuzzDriver.swift).
@_cdecl("fuzz_router_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(.router, argc: argc, argv: argv)
}
