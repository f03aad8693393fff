import LinkParse
@_spi(Bytes) import LinkParseCore

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
/// `"route":null`.
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

  init(
    json: consuming JSONWriter, defaultBase: ParsedURL?, maxLineLength: Int,
    callbackOptions: CallbackOptions = CallbackOptions(), router: Router? = nil
  ) {
    self.json = json
    self.router = router
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
    json.raw("{\"line\":")
    json.integer(line)
    json.raw(",\"ok\":true,\"href\":")
    if redact { json.string(CallbackOptions.redactHref(url)) }
    // When the href has nothing to escape (nearly always: a serialization percent-encodes controls, and keeps
    // '"' only in opaque hosts and paths and '\\' only in some components), neither has any slice of it:
    // those are written without a check.
    let clean = CleanBytes(href: bytes)
    let r = url.utf8Ranges
    @inline(__always) func part(_ range: Range<Int>) { quoted(UnsafeBufferPointer(rebasing: bytes[range]), clean) }
    if !redact { part(0..<bytes.count) }
    json.raw(",\"scheme\":")
    part(r.scheme)
    // `--redact` hides the userinfo (kept empty when there is none).
    json.raw(",\"username\":")
    if redact && !r.username.isEmpty { json.string(CallbackOptions.redacted) } else { part(r.username) }
    json.raw(",\"password\":")
    if redact && !r.password.isEmpty { json.string(CallbackOptions.redacted) } else { part(r.password) }
    json.raw(",\"host\":")
    if let host = r.host { part(host) } else { json.null() }
    json.raw(",\"port\":")
    if let port = url.port { json.integer(Int(port)) } else { json.null() }
    json.raw(",\"path\":")
    part(r.path)
    json.raw(",\"query\":")
    if let query = r.query {
      if redact { json.string(CallbackOptions.redactFormText(url.query!)) } else { part(query) }
    } else {
      json.null()
    }
    json.raw(",\"fragment\":")
    if let fragment = r.fragment {
      if redact { json.string(CallbackOptions.redactFormText(url.fragment!)) } else { part(fragment) }
    } else {
      json.null()
    }
    json.raw(",\"params\":[")
    var first = true
    // The query's pairs, read from the href's bytes (no `FormParameters`, no Substring).
    // The callback's decoder reads what this loop sees (`--provider auto`, no checks, no body, no route table
    // to pick a provider): the pairs are recorded for it as they are listed, so that it does not scan the
    // query again.
    let feedsScan = router == nil && callbackOptions.usesScannedQuery(body: body)
    var scannedQuery = CallbackQueryScan(query: r.query)
    let href = bytes.baseAddress!
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
          if redact && CallbackOptions.secretNames.contains(where: { name == $0 }) {
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
    if let router {
      routedCallback(router, url, body: body, redact: redact, clean: clean)
    } else {
      callback(url, body: body, scannedQuery: &scannedQuery, fed: feedsScan, redact: redact, clean: clean)
    }
    json.raw("}\n")
  }

  /// Writes `,"callback":…`, the one writer of every record's callback: decoded from `scannedQuery` as it is
  /// written when the caller `fed` it the query's pairs (no value wraps the callback; see
  /// `ProviderDetector.decode(url:scannedQuery:…)`), else from the value the options' `decode` makes — with
  /// `provider` (a matched route's) in place of `--provider auto` when given.
  @inline(__always)
  private mutating func callback(
    _ url: borrowing ParsedURL, body: FormParameters?, scannedQuery: inout CallbackQueryScan, fed: Bool,
    provider: ProviderOption? = nil, redact: Bool, clean: CleanBytes
  ) {
    json.raw(",\"callback\":")
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
  /// `--provider` names one), then `,"callback":…` and `,"route":…`. (Out of line: the common record has no
  /// table, and the match's value would cost it copies.)
  @inline(never)
  private mutating func routedCallback(
    _ router: Router, _ url: borrowing ParsedURL, body: FormParameters?, redact: Bool, clean: CleanBytes
  ) {
    let match = try? router.match(copy url)
    var unused = CallbackQueryScan(query: nil)
    callback(
      url, body: body, scannedQuery: &unused, fed: false, provider: callbackOptions.routeProvider(match),
      redact: redact, clean: clean)
    route(match)
  }

  /// Writes `,"route":{…}` or `,"route":null` (no route matched, or a route constraint hit its limits).
  private mutating func route(_ match: RouteMatch?) {
    json.raw(",\"route\":")
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
    json.raw("{\"line\":")
    json.integer(line)
    json.raw(",\"ok\":false,\"error\":{\"code\":")
    json.string(code)
    json.raw(",\"offset\":")
    if let offset { json.integer(offset) } else { json.null() }
    json.raw(",\"message\":")
    json.string(message)
    json.raw("}}\n")
  }
}
