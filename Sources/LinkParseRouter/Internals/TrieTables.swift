// The trie as the search reads it: plain structs in tables (Unsafe/Table.swift) that the compiled router's
// arena allocates once and frees with the router. Walking Swift arrays of structs that hold arrays (and classes)
// costs a retain and a release per access and copies each node; through these tables a search touches no
// reference count and reads only the fields it needs.

/// The trie, the component patterns and the routes' priorities in flat memory, for the search: every table
/// holds plain values (no arrays, no references).
///
/// Allocated by `init` in the compiled router's arena (freed with the router); never written afterwards.
struct TrieTables: Sendable {

  /// `count` entries of a pool from `start`.
  struct Run {
    var start: Int32
    var count: Int32

    /// Past the last entry.
    var end: Int { Int(start) &+ Int(count) }
    var range: Range<Int> { Int(start)..<end }
  }

  /// A `TrieNode`, its lists as runs of the pools.
  struct Node {
    var component: Int32
    var noHost: Int32
    var nextSameHash: Int32
    /// Whether the literal children are found by hash (`exact` and `folded` are runs of `hashedLiterals`)
    /// or in lists (runs of `literals`).
    var hashed: Bool
    /// The case-sensitive literal children, and the caseless ones.
    var exact: Run
    var folded: Run
    /// A run of `ordered`.
    var ordered: Run
    /// Runs of `routeIndices`.
    var endRoutes: Run
    var restRoutes: Run
  }

  /// A literal child of a node with few of them (`smallTable` or fewer): the search compares its length and
  /// first eight bytes with the URL's component, then the rest of its text, without hashing.
  struct LiteralChild {
    /// The first eight bytes of the child's literal (folded when caseless), as `prefixWord` reads them.
    var prefix: UInt64
    /// The last eight bytes, when the literal is longer than eight (they overlap the prefix below sixteen).
    var suffix: UInt64
    var count: Int32
    var child: Int32
  }

  /// A literal child of a node with many: one entry per `ByteHash.fnv1a` (children whose texts collide are
  /// chained by `Node.nextSameHash`).
  struct HashedChild {
    var hash: UInt64
    var child: Int32
  }

  /// A non-literal child and the rank of its component.
  struct OrderedChild {
    var child: Int32
    var rank: Rank
  }

  /// What the search needs of a route.
  struct RouteInfo {
    /// The route's place when all routes are sorted by priority (`RouteProgram.outranks`, a total order):
    /// a route outranks another when its `order` is lower.
    var order: Int32
    /// The `{name...}` capture's name index, or -1.
    var rest: Int32
    /// Whether the route requires query parameters.
    var hasQuery: Bool
  }

  /// The largest literal list searched without hashing.
  static let smallTable = 8

  let nodes: Table<Node>
  let literals: Table<LiteralChild>
  let hashedLiterals: Table<HashedChild>
  let ordered: Table<OrderedChild>
  let routeIndices: Table<Int32>
  /// One per entry of the router's `patterns` (each stays valid while its pattern lives).
  let components: Table<ComponentCode>
  /// One per route, by route index.
  let routes: Table<RouteInfo>

  init(_ trie: [TrieNode], patterns: [ComponentPattern], programs: [RouteProgram], arena: Arena) {
    var nodes: [Node] = []
    var literals: [LiteralChild] = []
    var hashedLiterals: [HashedChild] = []
    var ordered: [OrderedChild] = []
    var routeIndices: [Int32] = []
    func run<T>(_ items: [T], in pool: inout [T]) -> Run {
      defer { pool += items }
      return Run(start: Int32(pool.count), count: Int32(items.count))
    }
    func list(_ children: [Int32]) -> Run {
      run(children.map { child in
        let text = patterns[Int(trie[Int(child)].component)].literal!
        let (prefix, suffix) = literalWords(text)
        return LiteralChild(prefix: prefix, suffix: suffix, count: Int32(text.count), child: child)
      }, in: &literals)
    }
    func byHash(_ children: [UInt64: Int32]) -> Run {
      let entries = children.map { HashedChild(hash: $0.key, child: $0.value) }.sorted { $0.hash < $1.hash }
      return run(entries, in: &hashedLiterals)
    }
    for node in trie {
      let hashed = node.exactChildren.count + node.foldedChildren.count > Self.smallTable
      nodes.append(Node(
        component: node.component, noHost: node.noHost, nextSameHash: node.nextSameHash, hashed: hashed,
        exact: hashed ? byHash(node.exact) : list(node.exactChildren),
        folded: hashed ? byHash(node.folded) : list(node.foldedChildren),
        ordered: run(
          node.ordered.map { OrderedChild(child: $0, rank: patterns[Int(trie[Int($0)].component)].rank) }, in: &ordered),
        endRoutes: run(node.endRoutes, in: &routeIndices), restRoutes: run(node.restRoutes, in: &routeIndices)))
    }
    var order = [Int32](repeating: 0, count: programs.count)
    for (k, r) in programs.indices.sorted(by: { programs[$0].outranks(programs[$1]) }).enumerated() {
      order[r] = Int32(k)
    }
    self.nodes = arena.table(nodes)
    self.literals = arena.table(literals)
    self.hashedLiterals = arena.table(hashedLiterals)
    self.ordered = arena.table(ordered)
    self.routeIndices = arena.table(routeIndices)
    self.components = arena.table(patterns.map(\.code))
    self.routes = arena.table(programs.map {
      RouteInfo(order: order[$0.index], rest: $0.rest ?? -1, hasQuery: !$0.query.isEmpty)
    })
  }

  /// The first literal child in the hashed table `run` with `hash` (then follow `nextSameHash`), or -1.
  func lookup(_ run: Run, _ hash: UInt64) -> Int32 {
    let first = Int(run.start)
    var low = first
    var high = run.end
    let end = high
    while low < high {
      let mid = (low &+ high) / 2
      if hashedLiterals[mid].hash < hash { low = mid &+ 1 } else { high = mid }
    }
    return low < end && hashedLiterals[low].hash == hash ? hashedLiterals[low].child : -1
  }
}
