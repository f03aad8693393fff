// The JWKS documents that several instances' JWKSCaches fetch, shared in PostgreSQL: a key rotation costs one
// fetch for all of them.

public import Crypto
import Foundation
public import LinkParseHTTP
public import Logging
import NIOCore
public import PostgresNIO

/// LinkParseHTTP's ``JWKSSharing`` on PostgreSQL: give it to every instance's `JWKSCache` and a key rotation
/// costs one JWKS fetch for them all (a cache takes the URL's advisory lock, finds the document another instance
/// fetched since its own keys, and uses it).
///
/// **Authenticated.** A shared JWKS is the set of keys id_tokens are trusted under: whoever could write one
/// could sign in as anyone. So each row carries an HMAC-SHA256 over the URL, the document and its times, under a
/// key derived from `secret` (the same on every instance); a row whose MAC does not verify is ignored (and
/// logged), and the cache fetches from the provider itself.
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS linkparse_jwks (
///   url text PRIMARY KEY, document bytea NOT NULL, fetched_at bigint NOT NULL, expires_at bigint NOT NULL,
///   fetch_id bigint NOT NULL, mac bytea NOT NULL);
/// ```
///
/// ```swift
/// let sharing = PostgresJWKSSharing(client: client, secret: secret)
/// try await sharing.migrate()
/// let keys = JWKSCache(url: metadata.jwksURI, client: http, sharing: sharing)
/// ```
public struct PostgresJWKSSharing: JWKSSharing {
  private let client: PostgresClient
  private let macKey: SymmetricKey
  private let logger: Logger
  /// How long any one query may take.
  ///
  /// ```swift
  /// sharing.operationTimeout  // .seconds(10)
  /// ```
  public let operationTimeout: Duration

  /// Sharing on `client` (which the caller runs), authenticated with a key derived from `secret`.
  ///
  /// ```swift
  /// let sharing = PostgresJWKSSharing(client: client, secret: SymmetricKey(data: secretBytes))
  /// ```
  public init(
    client: PostgresClient, secret: SymmetricKey, operationTimeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "LinkParsePostgres")
  ) {
    self.client = client
    self.macKey = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: secret, info: Array("linkparse shared jwks v1".utf8), outputByteCount: 32)
    self.operationTimeout = operationTimeout
    self.logger = logger
  }

  /// Creates the table when missing (safe to run again, and from several instances at once).
  ///
  /// ```swift
  /// try await sharing.migrate()
  /// ```
  public func migrate() async throws {
    try await PostgresOperation.migrate(
      on: client, within: operationTimeout, logger: logger, lock: 7318400119,
      [
        """
        CREATE TABLE IF NOT EXISTS linkparse_jwks (
          url text PRIMARY KEY, document bytea NOT NULL, fetched_at bigint NOT NULL, expires_at bigint NOT NULL,
          fetch_id bigint NOT NULL, mac bytea NOT NULL)
        """
      ])
  }

  /// Runs `body` under the transaction-level advisory lock named by `url`'s hash.
  ///
  /// ```swift
  /// try await sharing.withJWKSLock(url: url) { try await fetchAndShare() }
  /// ```
  public func withJWKSLock<T: Sendable>(
    url: String, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let digest = Array(SHA256.hash(data: Array("linkparse jwks lock\u{0}\(url)".utf8)))
    let lock = digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    return try await PostgresOperation.withAdvisoryLock(lock, on: client, logger: logger) { _ in try await body() }
  }

  /// The document shared for `url` whose MAC verifies, or `nil`.
  ///
  /// ```swift
  /// try await sharing.loadJWKS(url: "https://appleid.apple.com/auth/keys")?.expiresAt
  /// ```
  public func loadJWKS(url: String) async throws -> SharedJWKS? {
    let row = try await run { client, logger -> (ByteBuffer, Int64, Int64, Int64, ByteBuffer)? in
      let rows = try await client.query(
        "SELECT document, fetched_at, expires_at, fetch_id, mac FROM linkparse_jwks WHERE url = \(url)",
        logger: logger)
      for try await row in rows.decode((ByteBuffer, Int64, Int64, Int64, ByteBuffer).self) { return row }
      return nil
    }
    guard let (document, fetchedAt, expiresAt, fetchID, mac) = row else { return nil }
    let shared = SharedJWKS(
      json: Array(document.readableBytesView), fetchedAt: fetchedAt, expiresAt: expiresAt,
      fetchID: UInt64(bitPattern: fetchID))
    guard HMAC<SHA256>.isValidAuthenticationCode(mac.readableBytesView, authenticating: signed(shared, url), using: macKey)
    else {
      logger.warning("a shared JWKS did not authenticate (another secret, or written by someone else): ignored")
      return nil
    }
    return shared
  }

  /// Shares `document` for `url`, with its MAC.
  ///
  /// ```swift
  /// try await sharing.storeJWKS(document, url: url)
  /// ```
  public func storeJWKS(_ document: SharedJWKS, url: String) async throws {
    let mac = ByteBuffer(bytes: HMAC<SHA256>.authenticationCode(for: signed(document, url), using: macKey))
    let body = ByteBuffer(bytes: document.json)
    let (fetchedAt, expiresAt, fetchID) = (document.fetchedAt, document.expiresAt, Int64(bitPattern: document.fetchID))
    try await run { client, logger in
      try await client.query(
        """
        INSERT INTO linkparse_jwks (url, document, fetched_at, expires_at, fetch_id, mac)
        VALUES (\(url), \(body), \(fetchedAt), \(expiresAt), \(fetchID), \(mac))
        ON CONFLICT (url) DO UPDATE SET document = EXCLUDED.document, fetched_at = EXCLUDED.fetched_at,
          expires_at = EXCLUDED.expires_at, fetch_id = EXCLUDED.fetch_id, mac = EXCLUDED.mac
        """, logger: logger)
    }
  }

  /// What the MAC covers: every field, each length-prefixed (no two documents sign the same bytes).
  private func signed(_ document: SharedJWKS, _ url: String) -> [UInt8] {
    var bytes = Array("linkparse jwks v1".utf8)
    for field in [Array(url.utf8), document.json] {
      withUnsafeBytes(of: UInt64(field.count).bigEndian) { bytes += $0 }
      bytes += field
    }
    for value in [UInt64(bitPattern: document.fetchedAt), UInt64(bitPattern: document.expiresAt), document.fetchID] {
      withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
    return bytes
  }

  private func run<T: Sendable>(
    _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T
  ) async throws(PostgresStoreError) -> T {
    try await PostgresOperation.run(
      on: client, within: operationTimeout, logger: logger, failure: "JWKS sharing unavailable", body)
  }
}
