// A pending-authorization store that several server instances share, on PostgreSQL.

public import Crypto
public import LinkParseCore
@_spi(PendingAuthorizationStores) public import LinkParseProviders
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
/// ``CallbackError`` with code `store-unavailable`, as does every database error: ``consume(_:parameters:now:)``
/// has one error type.
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
/// ```
///
/// **No secret in clear.** The `state` is stored only as `HMAC-SHA256` under a key derived from `secret`
/// (HKDF-SHA256), and looked up by it; the rest of the authorization (its PKCE verifier, nonce, client id,
/// the state itself) is sealed with AES-GCM under a second key derived from the same secret, authenticated
/// together with its row's `redirect_key` and `provider` (a sealed value moved to another row does not open).
/// Rotating `secret` is out of scope: authorizations inserted under an old secret are not found under a new
/// one (they live minutes; let them expire).
///
/// **Single use.** A callback with a state binds with one statement,
/// `UPDATE … SET consumed_at = now WHERE state_key = $1 AND consumed_at IS NULL RETURNING …`, so of any number
/// of concurrent callbacks for one authorization, on any instance, exactly one gets the row; the others find
/// it consumed and throw `replayed`. The row is then opened and validated in Swift; when the callback turns
/// out not to be bound to it (`redirect-mismatch`, `state-mismatch`: only reachable by a caller who knows the
/// state) the row is put back (`consumed_at = NULL`), else it stays consumed, whatever validation said.
/// A state-less callback (the T-ID app flow, the Sber apps' error grammars) runs in a transaction that locks
/// the candidate state-less rows `FOR UPDATE`: it binds only while exactly one state-less authorization is
/// pending for the redirect URI, and (T-ID) exactly one state-less T-ID authorization is pending at all,
/// else `ambiguous-authorization`. A state-less forged error (`?result=FAILURE&error_code=5`) is decoded and
/// returned but leaves the real authorization pending.
///
/// Consumed rows are kept ``consumedGracePeriod`` seconds past their expiry (or their consumption, when
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
public struct PostgresPendingAuthorizationStore: PendingAuthorizationStoring {
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
  private let stateKey: SymmetricKey
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
  /// store.consumedGracePeriod  // 3600
  /// ```
  public let consumedGracePeriod: Int64

