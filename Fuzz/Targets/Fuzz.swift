// The one fuzz executable, `fuzz-linkparse`: started as `fuzz-<target>` (a link Fuzz/run.sh makes, or a copy
// .clusterfuzzlite/build.sh makes), it fuzzes `FuzzProperty.<target>` (Sources/FuzzSupport); see FuzzDriver.swift.
import FuzzDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzSelected(data, size)
}

/// The entry point SwiftPM's link names `main` (see FuzzDriver.swift).
@_cdecl("fuzz_linkparse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc: argc, argv: argv)
}
