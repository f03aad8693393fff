// Hummingbird's key/value persistence (what hummingbird-auth's sessions are kept in) on PostgreSQL, so that
// every server instance on one database reads the same sessions.

public import Crypto
public import Hummingbird
import Foundation
public import LinkParseHTTP
public import LinkParseHummingbird
public import Logging
import NIOCore
public import PostgresNIO

/// Hummingbird's `PersistDriver` on PostgreSQL: hummingbird-auth's `SessionMiddleware` keeps its sessions here,
/// and every instance that shares the database shares them.
///
/// **Nothing readable at rest.** A row's key is `HMAC-SHA256(key, session key)` — a database reader cannot
/// turn a row into a session cookie — and its value is the JSON of the stored object sealed with AES-256-GCM,
/// authenticated with the row's key (a row copied under another key does not open). Both keys are derived
/// from `secret` (HKDF-SHA256), which every instance must share. So the tokens a session holds (a refresh
/// token, an id_token) are sealed at rest.
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS linkparse_persist (
///   key_hash bytea PRIMARY KEY,   -- HMAC-SHA256(key, the key SessionStorage uses)
///   sealed bytea NOT NULL,        -- AES-GCM(seal key, JSON), authenticated with key_hash
///   expires_at bigint,            -- Unix milliseconds: the absolute expiry; NULL only from create(expires: nil)
///   idle_expires_at bigint);      -- Unix milliseconds: the idle expiry (idleLifetime); NULL: none
/// CREATE INDEX IF NOT EXISTS linkparse_persist_expiry ON linkparse_persist (expires_at)
///   WHERE expires_at IS NOT NULL;
/// CREATE INDEX IF NOT EXISTS linkparse_persist_idle_expiry ON linkparse_persist (idle_expires_at)
///   WHERE idle_expires_at IS NOT NULL;
/// ```
///
/// **Lifetimes no write removes.** A row has an absolute expiry, set by the write that gives a lifetime (the
/// session middleware's first save), and an idle expiry, ``idleLifetime`` after its last use (a read moves it
/// on, at most once per quarter of the idle lifetime; a write moves it on). A write without a lifetime
/// (`set(key:value:expires: nil)`, what a session update or a token refresh does) only replaces the value of a
/// live row: it never inserts, never brings back a row that has expired or been deleted, and keeps the row's
/// expiry. A row past either expiry is never returned, and is deleted by a sweep that a write runs at most
/// every ``sweepInterval``. Every query runs within ``operationTimeout``; a database failure throws
/// `PostgresStoreError`.
///
/// **One session operation at a time per session**, across instances: ``withRefreshLock(for:_:)`` (a
/// transaction-level advisory lock on the key's hash), which ``SessionRefresher`` takes to refresh, to log out
/// and to replace a session at sign-in, so a refresh that finishes after a logout cannot bring the session back.
///
/// ```swift
/// let sessions = PostgresSessionDriver(client: client, secret: secret)
/// try await sessions.migrate()
/// router.add(middleware: SessionMiddleware(storage: sessions, configuration: LoginSession.middlewareConfiguration(secure: true)))
/// ```
public struct PostgresSessionDriver: PersistDriver, SessionRefreshLocking, SessionEnding {
  /// The table's name.
  public static let tableName = "linkparse_persist"

  private let client: PostgresClient
  private let keyHashKey: SymmetricKey
  private let sealKey: SymmetricKey
  private let logger: Logger
  /// When this instance's next sweep is due (Unix milliseconds).
  private let sweeps = SweepSchedule()

  /// How long any one query may take before it throws `PostgresStoreError` `store-timed-out`.
  ///
  /// ```swift
  /// sessions.operationTimeout  // .seconds(10)
  /// ```
  public let operationTimeout: Duration

  /// How many refresh locks this instance holds at once, at the most (4 by default). A lock holds a connection
  /// while its refresh runs queries on others: bounded, so that many sessions refreshing at once cannot take
  /// every connection of the client's pool and wait on each other for one more; the others wait here, in
  /// process.
  ///
  /// ```swift
  /// sessions.maximumRefreshLocks  // 4
  /// ```
  public let maximumRefreshLocks: Int
  private let lockHolders: AsyncLimiter

  /// How often (seconds, at the most) a write first deletes the expired rows (60 by default; 0: every write).
  ///
  /// ```swift
  /// sessions.sweepInterval  // .seconds(60)
  /// ```
  public let sweepInterval: Duration

  /// How long a row lives unused (`nil`: no idle limit), beside the absolute expiry its first write gives it.
  ///
  /// ```swift
  /// sessions.idleLifetime  // .seconds(7200)
  /// ```
  public let idleLifetime: Duration?

  /// A driver on `client` (which the caller runs), its keys derived from `secret` (the same on every instance;
  /// at least 256 bits).
  ///
  /// ```swift
  /// let sessions = PostgresSessionDriver(client: client, secret: SymmetricKey(data: secretBytes))
  /// ```
  public init(
    client: PostgresClient, secret: SymmetricKey, operationTimeout: Duration = .seconds(10), sweepInterval: Duration = .seconds(60),
    maximumRefreshLocks: Int = 4, idleLifetime: Duration? = .seconds(2 * 3600),
    logger: Logger = Logger(label: "LinkParsePostgres")
  ) {
    self.idleLifetime = idleLifetime.map { max($0, .milliseconds(1)) }
    self.client = client
    self.maximumRefreshLocks = max(1, maximumRefreshLocks)
    self.lockHolders = AsyncLimiter(max(1, maximumRefreshLocks))
    self.keyHashKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse persist key v1".utf8), outputByteCount: 32)
    self.sealKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse persist seal v1".utf8), outputByteCount: 32)
    self.operationTimeout = operationTimeout
    self.sweepInterval = max(.zero, sweepInterval)
    self.logger = logger
  }

  /// Creates the table and its index when missing (safe to run again, and from several instances at once).
  ///
  /// ```swift
  /// try await sessions.migrate()
  /// ```
  public func migrate() async throws {
    try await PostgresOperation.migrate(
      on: client, within: operationTimeout, logger: logger, lock: 7318400118,
      [
        """
        CREATE TABLE IF NOT EXISTS linkparse_persist (
          key_hash bytea PRIMARY KEY, sealed bytea NOT NULL, expires_at bigint)
        """,
        """
        CREATE INDEX IF NOT EXISTS linkparse_persist_expiry ON linkparse_persist (expires_at)
          WHERE expires_at IS NOT NULL
        """,
        "ALTER TABLE linkparse_persist ADD COLUMN IF NOT EXISTS idle_expires_at bigint",
        """
        CREATE INDEX IF NOT EXISTS linkparse_persist_idle_expiry ON linkparse_persist (idle_expires_at)
          WHERE idle_expires_at IS NOT NULL
        """,
        // Who a LoginSession belongs to, as keyed hashes (a back-channel logout ends sessions by them).
        "ALTER TABLE linkparse_persist ADD COLUMN IF NOT EXISTS owner_hash bytea",
        "ALTER TABLE linkparse_persist ADD COLUMN IF NOT EXISTS sid_hash bytea",
        """
        CREATE INDEX IF NOT EXISTS linkparse_persist_owner ON linkparse_persist (owner_hash)
          WHERE owner_hash IS NOT NULL
        """,
        """
        CREATE INDEX IF NOT EXISTS linkparse_persist_sid ON linkparse_persist (sid_hash)
          WHERE sid_hash IS NOT NULL
        """,
        """
        CREATE TABLE IF NOT EXISTS linkparse_logout_tokens (token_hash bytea PRIMARY KEY, expires_at bigint NOT NULL)
        """,
      ])
  }

  // MARK: - PersistDriver

  /// Stores `value` under `key` unless a live value is there already (then `PersistError.duplicate`).
  ///
  /// ```swift
  /// try await sessions.create(key: "k", value: "v", expires: .seconds(60))
  /// ```
  public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    let (now, hash, sealed, expiresAt) = try await prepareWrite(key: key, value: value, expires: expires)
    let idleExpiresAt = idleExpiry(now)
    let (owner, sid) = ownerHashes(value)
    let inserted = try await run { client, logger in
      let rows = try await client.query(
        """
        INSERT INTO linkparse_persist AS t (key_hash, sealed, expires_at, idle_expires_at, owner_hash, sid_hash)
          VALUES (\(hash), \(sealed), \(expiresAt)::bigint, \(idleExpiresAt)::bigint, \(owner)::bytea, \(sid)::bytea)
        ON CONFLICT (key_hash) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at,
          idle_expires_at = EXCLUDED.idle_expires_at, owner_hash = EXCLUDED.owner_hash, sid_hash = EXCLUDED.sid_hash
          WHERE (t.expires_at IS NOT NULL AND t.expires_at <= \(now))
            OR (t.idle_expires_at IS NOT NULL AND t.idle_expires_at <= \(now))
        RETURNING 1
        """, logger: logger)
      for try await _ in rows.decode(Int.self) { return true }
      return false
    }
    if !inserted { throw PersistError.duplicate }
  }

  /// Stores `value` under `key` with `expires`, replacing what is there; with `expires` nil, replaces the value
  /// of a live row only, keeping its expiry (no live row: nothing is written, and nothing is thrown — a session
  /// that ended while a request ran stays ended).
  ///
  /// ```swift
  /// try await sessions.set(key: "k", value: "v2", expires: nil)
  /// ```
  public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
    let (now, hash, sealed, expiresAt) = try await prepareWrite(key: key, value: value, expires: expires)
    let idleExpiresAt = idleExpiry(now)
    let (owner, sid) = ownerHashes(value)
    try await run { client, logger in
      if let expiresAt {
        try await client.query(
          """
          INSERT INTO linkparse_persist AS t (key_hash, sealed, expires_at, idle_expires_at, owner_hash, sid_hash)
            VALUES (\(hash), \(sealed), \(expiresAt)::bigint, \(idleExpiresAt)::bigint, \(owner)::bytea, \(sid)::bytea)
          ON CONFLICT (key_hash) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at,
            idle_expires_at = EXCLUDED.idle_expires_at, owner_hash = EXCLUDED.owner_hash, sid_hash = EXCLUDED.sid_hash
          """, logger: logger)
      } else {
        try await client.query(
          """
          UPDATE linkparse_persist SET sealed = \(sealed), owner_hash = \(owner)::bytea, sid_hash = \(sid)::bytea,
            idle_expires_at = CASE WHEN idle_expires_at IS NULL THEN NULL ELSE \(idleExpiresAt)::bigint END
          WHERE key_hash = \(hash) AND (expires_at IS NULL OR expires_at > \(now))
            AND (idle_expires_at IS NULL OR idle_expires_at > \(now))
          """, logger: logger)
      }
    }
  }

  /// The live value under `key`, or `nil` (none, expired, or sealed under another secret);
  /// `PersistError.invalidConversion` when it is not an `Object`.
  ///
  /// ```swift
  /// try await sessions.get(key: "k", as: String.self)  // "v2"
  /// ```
  public func get<Object: Codable & Sendable>(key: String, as type: Object.Type) async throws -> Object? {
    try await getWithTTL(key: key, as: type)?.object
  }

  /// The live value under `key` and the time it has left unused (`nil`: no expiry); the read counts as a use
  /// (``idleLifetime``).
  ///
  /// ```swift
  /// try await sessions.getWithTTL(key: "k", as: String.self)?.ttl  // .milliseconds(59_870)
  /// ```
  public func getWithTTL<Object: Codable & Sendable>(
    key: String, as type: Object.Type
  ) async throws -> (object: Object, ttl: Duration?)? {
    let now = Self.nowMilliseconds()
    let hash = keyHash(key)
    let idleExpiresAt = idleExpiry(now)
    // A read moves the idle expiry on once a quarter of the idle lifetime has passed since the last move: a
    // session in use stays alive without a write per request.
    let moveBefore = idleLifetime.map { now + Self.milliseconds($0) * 3 / 4 }
    let found = try await run { client, logger -> (ByteBuffer, Int64?, Int64?)? in
      let rows = try await client.query(
        """
        WITH live AS (
          SELECT key_hash, sealed, expires_at, idle_expires_at FROM linkparse_persist
          WHERE key_hash = \(hash) AND (expires_at IS NULL OR expires_at > \(now))
            AND (idle_expires_at IS NULL OR idle_expires_at > \(now))),
        moved AS (
          UPDATE linkparse_persist AS t SET idle_expires_at = \(idleExpiresAt)::bigint FROM live
          WHERE t.key_hash = live.key_hash AND live.idle_expires_at IS NOT NULL
            AND \(moveBefore)::bigint IS NOT NULL AND live.idle_expires_at < \(moveBefore)::bigint
          RETURNING t.idle_expires_at)
        SELECT live.sealed, live.expires_at, COALESCE((SELECT idle_expires_at FROM moved), live.idle_expires_at)
        FROM live
        """, logger: logger)
      for try await row in rows.decode((ByteBuffer, Int64?, Int64?).self) { return row }
      return nil
    }
    guard let (sealed, expiresAt, idleExpiresAt) = found else { return nil }
    guard let json = open(sealed, hash: hash) else {
      logger.warning("a stored value did not open (another secret, or a row moved or altered): ignored")
      return nil
    }
    let object: Object
    do {
      object = try JSONDecoder().decode(Object.self, from: json)
    } catch {
      throw PersistError.invalidConversion
    }
    let left = [expiresAt, idleExpiresAt].compactMap { $0 }.min()
    return (object, left.map { .milliseconds($0 - now) })
  }

  /// Deletes the value under `key` (nothing when there is none).
  ///
  /// ```swift
  /// try await sessions.remove(key: "k")
  /// ```
  public func remove(key: String) async throws {
    let hash = keyHash(key)
    try await run { client, logger in
      try await client.query("DELETE FROM linkparse_persist WHERE key_hash = \(hash)", logger: logger)
    }
  }

  /// Deletes every expired row now; returns how many went.
  ///
  /// ```swift
  /// try await sessions.removeExpired()  // 12
  /// ```
  @discardableResult
  public func removeExpired() async throws -> Int {
    let now = Self.nowMilliseconds()
    return try await run { client, logger in
      let rows = try await client.query(
        """
        WITH gone AS (
          DELETE FROM linkparse_persist
          WHERE (expires_at IS NOT NULL AND expires_at <= \(now))
            OR (idle_expires_at IS NOT NULL AND idle_expires_at <= \(now))
          RETURNING 1)
        SELECT count(*) FROM gone
        """, logger: logger)
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }
  }

  // MARK: - SessionEnding

  /// Deletes the sessions `logout` names, on every instance at once (they share the rows): by the keyed hashes
  /// of the session's issuer and subject, and of its issuer and `sid`, kept beside each ``LoginSession``.
  ///
  /// ```swift
  /// try await sessions.endSessions(matching: logout)  // 1
  /// ```
  public func endSessions(matching logout: LogoutToken) async throws -> Int {
    let owner = logout.subject.map { ownerHash(issuer: logout.issuer, subject: $0) }
    let sid = logout.sessionID.map { sidHash(issuer: logout.issuer, sid: $0) }
    return try await run { client, logger in
      let rows: PostgresRowSequence
      if let sid {
        rows = try await client.query(
          """
          WITH gone AS (
            DELETE FROM linkparse_persist
            WHERE sid_hash = \(sid) AND (\(owner)::bytea IS NULL OR owner_hash = \(owner)::bytea) RETURNING 1)
          SELECT count(*) FROM gone
          """, logger: logger)
      } else {
        rows = try await client.query(
          """
          WITH gone AS (DELETE FROM linkparse_persist WHERE owner_hash = \(owner)::bytea RETURNING 1)
          SELECT count(*) FROM gone
          """, logger: logger)
      }
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }
  }

  /// Records `logout`'s `jti` (a keyed hash of the issuer and the jti) until its expiry, in
  /// `linkparse_logout_tokens`; `false` when it is there already: a replay, on any instance.
  ///
  /// ```swift
  /// try await sessions.recordLogoutToken(logout)  // true, then false
  /// ```
  public func recordLogoutToken(_ logout: LogoutToken) async throws -> Bool {
    let hash = ByteBuffer(
      bytes: HMAC<SHA256>.authenticationCode(
        for: Array(("logout token\u{0}" + logout.issuer + "\u{0}" + logout.tokenID).utf8), using: keyHashKey))
    let now = Self.nowMilliseconds() / 1000
    let expiresAt = logout.expiresAt
    return try await run { client, logger in
      try await client.query("DELETE FROM linkparse_logout_tokens WHERE expires_at < \(now)", logger: logger)
      let rows = try await client.query(
        """
        INSERT INTO linkparse_logout_tokens AS t (token_hash, expires_at) VALUES (\(hash), \(expiresAt))
        ON CONFLICT (token_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE t.expires_at < \(now)
        RETURNING 1
        """, logger: logger)
      for try await _ in rows.decode(Int.self) { return true }
      return false
    }
  }

  /// The keyed hashes of the session's owner and `sid` stored beside a ``LoginSession`` (`nil` for any other
  /// value, and for a session without `sid`).
  private func ownerHashes<Object>(_ value: Object) -> (owner: ByteBuffer?, sid: ByteBuffer?) {
    guard let session = value as? LoginSession else { return (nil, nil) }
    return (
      ownerHash(issuer: session.issuer, subject: session.subject),
      session.sid.map { sidHash(issuer: session.issuer, sid: $0) }
    )
  }

  private func ownerHash(issuer: String, subject: String) -> ByteBuffer {
    ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: Array(("owner\u{0}" + issuer + "\u{0}" + subject).utf8), using: keyHashKey))
  }

  private func sidHash(issuer: String, sid: String) -> ByteBuffer {
    ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: Array(("sid\u{0}" + issuer + "\u{0}" + sid).utf8), using: keyHashKey))
  }

  // MARK: - SessionRefreshLocking

  /// Runs `body` while holding a PostgreSQL advisory lock named by `key`'s hash (transaction-level: released
  /// when `body` ends, however it ends, or when the connection drops), so that one instance at a time runs it
  /// for one key. At most ``maximumRefreshLocks`` run at once on this instance. Getting the lock (a place here,
  /// a connection, the lock itself) may take ``operationTimeout`` at the most, then `PostgresStoreError`
  /// `store-timed-out` (a database that went away does not hold a logout for long); `body` itself runs for as
  /// long as it takes, and what it throws is thrown as it is.
  ///
  /// ```swift
  /// try await sessions.withRefreshLock(for: "hbs.abc") { try await refresh() }
  /// ```
  public func withRefreshLock<T: Sendable>(
    for key: String, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let lock = keyHash(key).getInteger(at: 0, as: Int64.self) ?? 0
    let (client, logger, lockHolders) = (self.client, self.logger, self.lockHolders)
    let outcome = await PostgresOperation.raceUntilStarted(operationTimeout) { started in
      try await lockHolders.run {
        try await PostgresOperation.withAdvisoryLock(lock, on: client, logger: logger) { _ -> Result<T, any Error> in
          guard started() else { throw PostgresStoreError(.timedOut, "timed out") }
          // `body`'s own error comes out as it is, not wrapped in the lock's transaction's error.
          do { return .success(try await body()) } catch { return .failure(error) }
        }
      }
    }
    switch outcome {
    case .none: throw PostgresStoreError(.timedOut, "timed out")
    case .some(.success(let result)): return try result.get()
    case .some(.failure(let error)): throw error
    }
  }

  // MARK: - Keys, sealing, sweeps

  /// What a write stores: the time, the key's hash, the sealed value, the expiry; the sweep first, when due.
  private func prepareWrite<Object: Encodable>(
    key: String, value: Object, expires: Duration?
  ) async throws -> (now: Int64, hash: ByteBuffer, sealed: ByteBuffer, expiresAt: Int64?) {
    try await sweepIfDue(Self.nowMilliseconds())
    // The clock read after the sweep (which may wait for the database), so that a value is not written older
    // than it is.
    let now = Self.nowMilliseconds()
    let hash = keyHash(key)
    return (now, hash, try seal(value, hash: hash), expires.map { now + Self.milliseconds($0) })
  }

  /// A row's idle expiry when written or used at `now` (`nil`: no idle limit).
  private func idleExpiry(_ now: Int64) -> Int64? {
    idleLifetime.map { now + Self.milliseconds($0) }
  }

  private func keyHash(_ key: String) -> ByteBuffer {
    ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: Array(key.utf8), using: keyHashKey))
  }

  private func seal<Object: Encodable>(_ value: Object, hash: ByteBuffer) throws -> ByteBuffer {
    do {
      let json = try JSONEncoder().encode(value)
      guard let combined = try AES.GCM.seal(json, using: sealKey, authenticating: hash.readableBytesView).combined
      else { throw PostgresStoreError(.sealing, "a value could not be sealed") }
      return ByteBuffer(bytes: combined)
    } catch let error as PostgresStoreError {
      throw error
    } catch {
      throw PostgresStoreError(.sealing, "a value could not be sealed")
    }
  }

  private func open(_ sealed: ByteBuffer, hash: ByteBuffer) -> Data? {
    guard let box = try? AES.GCM.SealedBox(combined: Data(sealed.readableBytesView)) else { return nil }
    return try? AES.GCM.open(box, using: sealKey, authenticating: hash.readableBytesView)
  }

  private func sweepIfDue(_ now: Int64) async throws {
    guard sweeps.claim(now: now, interval: Self.milliseconds(sweepInterval)) else { return }
    try await removeExpired()
  }

  private func run<T: Sendable>(
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    try await PostgresOperation.run(
      on: client, within: operationTimeout, logger: logger, failure: "session store unavailable", body)
  }

  static func nowMilliseconds() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
  }

  /// A duration in whole milliseconds, rounded up (a value never outlives its time by less).
  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
  }
}