  /// A store on `client` (which the caller runs), with its keys derived from `secret` (at least 256 bits
  /// recommended; keep it secret, the same on every instance).
  ///
  /// ```swift
  /// let store = PostgresPendingAuthorizationStore(
  ///   client: client, secret: SymmetricKey(data: secretBytes), operationTimeout: .seconds(5))
  /// ```
  public init(
    client: PostgresClient, secret: SymmetricKey, consumedGracePeriod: Int64 = 3600,
    operationTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "LinkParsePostgres")
  ) {
    self.client = client
    self.stateKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse pending-authorization state-key v1".utf8),
      outputByteCount: 32)
    self.sealKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse pending-authorization seal v1".utf8), outputByteCount: 32)
    self.consumedGracePeriod = max(0, consumedGracePeriod)
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
  /// - Throws: ``CallbackError`` `store-unavailable` when the database cannot be reached or refuses.
  public func migrate() async throws {
    let logger = self.logger
    try await guarded { [client] in
      try await client.withConnection { connection in
        // Serialize concurrent migrations (CREATE … IF NOT EXISTS can race on the catalog).
        try await connection.withTransaction(logger: logger) { c in
          try await c.query("SELECT pg_advisory_xact_lock(7318400117)", logger: logger)
          try await c.query(
            """
            CREATE TABLE IF NOT EXISTS linkparse_schema_version (
              component text PRIMARY KEY, version integer NOT NULL)
            """, logger: logger)
          try await c.query(
            """
            CREATE TABLE IF NOT EXISTS linkparse_pending_authorizations (
              id bigserial PRIMARY KEY, state_key bytea, redirect_key text NOT NULL, provider text NOT NULL,
              sealed bytea NOT NULL, expires_at bigint, created_at bigint NOT NULL, consumed_at bigint)
            """, logger: logger)
          try await c.query(
            """
            CREATE UNIQUE INDEX IF NOT EXISTS linkparse_pending_authorizations_state_key
              ON linkparse_pending_authorizations (state_key) WHERE state_key IS NOT NULL
            """, logger: logger)
          try await c.query(
            """
            CREATE INDEX IF NOT EXISTS linkparse_pending_authorizations_stateless
              ON linkparse_pending_authorizations (redirect_key, provider)
              WHERE state_key IS NULL AND consumed_at IS NULL
            """, logger: logger)
          let version = Self.schemaVersion
          try await c.query(
            """
            INSERT INTO linkparse_schema_version (component, version) VALUES ('pending_authorizations', \(version))
            ON CONFLICT (component) DO NOTHING
            """, logger: logger)
        }
      }
    }
  }

  // MARK: - PendingAuthorizationStoring

  /// Adds a pending authorization (its state must not already be pending or recently consumed).
  ///
  /// ```swift
  /// try await store.insert(PendingAuthorization(provider: .tid, redirectURI: try ParsedURL("myapp://authorized"), state: nil))
  /// ```
  ///
  /// - Throws: ``CallbackError`` `store-unavailable` (also for a state already in the table).
  public func insert(_ authorization: PendingAuthorization) async throws {
    let redirectKey = Self.redirectKey(authorization.redirectURI)
    let provider = authorization.provider.rawValue
    let stateKey = authorization.state.map { self.stateKey(Array($0.utf8)) }
    let sealed: ByteBuffer
    do {
      sealed = try seal(authorization, redirectKey: redirectKey, provider: provider)
    } catch {
      throw CallbackError(.storeUnavailable, found: "sealing failed")
    }
    let expiresAt = authorization.expiresAt
    let now = PendingAuthorization.currentUnixTime()
    let logger = self.logger
    _ = try await guarded { [client] in
      try await client.query(
        """
        INSERT INTO linkparse_pending_authorizations
          (state_key, redirect_key, provider, sealed, expires_at, created_at)
        VALUES (\(stateKey), \(redirectKey), \(provider), \(sealed), \(expiresAt), \(now))
        """, logger: logger)
    }
  }

  /// The number of pending (not consumed) authorizations, expired ones included until
  /// ``removeExpired(now:)``.
  ///
  /// ```swift
  /// try await store.count  // 0
  /// ```
  public var count: Int {
    get async throws {
      let logger = self.logger
      return try await guarded { [client] in
        let rows = try await client.query(
          "SELECT count(*) FROM linkparse_pending_authorizations WHERE consumed_at IS NULL", logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
      }
    }
  }

  /// Deletes pending rows expired at `now`, and consumed rows past their expiry (or consumption) plus
  /// ``consumedGracePeriod``; returns how many rows went.
  ///
  /// ```swift
  /// let swept = try await store.removeExpired(now: PendingAuthorization.currentUnixTime())
  /// ```
  @discardableResult
  public func removeExpired(now: Int64 = PendingAuthorization.currentUnixTime()) async throws -> Int {
    let logger = self.logger
    let grace = consumedGracePeriod
    return try await guarded { [client] in
      let rows = try await client.query(
        """
        WITH gone AS (
          DELETE FROM linkparse_pending_authorizations
          WHERE (consumed_at IS NULL AND expires_at IS NOT NULL AND expires_at <= \(now))
             OR (consumed_at IS NOT NULL AND COALESCE(expires_at, consumed_at) + \(grace) <= \(now))
          RETURNING 1)
        SELECT count(*) FROM gone
        """, logger: logger)
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }
  }

  /// Binds `url` to a pending authorization, validates it, and consumes it, atomically across connections
  /// and instances.
  ///
  /// ```swift
  /// do {
  ///   let callback = try await store.consume(url)
  /// } catch where error.code == .replayed {
  ///   // an authorization already used, here or on another instance
  /// } catch where error.code == .storeUnavailable {
  ///   // the database did not answer: retry later
  /// }
  /// ```
  ///
  /// - Throws: ``CallbackError``: `not-pending`, `replayed`, `ambiguous-authorization`, any error of
  ///   ``PendingAuthorization/validate(_:parameters:now:)``, or `store-unavailable`.
  public func consume(
    _ url: ParsedURL, parameters: FormParameters? = nil, now: Int64 = PendingAuthorization.currentUnixTime()
  ) async throws(CallbackError) -> ProviderCallback {
    let parameters = parameters ?? ProviderDetector.callbackParameters(of: url)
    let binding = CallbackBinding(url, parameters: parameters)
    let redirectKey = Self.redirectKey(url)
    let result: Result<ProviderCallback, CallbackError>
    if let state = binding.state {
      let key = stateKey(state)
      result = try await guarded {
        try await self.consumeStated(url, parameters, now, binding, key, redirectKey)
      }
    } else {
      result = try await guarded {
        try await self.consumeStateless(url, parameters, now, binding, redirectKey)
      }
    }
    return try result.get()
  }

  // MARK: - Consuming

  /// A callback with a state: bound by `state_key` in one statement.
  private func consumeStated(
    _ url: ParsedURL, _ parameters: FormParameters, _ now: Int64, _ binding: CallbackBinding,
    _ key: ByteBuffer, _ redirectKey: String
  ) async throws -> Result<ProviderCallback, CallbackError> {
    if let duplicate = binding.duplicate {
      // A repeated critical parameter binds nothing (as in the in-memory store): rejected while anything is
      // pending at this redirect URI, else reported as a replay or a mismatch below.
      if try await !pendingCandidates(url, redirectKey, stateless: nil, limit: 16).isEmpty { return .failure(duplicate) }
      return try await notFound(url, binding, key, redirectKey)
    }
    let rows = try await client.query(
      """
      UPDATE linkparse_pending_authorizations SET consumed_at = \(now)
      WHERE state_key = \(key) AND consumed_at IS NULL
      RETURNING id, redirect_key, provider, sealed
      """, logger: logger)
    var taken: (Int64, PendingAuthorization)?
    for try await (id, rowRedirect, provider, sealed) in rows.decode((Int64, String, String, ByteBuffer).self) {
      taken = (id, try unseal(sealed, redirectKey: rowRedirect, provider: provider))
    }
    if let (id, authorization) = taken {
      if authorization.matchesRedirect(url) {
        let result: Result<ProviderCallback, CallbackError>
        do throws(CallbackError) {
          result = .success(try authorization.validate(url, parameters: parameters, now: now))
        } catch {
          result = .failure(error)
        }
        // Bound by its state: spent, unless it failed before binding (the one retire rule).
        if !PendingAuthorization.retires(
          result, callbackHasState: true, authorizationHasState: authorization.state != nil)
        {
          try await putBack(id)
        }
        return result
      }
      try await putBack(id)  // not this callback's redirect URI: as if the state had matched nothing
    }
    return try await notFound(url, binding, key, redirectKey)
  }

  /// No pending authorization has this state at this redirect URI: `replayed`, or a mismatch.
  private func notFound(
    _ url: ParsedURL, _ binding: CallbackBinding, _ key: ByteBuffer, _ redirectKey: String
  ) async throws -> Result<ProviderCallback, CallbackError> {
    // Nothing pending under this state at this redirect URI: a replay, or a mismatch.
    let consumed = try await client.query(
      """
      SELECT redirect_key, provider, sealed FROM linkparse_pending_authorizations
      WHERE state_key = \(key) AND consumed_at IS NOT NULL
      """, logger: logger)
    var replayed = false
    for try await (rowRedirect, provider, sealed) in consumed.decode((String, String, ByteBuffer).self) {
      if try unseal(sealed, redirectKey: rowRedirect, provider: provider).matchesRedirect(url) { replayed = true }
    }
    if replayed { return .failure(CallbackError(.replayed)) }
    let candidates = try await pendingCandidates(url, redirectKey, stateless: nil, limit: 16)
    if candidates.isEmpty { return .failure(try await nothingPending(url, binding)) }
    if let duplicate = binding.duplicate { return .failure(duplicate) }
    return .failure(binding.stateMismatch)
  }

  /// A callback without a state: in a transaction that locks the state-less candidates.
  private func consumeStateless(
    _ url: ParsedURL, _ parameters: FormParameters, _ now: Int64, _ binding: CallbackBinding,
    _ redirectKey: String
  ) async throws -> Result<ProviderCallback, CallbackError> {
    let logger = self.logger
    return try await client.withTransaction(logger: logger) { c in
      let locked = try await c.query(
        """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND state_key IS NULL AND consumed_at IS NULL
        ORDER BY id FOR UPDATE
        """, logger: logger)
      var stateless: [(Int64, PendingAuthorization)] = []
      for try await (id, rowRedirect, provider, sealed) in locked.decode((Int64, String, String, ByteBuffer).self) {
        let authorization = try unseal(sealed, redirectKey: rowRedirect, provider: provider)
        if authorization.matchesRedirect(url) { stateless.append((id, authorization)) }
      }
      var chosen: (id: Int64, authorization: PendingAuthorization)
      if stateless.count > 1 {
        if let duplicate = binding.duplicate { return .failure(duplicate) }
        return .failure(CallbackError(.ambiguousAuthorization))
      } else if let only = stateless.first {
        if let duplicate = binding.duplicate { return .failure(duplicate) }
        if only.1.provider == .tid {
          // T-ID app flow: bind only while exactly one T-ID authorization without state is pending at all.
          let tid = Provider.tid.rawValue
          let rows = try await c.query(
            """
            SELECT count(*) FROM linkparse_pending_authorizations
            WHERE provider = \(tid) AND state_key IS NULL AND consumed_at IS NULL
            """, logger: logger)
          var pendingTID: Int64 = 0
          for try await n in rows.decode(Int64.self) { pendingTID = n }
          if pendingTID != 1 { return .failure(CallbackError(.ambiguousAuthorization)) }
        }
        chosen = only
      } else {
        let stated = try await pendingCandidates(url, redirectKey, stateless: false, limit: 4, on: c)
        if stated.isEmpty {
          return .failure(try await statelessNothingPending(url, redirectKey, binding, on: c))
        }
        if let duplicate = binding.duplicate { return .failure(duplicate) }
        guard stated.count == 1 else {
          if try await statelessWasConsumed(url, redirectKey, on: c) { return .failure(CallbackError(.replayed)) }
          return .failure(binding.stateMismatchNone)
        }
        chosen = stated[0]  // validate() decides (the Sber apps' error grammars); else state-mismatch
      }
      // A state-less callback: spent only as the one retire rule says (a code to an authorization without
      // state); a forged `?cancelled` or Sber app error is reported but leaves the login pending.
      let id = chosen.id
      let result: Result<ProviderCallback, CallbackError>
      do throws(CallbackError) {
        result = .success(try chosen.authorization.validate(url, parameters: parameters, now: now))
      } catch {
        result = .failure(error)
      }
      if PendingAuthorization.retires(
        result, callbackHasState: false, authorizationHasState: chosen.authorization.state != nil)
      {
        try await retire(id, now, on: c)
      }
      return result
    }
  }

  /// Pending rows at `redirectKey` that match `url` (state-less, with a state, or either), up to `limit`.
  private func pendingCandidates(
    _ url: ParsedURL, _ redirectKey: String, stateless: Bool?, limit: Int, on connection: PostgresConnection? = nil
  ) async throws -> [(id: Int64, authorization: PendingAuthorization)] {
    let filter: PostgresQuery
    switch stateless {
    case true?:
      filter = """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL AND state_key IS NULL LIMIT \(limit)
        """
    case false?:
      filter = """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL AND state_key IS NOT NULL LIMIT \(limit)
        """
    case nil:
      filter = """
        SELECT id, redirect_key, provider, sealed FROM linkparse_pending_authorizations
        WHERE redirect_key = \(redirectKey) AND consumed_at IS NULL LIMIT \(limit)
        """
    }
    let rows: PostgresRowSequence
    if let connection {
      rows = try await connection.query(filter, logger: logger)
    } else {
      rows = try await client.query(filter, logger: logger)
    }
    var found: [(id: Int64, authorization: PendingAuthorization)] = []
    for try await (id, rowRedirect, provider, sealed) in rows.decode((Int64, String, String, ByteBuffer).self) {
      let authorization = try unseal(sealed, redirectKey: rowRedirect, provider: provider)
      if authorization.matchesRedirect(url) { found.append((id, authorization)) }
    }
    return found
  }

  /// Whether a consumed state-less authorization for `url`'s redirect URI is still remembered.
  private func statelessWasConsumed(
    _ url: ParsedURL, _ redirectKey: String, on c: PostgresConnection
  ) async throws -> Bool {
    let rows = try await c.query(
      """
      SELECT redirect_key, provider, sealed FROM linkparse_pending_authorizations
      WHERE redirect_key = \(redirectKey) AND state_key IS NULL AND consumed_at IS NOT NULL
      """, logger: logger)
    var consumed = false
    for try await (rowRedirect, provider, sealed) in rows.decode((String, String, ByteBuffer).self) {
      if try unseal(sealed, redirectKey: rowRedirect, provider: provider).matchesRedirect(url) { consumed = true }
    }
    return consumed
  }

  /// No candidate for a state-less callback: `replayed`, `not-pending` or `redirect-mismatch`.
  private func statelessNothingPending(
    _ url: ParsedURL, _ redirectKey: String, _ binding: CallbackBinding, on c: PostgresConnection
  ) async throws -> CallbackError {
    if try await statelessWasConsumed(url, redirectKey, on: c) { return CallbackError(.replayed) }
    return try await nothingPending(url, binding, on: c)
  }

  /// No candidate and no replay: `not-pending` when nothing is pending at all, else `redirect-mismatch`.
  private func nothingPending(
    _ url: ParsedURL, _ binding: CallbackBinding, on c: PostgresConnection? = nil
  ) async throws -> CallbackError {
    let query: PostgresQuery =
      "SELECT EXISTS (SELECT 1 FROM linkparse_pending_authorizations WHERE consumed_at IS NULL)"
    let rows: PostgresRowSequence
    if let c {
      rows = try await c.query(query, logger: logger)
    } else {
      rows = try await client.query(query, logger: logger)
    }
    var any = false
    for try await exists in rows.decode(Bool.self) { any = exists }
    return any ? binding.redirectMismatch : CallbackError(.notPending)
  }

  private func retire(_ id: Int64, _ now: Int64, on c: PostgresConnection) async throws {
    try await c.query(
      "UPDATE linkparse_pending_authorizations SET consumed_at = \(now) WHERE id = \(id)", logger: logger)
  }

  private func putBack(_ id: Int64) async throws {
    try await client.query(
      "UPDATE linkparse_pending_authorizations SET consumed_at = NULL WHERE id = \(id)", logger: logger)
  }

  // MARK: - Keys and sealing

  /// `redirect_key`: ``PendingAuthorization/redirectKey(_:)``.
  static func redirectKey(_ url: ParsedURL) -> String { PendingAuthorization.redirectKey(url) }

  private func stateKey(_ state: [UInt8]) -> ByteBuffer {
    ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: state, using: stateKey))
  }

  private func seal(_ authorization: PendingAuthorization, redirectKey: String, provider: String) throws -> ByteBuffer {
    let json = try JSONEncoder().encode(authorization)
    let box = try AES.GCM.seal(json, using: sealKey, authenticating: Self.aad(redirectKey, provider))
    guard let combined = box.combined else { throw CallbackError(.storeUnavailable, found: "sealing failed") }
    return ByteBuffer(bytes: combined)
  }

  private func unseal(_ sealed: ByteBuffer, redirectKey: String, provider: String) throws -> PendingAuthorization {
    do {
      let box = try AES.GCM.SealedBox(combined: Data(sealed.readableBytesView))
      let json = try AES.GCM.open(box, using: sealKey, authenticating: Self.aad(redirectKey, provider))
      return try JSONDecoder().decode(PendingAuthorization.self, from: json)
    } catch {
      throw CallbackError(.storeUnavailable, found: "a stored authorization could not be opened")
    }
  }

  private static func aad(_ redirectKey: String, _ provider: String) -> [UInt8] {
    Array("linkparse v1\u{0}\(provider)\u{0}\(redirectKey)".utf8)
  }

  // MARK: - Errors and time limit

  /// Runs `body` within ``operationTimeout``; any error but a callback's becomes `store-unavailable`.
  private func guarded<T: Sendable>(
    _ body: @escaping @Sendable () async throws -> T
  ) async throws(CallbackError) -> T {
    let timeout = operationTimeout
    do {
      return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
        group.addTask { .value(try await body()) }
        group.addTask {
          try await Task.sleep(for: timeout)
          return .timedOut
        }
        defer { group.cancelAll() }
        guard case .value(let value)? = try await group.next() else {
          throw CallbackError(.storeUnavailable, found: "timed out")
        }
        return value
      }
    } catch let error as CallbackError {
      throw error
    } catch let error as PostgresTransactionError where error.closureError is CallbackError {
      throw error.closureError as! CallbackError
    } catch {
      logger.warning("pending-authorization store unavailable", metadata: ["error": "\(String(reflecting: error))"])
      throw CallbackError(.storeUnavailable, found: Self.kind(of: error))
    }
  }

  private enum Outcome<T: Sendable>: Sendable {
    case value(T)
    case timedOut
  }

  /// The kind of a database error, safe to show (never its message, which may quote a query's values).
  private static func kind(of error: any Error) -> String {
    if let error = error as? PSQLError { return "database error: \(error.code)" }
    if error is PostgresTransactionError { return "database transaction failed" }
    if error is CancellationError { return "cancelled" }
    return "database error"
  }
}
