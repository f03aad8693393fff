// Running a helper server (the demo provider, the example server) as a child process for one test.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` while a process started from `executable` with `arguments` runs; the process is killed after it
/// (SIGKILL: the test process's blocked SIGTERM is inherited, so a `terminate()` would not be seen, and a
/// server's graceful shutdown would wait for the test client's idle keep-alive connections anyway).
public func withChildProcess<R>(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil, _ body: () async throws -> R
) async throws -> R {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment { process.environment = environment }
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  defer {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
  return try await body()
}

/// The demo OpenID Connect provider's script (Examples/DemoProvider/demo_provider.py).
public let demoProviderScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Examples/DemoProvider/demo_provider.py").path
