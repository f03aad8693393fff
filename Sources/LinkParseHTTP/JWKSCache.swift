// A provider's JWKS, fetched with OAuthHTTPClient and kept: refetched when its TTL (Cache-Control max-age,
// bounded) runs out, and once more when a token names a kid the keys do not have (the provider rotated them).
//
// Three rules bound what an attacker (or a broken provider) can make this do:
// - single flight: callers that need a fetch while one is running wait for that one;
// - a cooldown: at most one fetch starts per `refetchCooldown`, whatever triggered it (TTL, unknown kid, a
//   failed fetch), so a flood of tokens with made-up kids costs one request per cooldown, not one per token;
// - on a failed refresh the previous keys stay in service until `maximumStaleness` past their TTL.
// The fetch runs in an unstructured task, so one caller's cancellation does not fail the others.
// With a JWKSSharing (several instances of one app), a fetch first takes the shared lock for the URL and uses a
// document another instance fetched since, if there is one; what it fetches itself it shares.

public import LinkParseOAuth
public import LinkParseIDToken

/// The keys of one provider's JWKS endpoint, fetched on first use and kept fresh, for verifying id_tokens.
///
/// **When it fetches.** On first use; when the keys' TTL has run out (the answer's `Cache-Control: max-age`,
/// bounded by ``Configuration/minimumTTL`` and ``Configuration/maximumTTL``, else
/// ``Configuration/defaultTTL``); and once when ``verify(_:expecting:now:)`` meets a token whose key the
/// current keys lack (an ``IDTokenError/Code/unknownKey``: the provider rotated its keys), after which the token
/// is verified once more against the new keys. Concurrent callers share one request, and at most one request
/// starts per ``Configuration/refetchCooldown``: a token with an unknown `kid` that arrives during the cooldown
/// fails with `unknown-key` without a fetch.
///
/// **When a fetch fails** (non-2xx, timeout, a body over the client's limit, not a JWKS), the previous keys stay
/// in service until ``Configuration/maximumStaleness`` past their TTL, and the failure counts for the cooldown:
/// the endpoint is asked again at most once per cooldown. With no usable keys, the failure is thrown as an
/// ``OAuthResponseError`` (the last one again, without a request, during the cooldown).
///
/// The cache borrows `client` (its timeout, body limit and plain-`http` rule apply); shutting the client down
/// stays your job. Keep one cache per JWKS URL for the life of the process and share it.
///
/// **Several instances** can share their fetches through a ``JWKSSharing`` (LinkParsePostgres'
/// `PostgresJWKSSharing`): a cache that needs keys takes the shared lock for its URL, uses the document another
/// instance fetched since its own keys (if that document's TTL has not run out), and otherwise fetches and
/// shares what it got. So a key rotation costs one fetch for all the instances, not one each. When the sharing
/// fails (the database is away), the cache fetches on its own, as without it.
///
/// ```swift
/// let client = OAuthHTTPClient()
/// let appleKeys = JWKSCache(url: "https://appleid.apple.com/auth/keys", client: client)
/// let token = try await appleKeys.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
/// token.claims.subject  // the Apple user id
/// ```
public actor JWKSCache {

  /// How long keys are kept, and how often the endpoint may be asked.
  ///
  /// ```swift
  /// var configuration = JWKSCache.Configuration()
  /// configuration.refetchCooldown = .seconds(30)
  /// configuration.maximumStaleness = .seconds(6 * 3600)
  /// ```
  public struct Configuration: Sendable, Hashable {
    /// How long keys are used when the answer has no `Cache-Control: max-age` (1 hour by default).
    ///
    /// ```swift
    /// configuration.defaultTTL = .seconds(15 * 60)
    /// ```
    public var defaultTTL: Duration
    /// The shortest TTL a `max-age` may set (1 minute by default); `max-age=0`, `no-cache` and `no-store`
    /// give this.
    ///
    /// ```swift
    /// configuration.minimumTTL = .seconds(5 * 60)
    /// ```
    public var minimumTTL: Duration
    /// The longest TTL a `max-age` may set (24 hours by default). When it is below ``minimumTTL``, it wins.
    ///
    /// ```swift
    /// configuration.maximumTTL = .seconds(6 * 3600)
    /// ```
    public var maximumTTL: Duration
    /// The least time between the starts of two fetches (60 seconds by default), whatever triggers them: an
    /// expired TTL, an unknown `kid`, a failed fetch.
    ///
    /// ```swift
    /// configuration.refetchCooldown = .seconds(10)
    /// ```
    public var refetchCooldown: Duration
    /// The least time between the starts of two fetches when a token names a `kid` the current keys lack (30
    /// seconds by default, as jose's `cooldownDuration`): a provider that rotates its keys right after a fetch
    /// is asked again once this has passed, even inside ``refetchCooldown``. A flood of made-up kids then costs at
    /// most one fetch per this interval.
    ///
    /// ```swift
    /// configuration.unknownKeyRefetchInterval = .seconds(10)
    /// ```
    public var unknownKeyRefetchInterval: Duration
    /// How long past their TTL keys stay in service while refreshes fail (24 hours by default). Past it,
    /// verifying throws the refresh's failure until a fetch succeeds.
    ///
    /// ```swift
    /// configuration.maximumStaleness = .zero  // never verify with expired keys
    /// ```
    public var maximumStaleness: Duration

    /// Creates a configuration.
    ///
    /// ```swift
    /// JWKSCache.Configuration(defaultTTL: .seconds(600), refetchCooldown: .seconds(30))
    /// ```
    public init(
      defaultTTL: Duration = .seconds(3600), minimumTTL: Duration = .seconds(60),
      maximumTTL: Duration = .seconds(24 * 3600), refetchCooldown: Duration = .seconds(60),
      unknownKeyRefetchInterval: Duration = .seconds(30), maximumStaleness: Duration = .seconds(24 * 3600)
    ) {
      self.defaultTTL = defaultTTL
      self.minimumTTL = minimumTTL
      self.maximumTTL = maximumTTL
      self.refetchCooldown = refetchCooldown
      self.unknownKeyRefetchInterval = unknownKeyRefetchInterval
      self.maximumStaleness = maximumStaleness
    }
  }

  /// The JWKS endpoint (e.g. `https://appleid.apple.com/auth/keys`, a discovery document's `jwks_uri`).
  ///
  /// ```swift
  /// appleKeys.url  // "https://appleid.apple.com/auth/keys"
  /// ```
  public nonisolated let url: String
  /// The client the fetches go through (borrowed).
  ///
  /// ```swift
  /// appleKeys.client.configuration.timeout  // .seconds(10)
  /// ```
  public nonisolated let client: OAuthHTTPClient
  /// The TTL bounds, cooldown and staleness limit in force.
  ///
  /// ```swift
  /// appleKeys.configuration.refetchCooldown  // .seconds(60)
  /// ```
  public nonisolated let configuration: Configuration
  /// Where instances share their fetches, if anywhere.
  ///
  /// ```swift
  /// appleKeys.sharing  // a PostgresJWKSSharing, or nil
  /// ```
  public nonisolated let sharing: (any JWKSSharing)?
  private nonisolated let clock: @Sendable () -> ContinuousClock.Instant

  /// One fetched key set: `generation` counts successful fetches.
  private struct Keys: Sendable {
    var verifier: IDTokenVerifier
    var generation: Int
    var expiresAt: ContinuousClock.Instant
    /// The shared document these keys came from or were shared as (``SharedJWKS/fetchID``), if any.
    var sharedFetchID: UInt64?
  }

  private var keys: Keys?
  private var generations = 0
  private var inFlight: Task<Result<Keys, OAuthResponseError>, Never>?
  private var lastFetchStart: ContinuousClock.Instant?
  private var lastFailure: OAuthResponseError?

  /// Creates a cache for the JWKS at `url`; nothing is fetched until first use.
  ///
  /// `clock` tells the time for TTLs, the cooldown and staleness (tests pass one they can move).
  ///
  /// ```swift
  /// let keys = JWKSCache(url: "https://id.example/jwks", client: client,
  ///                      configuration: .init(refetchCooldown: .seconds(30)))
  /// ```
  public init(
    url: String, client: OAuthHTTPClient, configuration: Configuration = Configuration(),
    sharing: (any JWKSSharing)? = nil, clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  ) {
    self.url = url
    self.client = client
    self.configuration = configuration
    self.sharing = sharing
    self.clock = clock
  }

  // MARK: - Verifying

  /// A verifier for the current keys: the cached one while its TTL lasts, else the result of a fetch (or of
  /// the one in flight). When a refresh fails, the previous keys are returned while they are within
  /// ``Configuration/maximumStaleness``; otherwise the fetch's ``OAuthResponseError`` is thrown
  /// (``OAuthResponseError/Code/httpStatus``, ``OAuthResponseError/Code/timeout``,
  /// ``OAuthResponseError/Code/bodyTooLarge``, ``OAuthResponseError/Code/transport``, or
  /// ``OAuthResponseError/Code/unexpectedShape`` for an answer that is not a JWKS with a usable RS256/ES256 key).
  ///
  /// This does not refetch for an unknown `kid`; ``verify(_:expecting:now:)`` does.
  ///
  /// ```swift
  /// let verifier = try await appleKeys.verifier()
  /// verifier.keys.map(\.keyID)  // ["W6WcOKB", "fh6Bs8C"]
  /// ```
  public func verifier() async throws(OAuthResponseError) -> IDTokenVerifier {
    try await currentKeys().verifier
  }

  /// Verifies `token` with the current keys (see ``verifier()``); when its key is unknown to them, refetches
  /// the JWKS once (unless a fetch started less than ``Configuration/unknownKeyRefetchInterval`` ago) and
  /// verifies again.
  ///
  /// Throws ``IDTokenError`` when the token is refused (``IDTokenError/Code/unknownKey`` when even the refetched
  /// keys — or, while the cache is cooling down, the current ones — lack its key; the message then says how
  /// long ago the keys were fetched and from when a refetch is allowed), or ``OAuthResponseError`` when no
  /// usable keys could be had.
  ///
  /// ```swift
  /// do {
  ///   let token = try await appleKeys.verify(idToken, expecting: .apple(clientID: "com.example.web", nonce: nonce))
  /// } catch let error as IDTokenError {
  ///   print(error.code)  // expired, unknown-key, …
  /// } catch let error as OAuthResponseError {
  ///   print(error.code)  // timeout, http-status, …: Apple's keys could not be read
  /// }
  /// ```
  public nonisolated func verify(
    _ token: some StringProtocol, expecting expected: IDTokenVerifier.Expectations,
    now: Int64 = IDTokenVerifier.currentUnixTime
  ) async throws -> VerifiedIDToken {
    let keys = try await currentKeys()
    do {
      return try keys.verifier.verify(token, expecting: expected, now: now)
    } catch let error where error.code == .unknownKey {
      let fresh = try await refresh(replacing: keys.generation, unknownKey: true)
      guard fresh.generation != keys.generation else { throw await coolingDown(error, now: now) }
      return try fresh.verifier.verify(token, expecting: expected, now: now)
    }
  }

  /// An `unknown-key` refused during the cooldown, told so: when the keys were fetched and from when (Unix
  /// seconds) a refetch is allowed, instead of the verifier's advice to refetch, which the cache just declined.
  private func coolingDown(_ error: IDTokenError, now: Int64) -> IDTokenError {
    guard let lastFetchStart else { return error }
    let interval = min(configuration.refetchCooldown, configuration.unknownKeyRefetchInterval)
    let elapsed = clock() - lastFetchStart
    let wait = max(Duration.zero, interval - elapsed)
    let seconds = Int64((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up))
    var cooled = error
    cooled.message =
      error.message.replacing(" (refetch the JWKS if the provider rotated its keys)", with: "")
      + "; the JWKS at \(RequestTarget(url).host) was fetched \(elapsed.components.seconds) s ago and the cache is "
      + "cooling down: it refetches for an unknown kid at most every \(interval.components.seconds) s, next from "
      + "\(now + seconds) (in \(seconds) s)"
    return cooled
  }

  // MARK: - Fetching

  private func currentKeys() async throws(OAuthResponseError) -> Keys {
    if let keys, clock() < keys.expiresAt { return keys }
    return try await refresh(replacing: nil)
  }

  /// Newer keys than generation `stale` (or than expired ones, for `nil`): those another caller fetched, the
  /// fetch in flight, or a new fetch when the cooldown allows one; during the cooldown, the current keys.
  /// For an `unknownKey`, the shorter ``Configuration/unknownKeyRefetchInterval`` stands for the cooldown.
  private func refresh(replacing stale: Int?, unknownKey: Bool = false) async throws(OAuthResponseError) -> Keys {
    if let stale, let keys, keys.generation != stale { return keys }
    if let inFlight { return try await settle(inFlight) }
    let now = clock()
    let cooldown =
      unknownKey ? min(configuration.refetchCooldown, configuration.unknownKeyRefetchInterval) : configuration.refetchCooldown
    if let lastFetchStart, now < lastFetchStart + cooldown {
      if let keys, isServable(keys, at: now) { return keys }
      throw lastFailure
        ?? OAuthResponseError(.transport, message: "the JWKS keys at \(RequestTarget(url).host) are too old to use")
    }
    let previousStart = lastFetchStart
    lastFetchStart = now
    // Isolated to this actor: `inFlight` is set below before the task can run, and cleared by `load`.
    let task = Task { await self.load(previousStart: previousStart) }
    inFlight = task
    return try await settle(task)
  }

  /// Fetches (or takes another instance's newer fetch), then records the result (on the actor, before any
  /// waiting caller resumes).
  /// Keys another instance shared cost the provider nothing: they do not start the cooldown (`previousStart`
  /// is put back), so that the unknown `kid` they may still lack can be fetched at once.
  private func load(previousStart: ContinuousClock.Instant?) async -> Result<Keys, OAuthResponseError> {
    let result = await Self.obtain(
      url: url, client: client, configuration: configuration, sharing: sharing, replacing: keys?.sharedFetchID)
    inFlight = nil
    switch result {
    case .success(let obtained):
      if !obtained.fetched { lastFetchStart = previousStart }
      generations += 1
      let fetched = Keys(
        verifier: obtained.verifier, generation: generations, expiresAt: clock() + obtained.ttl,
        sharedFetchID: obtained.sharedFetchID)
      keys = fetched
      lastFailure = nil
      return .success(fetched)
    case .failure(let error):
      lastFailure = error
      return .failure(error)
    }
  }

  /// What a load got: the keys, how long they last, the shared document they are, whether the provider was asked.
  private struct Obtained: Sendable {
    var verifier: IDTokenVerifier
    var ttl: Duration
    var sharedFetchID: UInt64?
    var fetched = true
  }

  /// Without sharing, one fetch. With it, under the URL's shared lock: the shared document when another
  /// instance stored one other than `replacing` (ours) that has not expired, else a fetch, shared; when the
  /// sharing itself fails, a fetch of our own.
  private nonisolated static func obtain(
    url: String, client: OAuthHTTPClient, configuration: Configuration, sharing: (any JWKSSharing)?,
    replacing current: UInt64?
  ) async -> Result<Obtained, OAuthResponseError> {
    /// A fetch of our own, shared with no one.
    @Sendable func fetchAlone() async -> Result<Obtained, OAuthResponseError> {
      await fetch(url: url, client: client, configuration: configuration).map {
        Obtained(verifier: $0.verifier, ttl: $0.ttl)
      }
    }
    guard let sharing else { return await fetchAlone() }
    do {
      return try await sharing.withJWKSLock(url: url) {
        let now = IDTokenVerifier.currentUnixTime
        if let document = try await sharing.loadJWKS(url: url), document.fetchID != current, document.expiresAt > now,
          let verifier = try? await IDTokenVerifier(jwksJSON: document.json)
        {
          return .success(
            Obtained(
              verifier: verifier, ttl: .seconds(document.expiresAt - now), sharedFetchID: document.fetchID,
              fetched: false))
        }
        let got: (verifier: IDTokenVerifier, ttl: Duration, json: [UInt8])
        switch await fetch(url: url, client: client, configuration: configuration) {
        case .success(let fetched): got = fetched
        case .failure(let error): return .failure(error)
        }
        let document = SharedJWKS(
          json: got.json, fetchedAt: now, expiresAt: now + got.ttl.components.seconds,
          fetchID: UInt64.random(in: 1...UInt64.max))
        try? await sharing.storeJWKS(document, url: url)
        return .success(Obtained(verifier: got.verifier, ttl: got.ttl, sharedFetchID: document.fetchID))
      }
    } catch {
      return await fetchAlone()
    }
  }

  /// The fetch's keys; on failure, the previous keys while they are servable, else the failure.
  private func settle(_ task: Task<Result<Keys, OAuthResponseError>, Never>) async throws(OAuthResponseError) -> Keys {
    switch await task.value {
    case .success(let fetched): return fetched
    case .failure(let error):
      if let keys, isServable(keys, at: clock()) { return keys }
      throw error
    }
  }

  private func isServable(_ keys: Keys, at now: ContinuousClock.Instant) -> Bool {
    now < keys.expiresAt + configuration.maximumStaleness
  }

  /// One GET of the JWKS: the verifier, the TTL its `Cache-Control` gives, the document.
  private nonisolated static func fetch(
    url: String, client: OAuthHTTPClient, configuration: Configuration
  ) async -> Result<(verifier: IDTokenVerifier, ttl: Duration, json: [UInt8]), OAuthResponseError> {
    let request = OAuthRequest(
      kind: .jwks, method: .get, url: url, headers: [.init("Accept", "application/jwk-set+json, application/json")])
    let response: OAuthHTTPResponse
    do {
      response = try await client.send(request)
    } catch {
      return .failure(error)
    }
    guard response.isSuccess else { return .failure(StatusErrors.error(for: response, request: request)) }
    do {
      let verifier = try await IDTokenVerifier(jwksJSON: response.body)
      let ttl = timeToLive(cacheControl: response.headerValue("Cache-Control"), configuration: configuration)
      return .success((verifier, ttl, response.body))
    } catch {
      let target = RequestTarget(url)
      return .failure(
        OAuthResponseError(
          .unexpectedShape, field: "keys",
          message: "the answer of \(target.host)\(target.path) is not a usable JWKS: \(error.message)",
          status: response.status))
    }
  }

  /// The TTL for keys answered with `cacheControl`: its `max-age` (`no-cache`, `no-store`: zero) within
  /// ``Configuration/minimumTTL``…``Configuration/maximumTTL``, else ``Configuration/defaultTTL``.
  static func timeToLive(cacheControl: String?, configuration: Configuration) -> Duration {
    var requested: Duration?
    for directive in (cacheControl ?? "").split(separator: ",") {
      let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = parts[0].trimmingSpaces.lowercased()
      if name == "no-cache" || name == "no-store" {
        requested = .zero
        break
      }
      guard name == "max-age", parts.count == 2 else { continue }
      var value = parts[1].trimmingSpaces
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
      guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
      // RFC 9111 §1.2.2: a delta-seconds too large to hold means "a very long time".
      requested = Int64(value).map { Duration.seconds($0) } ?? configuration.maximumTTL
    }
    guard let requested else { return configuration.defaultTTL }
    return min(max(requested, configuration.minimumTTL), configuration.maximumTTL)
  }
}

