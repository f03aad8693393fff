import Testing
import _LinkParseCLI

/// A splitter event made comparable: the line number and either the line's text or a too-long length.
struct SplitLine: Equatable, CustomStringConvertible {
  var number: Int
  var bytes: [UInt8]?
  var tooLong: Int?

  static func line(_ number: Int, _ text: String) -> SplitLine { SplitLine(number: number, bytes: Array(text.utf8)) }
  static func long(_ number: Int, _ count: Int) -> SplitLine { SplitLine(number: number, tooLong: count) }

  var description: String {
    if let tooLong { return "\(number): too long (\(tooLong))" }
    return "\(number): \(String(decoding: bytes ?? [], as: UTF8.self).debugDescription)"
  }
}

func split(
  _ input: [UInt8], blockSize: Int = LineSplitter.defaultBlockSize, chunkSize: Int = .max,
  maxLineLength: Int = LineSplitter.defaultMaxLineLength
) throws -> (lines: [SplitLine], bytesRead: Int) {
  let splitter = LineSplitter(
    source: MemoryByteSource(input, chunkSize: chunkSize), blockSize: blockSize, maxLineLength: maxLineLength)
  var lines: [SplitLine] = []
  while let event = try splitter.next() {
    switch event {
    case .line(let bytes): lines.append(SplitLine(number: splitter.lineNumber, bytes: Array(bytes)))
    case .tooLong(let count): lines.append(.long(splitter.lineNumber, count))
    }
  }
  return (lines, splitter.bytesRead)
}

@Suite struct LineSplitterTests {

  /// Input, and the lines expected from it.
  static let cases: [(String, [String])] = [
    ("", []),
    ("a", ["a"]),
    ("a\n", ["a"]),
    ("a\nb", ["a", "b"]),
    ("a\nb\n", ["a", "b"]),
    ("a\r\nb\r\n", ["a", "b"]),
    ("a\r\nb", ["a", "b"]),
    ("a\nb\r\nc", ["a", "b", "c"]),
    ("\n", [""]),
    ("\n\n", ["", ""]),
    ("\r\n", [""]),
    ("a\n\nb", ["a", "", "b"]),
    ("a\rb\n", ["a\rb"]),  // a lone CR is data
    ("a\r\r\n", ["a\r"]),  // only the CR right before the LF is part of the terminator
    ("a\r", ["a"]),  // a final CR without LF is dropped like the CR of a CRLF
    ("https://a.ru/cb?code=1\nmyapp://x?y\n", ["https://a.ru/cb?code=1", "myapp://x?y"]),
    ("пример\nрф", ["пример", "рф"]),
  ]

  /// Every case, with block and chunk sizes that put boundaries at every position.
  @Test(arguments: [1, 2, 3, 5, 64, LineSplitter.defaultBlockSize])
  func splitsLines(blockSize: Int) throws {
    for (input, expected) in Self.cases {
      for chunkSize in [1, 2, 3, Int.max] {
        let result = try split(Array(input.utf8), blockSize: blockSize, chunkSize: chunkSize)
        let want = expected.enumerated().map { SplitLine.line($0.offset + 1, $0.element) }
        #expect(result.lines == want, "input \(input.debugDescription), block \(blockSize), chunk \(chunkSize)")
        #expect(result.bytesRead == input.utf8.count)
      }
    }
  }

  @Test func keepsArbitraryBytes() throws {
    let input: [UInt8] = [0x00, 0xFF, 0x0A, 0xC3, 0x28, 0x0D, 0x0A, 0x80]
    let result = try split(input, blockSize: 2)
    #expect(result.lines == [
      SplitLine(number: 1, bytes: [0x00, 0xFF]),
      SplitLine(number: 2, bytes: [0xC3, 0x28]),
      SplitLine(number: 3, bytes: [0x80]),
    ])
  }

  @Test func manyLinesAcrossBlocks() throws {
    let lines = (1...5000).map { "https://example.com/cb?code=\($0)&state=\(String(repeating: "s", count: $0 % 97))" }
    let input = Array(lines.joined(separator: "\n").utf8)
    for blockSize in [7, 4096, LineSplitter.defaultBlockSize] {
      let result = try split(input, blockSize: blockSize)
      #expect(result.lines == lines.enumerated().map { SplitLine.line($0.offset + 1, $0.element) })
    }
  }

  /// (input, limit, expected) for over-long lines.
  static let longCases: [(String, Int, [SplitLine])] = [
    ("abcd\nxy\n", 3, [.long(1, 4), .line(2, "xy")]),
    ("abc\nxy\n", 3, [.line(1, "abc"), .line(2, "xy")]),  // exactly the limit is fine
    ("abc\r\nxy", 3, [.line(1, "abc"), .line(2, "xy")]),  // the CR does not count
    ("abcd\r\nxy", 3, [.long(1, 4), .line(2, "xy")]),
    ("a\nabcdefghijklmnopqrstuvwxyz\nb", 3, [.line(1, "a"), .long(2, 26), .line(3, "b")]),
    ("abcdefghijklmnopqrstuvwxyz\r\n\r\nb", 3, [.long(1, 26), .line(2, ""), .line(3, "b")]),
    ("abcdefghijklmnopqrstuvwxyz", 3, [.long(1, 26)]),  // at the end of the input
    ("abcdefghijklmnopqrstuvwxyz\n", 3, [.long(1, 26)]),
    ("abcdefghijklmnopqrstuvwxyz\r", 3, [.long(1, 26)]),
    ("abcdefghij\nklmnopqrst\nuv", 0, [.long(1, 10), .long(2, 10), .long(3, 2)]),
    ("\n\n", 0, [.line(1, ""), .line(2, "")]),
  ]

  @Test(arguments: [1, 2, 3, 4, 8, 64])
  func skipsLongLines(blockSize: Int) throws {
    for (input, limit, expected) in Self.longCases {
      for chunkSize in [1, 3, Int.max] {
        let result = try split(Array(input.utf8), blockSize: blockSize, chunkSize: chunkSize, maxLineLength: limit)
        #expect(result.lines == expected, "input \(input.debugDescription), block \(blockSize), chunk \(chunkSize)")
        #expect(result.bytesRead == input.utf8.count)
      }
    }
  }

  @Test func unlimitedLineLength() throws {
    let result = try split(Array("abc\ndefgh".utf8), blockSize: 2, maxLineLength: .max)
    #expect(result.lines == [.line(1, "abc"), .line(2, "defgh")])
  }

  /// A 3 MiB line against a 1 KiB limit: skipped without the buffer growing to hold it.
  @Test func longLineIsNotBuffered() throws {
    final class CountingSource: ByteSource {
      let inner: MemoryByteSource
      var largestRead = 0
      init(_ bytes: [UInt8]) { inner = MemoryByteSource(bytes) }
      func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> Int {
        largestRead = max(largestRead, buffer.count)
        return try inner.read(into: buffer)
      }
    }
    var input = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
    input += Array("\nhttps://example.com/\n".utf8)
    let source = CountingSource(input)
    let splitter = LineSplitter(source: source, blockSize: 4096, maxLineLength: 1024)
    guard case .tooLong(let count)? = try splitter.next() else { Issue.record("expected tooLong"); return }
    #expect(count == 3 << 20)
    guard case .line(let bytes)? = try splitter.next() else { Issue.record("expected a line"); return }
    #expect(Array(bytes) == Array("https://example.com/".utf8))
    #expect(splitter.lineNumber == 2)
    #expect(try splitter.next() == nil)
    #expect(source.largestRead <= 4 * 4096 + 1024)
  }
}
