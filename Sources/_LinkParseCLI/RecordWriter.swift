import LinkParseRouter
import LinkParseAuthorization
import LinkParseOAuth
@_spi(Bytes) import LinkParseCore
@_spi(Bytes) import LinkParseProviders
import LinkParseBytes

/// Turns input records into output records: parses each URL and writes one JSON line for it.
///
/// The output contract (keys always in this order):
///
/// ```text
/// {"line":N,"ok":true,"href":"…","scheme":"…","username":"…","password":"…","host":"…"|null,
///  "port":N|null,"path":"…","query":"…"|null,"fragment":"…"|null,"params":[["name","value"],…],
///  "callback":null|{"provider":"…","outcome":"…",…}[,"route":null|{"name":"…","provider":"…"|null,"captures":{…}}]}
/// {"line":N,"ok":false,"error":{"code":"…","offset":N|null,"message":"…"}}
/// ```
///
/// `params` holds the query's form-decoded pairs in order; a bare key (`?cancelled`) has the value `""`.
/// With `--routes`, a success record ends with `"route":{"name":…,"provider":…|null,"captures":{…}}` or
/// `"route":null`. With `--fields`, only the selected keys are written (``FieldSelection``), in this order.
/// The keys and the fixed text between the values come from a ``RecordLayout`` made once per run.
struct RecordWriter: ~Copyable {
  var json: JSONWriter
  /// The `--base` URL.
  let defaultBase: ParsedURL?
  /// The splitter's limit, for the `line-too-long` message.
  let maxLineLength: Int
  /// How the `"callback"` key is produced.
  let callbackOptions: CallbackOptions
  var reader = JSONRecordReader()
  /// The last base given by a JSON record, parsed, so a file with one base parses it once.
  var cachedBase: (string: String, url: ParsedURL)?
  private(set) var records = 0
  private(set) var failures = 0

  /// The `--routes` table.
  let router: Router?

  /// `--fields`, when given.
  let fields: FieldSelection?
  /// Whether `fields` is given: the one flag the full record's path tests per key.
  let projecting: Bool
  /// The record's keys written (all of them when not `projecting`).
  let keys: FieldSelection.Keys
  /// A success record is the URL's members alone: no callback, route or redaction, and no `--base` (so a line the
  /// parser's fast path takes is its own href, and is written from its bytes: ``CanonicalURLBytes``).
  let writesMembersOnly: Bool
  /// The fixed text of a success record and of a failure record under `keys`.
  private let successLayout: RecordLayout
  private let failureLayout: RecordLayout

  init(
    json: consuming JSONWriter, defaultBase: ParsedURL?, maxLineLength: Int,
    callbackOptions: CallbackOptions = CallbackOptions(), router: Router? = nil, fields: FieldSelection? = nil
  ) {
    self.json = json
    self.router = router
    self.fields = fields
    projecting = fields != nil
    let keys = fields?.keys ?? FieldSelection.Keys(rawValue: .max)
    self.keys = keys
    // `"route"` only with a route table (without `--fields` too).
    successLayout = RecordLayout(
      Self.successMembers, selecting: router == nil ? keys.subtracting(.route) : keys)
    failureLayout = RecordLayout(Self.failureMembers, selecting: keys)
    // Each part on its own, before the `&&`s: inside their autoclosures a read of `self.successLayout` (while `self`
    // was not yet whole) made the optimized build release an uninitialized value when the record writer was
    // destroyed (valgrind: "Conditional jump or move depends on uninitialised value(s)" in swift_release).
    let noBase = defaultBase == nil, noRouter = router == nil, noRedaction = !callbackOptions.redact
    let noCallback = successLayout.before(.callback) == nil
    writesMembersOnly = noBase && noRouter && noRedaction && noCallback
    self.defaultBase = defaultBase
    self.maxLineLength = maxLineLength
    self.callbackOptions = callbackOptions
  }

