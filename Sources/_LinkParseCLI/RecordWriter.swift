import LinkParse
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
  /// When `projecting`: whether the record's `{` is written (by its first selected key).
  private var recordOpen = false

  init(
    json: consuming JSONWriter, defaultBase: ParsedURL?, maxLineLength: Int,
    callbackOptions: CallbackOptions = CallbackOptions(), router: Router? = nil, fields: FieldSelection? = nil
  ) {
    self.json = json
    self.router = router
    self.fields = fields
    projecting = fields != nil
    keys = fields?.keys ?? FieldSelection.Keys(rawValue: .max)
    self.defaultBase = defaultBase
    self.maxLineLength = maxLineLength
    self.callbackOptions = callbackOptions
  }

  /// Handles one event of the splitter in `--input-format lines`.
  mutating func line(_ event: LineEvent, number: Int) {
    switch event {
    case .line(let bytes):
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
    if key("{\"line\":", .line) { json.integer(line) }
    _ = key(",\"ok\":true", .ok)
    // When the href has nothing to escape (nearly always: a serialization percent-encodes controls, and keeps
    // '"' only in opaque hosts and paths and '\\' only in some components), neither has any slice of it:
    // those are written without a check.
    let clean = CleanBytes(href: bytes)
    let r = url.utf8Ranges
    @inline(__always) func part(_ range: Range<Int>) { quoted(UnsafeBufferPointer(rebasing: bytes[range]), clean) }
    if key(",\"href\":", .href) {
      if redact { json.string(CallbackOptions.redactHref(url)) } else { part(0..<bytes.count) }
    }
    if key(",\"scheme\":", .scheme) { part(r.scheme) }
    // `--redact` hides the userinfo (kept empty when there is none).
    if key(",\"username\":", .username) {
      if redact && !r.username.isEmpty { json.string(CallbackOptions.redacted) } else { part(r.username) }
    }
    if key(",\"password\":", .password) {
      if redact && !r.password.isEmpty { json.string(CallbackOptions.redacted) } else { part(r.password) }
    }
    if key(",\"host\":", .host) {
      if let host = r.host { part(host) } else { json.null() }
    }
    if key(",\"port\":", .port) {
      if let port = url.port { json.integer(Int(port)) } else { json.null() }
    }
    if key(",\"path\":", .path) { part(r.path) }
    if key(",\"query\":", .query) {
      if let query = r.query {
        if redact { json.string(CallbackOptions.redactFormText(url.query!)) } else { part(query) }
      } else {
        json.null()
      }
    }
    if key(",\"fragment\":", .fragment) {
      if let fragment = r.fragment {
        if redact { json.string(CallbackOptions.redactFormText(url.fragment!)) } else { part(fragment) }
      } else {
        json.null()
      }
    }
    // The query's pairs, read from the href's bytes (no `FormParameters`, no Substring).
    // The callback's decoder reads what this loop sees (`--provider auto`, no checks, no body, no route table
    // to pick a provider): the pairs are recorded for it as they are listed, so that it does not scan the
    // query again.
    let listsParams = key(",\"params\":[", .params)
    let feedsScan =
      router == nil && (!projecting || keys.contains(.callback)) && callbackOptions.usesScannedQuery(body: body)
    var scannedQuery = CallbackQueryScan(query: r.query)
    let href = bytes.baseAddress!
    if listsParams {
      var first = true
      if let query = r.query {
        var pairs = FormPairScanner(href, from: query.lowerBound, to: query.upperBound)
        pairs.forEach { pair in
          if feedsScan { scannedQuery.add(pair, href: href) }
          json.raw(first ? "[" : ",[")
          first = false
          let name = FormParameters.UnsafeDecodedBytes(href, from: pair.nameStart, to: pair.nameEnd, flags: pair.nameFlags)
          formDecoded(name, clean)
          json.byte(UInt8(ascii: ","))
          if pair.hasValue {
            if redact && CallbackOptions.isSecret(name) {
              json.string(CallbackOptions.redacted)
            } else {
              formDecoded(
                FormParameters.UnsafeDecodedBytes(href, from: pair.valueStart, to: pair.end, flags: pair.valueFlags), clean)
            }
          } else {
            json.raw("\"\"")
          }
          json.byte(UInt8(ascii: "]"))
        }
      }
      json.byte(UInt8(ascii: "]"))
    } else if feedsScan, let query = r.query {
      // `--fields` without `params`: the pairs are only recorded.
      var pairs = FormPairScanner(href, from: query.lowerBound, to: query.upperBound)
      pairs.forEach { scannedQuery.add($0, href: href) }
    }
    if let router {
      routedCallback(router, url, body: body, redact: redact, clean: clean)
    } else if key(",\"callback\":", .callback) {
      callback(url, body: body, scannedQuery: &scannedQuery, fed: feedsScan, redact: redact, clean: clean)
    }
    closeRecord()
  }

  /// Writes a key of the record (`literal`: `{"line":`, or `,"name":` for any other) when it is selected,
  /// and says whether it was: its value follows. Without `--fields`, every key is.
  @inline(__always)
  private mutating func key(_ literal: StaticString, _ key: FieldSelection.Keys) -> Bool {
    guard projecting else {
      json.raw(literal)
      return true
    }
    return selectedKey(literal, key)
  }

  /// ``key(_:_:)`` with `--fields`: the first key written opens the record (`{` in place of its comma).
  @inline(never)
  private mutating func selectedKey(_ literal: StaticString, _ key: FieldSelection.Keys) -> Bool {
    guard keys.contains(key) else { return false }
    if recordOpen {
      json.raw(literal)
    } else {
      recordOpen = true
      json.byte(UInt8(ascii: "{"))
      json.raw(UnsafeBufferPointer(start: literal.utf8Start + 1, count: literal.utf8CodeUnitCount - 1))
    }
    return true
  }

  /// Ends a record: `}` and its newline (`{}` when `--fields` selected none of its keys).
  @inline(__always)
  private mutating func closeRecord() {
    if projecting {
      if !recordOpen { json.byte(UInt8(ascii: "{")) }
      recordOpen = false
    }
    json.raw("}\n")
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
    if key(",\"callback\":", .callback) {
      var unused = CallbackQueryScan(query: nil)
      callback(
        url, body: body, scannedQuery: &unused, fed: false, provider: callbackOptions.routeProvider(match),
        redact: redact, clean: clean)
    }
    if key(",\"route\":", .route) { route(match) }
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

  /// Writes a form-encoded slice decoded: as it is when it has no `%` or `+` (decoding would not change it),
  /// else decoded into a temporary buffer by the library's decoder — no String on either path.
  @inline(__always)
  mutating func formDecoded(_ bytes: FormParameters.UnsafeDecodedBytes, _ clean: CleanBytes) {
    // Raw bytes are written as they are unless they need decoding: without a check when they lie in `clean`.
    // Decoded bytes are written straight from a temporary buffer when they are valid UTF-8, and through a
    // String (which replaces invalid sequences with U+FFFD) only when an escape made them invalid.
    // (The guard is checked here, inline, although `withDecodedBytes` checks again: a closure call for every
    // value cost more than the second, short scan of the few values that need decoding.)
    guard bytes.needsDecoding else { return quoted(bytes.raw, clean) }
    bytes.withDecodedBytes { decoded in
      if UTF8Validation.isValid(decoded) {
        json.quoted(decoded)
      } else {
        json.string(String(decoding: decoded, as: UTF8.self))
      }
    }
  }

  /// Writes `bytes` as a quoted JSON string: copied as they are when they lie in `clean`, else checked and
  /// escaped.
  @inline(__always)
  private mutating func quoted(_ bytes: UnsafeBufferPointer<UInt8>, _ clean: CleanBytes) {
    if clean.contains(bytes) { json.quotedVerbatim(bytes) } else { json.quoted(bytes) }
  }

  /// Writes a failure record.
  mutating func failure(line: Int, code: String, offset: Int?, message: String) {
    records += 1
    failures += 1
    if key("{\"line\":", .line) { json.integer(line) }
    _ = key(",\"ok\":false", .ok)
    if key(",\"error\":", .error) {
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
    closeRecord()
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
    let bytes = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
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
