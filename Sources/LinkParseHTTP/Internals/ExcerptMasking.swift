// What an error message may quote of a response body: the bytes with every secret masked. One pass over the
// bytes, left to right, in time linear in the bytes read (no regular expressions, no backtracking), on raw
// bytes (invalid UTF-8 and NULs included: only ASCII bytes delimit anything, so a multi-byte character is
// never split by a mask).
//
// Two kinds of secret are masked:
// - the request's own secrets (its code, client secret, Authorization credentials…), wherever the body
//   repeats them, found by one Knuth–Morris–Pratt matcher per secret;
// - the value after any token-shaped name, whatever the provider put there: `access_token`, `refresh_token`,
//   `id_token` and every other name ending in `token` or `secret`, `code`, `code_verifier`, `client_secret`,
//   `device_code`, `assertion`, `password`. Names are compared without case, `_` or `-`
//   (`refreshToken`, `ACCESS-TOKEN`), in every syntax a body quotes them in:
//
//       access_token=vk2.a.SECRET&state=s           form text, or an HTML page echoing it
//       {"access_token": "SECRET"}                  JSON, any spacing
//       {\"id_token\":\"SECRET\"}                    JSON inside a JSON string (escaped once, twice, …)
//       client_secret='SECRET'  code: SECRET        other quotes, unquoted values
//       name="refresh_token" value="SECRET"         an HTML form field
//
//   The value ends at its closing quote (one preceded by no more backslashes than the opening one), or,
//   unquoted, at whitespace or one of `& " ' , ; < > } ] ) \`; an unclosed value is masked to the end.

/// Masks the secrets in an excerpt of a response body (see the file's comment for what is masked).
enum ExcerptMasking {
  /// What replaces a secret.
  static let redacted: [UInt8] = Array("[redacted]".utf8)

  /// `bytes` with every secret replaced by `[redacted]`, read until the output reaches `outputLimit` bytes
  /// (a value being masked is always read to its end); `complete` says whether every byte was read.
  ///
  /// `secrets` are the request's own secret values (shorter than 4 bytes they are ignored).
  static func mask(_ bytes: some Collection<UInt8>, secrets: [String], outputLimit: Int)
    -> (bytes: [UInt8], complete: Bool)
  {
    var scanner = Scanner(input: Array(bytes), secrets: secrets)
    let complete = scanner.run(outputLimit: outputLimit)
    return (scanner.output, complete)
  }