  /// A success record's members, in order (`"params":` with the list's `[`).
  private static let successMembers: [RecordLayout.Member] = [
    .value(.line, "\"line\":"), .constant(.ok, "\"ok\":true"), .value(.href, "\"href\":"),
    .value(.scheme, "\"scheme\":"), .value(.username, "\"username\":"), .value(.password, "\"password\":"),
    .value(.host, "\"host\":"), .value(.port, "\"port\":"), .value(.path, "\"path\":"),
    .value(.query, "\"query\":"), .value(.fragment, "\"fragment\":"), .value(.params, "\"params\":["),
    .value(.callback, "\"callback\":"), .value(.route, "\"route\":"),
  ]
  /// A failure record's members, in order.
  private static let failureMembers: [RecordLayout.Member] = [
    .value(.line, "\"line\":"), .constant(.ok, "\"ok\":false"), .value(.error, "\"error\":"),
  ]

  /// Handles one event of the splitter in `--input-format lines`.
  mutating func line(_ event: LineEvent, number: Int) {
    switch event {
    case .line(let bytes):
      // A record of the URL's members alone, of a line that is a canonical URL: written from the line's bytes,
      // without a `ParsedURL` (whose `String` the line would be copied into).
      if writesMembersOnly {
        let canonical = CanonicalURLBytes(bytes)
        if canonical.isCanonical { return success(canonical, href: bytes, line: number) }
      }
      // The URL is bound outside the `do`: passed on from inside it, it was destroyed afterwards as a
      // `Result<ParsedURL, URLParseError>`, through generic witnesses (about 20 instructions per line).
      let url: ParsedURL
      do throws(URLParseError) {
        // (Not `base: defaultBase` when there is none: passing the `ParsedURL?` copied it generically.)
        if let defaultBase {
          url = try ParsedURL(utf8: bytes, base: defaultBase)
        } else {
          url = try ParsedURL(utf8: bytes)
        }
      } catch {
        return failure(line: number, code: error.code.rawValue, offset: error.offset, message: error.message)
      }
      success(url, line: number)
    case .tooLong(let byteCount):
      tooLong(byteCount: byteCount, line: number)
    }
  }

  /// Handles one event of the splitter in `--input-format json`.
  mutating func jsonLine(_ event: LineEvent, number: Int) {
    switch event {
    case .line(let bytes):
      let record: JSONInputRecord
      do throws(JSONRecordError) {
        record = try reader.read(bytes)
      } catch {
        return failure(line: number, code: error.code, offset: error.offset, message: error.message)
      }
      let base: ParsedURL?
      switch record.base {
      case .inherited: base = defaultBase
      case .none: base = nil
      case .url(let string):
        if let cachedBase, cachedBase.string == string {
          base = cachedBase.url
        } else {
          do throws(URLParseError) {
            let url = try ParsedURL(string)
            cachedBase = (string, url)
            base = url
          } catch {
            return failure(
              line: number, code: "invalid-base", offset: error.offset,
              message: "the record's base URL is invalid: \(error.description)")
          }
        }
      }
      do throws(URLParseError) {
        success(try ParsedURL(record.input, base: base), line: number, body: record.body.map { FormParameters($0) })
      } catch {
        failure(line: number, code: error.code.rawValue, offset: error.offset, message: error.message)
      }
    case .tooLong(let byteCount):
      tooLong(byteCount: byteCount, line: number)
    }
  }

  private mutating func tooLong(byteCount: Int, line: Int) {
    failure(
      line: line, code: "line-too-long", offset: nil,
      message: "the line is \(byteCount) bytes long, more than the limit of \(maxLineLength) bytes; skipped")
  }

  /// Writes a success record; `body` (a `form_post` body) replaces the URL's parameters for `"callback"`.
  mutating func success(_ url: borrowing ParsedURL, line: Int, body: FormParameters? = nil) {
    records += 1
    // Everything is written from the serialization's bytes (no Substrings) while they are in reach: the
    // components are slices of them, and so are most parameter and callback values. (`borrowing`: the
    // closure then borrows the URL; it copied a parameter taken the usual way.)
    withHrefBytes(url) { href in success(url, href: href, line: line, body: body) }
  }

