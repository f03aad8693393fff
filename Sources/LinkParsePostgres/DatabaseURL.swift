// A PostgresClient configuration from a libpq-style URL (`DATABASE_URL`), parsed by LinkParse's own parser.

import LinkParseCore
import NIOSSL
public import PostgresNIO

/// A `DATABASE_URL` that does not describe a PostgreSQL server: what is wrong, and where.
///
/// ```swift
/// do { _ = try PostgresPendingAuthorizationStore.clientConfiguration(databaseURL: "mysql://h/db") }
/// catch { print(error) }  // scheme "mysql" is not postgres or postgresql
/// ```
public struct DatabaseURLError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An English sentence (the password is never repeated).
  public let message: String
  /// The message.
  public var description: String { message }
}

extension PostgresPendingAuthorizationStore {
  /// A client configuration from `postgres://user[:password]@host[:port]/database[?sslmode=…]`: user, password and
  /// database percent-decoded, port 5432 by default; `sslmode` `disable`, `prefer`, `require` or `verify-full`
  /// (`require` and `verify-full` both verify the certificate and the host name: stricter than libpq's
  /// `require`, which verifies nothing). Without `sslmode` the connection requires verified TLS, unlike libpq,
  /// whose default `prefer` falls back to plaintext without a word when the server (or someone between) does not
  /// offer TLS: a database on loopback without TLS says `?sslmode=disable`. `prefer` is still there for whoever
  /// asks for it by name.
  ///
  /// ```swift
  /// let configuration = try PostgresPendingAuthorizationStore.clientConfiguration(
  ///   databaseURL: "postgres://app:s3cret@127.0.0.1:5432/logins?sslmode=disable")
  /// let client = PostgresClient(configuration: configuration)
  /// ```
  ///
  /// - Throws: ``DatabaseURLError`` for a URL that does not parse, another scheme, no user or host, or an
  ///   unknown `sslmode`.
  public static func clientConfiguration(databaseURL: String) throws(DatabaseURLError) -> PostgresClient.Configuration {
    let url: ParsedURL
    do {
      url = try ParsedURL(databaseURL)
    } catch {
      throw DatabaseURLError(message: "the database URL does not parse: \(error.code) at byte \(error.offset ?? 0)")
    }
    guard url.scheme == "postgres" || url.scheme == "postgresql" else {
      throw DatabaseURLError(message: "scheme \"\(url.scheme)\" is not postgres or postgresql")
    }
    guard let host = url.host, !host.isEmpty else { throw DatabaseURLError(message: "the database URL has no host") }
    guard !url.username.isEmpty else { throw DatabaseURLError(message: "the database URL has no user name") }
    let tls: PostgresClient.Configuration.TLS
    switch url.queryParameters.value(for: "sslmode", encoding: .percentEncoded) ?? "verify-full" {
    case "disable": tls = .disable
    case "prefer": tls = .prefer(.makeClientConfiguration())
    case "require", "verify-full": tls = .require(.makeClientConfiguration())
    case let other:
      throw DatabaseURLError(message: "sslmode \"\(other)\" is not disable, prefer, require or verify-full")
    }
    var hostName = String(host)
    if hostName.hasPrefix("["), hostName.hasSuffix("]") { hostName = String(hostName.dropFirst().dropLast()) }
    let database = FormParameters.decode(url.path.dropFirst(), encoding: .percentEncoded)
    return PostgresClient.Configuration(
      host: hostName, port: Int(url.port ?? 5432),
      username: FormParameters.decode(url.username, encoding: .percentEncoded),
      password: url.password.isEmpty ? nil : FormParameters.decode(url.password, encoding: .percentEncoded),
      database: database.isEmpty ? nil : database, tls: tls)
  }
}
