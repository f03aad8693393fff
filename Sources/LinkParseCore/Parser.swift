// The WHATWG URL Standard's basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser), over
// UTF-8 bytes, writing the URL's serialization directly.
//
// How it works
// ------------
// The standard describes a state machine that fills a URL record (scheme, username, password, host, port,
// path list, query, fragment) which is serialized afterwards. Every state appends to the record in
// serialization order — scheme, then authority, then path segments, then query, then fragment — so this
// parser skips the record and writes the serialization as it goes, into a `URLWriter`, noting where each
// component starts (`URLStructure`). The only steps that revise what was written are "shorten the path"
// (a `..` segment), the Windows drive letter quirk, "localhost" in file hosts and the `/.` path prefix; each
// is an edit at the end of the output (or one insertion before the path).
//
// The writer copies on divergence: while the serialization equals the input byte for byte it only counts, so
// canonical input — nearly every real callback URL — is parsed without allocating, and the caller's string
// becomes the storage.
//
// The states are methods named after the standard's states. Where the standard scans code point by code
// point with a buffer, these methods find the component's end first and then handle the whole range
// (percent-encoding runs of bytes that need no encoding in one step); each says which states it covers.
// Input is valid UTF-8 here (the entry points repair invalid bytes first), so percent-encoding a code point
// is percent-encoding its bytes one by one.

import LinkParseBytes

// MARK: - Entry points

@usableFromInline enum URLParser {

  /// Inputs above this size are rejected: offsets are `UInt32`, and percent-encoding can triple a byte.
  static let maximumInputLength = Int(UInt32.max / 4)

  /// Parses `url.storage` (the caller's string) into `url`. The fast path writes the offsets into `url` in
  /// place: a structure returned, or built in a temporary, was written field by field and then copied on in wide
  /// loads, which stalled on store forwarding (about 12 cycles each, several a URL).
  @usableFromInline
  static func parse(_ url: inout ParsedURL, base: ParsedURL?) throws(URLParseError) {
    if fastPath(of: url.storage, base: base, into: &url.structure, flags: URLStructure.sharesInputFlag) { return }
    url = try parse(string: url.storage, base: base, fastPath: false)
  }

  /// Whether `string`, read in place, is a canonical URL the fast path takes without a base
  /// (``fastPath(checking:into:flags:)`` writes its structure into `url`); false for a string that is not
  /// contiguous UTF-8, and with a base.
  @inline(__always)
  static func fastPath(
    of string: borrowing String, base: ParsedURL?, into url: inout URLStructure, flags: UInt8
  ) -> Bool {
    // (`case .none`, not `base == nil`: a generic Optional copy, through value witnesses.)
    guard case .none = base else { return false }
    return string.utf8.withContiguousStorageIfAvailable { fastPath(checking: $0, into: &url, flags: flags) } == true
  }

  /// Takes `string` owned: when the URL is the input, the string moves into the `ParsedURL` (no retain, no
  /// release). Its bytes are read in place (a `var` copy for `withUTF8` cost a retain and a release).
  ///
  /// `isInput`: whether `string` is the caller's own (a URL that is its input then shares its storage), or a
  /// string made from the caller's bytes.
  ///
  /// `fastPath`: false when the caller already tried ``fastPath(_:)`` on this input.
  static func parse(
    string: consuming String, base: ParsedURL?, isInput: Bool = true, fastPath tryFastPath: Bool = true
  ) throws(URLParseError) -> ParsedURL {
    // The fast path first, straight into the URL: no `Result`/`ParseOutput` in between (see `parse(_:base:)`).
    var structure = URLStructure()
    if tryFastPath,
      fastPath(of: string, base: base, into: &structure, flags: isInput ? URLStructure.sharesInputFlag : 0)
    {
      return ParsedURL(storage: string, structure: structure)
    }
    let result =
      string.utf8.withContiguousStorageIfAvailable { bytes in parse(validUTF8: bytes, base: base, fastPath: false) }
      ?? { var copy = copy string; return copy.withUTF8 { bytes in parse(validUTF8: bytes, base: base) } }()
    return try finish(result, input: consume string, isInput: isInput)
  }

  static func parse(substring: Substring, base: ParsedURL?) throws(URLParseError) -> ParsedURL {
    var input = substring
    let result = input.withUTF8 { bytes in parse(validUTF8: bytes, base: base) }
    // A shared substring would keep its whole base string alive; share only when it is the whole string.
    let whole = substring.startIndex == substring.base.startIndex && substring.endIndex == substring.base.endIndex
    return try finish(result, input: whole ? substring.base : String(substring), isInput: whole)
  }