  private mutating func success(
    _ url: borrowing ParsedURL, href bytes: UnsafeBufferPointer<UInt8>, line: Int, body: FormParameters?
  ) {
    let redact = callbackOptions.redact
    // When the href has nothing to escape (nearly always: a serialization percent-encodes controls, and keeps
    // '"' only in opaque hosts and paths and '\\' only in some components), neither has any slice of it:
    // those are written without a check.
    let clean = CleanBytes(href: bytes)
    let r = url.utf8Ranges
    // The callback's decoder reads what the parameter list sees (`--provider auto`, no checks, no body, no
    // route table to pick a provider): the pairs are recorded for it as they are listed, so that it does not
    // scan the query again.
    let feedsScan =
      router == nil && (!projecting || keys.contains(.callback)) && callbackOptions.usesScannedQuery(body: body)
    var scannedQuery = CallbackQueryScan(query: r.query)
    urlMembers(
      port: url.port, redacting: redact ? copy url : nil, href: bytes, ranges: r, line: line, clean: clean,
      scannedQuery: &scannedQuery, feedsScan: feedsScan)
    if let router {
      routedCallback(router, url, body: body, redact: redact, clean: clean)
    } else if let run = successLayout.before(.callback) {
      json.raw(run)
      callback(url, body: body, scannedQuery: &scannedQuery, fed: feedsScan, redact: redact, clean: clean)
    }
    json.raw(successLayout.end)
  }

  /// Writes a success record of the URL's members alone (``writesMembersOnly``) from `bytes`, a canonical URL's.
  private mutating func success(_ url: borrowing CanonicalURLBytes, href bytes: UnsafeBufferPointer<UInt8>, line: Int) {
    records += 1
    var unused = CallbackQueryScan(query: nil)
    urlMembers(
      port: url.port, redacting: nil, href: bytes, ranges: url.ranges, line: line, clean: CleanBytes(href: bytes),
      scannedQuery: &unused, feedsScan: false)
    json.raw(successLayout.end)
  }

  /// Writes the members up to `"params"`, straight into the output buffer in space reserved for the longest they
  /// can be (``urlMembersBound``), unless `--redact` (`redacting`, the URL) replaces values by texts of other
  /// lengths or the line is too long for the buffer: then through the writer's tested appends.
  @inline(__always)
  private mutating func urlMembers(
    port: UInt16?, redacting url: ParsedURL?, href bytes: UnsafeBufferPointer<UInt8>, ranges r: ParsedURL.UTF8Ranges,
    line: Int, clean: CleanBytes, scannedQuery: inout CallbackQueryScan, feedsScan: Bool
  ) {
    if case .none = url, var cursor = json.cursor(reserving: Self.urlMembersBound(successLayout, href: bytes)) {
      Self.urlMembers(
        &cursor, successLayout, port: port, redacting: nil, href: bytes, ranges: r, line: line, clean: clean,
        scannedQuery: &scannedQuery, feedsScan: feedsScan)
      json.commit(cursor)
    } else {
      Self.urlMembers(
        &json, successLayout, port: port, redacting: url, href: bytes, ranges: r, line: line, clean: clean,
        scannedQuery: &scannedQuery, feedsScan: feedsScan)
    }
  }

  /// The most bytes ``urlMembers(_:_:port:redacting:href:ranges:line:clean:scannedQuery:feedsScan:)`` writes without
  /// `--redact`, for an href of n bytes, counted without relying on what a serialization may hold: the layout's
  /// runs; the line number and the port (20 bytes each); quotes or `null` for the href and its seven components
  /// (4 each); the href's bytes written at most three times — the href, the one component each lies in (they are
  /// disjoint), the one parameter each lies in — and each at most 6 bytes in the output (`\u00XX`; decoding only
  /// shrinks, and U+FFFD takes 3 bytes for at least one invalid byte); each parameter's punctuation, `],["` `","`
  /// `"` (8 bytes, and at most n parameters) and the list's `]]`; and the 16 bytes a string's escape check reads
  /// past it. In all: runs + 18n + 8n + 96 (a 250-byte href reserves about 6.6 KB of the 256 KB buffer).
  @inline(__always)
  private static func urlMembersBound(_ layout: borrowing RecordLayout, href bytes: UnsafeBufferPointer<UInt8>) -> Int {
    layout.byteCount &+ 26 &* bytes.count &+ 96
  }

