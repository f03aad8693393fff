// The login starts of an app's clients, added up on the database its instances share, so that StartLimits holds
// for the app and not for each instance.

public import Crypto
public import LinkParseHummingbird
public import Logging
import NIOCore
public import PostgresNIO

/// LinkParseHummingbird's ``StartCountSharing`` on PostgreSQL: the instances of an app that share a database add
/// up their clients' login starts there (give it to `WebLogin.Configuration.startCounts`, or to
/// `LinkParseCallbackEndpoint(startCounts:)`), so that `StartLimits` holds app-wide.
///
/// Each instance sends what it admitted at most once a second, only while its clients start logins: one
/// statement for up to 5,000 clients, never a query per start. Rows are keyed by the window and a keyed hash of
/// the client key (addresses are not stored), and rows of windows that have ended are deleted as new windows
/// begin, so the table holds at most the clients of two windows.
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS linkparse_start_counts (
///   window_start bigint NOT NULL, client_hash bytea NOT NULL, starts bigint NOT NULL,
///   PRIMARY KEY (window_start, client_hash));
/// ```
///
/// ```swift
/// let counts = PostgresStartCounts(client: client, secret: secret)
/// try await counts.migrate()
/// var configuration = WebLogin<PostgresPendingAuthorizationStore>.Configuration()
/// configuration.startCounts = counts
/// ```
public struct PostgresStartCounts: StartCountSharing {
  /// The table's name.
  ///
  /// ```swift
  /// PostgresStartCounts.tableName  // "linkparse_start_counts"
  /// ```
  public static let tableName = "linkparse_start_counts"

  private let client: PostgresClient
  private let hashKey: SymmetricKey
  private let logger: Logger
  /// How long any one query may take.
  ///
  /// ```swift
  /// counts.operationTimeout  // .seconds(5)
  /// ```
  public let operationTimeout: Duration

  /// Counts on `client` (which the caller runs); client keys are stored as HMACs under a key derived from
  /// `secret`.
  ///
  /// ```swift
  /// let counts = PostgresStartCounts(client: client, secret: SymmetricKey(data: secretBytes))
  /// ```
  public init(
    client: PostgresClient, secret: SymmetricKey, operationTimeout: Duration = .seconds(5),
    logger: Logger = Logger(label: "LinkParsePostgres")
  ) {
    self.client = client
    self.hashKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse start counts v1".utf8), outputByteCount: 32)
    self.operationTimeout = operationTimeout
    self.logger = logger
  }

  /// Creates the table when missing (safe to run again, and from several instances at once).
  ///
  /// ```swift
  /// try await counts.migrate()
  /// ```
  public func migrate() async throws {
    try await PostgresOperation.migrate(
      on: client, within: operationTimeout, logger: logger, lock: 7318400121,
      [
        """
        CREATE TABLE IF NOT EXISTS linkparse_start_counts (
          window_start bigint NOT NULL, client_hash bytea NOT NULL, starts bigint NOT NULL,
          PRIMARY KEY (window_start, client_hash))
        """
      ])
  }

  /// Adds `starts` to the window's rows (in one statement, in the order of the hashes, so that concurrent
  /// instances lock rows in the same order) and reads back the totals of these clients in this window and the
  /// one before; the first exchange of a window also deletes the rows of windows before those two.
  ///
  /// ```swift
  /// let totals = try await counts.add(["4:192.0.2.7": 3], windowStart: 1_764_000_000, windowSeconds: 60)
  /// ```
  public func add(_ starts: [String: Int], windowStart: Int64, windowSeconds: Int64) async throws -> StartCountTotals {
    var clients: [[UInt8]: String] = [:]
    for client in starts.keys {
      clients[Array(HMAC<SHA256>.authenticationCode(for: Array(client.utf8), using: hashKey).prefix(16))] = client
    }
    let ordered = clients.keys.sorted { $0.lexicographicallyPrecedes($1) }
    let hashes = ordered.map { ByteBuffer(bytes: $0) }
    let counts = ordered.map { Int64(starts[clients[$0]!]!) }
    let previousStart = windowStart - windowSeconds
    let rows = try await run { client, logger -> [(ByteBuffer, Int64, Int64)] in
      // Rows of windows that ended before the previous one: gone when this instance first sees a window.
      try await client.query(
        """
        DELETE FROM linkparse_start_counts WHERE window_start < \(previousStart)
        AND NOT EXISTS (SELECT 1 FROM linkparse_start_counts WHERE window_start = \(windowStart))
        """, logger: logger)
      let rows = try await client.query(
        """
        WITH input AS (
          SELECT h AS client_hash, n AS starts FROM unnest(\(hashes)::bytea[], \(counts)::bigint[]) AS i(h, n)
          ORDER BY h),
        added AS (
          INSERT INTO linkparse_start_counts (window_start, client_hash, starts)
          SELECT \(windowStart), client_hash, starts FROM input
          ON CONFLICT (window_start, client_hash) DO UPDATE
            SET starts = linkparse_start_counts.starts + EXCLUDED.starts
          RETURNING client_hash, starts)
        SELECT added.client_hash, added.starts, coalesce(before.starts, 0)
        FROM added LEFT JOIN linkparse_start_counts before
          ON before.window_start = \(previousStart) AND before.client_hash = added.client_hash
        """, logger: logger)
      var result: [(ByteBuffer, Int64, Int64)] = []
      for try await row in rows.decode((ByteBuffer, Int64, Int64).self) { result.append(row) }
      return result
    }
    var totals = StartCountTotals(current: [:], previous: [:])
    for (hash, current, previous) in rows {
      guard let client = clients[Array(hash.readableBytesView)] else { continue }
      totals.current[client] = Int(clamping: current)
      if previous > 0 { totals.previous[client] = Int(clamping: previous) }
    }
    return totals
  }

  private func run<T: Sendable>(
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    try await PostgresOperation.run(
      on: client, within: operationTimeout, logger: logger, failure: "start counts unavailable", body)
  }
}
