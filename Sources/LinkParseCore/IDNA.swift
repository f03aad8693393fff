// Domain to ASCII (https://url.spec.whatwg.org/#concept-domain-to-ascii): UTS #46 ToASCII with the URL
// Standard's options. The host parser asks ``IDNA/mapping``, a ``DomainToASCII``: the package's own UTS #46
// (``UTS46DomainToASCII``, `UTS46.swift`) behind a cache of recent answers (``IDNACache``). ICU
// (``ICUDomainToASCII``) is the differential oracle of the tests and the `idna` fuzz target, where the
// `CICUShims` target is linked; no build needs it.

#if canImport(CICUShims)
internal import CICUShims
#endif
import Synchronization
import LinkParseBytes

/// A UTS #46 ToASCII mapping of a domain's UTF-8 bytes (already percent-decoded), with the URL Standard's
/// options: the ASCII domain, or why the domain is invalid.
protocol DomainToASCII: Sendable {
  func toASCII(_ domain: [UInt8]) -> Result<[UInt8], HostMessage>
}

/// The mapping the host parser uses.
enum IDNA {
  /// The package's own UTS #46 behind an ``IDNACache``. Where `Synchronization.Mutex` is unavailable (Apple
  /// OSes before macOS 15 / iOS 18) the tables are read every time: the cache only saves work, the answers are
  /// the same.
  static let mapping: any DomainToASCII = {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      return IDNACache(UTS46DomainToASCII())
    }
    return UTS46DomainToASCII()
  }()
}

#if canImport(CICUShims)

/// UTS #46 ToASCII with the URL Standard's options, through the system's ICU (the C wrappers of `CICUShims`):
/// the oracle the package's own mapping is compared with. ICU's Unicode version is the system's (72 carries
/// Unicode 15.0 on Debian 12), so its answers differ where later Unicode versions changed the mapping.
struct ICUDomainToASCII: DomainToASCII {
  func toASCII(_ domain: [UInt8]) -> Result<[UInt8], HostMessage> {
    if domain.isEmpty { return .failure(HostMessage("the domain is empty")) }
    var capacity = Swift.max(64, domain.count &* 4 &+ 16)
    while true {
      var out = [UInt8](repeating: 0, count: capacity)
      var outLength: Int32 = 0
      var errors: UInt32 = 0
      let rc = domain.withUnsafeBufferPointer { src in
        out.withUnsafeMutableBufferPointer { dst in
          src.withMemoryRebound(to: CChar.self) { s in
            dst.withMemoryRebound(to: CChar.self) { d in
              linkparse_idna_to_ascii(
                s.baseAddress, Int32(s.count), d.baseAddress, Int32(d.count), &outLength, &errors)
            }
          }
        }
      }
      switch Int(rc) {
      case Int(LINKPARSE_IDNA_OK):
        out.removeLast(capacity &- Int(outLength))
        return .success(out)
      case Int(LINKPARSE_IDNA_BUFFER_TOO_SMALL):
        capacity = Int(outLength) &+ 1
      case Int(LINKPARSE_IDNA_INVALID):
        return .failure(HostMessage("the domain is not valid under UTS #46 (IDNA): \(describeIDNAErrors(errors))"))
      default:
        return .failure(HostMessage("IDNA processing failed inside ICU"))
      }
    }
  }
}

#endif

