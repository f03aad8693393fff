// The properties the fuzz targets check, shared by the libFuzzer executable (Fuzz/Targets, started as
// fuzz-<target>) and the main package's regression replay test (Tests/FuzzRegressionTests, which compiles this
// folder through a symlink), so a crasher is replayed through exactly the code that found it. The cases of
// FuzzProperty are the targets: Fuzz/run.sh lists them from here.
//
// A property returns the violations it found (empty when everything holds). Bad input that the library
// rejects cleanly is not a violation; a crash or a trap inside the library is caught by libFuzzer (and, in
// the unit test, fails the run).

/// One fuzz target's property. The raw value is the target's name: `corpus/<name>/` holds its seeds and
/// `corpus/regressions/<name>-*` its crashers.
public enum FuzzProperty: String, CaseIterable, Sendable {
  case parse
  case params
  case cli
  case providers
  case router
  case tokens
  case regex
  case idna
  case cookies
  case server

  /// Runs the property on one input.
  public func check(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
    switch self {
    case .parse: return ParseProperty.check(bytes)
    case .params: return ParamsProperty.check(bytes)
    case .cli: return CLIProperty.check(bytes)
    case .providers: return ProvidersProperty.check(bytes)
    case .router: return RouterProperty.check(bytes)
    case .tokens: return TokensProperty.check(bytes)
    case .regex: return RegexProperty.check(bytes)
    case .idna: return IDNAProperty.check(bytes)
    case .cookies: return CookiesProperty.check(bytes)
    case .server: return ServerProperty.check(bytes)
    }
  }

  /// Runs the property on one input.
  public func check(_ bytes: [UInt8]) -> [String] {
    bytes.withUnsafeBufferPointer { check($0) }
  }

  /// The property for a regression file named `<target>-<anything>`, or `nil`.
  public init?(regressionFileName name: Substring) {
    guard let dash = name.firstIndex(of: "-") else { return nil }
    self.init(rawValue: String(name[..<dash]))
  }
}

/// The body of every `LLVMFuzzerTestOneInput`: runs `property` and traps, printing the violations, when any
/// is found (libFuzzer then saves the input as a crash artifact).
public func fuzzOne(_ property: FuzzProperty, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let problems = property.check(UnsafeBufferPointer(start: size > 0 ? data : nil, count: size))
  if !problems.isEmpty {
    fatalError("\(property.rawValue) property violated:\n  " + problems.joined(separator: "\n  "))
  }
  return 0
}

/// Collects violations.
struct Problems {
  var list: [String] = []

  mutating func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { list.append(what()) }
  }

  mutating func add(_ what: String) { list.append(what) }
}

/// `bytes` shown for a violation message: printable ASCII as is, others as `\xNN`, cut at 300 bytes.
func show(_ bytes: some Collection<UInt8>) -> String {
  var out = ""
  for byte in bytes.prefix(300) {
    if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
      out.unicodeScalars.append(Unicode.Scalar(byte))
    } else {
      let hex = String(byte, radix: 16)
      out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
    }
  }
  return bytes.count > 300 ? out + "…" : out
}

func show(_ string: some StringProtocol) -> String { show(Array(string.utf8)) }
