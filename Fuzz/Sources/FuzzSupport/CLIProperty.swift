// The command's pieces are `package` API of _LinkParseCLI (this module belongs to the same package). Parsing
// the arguments with ArgumentParser on every input took three quarters of the target's time, so each of the 16
// configurations is parsed once and `ParseCommand.execute` runs it.
import _LinkParseCLI
import LinkParseCore

/// Commands parsed once per argument list (libFuzzer runs inputs one at a time).
nonisolated(unsafe) private var parsedCommands: [[String]: ParseCommand] = [:]

/// The `cli` target: the `linkparse` command's pieces over arbitrary bytes.
///
/// Input layout: two configuration bytes, then the input stream.
/// - byte 0: bits 0–1 the command's mode (`lines`, `lines --base`, `json`, `json --base`); bits 2–5 the size of
///   the reads (1–16 bytes); bits 6–7 `--max-line-length` (default, 0, 16, 200).
/// - byte 1: bits 0–3 the `LineSplitter` block size (1–16); bits 4–7 the `JSONWriter` capacity (16–76).
///
/// Properties:
/// - `LineSplitter` with tiny blocks yields exactly the lines (or too-long lines) of a plain reference split;
/// - the command's standard output is valid UTF-8, one strict-JSON object per record, numbered from 1, with
///   exit status 0 or 1 as records failed, and nothing on standard error; for half the inputs (bit 4 of
///   byte 0 xor byte 1) also as a pipeline stage (`--pipeline --fields compact`, or by bit 5 of byte 1 the URL's
///   members `line,ok,href,…,params`, which a line that is a canonical URL gets from its own bytes): the same
///   records, exit 0;
/// - `JSONWriter` with a tiny buffer writes valid JSON for any string and integer, which `JSONRecordReader`
///   reads back to the same string;
/// - `JSONRecordReader` never calls strictly valid JSON (nested up to its limit) a syntax error, and a record
///   it reads is written and read back unchanged.
enum CLIProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard data.count >= 2 else { return [] }
    let config = data[0]
    let config2 = data[1]
    let input = UnsafeBufferPointer(rebasing: data[2...])
    var problems = Problems()

    let readSize = Int((config >> 2) & 0x0F) + 1
    let maxLineLength = [LineSplitter.defaultMaxLineLength, 0, 16, 200][Int(config >> 6)]
    let reference = referenceLines(input, maxLineLength: maxLineLength)

    checkSplitter(
      input, blockSize: Int(config2 & 0x0F) + 1, readSize: readSize, maxLineLength: maxLineLength,
      reference: reference, problems: &problems)
    checkCommand(
      input, mode: Int(config & 3), readSize: readSize, maxLineLength: maxLineLength,
      lineCount: reference.count, problems: &problems)
    if (config ^ config2) & 0x10 != 0 {
      // As a stage in someone else's pipeline: the compact record, exit 0 whatever failed.
      checkCommand(
        input, mode: Int(config & 3), readSize: readSize, maxLineLength: maxLineLength,
        lineCount: reference.count, pipeline: true, urlMembers: config2 & 0x20 != 0, problems: &problems)
    }
    checkWriterAndReader(input, capacity: 16 + Int(config2 >> 4) * 4, problems: &problems)

    if !problems.list.isEmpty { problems.add("config \(config) \(config2), input \(show(input))") }
    return problems.list
  }

  /// A line, or the length of a line over the limit.
  enum Line: Equatable {
    case line([UInt8])
    case tooLong(Int)
  }

  /// Lines end in LF, a CR before it is dropped, a last line without LF counts, a final LF starts nothing.
  static func referenceLines(_ bytes: UnsafeBufferPointer<UInt8>, maxLineLength: Int) -> [Line] {
    var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    if bytes.last == 0x0A || bytes.isEmpty { pieces.removeLast() }
    return pieces.map { piece in
      var line = piece
      if line.last == 0x0D { line.removeLast() }
      return line.count > maxLineLength ? .tooLong(line.count) : .line(line)
    }
  }

  static func checkSplitter(
    _ input: UnsafeBufferPointer<UInt8>, blockSize: Int, readSize: Int, maxLineLength: Int, reference: [Line],
    problems: inout Problems
  ) {
    let splitter = LineSplitter(
      source: MemoryByteSource(Array(input), chunkSize: readSize), blockSize: blockSize, maxLineLength: maxLineLength)
    var lines: [Line] = []
    do {
      while let event = try splitter.next() {
        switch event {
        case .line(let bytes): lines.append(.line(Array(bytes)))
        case .tooLong(let count): lines.append(.tooLong(count))
        }
        problems.check(splitter.lineNumber == lines.count, "lineNumber \(splitter.lineNumber) after \(lines.count) lines")
        if lines.count > reference.count + 1 { break }
      }
    } catch {
      problems.add("LineSplitter threw \(error) on memory input")
    }
    problems.check(
      lines == reference,
      "LineSplitter(blockSize: \(blockSize), reads of \(readSize), max \(maxLineLength)) gave \(lines), expected \(reference)")
    problems.check(splitter.bytesRead == input.count, "bytesRead \(splitter.bytesRead), input \(input.count)")
  }

  static let base = "https://example.ru/auth/cb/"

  static func checkCommand(
    _ input: UnsafeBufferPointer<UInt8>, mode: Int, readSize: Int, maxLineLength: Int, lineCount: Int,
    pipeline: Bool = false, urlMembers: Bool = false, problems: inout Problems
  ) {
    var arguments = ["--input-format", mode & 2 == 0 ? "lines" : "json", "--max-line-length", String(maxLineLength)]
    if mode & 1 == 1 { arguments += ["--base", base] }
    if pipeline {
      arguments += [
        "--pipeline", "--fields",
        urlMembers ? "line,ok,href,scheme,username,password,host,port,path,query,fragment,params" : "compact",
      ]
    }
    let output = MemoryByteSink()
    let errors = MemoryByteSink()
    let command: ParseCommand
    if let parsed = parsedCommands[arguments] {
      command = parsed
    } else {
      do {
        command = try ParseCommand.parse(arguments)
      } catch {
        problems.add("linkparse rejects the arguments \(arguments): \(error)")
        return
      }
      parsedCommands[arguments] = command
    }
    // `--pipeline` runs with the threads the process uses (the output written from a thread of its own).
    let status = command.execute(
      Streams(
        input: MemoryByteSource(Array(input), chunkSize: readSize), output: output, error: errors,
        usesThreads: pipeline))
    let stdout = output.bytes
    problems.check(errors.bytes.isEmpty, "linkparse \(arguments) wrote to standard error: \(show(errors.bytes))")
    problems.check(stdout.isEmpty || stdout.last == 0x0A, "standard output does not end with a newline")
    var records = stdout.split(separator: 0x0A, omittingEmptySubsequences: false)
    if records.last?.isEmpty == true { records.removeLast() }
    problems.check(records.count == lineCount, "\(records.count) records for \(lineCount) lines")
    var failures = 0
    for (index, record) in records.enumerated() {
      let bytes = Array(record)
      do {
        try StrictJSON.validate(bytes)
      } catch {
        problems.add("record \(index + 1) is not valid JSON (\(error)): \(show(bytes))")
      }
      let prefix = Array("{\"line\":\(index + 1),\"ok\":".utf8)
      problems.check(bytes.starts(with: prefix), "record \(index + 1) does not start with \(show(prefix))")
      if bytes.count > prefix.count && bytes[prefix.count] == UInt8(ascii: "f") { failures += 1 }
    }
    let expected = failures == 0 || pipeline ? ExitStatus.success : ExitStatus.recordsFailed
    problems.check(status == expected, "exit status \(status) with \(failures) failed records")
  }

  static func checkWriterAndReader(_ input: UnsafeBufferPointer<UInt8>, capacity: Int, problems: inout Problems) {
    // Any text, written by the JSONWriter with a tiny buffer, is valid JSON and reads back the same.
    let text = String(decoding: input, as: UTF8.self)
    var number = 0
    for (k, byte) in input.prefix(8).enumerated() { number |= Int(byte) << (8 * k) }
    let sink = MemoryByteSink()
    do {
      var json = JSONWriter(sink: sink, capacity: capacity)
      json.raw("{\"n\":")
      json.integer(number)
      json.raw(",\"input\":")
      json.string(text)
      json.raw(",\"base\":")
      json.string(orNull: nil)
      json.raw(",\"parts\":[")
      for (k, part) in text.split(separator: "&", omittingEmptySubsequences: false).prefix(16).enumerated() {
        if k > 0 { json.byte(UInt8(ascii: ",")) }
        json.string(part)
      }
      json.raw("]}")
      json.flush()
      problems.check(json.error == nil, "JSONWriter error on a memory sink")
    }
    let written = sink.bytes
    do {
      try StrictJSON.validate(written)
    } catch {
      problems.add("JSONWriter(capacity: \(capacity)) wrote invalid JSON (\(error)): \(show(written))")
    }
    var reader = JSONRecordReader()
    do {
      let record = try reader.read(written)
      problems.check(record.input.utf8.elementsEqual(text.utf8), "the reader read back \(show(record.input))")
      problems.check(record.base == .none, "the reader read base \(record.base), written null")
    } catch {
      problems.add("JSONRecordReader rejects the writer's output: \(error)")
    }

    // The reader on the raw input: strictly valid JSON is never a syntax error, and what it reads round-trips.
    let strictDepth: Int?
    do { strictDepth = try StrictJSON.validate(input) } catch { strictDepth = nil }
    do {
      let record = try reader.read(input)
      let sink = MemoryByteSink()
      do {
        var json = JSONWriter(sink: sink, capacity: capacity)
        json.raw("{\"input\":")
        json.string(record.input)
        json.raw(",\"base\":")
        switch record.base {
        case .inherited: json.string("ignored")
        case .none: json.null()
        case .url(let url): json.string(url)
        }
        json.raw("}")
        json.flush()
      }
      let again = try reader.read(sink.bytes)
      var expected = record
      if case .inherited = record.base { expected.base = .url("ignored") }
      problems.check(again == expected, "a record read, written and read again changed: \(record) -> \(again)")
    } catch {
      if let strictDepth, strictDepth < JSONRecordReader.maxDepth, error.code == "invalid-json" {
        problems.add("the reader calls strictly valid JSON invalid: \(error)")
      }
    }
  }
}