  /// Writes the members that come from the URL, `"line"` to `"params"` (those `layout` selects), to `out`
  /// (and the query's pairs to `scannedQuery` when `feedsScan`):
  /// the one text of them, specialized for a ``RecordCursor`` (the usual record) and for the ``JSONWriter``.
  /// Each value follows its run of the layout (the `{` or comma, the key, and any constant member before it):
  /// one copy, and no test of the selection beyond the run's presence, per key.
  @inline(__always)
  private static func urlMembers<Out: JSONOutput & ~Copyable>(
    _ out: inout Out, _ layout: borrowing RecordLayout, port: UInt16?, redacting url: ParsedURL?,
    href bytes: UnsafeBufferPointer<UInt8>, ranges r: ParsedURL.UTF8Ranges, line: Int, clean: CleanBytes,
    scannedQuery: inout CallbackQueryScan, feedsScan: Bool
  ) {
    let redact = url != nil
    // Every slice of a clean href is clean: tested once here rather than slice by slice.
    let verbatim = clean.contains(bytes)
    if let run = layout.before(.line) {
      out.raw(run)
      out.integer(line)
    }
    if let run = layout.before(.href) {
      if redact {
        out.raw(run)
        out.string(CallbackOptions.redactHref(url!))
      } else {
        quotedSlice(bytes, 0..<bytes.count, verbatim: verbatim, after: run, &out)
      }
    }
    if let run = layout.before(.scheme) { quotedSlice(bytes, r.scheme, verbatim: verbatim, after: run, &out) }
    // `--redact` hides the userinfo (kept empty when there is none).
    if let run = layout.before(.username) {
      if redact && !r.username.isEmpty {
        out.redacted(after: run)
      } else {
        quotedSlice(bytes, r.username, verbatim: verbatim, after: run, &out)
      }
    }
    if let run = layout.before(.password) {
      if redact && !r.password.isEmpty {
        out.redacted(after: run)
      } else {
        quotedSlice(bytes, r.password, verbatim: verbatim, after: run, &out)
      }
    }
    if let run = layout.before(.host) {
      if let host = r.host {
        quotedSlice(bytes, host, verbatim: verbatim, after: run, &out)
      } else {
        out.null(after: run)
      }
    }
    if let run = layout.before(.port) {
      if let port {
        out.raw(run)
        out.integer(Int(port))
      } else {
        out.null(after: run)
      }
    }
    if let run = layout.before(.path) { quotedSlice(bytes, r.path, verbatim: verbatim, after: run, &out) }
    if let run = layout.before(.query) {
      if let query = r.query {
        if redact {
          out.raw(run)
          out.string(CallbackOptions.redactFormText(url!.query!))
        } else {
          quotedSlice(bytes, query, verbatim: verbatim, after: run, &out)
        }
      } else {
        out.null(after: run)
      }
    }
    if let run = layout.before(.fragment) {
      if let fragment = r.fragment {
        if redact {
          out.raw(run)
          out.string(CallbackOptions.redactFormText(url!.fragment!))
        } else {
          quotedSlice(bytes, fragment, verbatim: verbatim, after: run, &out)
        }
      } else {
        out.null(after: run)
      }
    }
    // The query's pairs, read from the href's bytes (no `FormParameters`, no Substring).
    let href = bytes.baseAddress!
    if let run = layout.before(.params) {
      out.raw(run)
      if let query = r.query {
        // Each pair is `["name","value"]`: the `]` of one goes out with the `,[` of the next, as one run.
        var first = true
        var pairs = FormPairScanner(href, from: query.lowerBound, to: query.upperBound)
        pairs.forEach { pair in
          if feedsScan { scannedQuery.add(pair, href: href) }
          let name = FormParameters.UnsafeDecodedBytes(
            href, from: pair.nameStart, to: pair.nameEnd, flags: pair.nameFlags)
          formDecoded(name, verbatim: verbatim, after: (first ? "[" : "],[" as StaticString).bytes, &out)
          first = false
          if !pair.hasValue {
            out.raw(StaticString(",\"\"").bytes)
          } else if redact && CallbackOptions.isSecret(name) {
            out.redacted(after: StaticString(",").bytes)
          } else {
            formDecoded(
              FormParameters.UnsafeDecodedBytes(href, from: pair.valueStart, to: pair.end, flags: pair.valueFlags),
              verbatim: verbatim, after: StaticString(",").bytes, &out)
          }
        }
        if !first { out.raw(StaticString("]").bytes) }
      }
      out.raw(StaticString("]").bytes)
    } else if feedsScan, let query = r.query {
      // `--fields` without `params`: the pairs are only recorded.
      var pairs = FormPairScanner(href, from: query.lowerBound, to: query.upperBound)
      pairs.forEach { scannedQuery.add($0, href: href) }
    }
  }

