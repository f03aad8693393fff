#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a file, standard input or standard output.
///
/// ```swift
/// IOError(operation: "open", path: "missing.txt", errno: ENOENT).description
/// // "missing.txt: No such file or directory"
/// ```
package struct IOError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The system call that failed: `open`, `read` or `write`.
  package var operation: String
  /// The file it was working on, as the user named it (`-` for standard input).
  package var path: String
  /// The `errno` value the call left.
  package var errno: Int32

  /// Creates an error.
  package init(operation: String, path: String, errno: Int32) {
    self.operation = operation
    self.path = path
    self.errno = errno
  }

  /// `path: reason`, as `cat` and `grep` print it.
  package var description: String {
    let reason = strerror(errno).map { String(cString: $0) } ?? "error \(errno)"
    return "\(path): \(reason)"
  }
}

// MARK: - Sources

/// Something bytes are read from in blocks: a file descriptor, or memory in tests.
///
/// It is called once per block (256 KiB by default), never per line, so an existential call costs nothing
/// measurable.
package protocol ByteSource: AnyObject {
  /// Reads up to `buffer.count` bytes into `buffer` and returns how many were read; `0` means end of input.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> Int
}

/// Reads a file descriptor with `read(2)`, retrying on `EINTR`. It does not close the descriptor.
package final class FileDescriptorSource: ByteSource {
  /// The descriptor read from.
  package let fileDescriptor: Int32
  /// The name used in error messages.
  package let path: String

  /// Reads `fileDescriptor`, naming it `path` in errors.
  package init(fileDescriptor: Int32, path: String) {
    self.fileDescriptor = fileDescriptor
    self.path = path
  }

  /// Reads with `read(2)`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    while true {
      let count = systemRead(fileDescriptor, base, buffer.count)
      if count >= 0 { return count }
      if errno == EINTR { continue }
      throw IOError(operation: "read", path: path, errno: errno)
    }
  }
}

/// Serves bytes held in memory, at most `chunkSize` per read, so tests can place block boundaries anywhere.
///
/// ```swift
/// let source = MemoryByteSource(Array("a\nb".utf8), chunkSize: 1)
/// ```
package final class MemoryByteSource: ByteSource {
  /// All the bytes served.
  package let bytes: [UInt8]
  /// The most bytes one `read` returns.
  package let chunkSize: Int
  private var position = 0

  /// Serves `bytes`, at most `chunkSize` bytes per read.
  package init(_ bytes: [UInt8], chunkSize: Int = .max) {
    precondition(chunkSize > 0, "chunkSize must be positive")
    self.bytes = bytes
    self.chunkSize = chunkSize
  }

  /// Copies the next chunk into `buffer`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> Int {
    let count = min(buffer.count, chunkSize, bytes.count - position)
    guard count > 0 else { return 0 }
    bytes.withUnsafeBytes { all in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[position..<(position + count)]))
    }
    position += count
    return count
  }
}

// MARK: - Sinks

/// Something bytes are written to in blocks: a file descriptor, or memory in tests.
package protocol ByteSink: AnyObject {
  /// Writes all of `bytes`.
  func write(_ bytes: UnsafeRawBufferPointer) throws(IOError)
}

/// Writes to a file descriptor with `write(2)`, looping over short writes and `EINTR`.
package final class FileDescriptorSink: ByteSink {
  /// The descriptor written to.
  package let fileDescriptor: Int32
  /// The name used in error messages.
  package let path: String

  /// Writes to `fileDescriptor`, naming it `path` in errors.
  package init(fileDescriptor: Int32, path: String) {
    self.fileDescriptor = fileDescriptor
    self.path = path
  }

  /// Writes with `write(2)` until every byte is written or a call fails.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
      let written = systemWrite(fileDescriptor, next, remaining)
      if written < 0 {
        if errno == EINTR { continue }
        throw IOError(operation: "write", path: path, errno: errno)
      }
      next += written
      remaining -= written
    }
  }
}

/// Collects what is written, for tests.
///
/// ```swift
/// let sink = MemoryByteSink()
/// // … run the command with it …
/// sink.text  // the output as a String
/// ```
package final class MemoryByteSink: ByteSink {
  /// Everything written so far.
  package private(set) var bytes: [UInt8] = []

  /// Creates an empty sink.
  package init() {}

  /// Appends `bytes`.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(IOError) {
    self.bytes.append(contentsOf: bytes)
  }

  /// Everything written so far, decoded as UTF-8.
  package var text: String { String(decoding: bytes, as: UTF8.self) }
}

extension ByteSink {
  /// Writes a string's UTF-8 bytes. Not for the hot path: it exists for messages and the stats line.
  func write(text: String) throws(IOError) {
    var failure: IOError?
    Array(text.utf8).withUnsafeBytes { bytes in
      do throws(IOError) { try write(bytes) } catch { failure = error }
    }
    if let failure { throw failure }
  }
}