/// The answers of another ``DomainToASCII`` for the last domains asked: 32 sets of two, the set chosen by a
/// hash of the domain, each set holding its two most recently used domains (a new domain replaces the less
/// recent one), in a `Mutex`.
///
/// A callback's host repeats from one URL to the next (a shop's `магазин.рф`), and a UTS #46 pass (mapping,
/// NFC, validity, Punycode) costs several times what a hit does: a hash, a comparison and a copy. The mapping is deterministic,
/// so a hit answers exactly as `base` would. Two ways per set: with one, two hosts in turn whose hashes met
/// (`магазин.рф` and `bücher.example` do) replaced each other and missed every time. Bounded: 64 domains of
/// at most 255 bytes (longer ones are not kept), whatever the input.
///
/// ```swift
/// let idna = IDNACache(UTS46DomainToASCII())
/// idna.toASCII(Array("bücher.example".utf8))  // the tables' answer, kept: .success("xn--bcher-kva.example")
/// idna.toASCII(Array("bücher.example".utf8))  // the same, from the cache
/// ```
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class IDNACache: DomainToASCII {
  private struct Slot {
    var domain: [UInt8]
    var answer: Result<[UInt8], HostMessage>
  }

  private static let sets = 32
  private static let longestKept = 255

  /// Asked on a miss. (An existential rather than a generic parameter: the parser reaches the cache through
  /// ``IDNA/mapping``, where a generic cache ran unspecialized, instantiating its slot type's metadata and
  /// copying slots through value witnesses on every hit.)
  private let base: any DomainToASCII
  /// Set `k` is `slots[2k]` (its most recently used domain) and `slots[2k + 1]`.
  private let slots: Mutex<[Slot?]>

  /// An empty cache in front of `base`.
  init(_ base: any DomainToASCII) {
    self.base = base
    slots = Mutex(Array(repeating: nil, count: 2 &* Self.sets))
  }

  func toASCII(_ domain: [UInt8]) -> Result<[UInt8], HostMessage> {
    if let kept = answer(for: domain) { return kept }
    let answer = base.toASCII(domain)
    keep(answer, for: domain)
    return answer
  }

  /// The first slot of `domain`'s set: FNV-1a of its bytes, folded to the set count.
  private static func set(_ domain: [UInt8]) -> Int {
    let h = domain.withUnsafeBufferPointer { ByteHash.fnv1a($0) }
    return (Int(truncatingIfNeeded: h ^ (h &>> 32)) & (sets - 1)) &* 2
  }

  /// The kept answer for `domain`, which becomes its set's most recently used; `nil` when none is kept.
  func answer(for domain: [UInt8]) -> Result<[UInt8], HostMessage>? {
    guard domain.count <= Self.longestKept else { return nil }
    let k = Self.set(domain)
    return slots.withLock { slots -> Result<[UInt8], HostMessage>? in
      if let first = slots[k], first.domain == domain { return first.answer }
      guard let second = slots[k &+ 1], second.domain == domain else { return nil }
      slots.swapAt(k, k &+ 1)  // now the most recently used
      return second.answer
    }
  }

  /// Keeps `answer` as `domain`'s, in place of the less recently used domain of its set.
  func keep(_ answer: Result<[UInt8], HostMessage>, for domain: [UInt8]) {
    guard domain.count <= Self.longestKept else { return }
    let k = Self.set(domain)
    slots.withLock { slots in
      if let first = slots[k], first.domain == domain { return }  // kept by another thread meanwhile
      slots[k &+ 1] = slots[k]
      slots[k] = Slot(domain: domain, answer: answer)
    }
  }

  /// Whether two domains fall in the same set (for tests).
  func sameSet(_ a: [UInt8], _ b: [UInt8]) -> Bool { Self.set(a) == Self.set(b) }

  /// Whether `domain`'s answer is kept (for tests).
  func holds(_ domain: [UInt8]) -> Bool {
    let k = Self.set(domain)
    return slots.withLock { slots in slots[k]?.domain == domain || slots[k &+ 1]?.domain == domain }
  }
}

#if canImport(CICUShims)
/// ICU's error bits in words.
func describeIDNAErrors(_ errors: UInt32) -> String {
  let names: [(UInt32, String)] = [
    (0x40, "a label starts with a combining mark"),
    (0x80, "it contains a disallowed code point"),
    (0x100, "a label is not valid Punycode"),
    (0x200, "a label contains a dot"),
    (0x400, "an xn-- label does not round-trip"),
    (0x800, "it breaks the bidirectional rule"),
    (0x1000, "a zero-width joiner is out of context"),
  ]
  let found = names.filter { errors & $0.0 != 0 }.map(\.1)
  return found.isEmpty ? "error bits 0x\(String(errors, radix: 16))" : found.joined(separator: "; ")
}
#endif