  /// Writes the value of `"callback"`, the one writer of every record's callback: decoded from `scannedQuery` as it is
  /// written when the caller `fed` it the query's pairs (no value wraps the callback; see
  /// `ProviderDetector.decode(url:scannedQuery:…)`), else from the value the options' `decode` makes — with
  /// `provider` (a matched route's) in place of `--provider auto` when given.
  @inline(__always)
  private mutating func callback(
    _ url: borrowing ParsedURL, body: FormParameters?, scannedQuery: inout CallbackQueryScan, fed: Bool,
    provider: ProviderOption? = nil, redact: Bool, clean: CleanBytes
  ) {
    if fed {
      let detected = ProviderDetector.decode(
        url: url, scannedQuery: &scannedQuery,
        decoded: { decoded($0, redact: redact, clean: clean) }, rejected: { rejected($0, $1, redact: redact) })
      if !detected { json.null() }
    } else if let provider {
      var options = callbackOptions
      options.provider = provider
      callback(options.decode(url, body: body), redact: redact, clean: clean)
    } else {
      callback(callbackOptions.decode(url, body: body), redact: redact, clean: clean)
    }
  }

  /// With a route table: the route is matched, a route with a provider picks that provider's decoder (unless
  /// `--provider` names one), then `,"callback":…` and `,"route":…` (those selected). (Out of line: the common
  /// record has no table, and the match's value would cost it copies.)
  @inline(never)
  private mutating func routedCallback(
    _ router: Router, _ url: borrowing ParsedURL, body: FormParameters?, redact: Bool, clean: CleanBytes
  ) {
    let match = try? router.match(copy url)
    if let run = successLayout.before(.callback) {
      json.raw(run)
      var unused = CallbackQueryScan(query: nil)
      callback(
        url, body: body, scannedQuery: &unused, fed: false, provider: callbackOptions.routeProvider(match),
        redact: redact, clean: clean)
    }
    if let run = successLayout.before(.route) {
      json.raw(run)
      route(match)
    }
  }

  /// Writes the value of `"route"`: `{…}`, or `null` (no route matched, or a route constraint hit its limits).
  private mutating func route(_ match: RouteMatch?) {
    guard let match else { return json.null() }
    json.raw("{\"name\":")
    json.string(match.name)
    json.raw(",\"provider\":")
    if let provider = match.provider { json.string(provider.rawValue) } else { json.null() }
    json.raw(",\"captures\":{")
    for k in 0..<match.captureCount {
      let capture = match.capture(at: k)
      if k > 0 { json.byte(UInt8(ascii: ",")) }
      json.string(capture.name)
      json.byte(UInt8(ascii: ":"))
      json.string(capture.value)
    }
    json.raw("}}")
  }

