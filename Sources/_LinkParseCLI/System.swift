// The C library calls the tool makes by name where a type's own `read`/`write` method would shadow them,
// whichever C library the platform has (the files that call the C library import it the same way).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)`.
@inline(__always)
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }

/// `write(2)`.
@inline(__always)
func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }

/// `exit(3)`.
func systemExit(_ status: Int32) -> Never { exit(status) }
