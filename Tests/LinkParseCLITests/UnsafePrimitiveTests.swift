import Testing
@testable import _LinkParseCLI

/// The pointer-level helpers of Sources/_LinkParseCLI/Internals/Unsafe, tested on their own.
@Suite struct UnsafePrimitiveTests {
  @Test func outputBufferAppendsWhatFitsAndNothingElse() {
    var buffer = OutputBuffer(capacity: 16)
    let text = Array("0123456789abcdefXYZ".utf8)
    text.withUnsafeBufferPointer { all in
      let r1 = buffer.append(UnsafeBufferPointer(rebasing: all[0..<10]))
      #expect(r1)
      let r2 = buffer.append(UnsafeBufferPointer(rebasing: all[0..<7]))
      #expect(!r2)  // 6 free
      let count = buffer.count
      #expect(count == 10)
      let r3 = buffer.appendPrefix(UnsafeBufferPointer(rebasing: all[10...]))
      #expect(r3 == 6)
      let free = buffer.free
      #expect(free == 0)
    }
    let written = Array(buffer.written)
    #expect(written == Array("0123456789abcdef".utf8))
    buffer.removeAll()
    let (count, free) = (buffer.count, buffer.free)
    #expect(count == 0 && free == 16)
  }

  @Test func outputBufferQuotesOnlyCleanStringsWithSlack() {
    var buffer = OutputBuffer(capacity: 64)
    Array("ab".utf8).withUnsafeBufferPointer { let r4 = buffer.appendQuoted($0, checked: true); #expect(r4) }
    Array("a\"b".utf8).withUnsafeBufferPointer { let r5 = buffer.appendQuoted($0, checked: true); #expect(!r5) }
    Array("a\nb".utf8).withUnsafeBufferPointer { let r6 = buffer.appendQuoted($0, checked: false); #expect(r6) }
    let text = String(decoding: buffer.written, as: UTF8.self)
    #expect(text == "\"ab\"\"a\nb\"")
    // 64 - 9 = 55 free: 38 bytes need 56 when checked (quotes and slack), 40 when not.
    let long = [UInt8](repeating: 0x61, count: 38)
    long.withUnsafeBufferPointer { let r7 = buffer.appendQuoted($0, checked: true); #expect(!r7) }
    long.withUnsafeBufferPointer { let r8 = buffer.appendQuoted($0, checked: false); #expect(r8) }
    let count = buffer.count
    #expect(count == 9 + 40)
  }

  @Test(arguments: [0, 7, -7, 10, 99, 100, -100, 123_456, Int.max, Int.min])
  func decimalDigitsMatchDescription(_ value: Int) {
    #expect(DecimalDigits.with(value) { String(decoding: $0, as: UTF8.self) } == String(value))
  }

  @Test func readBufferFindsSlicesMovesAndGrows() throws {
    let source = MemoryByteSource(Array("ab\ncd\nef".utf8))
    var buffer = ReadBuffer(capacity: 4)
    defer { buffer.release() }
    var end = try buffer.read(from: source, at: 0)
    #expect(end == 4)
    let (found, notFound) = (buffer.firstIndex(of: 0x0A, from: 0, to: end), buffer.firstIndex(of: 0x0A, from: 3, to: end))
    #expect(found == 2 && notFound == nil)
    let line = Array(buffer.bytes(from: 0, count: 2))
    #expect(line == Array("ab".utf8))
    buffer.moveToFront(from: 3, count: 1)
    end = 1
    buffer = buffer.grown(to: 16, keeping: end)
    let (capacity, first) = (buffer.capacity, buffer[0])
    #expect(capacity == 16 && first == UInt8(ascii: "c"))
    end += try buffer.read(from: source, at: end)
    let rest = Array(buffer.bytes(from: 0, count: end))
    #expect(rest == Array("cd\nef".utf8))
  }

  @Test func readAllReadsEverything() throws {
    let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
    #expect(try MemoryByteSource(bytes, chunkSize: 7).readAll(chunkSize: 64) == bytes)
    #expect(try MemoryByteSource([]).readAll() == [])
  }
}