  /// Writes `bytes[range]` (a slice of the href) after `run` as a quoted string, without a check when
  /// `verbatim`. (`@_transparent`, here and on `formDecoded`: the optimizer kept the cursor's specializations
  /// of both out of line despite `@inline(__always)`, a call of 40-60 instructions for every string written;
  /// inlined, the cursor's position stays in a register.)
  @_transparent
  private static func quotedSlice<Out: JSONOutput & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, verbatim: Bool, after run: UnsafeBufferPointer<UInt8>,
    _ out: inout Out
  ) {
    let slice = UnsafeBufferPointer(rebasing: bytes[range])
    if verbatim { out.quotedVerbatim(slice, after: run) } else { out.quoted(slice, after: run) }
  }

  /// Writes a form-encoded slice decoded: a callback's value (``formDecoded(_:verbatim:after:_:)``), without
  /// a check when it lies in `clean`.
  @inline(__always)
  mutating func formDecoded(_ bytes: FormParameters.UnsafeDecodedBytes, _ clean: CleanBytes) {
    Self.formDecoded(bytes, verbatim: clean.contains(bytes.raw), after: .empty, &json)
  }

  /// Writes a form-encoded slice decoded, after `prefix` (fixed JSON text): as it is when it has no `%` or
  /// `+` (decoding would not change it; without a check when `verbatim`: the bytes need no escape), else
  /// decoded into a temporary buffer by the library's decoder — no String on either path.
  @_transparent
  static func formDecoded<Out: JSONOutput & ~Copyable>(
    _ bytes: FormParameters.UnsafeDecodedBytes, verbatim: Bool, after prefix: UnsafeBufferPointer<UInt8>,
    _ out: inout Out
  ) {
    // The scanner's flags (`FormPairScanner` sees every `%` and `+`) decide, not `needsDecoding`, which reads
    // the bytes up to the first escape: a view without them (both flags set) is checked again by
    // `withDecodedBytes`, which passes bytes that need no decoding on as they are.
    guard bytes.mayContainEscapes || bytes.mayContainPlus else {
      if verbatim { out.quotedVerbatim(bytes.raw, after: prefix) } else { out.quoted(bytes.raw, after: prefix) }
      return
    }
    decoded(bytes, after: prefix, &out)
  }

  /// ``formDecoded(_:verbatim:after:_:)`` for bytes with an escape, out of line (the common value, written as
  /// it is, costs no call): written straight from a temporary buffer when the decoded bytes are valid UTF-8,
  /// and through a String (which replaces invalid sequences with U+FFFD) only when an escape made them
  /// invalid.
  @inline(never)
  private static func decoded<Out: JSONOutput & ~Copyable>(
    _ bytes: FormParameters.UnsafeDecodedBytes, after prefix: UnsafeBufferPointer<UInt8>, _ out: inout Out
  ) {
    bytes.withDecodedBytes { decoded in
      if UTF8Validation.isValid(decoded) {
        out.quoted(decoded, after: prefix)
      } else {
        out.raw(prefix)
        out.string(String(decoding: decoded, as: UTF8.self))
      }
    }
  }

  /// Writes a failure record.
  mutating func failure(line: Int, code: String, offset: Int?, message: String) {
    records += 1
    failures += 1
    if let run = failureLayout.before(.line) {
      json.raw(run)
      json.integer(line)
    }
    if let run = failureLayout.before(.error) {
      json.raw(run)
      let names = projecting ? fields!.errorKeys : nil
      var members = ObjectMembers(names)
      json.byte(UInt8(ascii: "{"))
      if members.next("\"code\":", &json) { json.string(code) }
      if members.next("\"offset\":", &json) {
        if let offset { json.integer(offset) } else { json.null() }
      }
      if members.next("\"message\":", &json) { json.string(message) }
      json.byte(UInt8(ascii: "}"))
    }
    json.raw(failureLayout.end)
  }
}

/// Writes the members of one JSON object of a record, the selected ones (all when `names` is `nil`), a comma
/// before each but the first. For the objects written off the common path (errors, a selected callback).
///
/// ```swift
/// var members = ObjectMembers(["code"])
/// json.byte(UInt8(ascii: "{"))
/// if members.next("\"code\":", &json) { json.string("x") }     // "code":"x"
/// if members.next("\"raw\":", &json) { json.string("y") }      // left out
/// json.byte(UInt8(ascii: "}"))
/// ```
struct ObjectMembers {
  /// The keys written; `nil`: all.
  let names: [String]?
  private var first = true

  init(_ names: [String]?) { self.names = names }

  /// Whether `name` is written.
  func includes(_ name: String) -> Bool { names.map { $0.contains(name) } ?? true }

  /// Writes `key` (`"name":`, quoted, with its colon) when its name is selected, and says whether it was.
  @inline(__always)
  mutating func next(_ key: StaticString, _ json: inout JSONWriter) -> Bool {
    let bytes = key.bytes
    if let names {
      // The name between the quotes.
      let name = bytes[1..<(bytes.count - 2)]
      guard names.contains(where: { $0.utf8.elementsEqual(name) }) else { return false }
    }
    separate(&json)
    json.raw(bytes)
    return true
  }

  /// Writes `"name":` for a name known only at run time (a callback's value) when it is selected.
  mutating func next(name: String, _ json: inout JSONWriter) -> Bool {
    guard includes(name) else { return false }
    separate(&json)
    json.string(name)
    json.byte(UInt8(ascii: ":"))
    return true
  }

  @inline(__always)
  private mutating func separate(_ json: inout JSONWriter) {
    if first { first = false } else { json.byte(UInt8(ascii: ",")) }
  }
}
