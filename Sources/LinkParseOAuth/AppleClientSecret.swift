// Sign in with Apple's client_secret: an ES256 JWT signed with the team's private key (the .p8 file), sent
// as `client_secret` to https://appleid.apple.com/auth/token. The signature is made by swift-crypto.

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import Crypto
public import LinkParseProviders
import LinkParseBytes

/// The `client_secret` JWT Sign in with Apple requires at its token endpoint.
///
/// Header `{"alg":"ES256","kid":<key id>}`; claims `iss` = team id, `iat` = now, `exp` = now + lifetime
/// (default 300 s, at most 15,777,000 s, about six months), `aud` = `https://appleid.apple.com`, `sub` = the
/// client id (the Services ID for the web, the bundle id for an app). Made from the `.p8` private key Apple
/// lets you download once.
///
/// ```swift
/// let secret = try AppleClientSecret(
///   privateKeyPEM: p8Contents, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clientID: "com.example.web")
/// let jwt = try secret.make()   // eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.…
/// ```
public struct AppleClientSecret: Sendable {
  /// The audience Apple expects.
  public static let audience = "https://appleid.apple.com"
  /// The default lifetime: five minutes, enough for one token request.
  public static let defaultLifetime: Duration = .seconds(300)
  /// The longest lifetime Apple accepts: 15,777,000 s (six months).
  public static let maxLifetime: Duration = .seconds(15_777_000)

  /// The key id (`kid`) of the private key, from the developer account.
  public let keyID: String
  /// The 10-character team id (`iss`).
  public let teamID: String
  /// The client id (`sub`): Services ID or bundle id.
  public let clientID: String
  private let key: P256.Signing.PrivateKey

  /// Reads the private key from the `.p8` file's contents (PEM, `-----BEGIN PRIVATE KEY-----`).
  ///
  /// Throws ``IDTokenError/Code/invalidClientSecret`` when the PEM is not a P-256 private key or an id is
  /// empty.
  ///
  /// ```swift
  /// let secret = try AppleClientSecret(privateKeyPEM: pem, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clientID: "com.example.web")
  /// ```
  public init(privateKeyPEM: String, keyID: String, teamID: String, clientID: String) throws(IDTokenError) {
    guard !keyID.isEmpty, !teamID.isEmpty, !clientID.isEmpty else {
      throw IDTokenError(.invalidClientSecret, message: "the key id, team id and client id must not be empty")
    }
    do {
      key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    } catch {
      throw IDTokenError(.invalidClientSecret, message: "the PEM is not a P-256 private key (Apple's .p8 file)")
    }
    self.keyID = keyID
    self.teamID = teamID
    self.clientID = clientID
  }

  /// Makes a signed `client_secret` valid from `now` for `lifetime` (whole seconds).
  ///
  /// Throws ``IDTokenError/Code/invalidClientSecret`` when `lifetime` is not in 1…``maxLifetime``.
  ///
  /// ```swift
  /// let jwt = try secret.make(lifetime: .seconds(3600))
  /// ```
  public func make(now: Int64 = PendingAuthorization.currentUnixTime(), lifetime: Duration = AppleClientSecret.defaultLifetime)
    throws(IDTokenError) -> String
  {
    let (lifetime, maxLifetime) = (lifetime.components.seconds, Self.maxLifetime.components.seconds)
    guard lifetime >= 1, lifetime <= maxLifetime else {
      throw IDTokenError(
        .invalidClientSecret, claim: "exp",
        message: "the lifetime is \(lifetime) s; Apple accepts 1 to \(maxLifetime) s (six months)")
    }
    guard now >= 0, now <= Int64.max - lifetime else {
      throw IDTokenError(.invalidClientSecret, claim: "iat", message: "now is out of range")
    }
    let header = #"{"alg":"ES256","kid":"# + Self.quote(keyID) + "}"
    let claims =
      #"{"iss":"# + Self.quote(teamID) + #","iat":\#(now),"exp":\#(now + lifetime),"aud":"#
      + Self.quote(Self.audience) + #","sub":"# + Self.quote(clientID) + "}"
    let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    let signature: P256.Signing.ECDSASignature
    do {
      signature = try key.signature(for: Array(signingInput.utf8))
    } catch {
      throw IDTokenError(.invalidClientSecret, message: "signing failed")
    }
    return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
  }

  /// `text` as a JSON string literal.
  static func quote(_ text: String) -> String { JSONValue.quoted(text) }
}
