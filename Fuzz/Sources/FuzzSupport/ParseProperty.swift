@_spi(Testing) import LinkParseCore

/// The `parse` target: the URL parser never crashes, and what it returns is self-consistent.
///
/// Input layout: one mode byte, then the bytes to parse.
/// - bit 0 set: the bytes up to the first LF are a base URL and the rest is the input (`1https://a.ru/x\n../y`).
/// - bit 1 set: also parse through `ParsedURL(Substring)` (a slice in the middle of a larger string).
///
/// Properties, for every input that parses:
/// - `checkInvariants()` is empty (offsets, flags, and the round trip `parse(href) == url` sharing storage);
/// - the byte, `String` and `Substring` entry points agree (same href, or the same error code and offset);
/// - parsing `href` as a `String` gives an equal URL whose storage is `href` itself, with any base;
/// - an input that is already its own href is kept, not copied (the zero-copy fast path);
/// - the components put back together give `href`;
/// - query and fragment parameters iterate to their `count`;
/// - whatever the parser's fast path accepts, the state machine parses to the same structure and href.
/// For an input that fails: the error has a code, a message, and an offset inside the input.
enum ParseProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard let mode = data.first else { return [] }
    var input = UnsafeBufferPointer(rebasing: data[1...])
    var problems = Problems()
    var base: ParsedURL?
    if mode & 1 == 1, let newline = input.firstIndex(of: 0x0A) {
      let baseBytes = UnsafeBufferPointer(rebasing: input[..<newline])
      input = UnsafeBufferPointer(rebasing: input[(newline + 1)...])
      if let url = try? ParsedURL(utf8: baseBytes) {
        checkURL(url, problems: &problems, label: "base")
        base = url
      }
    }

    let string = String(decoding: input, as: UTF8.self)
    let validUTF8 = isValidUTF8(input)
    let fromBytes = Outcome { () throws(URLParseError) in try ParsedURL(utf8: input, base: base) }
    let fromString = Outcome { () throws(URLParseError) in try ParsedURL(string, base: base) }
    // With invalid UTF-8 the byte entry point repairs first, so offsets may differ; codes may not.
    problems.check(
      fromBytes.agrees(with: fromString, offsets: validUTF8),
      "ParsedURL(utf8:) and ParsedURL(String) disagree: \(fromBytes) vs \(fromString)")
    if mode & 2 == 2 {
      // Sliced by scalars, not characters: the input may start with a combining mark.
      let padded = "\u{E9}x" + string + "#\u{1F600}"
      let scalars = padded.unicodeScalars
      let slice = padded[
        scalars.index(scalars.startIndex, offsetBy: 2)..<scalars.index(scalars.endIndex, offsetBy: -2)]
      let fromSubstring = Outcome { () throws(URLParseError) in try ParsedURL(slice, base: base) }
      problems.check(
        fromSubstring.agrees(with: fromString, offsets: true),
        "ParsedURL(Substring) and ParsedURL(String) disagree: \(fromSubstring) vs \(fromString)")
    }

    if let disagreement = ParsedURL.fastPathDisagreement(string) { problems.add(disagreement) }

    switch fromString {
    case .url(let url):
      checkURL(url, problems: &problems, label: "url")
      if let base {
        let again = try? ParsedURL(url.href, base: base)
        problems.check(again == url, "parse(href, base: base) != url for href \(show(url.href))")
      }
      if string.utf8.elementsEqual(url.href.utf8) {  // bytes: `==` is canonical equivalence (U+037E == ";")
        problems.check(url.sharesStorageWithInput, "a canonical input was copied: \(show(string))")
      }
    case .error(let error):
      problems.check(!error.code.rawValue.isEmpty && !error.message.isEmpty, "an error without a code or message")
      if let offset = error.offset {
        problems.check(
          offset >= 0 && offset <= string.utf8.count,
          "error offset \(offset) outside the input (\(string.utf8.count) bytes): \(error)")
      }
    }
    if !problems.list.isEmpty {
      problems.add("mode \(mode), base \(base.map { show($0.href) } ?? "none"), input \(show(input))")
    }
    return problems.list
  }

  /// The checks every parsed URL must pass.
  static func checkURL(_ url: ParsedURL, problems: inout Problems, label: String) {
    let href = url.href
    for violation in url.checkInvariants() {
      problems.add("\(label) \(show(href)): invariant: \(violation)")
    }
    // parse(href) == url, storage shared (checkInvariants does it too; kept here so the property does not
    // depend on that helper's scope).
    do {
      let again = try ParsedURL(href)
      problems.check(again == url && again.href == href, "\(label): parse(href) != url for \(show(href))")
      problems.check(again.sharesStorageWithInput, "\(label): parse(href) copied \(show(href))")
    } catch {
      problems.add("\(label): parse(href) fails for \(show(href)): \(error)")
    }
    // The components put back together.
    var rebuilt = url.scheme + ":"
    if let host = url.host {
      rebuilt += "//"
      if !url.username.isEmpty || !url.password.isEmpty {
        rebuilt += url.username
        if !url.password.isEmpty { rebuilt += ":" + url.password }
        rebuilt += "@"
      }
      rebuilt += host
      if let port = url.port { rebuilt += ":\(port)" }
    } else if url.path.hasPrefix("//") {
      rebuilt += "/."
    }
    rebuilt += url.path
    if let query = url.query { rebuilt += "?" + query }
    if let fragment = url.fragment { rebuilt += "#" + fragment }
    problems.check(
      Array(rebuilt.utf8) == Array(href.utf8),
      "\(label): components rebuild \(show(rebuilt)), not \(show(href))")
    problems.check(
      url.hostKind == nil ? url.host == nil : url.host != nil, "\(label): hostKind and host disagree for \(show(href))")
    // The byte views agree with the components.
    let bytes = url.withUnsafeUTF8 { Array($0) }
    problems.check(bytes == Array(href.utf8), "\(label): withUnsafeUTF8 is not the href's bytes")
    let ranges = url.utf8Ranges
    func same(_ range: Range<Int>?, _ component: Substring?, _ name: String) {
      guard let range else { return problems.check(component == nil, "\(label): utf8Ranges.\(name) is nil") }
      guard range.lowerBound >= 0 && range.upperBound <= bytes.count, let component else {
        return problems.add("\(label): utf8Ranges.\(name) \(range) for \(component.map(show) ?? "nil") in \(show(href))")
      }
      problems.check(
        bytes[range].elementsEqual(component.utf8),
        "\(label): utf8Ranges.\(name) \(range) is \(show(bytes[range])), the component \(show(component))")
    }
    same(ranges.scheme, url.scheme, "scheme")
    same(ranges.username, url.username, "username")
    same(ranges.password, url.password, "password")
    same(ranges.host, url.host, "host")
    same(ranges.port, url.port.map { Substring(String($0)) }, "port")
    same(ranges.path, url.path, "path")
    same(ranges.query, url.query, "query")
    same(ranges.fragment, url.fragment, "fragment")
    // Parameters iterate without trouble and agree with their count.
    let query = url.queryParameters
    problems.check(query.reduce(0) { n, _ in n + 1 } == query.count, "\(label): query parameter count")
    let fragment = url.fragmentParameters
    problems.check(fragment.reduce(0) { n, _ in n + 1 } == fragment.count, "\(label): fragment parameter count")
  }
}

/// The result of one parse, comparable across entry points.
enum Outcome: CustomStringConvertible {
  case url(ParsedURL)
  case error(URLParseError)

  init(_ parse: () throws(URLParseError) -> ParsedURL) {
    do { self = .url(try parse()) } catch { self = .error(error) }
  }

  func agrees(with other: Outcome, offsets: Bool) -> Bool {
    switch (self, other) {
    case (.url(let a), .url(let b)): return Array(a.href.utf8) == Array(b.href.utf8)
    case (.error(let a), .error(let b)): return a.code == b.code && (!offsets || a.offset == b.offset)
    default: return false
    }
  }

  var description: String {
    switch self {
    case .url(let url): return "url \(show(url.href))"
    case .error(let error): return "error \(error)"
    }
  }
}
