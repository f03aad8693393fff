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
  let result: Result<R, any Error>
  do { result = .success(try await body()) } catch { result = .failure(error) }
  kill(process.processIdentifier, SIGKILL)
  // Waited for without blocking a thread of the cooperative pool (`waitUntilExit` would, and on a loaded
  // 2-core runner every such thread blocked is one the test's own awaits need).
  let deadline = ContinuousClock.now + .seconds(30)
  while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
  return try result.get()
}

/// The first of `count` consecutive TCP ports that are free on 127.0.0.1 and `::1` now, for a test's servers:
/// chosen below Linux's ephemeral range (32768–60999), so that no outgoing connection of a concurrent test can
/// take one meanwhile, and probed by binding each.
///
/// ```swift
/// let port = freeLocalPorts(2)  // port and port + 1
/// ```
public func freeLocalPorts(_ count: Int = 1) -> Int {
  for _ in 0..<1_000 {
    let first = Int.random(in: 20_000..<(32_000 - count))
    if (first..<first + count).allSatisfy({ canBind($0, v6: false) && canBind($0, v6: true) }) { return first }
  }
  fatalError("no \(count) consecutive free ports in 20000..<32000")
}

private func canBind(_ port: Int, v6: Bool) -> Bool {
  let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return false }
  defer { close(fd) }
  if v6 {
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = in_port_t(UInt16(port).bigEndian)
    address.sin6_addr = in6addr_any
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
      }
    }
  }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = INADDR_ANY
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
  }
}

/// The demo OpenID Connect provider's script (Examples/DemoProvider/demo_provider.py).
public let demoProviderScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Examples/DemoProvider/demo_provider.py").path

/// A `Set-Cookie` value's attributes, names lowercased (`["path": "/", "max-age": "600", "secure": "", …]`):
/// for checks that do not depend on the order in which a server writes them.
///
/// ```swift
/// setCookieAttributes("a=b; Path=/; Secure")["secure"]  // ""
/// ```
public func setCookieAttributes(_ setCookie: String) -> [String: String] {
  var attributes: [String: String] = [:]
  for part in setCookie.split(separator: ";").dropFirst() {
    let pair = part.split(separator: "=", maxSplits: 1)
    let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
    attributes[name] = pair.count > 1 ? String(pair[1]) : ""
  }
  return attributes
}
