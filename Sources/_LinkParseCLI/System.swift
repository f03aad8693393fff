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

/// Makes the pipe `fd` is an end of hold 1 MiB (`F_SETPIPE_SZ`, Linux; at most `/proc/sys/fs/pipe-max-size`, 1 MiB
/// by default) instead of 64 KiB, so that a stage reads and writes in larger steps and runs alongside its neighbours
/// instead of in turn with them. Does nothing when `fd` is not a pipe, when the pipe already holds as much (a
/// larger pipe is not made smaller), or on other systems; a refusal (the user's pipe-buffer limit) leaves the pipe
/// as it was.
func widenPipe(_ fd: Int32) {
  #if os(Linux)
  var status = stat()
  guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
  // F_GETPIPE_SZ and F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 8 and + 7): Glibc's module does not export them.
  let getPipeSize: Int32 = 1032, setPipeSize: Int32 = 1031
  let size: Int32 = 1 << 20
  guard fcntl(fd, getPipeSize) < size else { return }
  _ = fcntl(fd, setPipeSize, size)
  #endif
}
