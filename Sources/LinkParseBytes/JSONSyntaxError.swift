// What the package's one JSON reader (`JSONReader.swift`) reports when a text stops being JSON: a kind and a
// byte offset. Each caller words its own messages (`JSONValue.parse`, the command's `--input-format json`
// records); the providers' JSON decoders only need to know that there was an error.

/// Where and why JSON text stops being strict RFC 8259 JSON.
@usableFromInline package struct JSONSyntaxError: Error, Sendable, Hashable {
  /// A container: the bracket that closes it, and the words for it.
  @usableFromInline package enum Container: Sendable, Hashable {
    case object, array

    /// `}` or `]`.
    @inlinable var close: UInt8 { self == .object ? UInt8(ascii: "}") : UInt8(ascii: "]") }
  }

  /// One of the three JSON literals.
  @usableFromInline package enum Literal: String, Sendable, Hashable {
    case `true`, `false`, null
  }

  /// The part of a number a digit was expected in.
  @usableFromInline package enum NumberPart: Sendable, Hashable {
    /// After the optional `-`.
    case integer
    /// After the `.`.
    case fraction
    /// After `e` or `E` and the optional sign.
    case exponent
  }

  /// How UTF-8 inside a string went wrong (at ``JSONSyntaxError/offset``).
  @usableFromInline package enum UTF8Problem: Sendable, Hashable {
    /// A byte that starts no well-formed sequence (a continuation byte, C0, C1, F5–FF).
    case cannotStart(UInt8)
    /// A byte where a sequence needed a continuation byte of another range.
    case inSequence(UInt8)
    /// The input ended inside a sequence.
    case truncated
  }

  @usableFromInline package enum Kind: Sendable, Hashable {
    /// No value starts here (or the input ended).
    case expectedValue
    /// `t`, `f` or `n` not followed by the rest of the literal: ``JSONSyntaxError/offset`` is the first byte
    /// that differs, ``JSONSyntaxError/start`` the literal's first letter.
    case invalidLiteral(Literal)
    /// A number without a digit where its grammar needs one.
    case expectedDigit(NumberPart)
    /// A digit right after a leading `0` (at the `0`), when the reader diagnoses it.
    case leadingZero
    /// The input ended inside a string (at the end).
    case unterminatedString
    /// A byte below 0x20 inside a string.
    case controlCharacter
    /// A backslash followed by a letter that is not an escape (at the backslash).
    case invalidEscape
    /// `\u` not followed by four hex digits (at the first byte that is not one, or the end).
    case expectedHexDigit
    /// `\uD800`–`\uDBFF` not followed by `\u` (at the escape's backslash).
    case loneHighSurrogate(UInt16)
    /// `\uDC00`–`\uDFFF` with no high surrogate before it (at the escape's backslash).
    case loneLowSurrogate(UInt16)
    /// A high surrogate followed by another `\u` escape that is not a low surrogate: at the second escape's
    /// backslash; ``JSONSyntaxError/start`` is the first's.
    case unpairedHighSurrogate(UInt16)
    /// Ill-formed UTF-8 inside a string.
    case invalidUTF8(UTF8Problem)
    /// Something other than a string where an object's key belongs.
    case expectedKey
    /// Something other than `:` after an object's key.
    case expectedColon
    /// Something other than `,` or the closing bracket after a member or element.
    case expectedCommaOrEnd(Container)
    /// An opening bracket past the reader's maximum depth (at the bracket).
    case tooDeep
    /// More than whitespace after the value.
    case trailingData
    /// A key given twice (at the second), for the callers that refuse them (the reader itself does not look).
    case duplicateKey
  }

  @usableFromInline package var kind: Kind
  /// The byte offset where the text stops being JSON.
  @usableFromInline package var offset: Int
  /// Where the token that failed starts: a literal's first letter, the first escape of a surrogate pair;
  /// ``offset`` for every other kind.
  @usableFromInline package var start: Int

  @inlinable package init(_ kind: Kind, at offset: Int, start: Int? = nil) {
    self.kind = kind
    self.offset = offset
    self.start = start ?? offset
  }
}
