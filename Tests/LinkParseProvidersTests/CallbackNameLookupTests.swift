import Foundation
import LinkParseTestSupport
import Testing

@testable import LinkParseProviders

/// `CallbackFields.lookup` reads the generated table of the callback parameter names (a slot by a hash, then a
/// compare of words): it must find every `Key` by its name, and nothing else.
@Suite("Providers: the callback name table")
struct CallbackNameLookupTests {
  static func lookup(_ name: [UInt8]) -> CallbackFields.Key? {
    name.withUnsafeBufferPointer { CallbackFields.lookup($0) }
  }

  static let names = Dictionary(uniqueKeysWithValues: CallbackFields.Key.allCases.map { (Array($0.name.utf8), $0) })

  @Test func findsEveryName() {
    for key in CallbackFields.Key.allCases {
      #expect(Self.lookup(Array(key.name.utf8)) == key, "\(key.name)")
    }
  }

  /// Each name with one byte changed, cut short, lengthened or upper-cased; every prefix and suffix; and names
  /// read from the middle of a longer buffer (the compare must stay inside the name).
  @Test func findsNoNearMiss() {
    for key in CallbackFields.Key.allCases {
      let name = Array(key.name.utf8)
      var variants: [[UInt8]] = []
      for i in name.indices {
        for delta: UInt8 in [1, 0x20, 0x80] {
          var changed = name
          changed[i] ^= delta
          variants.append(changed)
        }
      }
      for n in 0..<name.count {
        variants.append(Array(name[..<n]))
        variants.append(Array(name[(name.count - n)...]))
      }
      variants.append(name + [0x61])
      variants.append([0x61] + name)
      variants.append(name.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 })
      for variant in variants {
        #expect(Self.lookup(variant) == Self.names[variant], "\(String(decoding: variant, as: UTF8.self))")
      }
      // The name inside a longer buffer: found exactly when the slice is the name.
      let padded = Array("xx".utf8) + name + Array("yy".utf8)
      padded.withUnsafeBufferPointer { buffer in
        #expect(CallbackFields.lookup(UnsafeBufferPointer(rebasing: buffer[2..<(2 + name.count)])) == key)
        #expect(CallbackFields.lookup(UnsafeBufferPointer(rebasing: buffer[1..<(2 + name.count)])) == nil)
      }
    }
  }

  /// Random names of every length up to 40 over the bytes names are made of (the same ones on every run:
  /// Tests/Shared/SplitMix64.swift).
  @Test func findsNoRandomName() {
    var rng = SplitMix64(state: 20261122)
    let alphabet = Array("abcdeinorstu_".utf8)
    for _ in 0..<20_000 {
      let n = Int.random(in: 0...40, using: &rng)
      let name = (0..<n).map { _ in alphabet.randomElement(using: &rng)! }
      #expect(Self.lookup(name) == Self.names[name])
    }
    #expect(Self.lookup([]) == nil)
  }

  /// Scripts/callback-name-table.py (which searched the slot's multipliers and wrote the C table) lists the
  /// names in `Key` order: adding a name means running it again.
  @Test func tableScriptListsTheKeys() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = try String(contentsOf: root.appendingPathComponent("Scripts/callback-name-table.py"), encoding: .utf8)
    let list = try #require(script.split(separator: "NAMES = [", maxSplits: 1).last?.split(separator: "]").first)
    let names = list.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { $0.trimmingCharacters(in: ["\""]) }
    #expect(names == CallbackFields.Key.allCases.map(\.name))
  }
}
