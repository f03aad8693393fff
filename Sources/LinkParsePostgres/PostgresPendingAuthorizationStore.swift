// A pending-authorization store that several server instances share, on PostgreSQL.

public import Crypto
public import LinkParseCore
public import LinkParseAuthorization
public import LinkParseProviders
public import Logging
public import PostgresNIO
import NIOCore
import Foundation

/// Pending authorizations in PostgreSQL, consumed once across every connection and server instance that
/// shares the database: ``PendingAuthorizationStore``'s rules (``PendingAuthorizationStoring``), with the
/// store in a table.
///
/// **The client.** The store runs its queries on a `PostgresClient` the caller makes and runs
/// (`await client.run()` in a task or a service group, for as long as the store is used). A query that does
/// not complete within ``operationTimeout`` (an unreachable database, a client that is not running) throws
/// ``PostgresStoreError``, as does every database error; a callback's own failures are ``CallbackError``s.
///
/// **The schema.** ``migrate()`` creates it, idempotently (run it at start-up, from any number of instances):
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS linkparse_schema_version (
///   component text PRIMARY KEY, version integer NOT NULL);   -- ('pending_authorizations', 1)
/// CREATE TABLE IF NOT EXISTS linkparse_pending_authorizations (
///   id bigserial PRIMARY KEY,
///   state_key bytea,              -- HMAC-SHA256(state key, state); NULL for state-less (T-ID app) flows
///   redirect_key text NOT NULL,   -- scheme://host/path of the redirect URI (scheme only for vk<digits>)
///   provider text NOT NULL,       -- Provider.rawValue
///   sealed bytea NOT NULL,        -- AES-GCM(seal key, JSON of the PendingAuthorization)
///   expires_at bigint,            -- Unix seconds, NULL for never
///   created_at bigint NOT NULL,
///   consumed_at bigint);          -- NULL while pending
/// CREATE UNIQUE INDEX IF NOT EXISTS linkparse_pending_authorizations_state_key
///   ON linkparse_pending_authorizations (state_key) WHERE state_key IS NOT NULL;
/// CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_stateless
///   ON linkparse_pending_authorizations (redirect_key, provider)
///   WHERE state_key IS NULL AND consumed_at IS NULL;
/// CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_pending
///   ON linkparse_pending_authorizations (redirect_key) WHERE consumed_at IS NULL;
/// ```
///
/// **No secret in clear.** The `state` is stored only as `HMAC-SHA256` under a key derived from `secret`
/// (HKDF-SHA256), and looked up by it; the rest of the authorization (its PKCE verifier, nonce, client id,
/// the state itself) is sealed with AES-GCM under a second key derived from the same secret, authenticated
/// together with its row's `redirect_key` and `provider` (a sealed value moved to another row does not open).
/// Rotating `secret` is out of scope: authorizations inserted under an old secret are not found under a new
/// one (they live minutes; let them expire).
///
/// **Single use.** The consume policy is ``PendingAuthorizationStorage``'s, the same as the in-memory store's;
/// this type holds only its queries. A callback with a state is claimed with one statement,
/// `UPDATE … SET consumed_at = now WHERE state_key = $1 AND consumed_at IS NULL RETURNING …`, so of any number
/// of concurrent callbacks for one authorization, on any instance, exactly one gets the row; the others find
/// it consumed and throw `replayed`. A callback that turns out not to be bound to it is put back
/// (`consumed_at = NULL`). A state-less callback that spends an authorization does so with
/// `UPDATE … WHERE id = $1 AND consumed_at IS NULL`: of two concurrent ones, the second is `replayed`.
/// A web login carried in its browser's sealed cookie (LinkParseHummingbird) has no row until its callback
/// spends it: ``addSpent(_:stateKey:redirectKey:now:)`` inserts the row already consumed, under the state key's
/// unique index, so of its callbacks on any instance exactly one inserts it and the others are `replayed`.
///
/// Consumed rows are kept ``consumedGracePeriod`` (whole seconds) past their expiry (or their consumption, when
/// they never expire), to report `replayed`; ``removeExpired(now:)`` deletes them and expired pending rows.
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// Task { await client.run() }  // the caller runs the client
/// let store = PostgresPendingAuthorizationStore(client: client, secret: SymmetricKey(size: .bits256))
/// try await store.migrate()
/// try await store.insert(PendingAuthorization(
///   provider: .sber, redirectURI: try ParsedURL("https://example.com/cb"), state: "Qk7x2LmN9pRtVw3a",
///   expiresAt: PendingAuthorization.currentUnixTime() + 600, codeVerifier: verifier))
/// let callback = try await store.consume(try ParsedURL("https://example.com/cb?state=Qk7x2LmN9pRtVw3a&code=c"))
/// ```
public struct PostgresPendingAuthorizationStore: PendingAuthorizationStorage {
  /// The table's name.
  ///
  /// ```swift
  /// PostgresPendingAuthorizationStore.tableName  // "linkparse_pending_authorizations"
  /// ```
  public static let tableName = "linkparse_pending_authorizations"

  /// The schema version ``migrate()`` records in `linkparse_schema_version`.
  ///
  /// ```swift
  /// PostgresPendingAuthorizationStore.schemaVersion  // 1
  /// ```
  public static let schemaVersion = 1

  private let client: PostgresClient
  private let stateHashKey: SymmetricKey
  private let sealKey: SymmetricKey
  private let logger: Logger

  /// How long any one operation may take before it throws `store-unavailable`.
  ///
  /// ```swift
  /// store.operationTimeout  // .seconds(10)
  /// ```
  public let operationTimeout: Duration

  /// Seconds a consumed row is kept past its expiry (or past its consumption, when it has none), to report
  /// `replayed` rather than `not-pending`.
  ///
  /// ```swift
  /// store.consumedGracePeriod  // .seconds(3600)
  /// ```
  public let consumedGracePeriod: Duration

  /// The most pending (not consumed) rows: an insert beyond it throws ``PendingAuthorizationStoreFull``. The check
  /// costs the same at any size: the insert takes its place from the one-row table `linkparse_pending_count` in
  /// its own statement (that row's lock orders concurrent inserts of every instance, so the capacity is never
  /// passed), and statement-level triggers keep the count when rows are consumed, put back, deleted or
  /// truncated; ``migrate()`` counts afresh.
  ///
  /// ```swift
  /// store.capacity  // 100_000
  /// ```
  public let capacity: Int

  /// How often (seconds, at the most) an insert first deletes what has expired: the sweep the app need not
  /// run itself (60 by default; 0 sweeps before every insert).
  ///
  /// ```swift
  /// store.sweepInterval  // .seconds(60)
  /// ```
  public let sweepInterval: Duration
  /// ``sweepInterval`` in whole seconds.
  private let sweepSeconds: Int64
  /// When the next sweep is due (Unix seconds), for this instance.
  private let sweeps = SweepSchedule()

  /// A store on `client` (which the caller runs), with its keys derived from `secret` (at least 256 bits
  /// recommended; keep it secret, the same on every instance).
  ///
  /// ```swift
  /// let store = PostgresPendingAuthorizationStore(
  ///   client: client, secret: SymmetricKey(data: secretBytes), operationTimeout: .seconds(5))
  /// ```
  public init(
    client: PostgresClient, secret: SymmetricKey, consumedGracePeriod: Duration = .seconds(3600),
    operationTimeout: Duration = .seconds(10), capacity: Int = 100_000, sweepInterval: Duration = .seconds(60),
    logger: Logger = Logger(label: "LinkParsePostgres")
  ) {
    self.capacity = max(1, capacity)
    self.sweepInterval = max(.zero, sweepInterval)
    self.sweepSeconds = max(.zero, sweepInterval).components.seconds
    self.client = client
    self.stateHashKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse pending-authorization state-key v1".utf8),
      outputByteCount: 32)
    self.sealKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse pending-authorization seal v1".utf8), outputByteCount: 32)
    self.consumedGracePeriod = max(.zero, consumedGracePeriod)
    self.operationTimeout = operationTimeout
    self.logger = logger
  }

  // MARK: - Schema

  /// Creates the table, its indexes and the schema version row when they are missing (safe to run again,
  /// and from several instances).
  ///
  /// ```swift
  /// try await store.migrate()
  /// ```
  ///
  /// - Throws: ``PostgresStoreError`` when the database cannot be reached or refuses.
  public func migrate() async throws {
    // Serialized between instances by an advisory lock (CREATE … IF NOT EXISTS can race on the catalog).
    let version = Self.schemaVersion
    try await PostgresOperation.migrate(
      on: client, within: operationTimeout, logger: logger, lock: 7318400117,
      [
        """
        CREATE TABLE IF NOT EXISTS linkparse_schema_version (
          component text PRIMARY KEY, version integer NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS linkparse_pending_authorizations (
          id bigserial PRIMARY KEY, state_key bytea, redirect_key text NOT NULL, provider text NOT NULL,
          sealed bytea NOT NULL, expires_at bigint, created_at bigint NOT NULL, consumed_at bigint)
        """,
        """
        CREATE UNIQUE INDEX IF NOT EXISTS linkparse_pending_authorizations_state_key
          ON linkparse_pending_authorizations (state_key) WHERE state_key IS NOT NULL
        """,
        """
        CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_stateless
          ON linkparse_pending_authorizations (redirect_key, provider)
          WHERE state_key IS NULL AND consumed_at IS NULL
        """,
        """
        CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_pending
          ON linkparse_pending_authorizations (redirect_key) WHERE consumed_at IS NULL
        """,
        // The sweeps' indexes: pending rows by expiry, consumed rows by when they may go.
        """
        CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_expiry
          ON linkparse_pending_authorizations (expires_at) WHERE consumed_at IS NULL AND expires_at IS NOT NULL
        """,
        """
        CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_spent
          ON linkparse_pending_authorizations ((COALESCE(expires_at, consumed_at))) WHERE consumed_at IS NOT NULL
        """,
        // How many rows are pending (counted afresh by each migrate), kept by the statements that change it: an insert takes a place in the
        // same statement (`UPDATE … WHERE pending < capacity`, which locks the one row, so concurrent inserts
        // of every instance queue there and none overshoots); consuming, putting back, deleting and TRUNCATE
        // adjust it by statement-level triggers (one update per statement, however many rows it touches),
        // created once (a CREATE TRIGGER locks the table: not on every start of every instance).
        """
        CREATE TABLE IF NOT EXISTS linkparse_pending_count (
          id integer PRIMARY KEY CHECK (id = 1), pending bigint NOT NULL)
        """,
        """
        INSERT INTO linkparse_pending_count (id, pending)
        SELECT 1, count(*) FROM linkparse_pending_authorizations WHERE consumed_at IS NULL
        ON CONFLICT (id) DO UPDATE SET pending = EXCLUDED.pending
        """,
        """
        CREATE OR REPLACE FUNCTION linkparse_pending_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE linkparse_pending_count SET pending = pending - (SELECT count(*) FROM gone WHERE consumed_at IS NULL)
          WHERE id = 1 AND EXISTS (SELECT 1 FROM gone WHERE consumed_at IS NULL);
          RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION linkparse_pending_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE delta bigint;
        BEGIN
          SELECT count(*) FILTER (WHERE o.consumed_at IS NOT NULL AND n.consumed_at IS NULL)
               - count(*) FILTER (WHERE o.consumed_at IS NULL AND n.consumed_at IS NOT NULL)
          INTO delta FROM before_rows o JOIN after_rows n USING (id);
          IF delta <> 0 THEN
            UPDATE linkparse_pending_count SET pending = pending + delta WHERE id = 1;
          END IF;
          RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION linkparse_pending_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE linkparse_pending_count SET pending = 0 WHERE id = 1;
          RETURN NULL;
        END $$
        """,
        Self.triggerOnce(
          "linkparse_pending_count_deleted",
          "AFTER DELETE ON linkparse_pending_authorizations REFERENCING OLD TABLE AS gone"
            + " FOR EACH STATEMENT EXECUTE FUNCTION linkparse_pending_count_deleted()"),
        Self.triggerOnce(
          "linkparse_pending_count_updated",
          "AFTER UPDATE ON linkparse_pending_authorizations REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows"
            + " FOR EACH STATEMENT EXECUTE FUNCTION linkparse_pending_count_updated()"),
        Self.triggerOnce(
          "linkparse_pending_count_truncated",
          "AFTER TRUNCATE ON linkparse_pending_authorizations"
            + " FOR EACH STATEMENT EXECUTE FUNCTION linkparse_pending_count_truncated()"),
        """
        INSERT INTO linkparse_schema_version (component, version) VALUES ('pending_authorizations', \(version))
        ON CONFLICT (component) DO NOTHING
        """,
      ])
  }

  /// `CREATE TRIGGER name definition` on the pending table unless it has that trigger (a CREATE TRIGGER locks the
  /// table, so it runs once, not on every start of every instance). `name` and `definition` are constants of
  /// this file, never input.
  private static func triggerOnce(_ name: String, _ definition: String) -> PostgresQuery {
    PostgresQuery(
      unsafeSQL: """
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_trigger
                         WHERE tgname = '\(name)' AND tgrelid = 'linkparse_pending_authorizations'::regclass) THEN
            CREATE TRIGGER \(name) \(definition);
          END IF;
        END $$
        """)
  }

  // MARK: - PendingAuthorizationStoring

  /// The number of pending (not consumed) authorizations, expired ones included until
  /// ``removeExpired(now:)``.
  ///
  /// ```swift
  /// try await store.count  // 0
  /// ```
  public var count: Int {
    get async throws { try await count("SELECT count(*) FROM linkparse_pending_authorizations WHERE consumed_at IS NULL") }
  }

  /// Deletes pending rows expired at `now`, and consumed rows past their expiry (or consumption) plus
  /// ``consumedGracePeriod``; returns how many rows went.
  ///
  /// ```swift
  /// let swept = try await store.removeExpired(now: PendingAuthorization.currentUnixTime())
  /// ```
  @discardableResult
  public func removeExpired(now: Int64 = PendingAuthorization.currentUnixTime()) async throws -> Int {
    let spentBefore = now - consumedGracePeriod.wholeSeconds
    // Two deletes, each over its own index.
    return try await count(
      """
      WITH pending AS (
        DELETE FROM linkparse_pending_authorizations
        WHERE consumed_at IS NULL AND expires_at IS NOT NULL AND expires_at <= \(now)
        RETURNING 1),
      spent AS (
        DELETE FROM linkparse_pending_authorizations
        WHERE consumed_at IS NOT NULL AND COALESCE(expires_at, consumed_at) <= \(spentBefore)
        RETURNING 1)
      SELECT (SELECT count(*) FROM pending) + (SELECT count(*) FROM spent)
      """)
  }

  // MARK: - PendingAuthorizationStorage: the queries the consume policy runs

  /// Stores a pending authorization (its state must not already be pending or recently consumed).
  ///
  /// ```swift
  /// try await store.add(pending, stateKey: store.stateKey(Array("s".utf8)), redirectKey: "https://a/cb", now: now)
  /// ```
  ///
  /// - Throws: ``PendingAuthorizationConflict`` for a state already in the table (pending, or consumed and not
  ///   yet swept: the unique index on `state_key`), ``PendingAuthorizationStoreFull``, ``PostgresStoreError``.
  public func add(_ authorization: PendingAuthorization, stateKey: [UInt8]?, redirectKey: String, now: Int64) async throws {
    let (provider, sealed) = try await prepareRow(authorization, redirectKey: redirectKey, now: now)
    let key = stateKey.map { ByteBuffer(bytes: $0) }
    let expiresAt = authorization.expiresAt
    for attempt in 0..<2 {
      switch try await insertBelowCapacity(key, redirectKey, provider, sealed, expiresAt, now) {
      case .added: return
      case .conflict: throw PendingAuthorizationConflict()
      case .full:
        // Full: what has expired goes first (whenever the last sweep was), then one more try.
        if attempt == 0 { _ = try await removeExpired(now: now) }
      }
    }
    throw PendingAuthorizationStoreFull(capacity: capacity)
  }

  /// What a new row of `authorization` stores (its provider and the sealed authorization), after the sweep when
  /// one is due: the part ``add(_:stateKey:redirectKey:now:)`` and ``addSpent(_:stateKey:redirectKey:now:)``
  /// share.
  private func prepareRow(
    _ authorization: PendingAuthorization, redirectKey: String, now: Int64
  ) async throws -> (provider: String, sealed: ByteBuffer) {
    let provider = authorization.provider.rawValue
    let sealed = try seal(authorization, redirectKey: redirectKey, provider: provider)
    if sweeps.claim(now: now, interval: sweepSeconds) { _ = try await removeExpired(now: now) }
    return (provider, sealed)
  }

  private enum InsertOutcome { case added, full, conflict }

  /// Inserts the row only while fewer than ``capacity`` rows are pending and no row has its state key: the place
  /// is taken from `linkparse_pending_count` in the same statement (O(1), no count of the table; the counter's
  /// row lock orders concurrent inserts of every instance, so the capacity is never exceeded), and given back
  /// when the state key turns out taken (`ON CONFLICT … DO NOTHING` over the unique index).
  private func insertBelowCapacity(
    _ key: ByteBuffer?, _ redirectKey: String, _ provider: String, _ sealed: ByteBuffer, _ expiresAt: Int64?,
    _ now: Int64
  ) async throws -> InsertOutcome {
    let capacity = Int64(self.capacity)
    let query: PostgresQuery = """
      WITH place AS (
        UPDATE linkparse_pending_count SET pending = pending + 1 WHERE id = 1 AND pending < \(capacity)
        RETURNING 1),
      added AS (
        INSERT INTO linkparse_pending_authorizations
          (state_key, redirect_key, provider, sealed, expires_at, created_at)
        SELECT \(key), \(redirectKey), \(provider), \(sealed), \(expiresAt), \(now)
        WHERE EXISTS (SELECT 1 FROM place)
        ON CONFLICT (state_key) WHERE state_key IS NOT NULL DO NOTHING
        RETURNING 1)
      SELECT (SELECT count(*) FROM added), (SELECT count(*) FROM place),
        (SELECT count(*) FROM linkparse_pending_authorizations WHERE \(key)::bytea IS NOT NULL AND state_key = \(key))
      """
    let (added, placed, existing) = try await run { client, logger in
      let rows = try await client.query(query, logger: logger)
      for try await row in rows.decode((Int64, Int64, Int64).self) { return row }
      return (Int64(0), Int64(0), Int64(0))
    }
    if added == 1 { return .added }
    if placed == 1 {
      // A place taken for a row that was not inserted (its state key exists): given back.
      try await run { client, logger in
        try await client.query("UPDATE linkparse_pending_count SET pending = pending - 1 WHERE id = 1", logger: logger)
      }
    }
    return existing > 0 ? .conflict : .full
  }

  /// Records a carried authorization as spent: a row inserted already consumed (it takes no pending place and
  /// is swept like any consumed row), in one statement; `false` when a row with its state key exists (pending,
  /// or consumed and not yet swept: the unique index), so of two instances recording the same login one wins.
  ///
  /// ```swift
  /// try await store.addSpent(pending, stateKey: key, redirectKey: "https://a/cb", now: now)  // true
  /// ```
  public func addSpent(_ authorization: PendingAuthorization, stateKey: [UInt8], redirectKey: String, now: Int64)
    async throws -> Bool
  {
    let (provider, sealed) = try await prepareRow(authorization, redirectKey: redirectKey, now: now)
    let key = ByteBuffer(bytes: stateKey)
    let expiresAt = authorization.expiresAt
    return try await count(
      """
      WITH added AS (
        INSERT INTO linkparse_pending_authorizations
          (state_key, redirect_key, provider, sealed, expires_at, created_at, consumed_at)
        VALUES (\(key), \(redirectKey), \(provider), \(sealed), \(expiresAt), \(now), \(now))
        ON CONFLICT (state_key) WHERE state_key IS NOT NULL DO NOTHING
        RETURNING 1)
      SELECT count(*) FROM added
      """) == 1
  }

  /// Deletes the spent row of the carried authorization with this state key (a row inserted consumed by
  /// ``addSpent(_:stateKey:redirectKey:now:)``: consumed when it was created), so it can be spent again.
  ///
  /// ```swift
  /// try await store.removeSpent(stateKey: key)  // true after addSpent
  /// ```
  public func removeSpent(stateKey: [UInt8]) async throws -> Bool {
    let key = ByteBuffer(bytes: stateKey)
    return try await count(
      """
      WITH gone AS (
        DELETE FROM linkparse_pending_authorizations
        WHERE state_key = \(key) AND consumed_at IS NOT NULL AND consumed_at = created_at
        RETURNING 1)
      SELECT count(*) FROM gone
      """) == 1
  }

  /// Marks the pending row with this state key consumed, in one statement, and returns it opened.
  ///
  /// ```swift
  /// let record = try await store.claim(stateKey: key, now: now)
  /// ```
  public func claim(stateKey: [UInt8], now: Int64) async throws -> StoredAuthorization<Int64>? {
    let key = ByteBuffer(bytes: stateKey)
    return try await rows(
      """
      UPDATE linkparse_pending_authorizations SET consumed_at = \(now)
      WHERE state_key = \(key) AND consumed_at IS NULL
      RETURNING id, redirect_key, provider, sealed
      """
    ).first
  }

  /// Makes a claimed row pending again.
  ///
  /// ```swift
  /// try await store.release(record.id)
  /// ```
  public func release(_ id: Int64) async throws {
    try await run { client, logger in
      try await client.query(
        "UPDATE linkparse_pending_authorizations SET consumed_at = NULL WHERE id = \(id)", logger: logger)
    }
  }

  /// Marks a pending row consumed; `false` when another callback consumed it first.
  ///
  /// ```swift
  /// try await store.retire(record.id, now: now)  // true
  /// ```
  public func retire(_ id: Int64, now: Int64) async throws -> Bool {
    try await count(
      """
      WITH taken AS (
        UPDATE linkparse_pending_authorizations SET consumed_at = \(now)
        WHERE id = \(id) AND consumed_at IS NULL RETURNING 1)
      SELECT count(*) FROM taken
      """) == 1
  }

  /// Pending rows at `redirectKey` (with a state, without, or both), at most `limit`.
  ///
  /// ```swift
  /// let stateless = try await store.pending(redirectKey: "myapp://authorized/", withState: false, limit: 16)
  /// ```
  public func pending(redirectKey: String, withState: Bool?, limit: Int) async throws -> [StoredAuthorization<Int64>] {
    switch withState {
    case true?:
      return try await rows(
        """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL AND state_key IS NOT NULL LIMIT \(limit)
        """)
    case false?:
      return try await rows(
        """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL AND state_key IS NULL ORDER BY id LIMIT \(limit)
        """)
    case nil:
      return try await rows(
        """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL LIMIT \(limit)
        """)
    }
  }

  /// Consumed rows still kept at `redirectKey` with this state key (`nil`: those without state).
  ///
  /// ```swift
  /// let replays = try await store.consumed(stateKey: key, redirectKey: "https://a/cb")
  /// ```
  public func consumed(stateKey: [UInt8]?, redirectKey: String) async throws -> [PendingAuthorization] {
    if let stateKey {
      let key = ByteBuffer(bytes: stateKey)
      return try await rows(
        """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE state_key = \(key) AND redirect_key = \(redirectKey) AND consumed_at IS NOT NULL
        """
      ).map(\.authorization)
    }
    return try await rows(
      """
      SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
      WHERE redirect_key = \(redirectKey) AND state_key IS NULL AND consumed_at IS NOT NULL
      """
    ).map(\.authorization)
  }

  /// Whether any row is pending.
  ///
  /// ```swift
  /// try await store.hasPending()  // false
  /// ```
  public func hasPending() async throws -> Bool {
    try await count(
      "SELECT count(*) FROM (SELECT 1 FROM linkparse_pending_authorizations WHERE consumed_at IS NULL LIMIT 1) AS pending"
    ) > 0
  }

  /// Pending rows without state for `provider`.
  ///
  /// ```swift
  /// try await store.pendingWithoutState(provider: .tid)  // 1
  /// ```
  public func pendingWithoutState(provider: Provider) async throws -> Int {
    let name = provider.rawValue
    return try await count(
      """
      SELECT count(*) FROM linkparse_pending_authorizations
      WHERE provider = \(name) AND state_key IS NULL AND consumed_at IS NULL
      """)
  }

  // MARK: - Running queries

  /// The rows `query` returns (`id, redirect_key, provider, sealed`), opened.
  private func rows(_ query: PostgresQuery) async throws -> [StoredAuthorization<Int64>] {
    let sealKey = self.sealKey
    return try await run { client, logger in
      var found: [StoredAuthorization<Int64>] = []
      let rows = try await client.query(query, logger: logger)
      for try await (id, rowRedirect, provider, sealed) in rows.decode((Int64, String, String, ByteBuffer).self) {
        found.append(
          StoredAuthorization(
            id: id, authorization: try Self.unseal(sealed, redirectKey: rowRedirect, provider: provider, key: sealKey)))
      }
      return found
    }
  }

  /// The single `count(*)` `query` returns.
  private func count(_ query: PostgresQuery) async throws -> Int {
    try await run { client, logger in
      let rows = try await client.query(query, logger: logger)
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }
  }

  // MARK: - Keys and sealing

  /// `HMAC-SHA256(state key, state)`: the `state_key` column.
  ///
  /// ```swift
  /// store.stateKey(Array("s".utf8)).count  // 32
  /// ```
  public func stateKey(_ state: [UInt8]) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: state, using: stateHashKey))
  }

  private func seal(_ authorization: PendingAuthorization, redirectKey: String, provider: String) throws -> ByteBuffer {
    do {
      let json = try JSONEncoder().encode(authorization)
      let box = try AES.GCM.seal(json, using: sealKey, authenticating: Self.aad(redirectKey, provider))
      guard let combined = box.combined else { throw PostgresStoreError(.sealing, "sealing failed") }
      return ByteBuffer(bytes: combined)
    } catch {
      throw PostgresStoreError(.sealing, "sealing failed")
    }
  }

  private static func unseal(
    _ sealed: ByteBuffer, redirectKey: String, provider: String, key: SymmetricKey
  ) throws -> PendingAuthorization {
    do {
      let box = try AES.GCM.SealedBox(combined: Data(sealed.readableBytesView))
      let json = try AES.GCM.open(box, using: key, authenticating: Self.aad(redirectKey, provider))
      return try JSONDecoder().decode(PendingAuthorization.self, from: json)
    } catch {
      throw PostgresStoreError(.unreadableRecord, "a stored authorization could not be opened")
    }
  }

  private static func aad(_ redirectKey: String, _ provider: String) -> [UInt8] {
    Array("linkparse v1\u{0}\(provider)\u{0}\(redirectKey)".utf8)
  }

  // MARK: - Time limit

  /// Runs `body` on the client within ``operationTimeout``; any error becomes a ``PostgresStoreError``.
  @discardableResult
  private func run<T: Sendable>(
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    try await PostgresOperation.run(
      on: client, within: operationTimeout, logger: logger, failure: "pending-authorization store unavailable", body)
  }
}