/// Where several instances of an app share the JWKS documents their ``JWKSCache``s fetch, so that a key
/// rotation costs one fetch for all of them. LinkParsePostgres' `PostgresJWKSSharing` keeps them in PostgreSQL,
/// authenticated (a document that anyone could write there would be keys anyone could sign id_tokens with).
///
/// ```swift
/// let keys = JWKSCache(url: metadata.jwksURI, client: client, sharing: PostgresJWKSSharing(client: db, secret: secret))
/// ```
public protocol JWKSSharing: Sendable {
  /// Runs `body` while holding the lock for `url` that instances take before they fetch it.
  func withJWKSLock<T: Sendable>(url: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T
  /// The document last shared for `url`, if any (expired ones included; the cache checks).
  func loadJWKS(url: String) async throws -> SharedJWKS?
  /// Shares `document` as the one for `url`, replacing what was there.
  func storeJWKS(_ document: SharedJWKS, url: String) async throws
}

/// A JWKS document one instance fetched, as it shares it.
///
/// ```swift
/// SharedJWKS(json: Array(body), fetchedAt: now, expiresAt: now + 300, fetchID: 42)
/// ```
public struct SharedJWKS: Sendable, Hashable {
  /// The JWKS, as the endpoint answered it.
  public var json: [UInt8]
  /// When it was fetched (Unix seconds).
  public var fetchedAt: Int64
  /// When its TTL runs out (Unix seconds).
  public var expiresAt: Int64
  /// A random id of the fetch: how a cache tells a document it already has from a newer one.
  public var fetchID: UInt64

  /// A shared document.
  ///
  /// ```swift
  /// SharedJWKS(json: Array(body), fetchedAt: now, expiresAt: now + 300, fetchID: 42)
  /// ```
  public init(json: [UInt8], fetchedAt: Int64, expiresAt: Int64, fetchID: UInt64) {
    self.json = json
    self.fetchedAt = fetchedAt
    self.expiresAt = expiresAt
    self.fetchID = fetchID
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return self[endIndex...]
    }
    return self[first...last]
  }
}
