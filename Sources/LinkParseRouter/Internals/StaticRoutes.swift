// Routes made of literals only (`myapp://sberidauth`, `https://example.com/auth/apple/callback`), found by one
// hash of the URL's scheme, host and path (`ByteHash.threeWords`) instead of a walk down the trie.
//
// Why the answer is the trie's: such a route ranks `literal` at every component and at the path's end, so when
// a URL's components equal its literals, no other matching route can outrank it (the first component where
// another route differs ranks lower, a `{rest...}` included), except a route with the same literals: one
// requiring query parameters outranks it when they are present, and a caseless one may match the same URLs.
// Routes in either situation, and routes that require query parameters themselves, are left to the trie.
// A URL whose components equal no entry is searched in the trie as before.

import LinkParseCore
import LinkParseBytes

/// The literal-only routes that no other route can tie with, by the hash of their scheme, host and path.
///
/// Tables allocated by `init` in the compiled router's arena (freed with the router); only read afterwards,
/// from any thread.
struct StaticRoutes: Sendable {
  struct Entry {
    var hash: UInt64
    /// The route's index; -1 for an empty slot.
    var route: Int32
    /// The entry's key in `text`: `scheme://host` (or `scheme:` for a route without a host), lower-case,
    /// then the path as serialized.
    var textStart: Int32
    var count: Int32
  }

  /// Open addressing, a power of two at least twice the entries.
  let slots: Table<Entry>
  let mask: Int
  /// The entries' keys, then eight zero bytes, so that the word-wide comparison may read past any of them.
  let text: Table<UInt8>
  /// Whether no route qualifies (the search then skips the table).
  let isEmpty: Bool

  init(_ programs: [RouteProgram], arena: Arena) {
    let all = programs.map(Self.literals)
    // Another literal-only route may match the same URLs when its literals equal this one's once folded where
    // it compares caselessly (its caseless literals are stored folded). Counted by literals and by which
    // segments compare caselessly (all or none of a route's, in practice), so that each route looks up the
    // few foldings there are.
    struct Key: Hashable {
      var scheme: [UInt8]
      var host: [UInt8]?
      var segments: [[UInt8]]
      var caseless: [Bool]
    }
    var occurrences: [Key: Int] = [:]
    occurrences.reserveCapacity(programs.count)
    var foldings: [Int: Set<[Bool]>] = [:]  // by number of segments
    for case let l? in all {
      occurrences[Key(scheme: l.scheme, host: l.host, segments: l.segments, caseless: l.caseless), default: 0] += 1
      foldings[l.segments.count, default: []].insert(l.caseless)
    }
    var keys: [(route: Int, key: [UInt8])] = []
    for (k, program) in programs.enumerated() {
      guard let mine = all[k], program.query.isEmpty, program.scheme.caseless,
        program.host?.caseless ?? true, !mine.caseless.contains(true)
      else { continue }
      // Left to the trie when another literal-only route may match the same URLs.
      let rival = foldings[mine.segments.count, default: []].contains { caseless in
        let folded = zip(mine.segments, caseless).map { segment, fold in fold ? segment.map(asciiLowercased) : segment }
        let others = occurrences[Key(scheme: mine.scheme, host: mine.host, segments: folded, caseless: caseless)] ?? 0
        return others > (caseless == mine.caseless ? 1 : 0)
      }
      if rival { continue }
      let head = mine.scheme + (mine.host.map { Array("://".utf8) + $0 } ?? Array(":".utf8))
      keys.append((k, head + mine.segments.flatMap { [UInt8(ascii: "/")] + $0 }))
    }
    keys.removeAll { $0.key.count < 8 }  // never looked up (see `find`)
    isEmpty = keys.isEmpty
    var capacity = 1
    while capacity < 2 * keys.count { capacity *= 2 }
    mask = capacity - 1
    slots = arena.table(repeating: Entry(hash: 0, route: -1, textStart: 0, count: 0), count: capacity)
    var pool: [UInt8] = []
    for entry in keys {
      let start = pool.count
      pool += entry.key
      let hash = entry.key.withUnsafeBufferPointer { b in Bytes(b).threeWordsHash(count: b.count) }
      var i = Int(truncatingIfNeeded: hash) & mask
      while slots[i].route >= 0 { i = (i + 1) & mask }
      slots[i] = Entry(
        hash: hash, route: Int32(entry.route), textStart: Int32(start), count: Int32(entry.key.count))
    }
    pool += [UInt8](repeating: 0, count: 8)
    text = arena.table(pool)
  }

  /// Scheme, host and path segments of a route made of literals only, with no `{rest...}`.
  static func literals(_ p: RouteProgram) -> (scheme: [UInt8], host: [UInt8]?, segments: [[UInt8]], caseless: [Bool])? {
    guard p.rest == nil, let scheme = p.scheme.literal else { return nil }
    var host: [UInt8]?
    if let h = p.host {
      guard let literal = h.literal else { return nil }
      host = literal
    }
    var segments: [[UInt8]] = []
    for s in p.segments {
      guard let literal = s.literal else { return nil }
      segments.append(literal)
    }
    return (scheme, host, segments, p.segments.map(\.caseless))
  }

  /// The route whose literals equal those of the URL `view` describes (`buf` its serialization), or -1.
  @inline(__always)
  func find(_ buf: UnsafeBufferPointer<UInt8>, _ view: URLView) -> Int32 {
    find(buf, scheme: view.schemeEnd, host: view.host, path: view.pathStart..<view.pathEndOffset)
  }

  /// The route whose literals equal the URL's scheme, host and path (`buf` its serialization), or -1.
  ///
  /// The key is the serialization up to the path's end, so only URLs without userinfo (`scheme://host…` or
  /// `scheme:/…`) are looked up; bytes are compared exactly, so a URL whose host has upper-case letters (an
  /// opaque host keeps them) finds no entry and goes to the trie, which folds them.
  @inline(__always)
  func find(_ buf: UnsafeBufferPointer<UInt8>, scheme: Int, host: Range<Int>?, path: Range<Int>) -> Int32 {
    let count = path.upperBound
    guard count >= 8,
      path.lowerBound == (host.map { $0.lowerBound == scheme &+ 3 ? $0.upperBound : -1 } ?? scheme &+ 1),
      let bytes = Bytes.of(buf)
    else { return -1 }
    let h = bytes.threeWordsHash(count: count)
    var i = Int(truncatingIfNeeded: h) & mask
    while true {
      let entry = slots[i]
      if entry.route < 0 { return -1 }
      if entry.hash == h && Int(entry.count) == count && text.equals(bytes, count: count, at: Int(entry.textStart)) {
        return entry.route
      }
      i = (i &+ 1) & mask
    }
  }
}