  @inlinable
  static func parse<Bytes: Collection<UInt8>>(bytes: Bytes, base: ParsedURL?) throws(URLParseError) -> ParsedURL {
    let contiguous: Result<ParsedURL, URLParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(URLParseError) -> ParsedURL in try parse(utf8Buffer: buffer, base: base) }
    }
    if let contiguous { return try contiguous.get() }
    let array = Array(bytes)
    return try array.withUnsafeBufferPointer { buffer in
      Result { () throws(URLParseError) -> ParsedURL in try parse(utf8Buffer: buffer, base: base) }
    }.get()
  }

  @usableFromInline
  static func parse(utf8Buffer buffer: UnsafeBufferPointer<UInt8>, base: ParsedURL?) throws(URLParseError)
    -> ParsedURL
  {
    // A String is made first: `String(decoding:)` validates the bytes as it copies them (replacing each maximal
    // invalid subpart with U+FFFD, as the standard's callers do), and when the URL is the input it becomes the
    // URL's storage as it is. (Checking the bytes first, then copying them for the storage, read them twice.)
    return try parse(string: String(decoding: buffer, as: UTF8.self), base: base, isInput: false)
  }

  /// Builds the `ParsedURL` from a parse result: its storage is `input` when the serialization is the input
  /// (marked as shared when `isInput`: the caller's own string), else a new string of the output bytes.
  @inline(__always)
  private static func finish(
    _ result: Result<ParseOutput, URLParseError>, input: consuming String, isInput: Bool
  ) throws(URLParseError) -> ParsedURL {
    var output = try result.get()
    let storage: String
    switch output.serialization {
    case .input:
      storage = input
      output.structure.sharesInput = isInput
    case .string(let string):
      storage = string
    }
    return ParsedURL(storage: storage, structure: output.structure)
  }

  struct ParseOutput {
    enum Serialization {
      /// The serialization is exactly the input.
      case input
      /// A serialization of its own (ASCII).
      case string(String)
    }
    var serialization: Serialization
    var structure: URLStructure
  }

  /// Parses valid UTF-8. Removes leading and trailing C0 control or space and every tab or newline, runs
  /// the state machine, and maps error offsets back to the caller's input.
  ///
  /// `fastPath`: false when the caller already tried ``fastPath(checking:into:flags:)`` on this input (which
  /// also requested the input's cache lines).
  static func parse(validUTF8 input: UnsafeBufferPointer<UInt8>, base: ParsedURL?, fastPath tryFastPath: Bool = true)
    -> Result<ParseOutput, URLParseError>
  {
    guard input.count <= maximumInputLength else {
      return .failure(
        URLParseError(
          code: .inputTooLong, offset: nil,
          message: "the input is \(input.count) bytes; at most \(maximumInputLength) are accepted"))
    }
    // (`case .none`, not `base == nil`: a generic Optional copy.)
    if tryFastPath, case .none = base {
      var structure = URLStructure()
      if fastPath(checking: input, into: &structure, flags: 0) {
        return .success(ParseOutput(serialization: .input, structure: structure))
      }
    }
    return parseWithStateMachine(input, base: base)
  }

  /// ``parse(validUTF8:base:)`` without the fast path (which tests compare it with).
  static func parseWithStateMachine(_ input: UnsafeBufferPointer<UInt8>, base: ParsedURL?) -> Result<
    ParseOutput, URLParseError
  > {
    var trimmedStart = 0
    var trimmedEnd = input.count
    while trimmedStart < trimmedEnd && input[trimmedStart] <= 0x20 { trimmedStart &+= 1 }
    while trimmedEnd > trimmedStart && input[trimmedEnd &- 1] <= 0x20 { trimmedEnd &-= 1 }
    let trimmed = Trimmed(start: trimmedStart, end: trimmedEnd)
    guard let base else {
      return parse(input, trimmed, base: nil)
    }
    var baseStorage = base.storage
    let baseStructure = base.structure
    return baseStorage.withUTF8 { parse(input, trimmed, base: BaseURL(bytes: $0, structure: baseStructure)) }
  }

  struct Trimmed {
    let start: Int
    let end: Int
  }

  private static func parse(_ input: UnsafeBufferPointer<UInt8>, _ trimmed: Trimmed, base: BaseURL?) -> Result<
    ParseOutput, URLParseError
  > {
    let start = trimmed.start
    let end = trimmed.end
    let hasTabOrNewline = start < end && Scan.tabOrNewline(input.baseAddress!, start, end) < end
    if !hasTabOrNewline {
      return run(
        UnsafeBufferPointer(rebasing: input[start..<end]), base: base,
        isWholeInput: start == 0 && end == input.count, original: input, trimmed: trimmed, removedTabs: false)
    }
    var cleaned: [UInt8] = []
    cleaned.reserveCapacity(end &- start)
    for i in start..<end where !(input[i] == 0x09 || input[i] == 0x0A || input[i] == 0x0D) {
      cleaned.append(input[i])
    }
    return cleaned.withUnsafeBufferPointer {
      run($0, base: base, isWholeInput: false, original: input, trimmed: trimmed, removedTabs: true)
    }
  }

  /// Runs the state machine over the cleaned input.
  private static func run(
    _ cleaned: UnsafeBufferPointer<UInt8>, base: BaseURL?, isWholeInput: Bool,
    original: UnsafeBufferPointer<UInt8>, trimmed: Trimmed, removedTabs: Bool
  ) -> Result<ParseOutput, URLParseError> {
    var machine = URLStateMachine(input: cleaned, base: base)
    if var error = machine.run() {
      if let offset = error.offset {
        error.offset = originalOffset(offset, start: trimmed.start, input: original, removedTabs: removedTabs)
      }
      return .failure(error)
    }
    if isWholeInput && machine.writer.count == cleaned.count {
      // Identical to the input: nothing was written, or (rarely: an edit that undid itself, such as the
      // "/." path prefix) the written bytes are the input's.
      if !machine.writer.diverged || cleaned.isEmpty
        || Words.equal(machine.writer.out!, cleaned.baseAddress!, cleaned.count)
      {
        return .success(ParseOutput(serialization: .input, structure: machine.url))
      }
    }
    return .success(ParseOutput(serialization: .string(machine.writer.makeString()), structure: machine.url))
  }

  /// Maps an offset in the cleaned input (trimmed, tabs and newlines removed) to the caller's input.
  private static func originalOffset(
    _ offset: Int, start: Int, input: UnsafeBufferPointer<UInt8>, removedTabs: Bool
  ) -> Int {
    guard removedTabs else { return start &+ offset }
    var remaining = offset
    var i = start
    while i < input.count {
      let b = input[i]
      if !(b == 0x09 || b == 0x0A || b == 0x0D) {
        if remaining == 0 { return i }
        remaining &-= 1
      }
      i &+= 1
    }
    return i
  }
}
