// The `server` fuzz target; its property is FuzzProperty.server (Sources/FuzzSupport).
import FuzzDriver
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzOne(.server, data, size)
}

/// The entry point SwiftPM's link names `main` (see FuzzDriver.swift).
@_cdecl("fuzz_server_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(.server, argc: argc, argv: argv)
}