/// Why the PostgreSQL store could not answer: the database, not the callback. Answer 503 and let the user
/// retry; the message is safe to log (it never quotes a query's values or the database's own message).
///
/// ```swift
/// do {
///   _ = try await store.consume(url)
/// } catch let error as PostgresStoreError {
///   error.code  // .unavailable, .timedOut, …
/// }
/// ```
public struct PostgresStoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: String, Sendable, Hashable {
    /// The database could not be reached, refused, or failed the query.
    case unavailable = "store-unavailable"
    /// An operation did not complete within the store's `operationTimeout`.
    case timedOut = "store-timed-out"
    /// A row's sealed authorization did not open (another secret, or a row moved or tampered with).
    case unreadableRecord = "unreadable-record"
    /// An authorization could not be sealed.
    case sealing = "sealing-failed"
  }

  /// What went wrong.
  ///
  /// ```swift
  /// error.code  // .timedOut
  /// ```
  public let code: Code
  /// A message safe to log.
  ///
  /// ```swift
  /// error.message  // "database error: connectionError"
  /// ```
  public let message: String

  package init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `code: message`.
  ///
  /// ```swift
  /// "\(error)"  // "store-timed-out: timed out"
  /// ```
  public var description: String { "\(code.rawValue): \(message)" }
}