  /// Whether a name (a run of ASCII letters, digits, `_` and `-`) names a secret value.
  static func isSecretName(_ name: ArraySlice<UInt8>) -> Bool {
    guard name.count <= 64 else { return false }
    var folded: [UInt8] = []
    folded.reserveCapacity(name.count)
    for byte in name where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-") {
      folded.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
    }
    for suffix in ["token", "secret"] where folded.count >= suffix.utf8.count {
      if folded.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) { return true }
    }
    return secretNames.contains(folded)
  }

  /// Secret names that do not end in `token` or `secret`, folded (lowercase, no `_` or `-`).
  static let secretNames: Set<[UInt8]> = Set(
    ["code", "authcode", "authorizationcode", "devicecode", "codeverifier", "assertion", "clientassertion", "password"]
      .map { Array($0.utf8) })

  static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "_"), UInt8(ascii: "-"):
      return true
    default: return false
    }
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
  }

  /// Whether `byte` ends an unquoted value.
  static func endsUnquotedValue(_ byte: UInt8) -> Bool {
    switch byte {
    case 0..<0x21, 0x7F, UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"),
      UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "\\"):
      return true
    default: return false
    }
  }

  // MARK: - The pass

  struct Scanner {
    let input: [UInt8]
    var matchers: [SecretMatcher]
    var output: [UInt8] = []

    init(input: [UInt8], secrets: [String]) {
      self.input = input
      // Longest first, so a secret that contains another is masked whole.
      matchers = secrets.map { Array($0.utf8) }.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        .map(SecretMatcher.init)
    }

    /// Masks from the start until the input ends (true) or the output reaches `outputLimit` (false).
    mutating func run(outputLimit: Int) -> Bool {
      var i = 0
      while i < input.count {
        guard output.count < outputLimit else { return false }
        if let length = requestSecret(at: i) {
          output += ExcerptMasking.redacted
          i += length
          continue
        }
        if isNameByte(input[i]) && (i == 0 || !isNameByte(input[i - 1])) {
          var nameEnd = i + 1
          while nameEnd < input.count && isNameByte(input[nameEnd]) { nameEnd += 1 }
          if isSecretName(input[i..<nameEnd]), let value = value(after: nameEnd) {
            output += input[i..<value.lowerBound]
            output += ExcerptMasking.redacted
            i = value.upperBound
            continue
          }
        }
        output.append(input[i])
        i += 1
      }
      return true
    }

    /// The length of the longest request secret starting at `i`. Positions asked about only increase.
    mutating func requestSecret(at i: Int) -> Int? {
      var found: Int? = nil
      for index in matchers.indices where matchers[index].starts(at: i, in: input) {
        found = found ?? matchers[index].pattern.count
      }
      return found
    }

    /// The range of the value that follows a name ending at `nameEnd` (its closing quote, `=`, `:` or
    /// `value=`, spaces), without its quotes; `nil` when no non-empty value follows.
    func value(after nameEnd: Int) -> Range<Int>? {
      var k = skipping(backslashes: nameEnd)
      if k < input.count && (input[k] == UInt8(ascii: "\"") || input[k] == UInt8(ascii: "'")) {
        k += 1
      } else {
        k = nameEnd
      }
      k = skippingSpaces(k)
      guard k < input.count else { return nil }
      if input[k] == UInt8(ascii: "=") || input[k] == UInt8(ascii: ":") {
        k += 1
      } else if startsWithValueAttribute(k) {
        k = skippingSpaces(k + 5)
        guard k < input.count, input[k] == UInt8(ascii: "=") else { return nil }
        k += 1
      } else {
        return nil
      }
      k = skippingSpaces(k)
      let quoteAt = skipping(backslashes: k)
      let level = quoteAt - k
      var end: Int
      let start: Int
      if quoteAt < input.count && (input[quoteAt] == UInt8(ascii: "\"") || input[quoteAt] == UInt8(ascii: "'")) {
        // Quoted: the closing quote is the first one preceded by at most `level` backslashes.
        let quote = input[quoteAt]
        start = quoteAt + 1
        end = input.count
        var backslashes = 0
        var j = start
        while j < input.count {
          let byte = input[j]
          if byte == quote && backslashes <= level {
            end = j - backslashes
            break
          }
          backslashes = byte == UInt8(ascii: "\\") ? backslashes + 1 : 0
          j += 1
        }
      } else {
        guard level == 0 else { return nil }
        start = k
        end = k
        while end < input.count && !endsUnquotedValue(input[end]) { end += 1 }
      }
      return end > start ? start..<end : nil
    }

    func skipping(backslashes k: Int) -> Int {
      var k = k
      while k < input.count && input[k] == UInt8(ascii: "\\") { k += 1 }
      return k
    }

    func skippingSpaces(_ k: Int) -> Int {
      var k = k
      while k < input.count && isSpace(input[k]) { k += 1 }
      return k
    }

    /// Whether `value` (any case) starts at `k`, as in `name="access_token" value="…"`.
    func startsWithValueAttribute(_ k: Int) -> Bool {
      guard input.count - k >= 5 else { return false }
      return zip(input[k..<(k + 5)], "value".utf8).allSatisfy { $0 | 0x20 == $1 }
    }
  }

  /// Finds one request secret in the input, reading each byte once (Knuth–Morris–Pratt): asked whether the
  /// secret starts at `i`, it reads ahead to `i + count - 1` and remembers the starts it found on the way.
  struct SecretMatcher {
    let pattern: [UInt8]
    /// `failure[j]`: the length of the longest proper prefix of `pattern[...j]` that is also its suffix.
    let failure: [Int]
    /// The next input position to read, and how much of the pattern ends just before it.
    var position = 0
    var matched = 0
    /// Starts found and not yet asked about, in increasing order.
    var starts: [Int] = []
    var firstStart = 0

    init(_ pattern: [UInt8]) {
      self.pattern = pattern
      var failure = [Int](repeating: 0, count: pattern.count)
      var length = 0
      for j in pattern.indices.dropFirst() {
        while length > 0 && pattern[j] != pattern[length] { length = failure[length - 1] }
        if pattern[j] == pattern[length] { length += 1 }
        failure[j] = length
      }
      self.failure = failure
    }

    mutating func starts(at i: Int, in input: [UInt8]) -> Bool {
      let needed = min(input.count, i + pattern.count)
      while position < needed {
        let byte = input[position]
        while matched > 0 && byte != pattern[matched] { matched = failure[matched - 1] }
        if byte == pattern[matched] { matched += 1 }
        position += 1
        if matched == pattern.count {
          starts.append(position - pattern.count)
          matched = failure[matched - 1]
        }
      }
      while firstStart < starts.count && starts[firstStart] < i { firstStart += 1 }
      if firstStart >= 1024 {
        starts.removeFirst(firstStart)
        firstStart = 0
      }
      return firstStart < starts.count && starts[firstStart] == i
    }
  }
}
