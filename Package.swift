// swift-tools-version:6.1
import PackageDescription

/// The settings every library target of LinkParse builds with: a module's imports are internal unless they say
/// `public import` (SE-0409), so no dependency leaks into a module's API by accident.
let librarySettings: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
  name: "LinkParse",
  // jwt-kit (id_token verification) needs macOS 13 / iOS 15; the rest of the package runs wherever Swift 6 does.
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "LinkParse", targets: ["LinkParse"]),
    .executable(name: "linkparse", targets: ["linkparse"]),
    // The fuzz properties, for the nested Fuzz package's targets (not API either).
    .library(name: "_LinkParseFuzzSupport", targets: ["FuzzSupport"]),
    // Optional networking: sends the requests LinkParseOAuth builds, with AsyncHTTPClient.
    .library(name: "LinkParseHTTP", targets: ["LinkParseHTTP"]),
    // Optional: what a web login's instances share on PostgreSQL: the pending-authorization store, the sessions,
    // the JWKS documents.
    .library(name: "LinkParsePostgres", targets: ["LinkParsePostgres"]),
    // Optional: the web login on Hummingbird 2 (WebLogin): starts, callbacks (GET and form_post), sessions with
    // tokens refreshed once at a time, logout, RFC 9457 problem JSON.
    .library(name: "LinkParseHummingbird", targets: ["LinkParseHummingbird"]),
  ],
  // System libraries are optional (README "Package traits and platforms"): both traits are on by default and take
  // effect on Linux only; `--disable-default-traits` builds the engine and `linkparse` with neither.
  traits: [
    .trait(
      name: "PCRE2",
      description: "Route constraints by the system PCRE2 (libpcre2-8, full syntax, JIT) on Linux; without it, "
        + "by the package's linear-time matcher."),
    .trait(
      name: "ICU",
      description: "Link the system ICU (libicuuc) on Linux, the IDNA oracle of the tests and fuzzing."),
    .default(enabledTraits: ["PCRE2", "ICU"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    // Already in the graph through AsyncHTTPClient; named for LinkParseHTTP's optional debug log.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // Already in the graph through postgres-nio; named for DATABASE_URL's sslmode.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // Sessions (SessionMiddleware) for LinkParseHummingbird's WebLogin.
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    // Documentation only: `make docs` (swift package generate-documentation); no target depends on it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // Thin C wrappers over ICU's UTS #46 API. ICU renames its C symbols per version with macros, so Swift
    // cannot call them through a module map; a C file compiled against the installed headers can.
    .target(
      name: "CICUShims",
      linkerSettings: [.linkedLibrary("icuuc")]
    ),
    // SSE2 byte-class masks (header-only, inlined into the Swift callers), where the CPU has SSE2.
    .target(name: "CByteScan"),
    // The bytes layer, `package` API only: scanning (SSE2 masks), word loads, UTF-8 validation, base64 and
    // base64url, the JSON reader and JSON string literals, constant-time comparison, a POSIX lock, one-object
    // byte storage. Every module's unsafe code that more than one module needs lives here.
    .target(name: "LinkParseBytes", dependencies: ["CByteScan"], swiftSettings: librarySettings),
    // The WHATWG URL parser and form parameters, and the `Provider` names routes and decoders share. No
    // Foundation.
    .target(
      name: "LinkParseCore",
      dependencies: [
        .target(name: "CICUShims", condition: .when(platforms: [.linux], traits: ["ICU"])), "CByteScan", "LinkParseBytes",
      ],
      swiftSettings: librarySettings
    ),
    // PCRE2 (libpcre2-8) for route constraints. The shim defines PCRE2_CODE_UNIT_WIDTH before including it.
    .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
    // Route patterns, the compiled matcher, constraints (PCRE2 with the trait on Linux, else the linear-time
    // matcher), ambiguity checks. Core and PCRE2 only: a route may name a `Provider` (Core), the router does not
    // depend on the decoders.
    .target(
      name: "LinkParseRouter",
      dependencies: [
        "LinkParseCore", "LinkParseBytes", .target(name: "CPCRE2", condition: .when(platforms: [.linux], traits: ["PCRE2"])),
      ],
      swiftSettings: librarySettings
    ),
    // Provider callback decoders, `ProviderCallback`, `CallbackError`, detection, and the check of a callback
    // against the authorization it answers (`PendingAuthorization.validate`, on the decoders' hot path).
    // `JSONValue`, the package's one JSON model (parsed with the bytes layer's reader), lives here too. No
    // Foundation.
    .target(
      name: "LinkParseProviders",
      dependencies: ["LinkParseCore", "LinkParseBytes", "CByteScan"],
      swiftSettings: librarySettings
    ),
    // The login's own module: authorization-request builders, PKCE, `LoginStart`, the stores' interface with the
    // one consume policy over a small storage interface, the in-memory store, and `ConsumedAuthorization`.
    .target(
      name: "LinkParseAuthorization",
      dependencies: [
        "LinkParseCore", "LinkParseBytes", "LinkParseProviders", .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "HeapModule", package: "swift-collections"),
      ],
      swiftSettings: librarySettings
    ),
    // After the callback: token, refresh, revoke and user-info requests as values, their JSON responses,
    // the decoding of id_tokens (not their verification: LinkParseIDToken) and Apple's client_secret. No
    // networking.
    .target(
      name: "LinkParseOAuth",
      dependencies: [
        "LinkParseCore", "LinkParseBytes", "LinkParseProviders", "LinkParseAuthorization",
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: librarySettings
    ),
    // id_token verification against a JWKS (jwt-kit: keys and RS256/ES256 signatures; the claims by this code).
    // Its own module, so that `linkparse` and apps that only decode callbacks do not link jwt-kit.
    .target(
      name: "LinkParseIDToken",
      dependencies: [
        "LinkParseOAuth", "LinkParseProviders", "LinkParseBytes",
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: librarySettings
    ),
    // Sends LinkParseOAuth's requests with AsyncHTTPClient and decodes the answers.
    .target(
      name: "LinkParseHTTP",
      dependencies: [
        "LinkParseOAuth", "LinkParseIDToken", "LinkParseProviders", "LinkParseAuthorization", "LinkParseBytes",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: librarySettings
    ),
    // A Hummingbird 2 web login: WebLogin, the start and callback endpoints, the session a login ends in (on
    // hummingbird-auth's SessionMiddleware), single-flight token refresh, logout; problem JSON for every refusal.
    .target(
      name: "LinkParseHummingbird",
      dependencies: [
        "LinkParseProviders", "LinkParseAuthorization", "LinkParseCore", "LinkParseRouter", "LinkParseBytes",
        "LinkParseHTTP", "LinkParseOAuth", "LinkParseIDToken",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: librarySettings
    ),
    // What the instances of a web login share on PostgreSQL (PostgresNIO): PendingAuthorizationStorage's queries
    // (state looked up by HMAC, the rest sealed with AES-GCM; the consume policy is LinkParseAuthorization's),
    // the sessions' PersistDriver (sealed at rest, refresh locks, back-channel logout) and the JWKS documents.
    .target(
      name: "LinkParsePostgres",
      dependencies: [
        "LinkParseCore", "LinkParseBytes", "LinkParseProviders", "LinkParseAuthorization", "LinkParseHTTP",
        "LinkParseHummingbird",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ],
      swiftSettings: librarySettings
    ),
    // Umbrella module: `import LinkParse`.
    .target(
      name: "LinkParse",
      dependencies: ["LinkParseCore", "LinkParseRouter", "LinkParseProviders", "LinkParseAuthorization", "LinkParseOAuth", "LinkParseIDToken"]),
    // The `linkparse` command's logic, as a library so tests and FuzzSupport can drive it: `package` API,
    // apart from the root command `LinkParseCommand` that the executable calls. The engine's modules, not the
    // umbrella: its Foundation interop (FoundationNetworking, so libcurl) has no place in the command.
    .target(
      name: "_LinkParseCLI",
      dependencies: [
        "LinkParseCore", "LinkParseRouter", "LinkParseProviders", "LinkParseAuthorization", "LinkParseOAuth",
        "LinkParseBytes",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // What a static linkparse needs before main where /proc is missing (an empty root): its arguments handed to
    // the standard library, the backtracer's helper named (Sources/CLinkParseStartup/startup.c).
    .target(name: "CLinkParseStartup"),
    .executableTarget(name: "linkparse", dependencies: ["_LinkParseCLI", "CLinkParseStartup"]),
    // The example login server (`make serve-example`): in-memory store, or PostgreSQL with DATABASE_URL.
    .executableTarget(
      name: "linkparse-example-server",
      dependencies: [
        "LinkParseHummingbird", "LinkParsePostgres", "LinkParseRouter", "LinkParseProviders", "LinkParseCore",
        "LinkParseAuthorization", "LinkParseHTTP", "LinkParseOAuth", "LinkParseIDToken",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/CallbackServer"
    ),
    // Helpers every test target may use (a deterministic generator); no dependencies.
    .target(name: "LinkParseTestSupport", path: "Tests/LinkParseTestSupport"),
    .testTarget(
      name: "LinkParseCoreTests", dependencies: ["LinkParseCore", "LinkParseBytes", "LinkParseTestSupport"],
      exclude: ["expected-failures.txt"]),
    .testTarget(
      name: "LinkParseRouterTests", dependencies: ["LinkParseRouter", "LinkParseCore", "LinkParseBytes", "LinkParseTestSupport"]),
    // The decoders, and the authorization module built on them (requests, PKCE, the in-memory store).
    .testTarget(
      name: "LinkParseProvidersTests",
      dependencies: ["LinkParseProviders", "LinkParseAuthorization", "LinkParseBytes", "LinkParseTestSupport"]),
    .testTarget(name: "LinkParseTests", dependencies: ["LinkParse"]),
    // Signs its own fixtures (RSA-2048 and P-256 keys made in the test) with jwt-kit and swift-crypto.
    .testTarget(
      name: "LinkParseOAuthTests",
      dependencies: [
        "LinkParseOAuth", "LinkParseIDToken", "LinkParseProviders", "LinkParseAuthorization", "LinkParseBytes",
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]),
    // Against a real HTTP server on 127.0.0.1 (SwiftNIO's HTTP/1 server, in the test process).
    .testTarget(
      name: "LinkParseHTTPTests",
      dependencies: [
        "LinkParseHTTP", "LinkParseOAuth", "LinkParseIDToken", "LinkParseProviders", "LinkParseAuthorization", "LinkParseTestSupport",
        "LinkParseCore", "LinkParseHummingbird",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        // P-256 keys and ES256 signatures for the JWKS cache's test tokens.
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // What several test targets share: the test database's configuration, a TCP proxy that can take the
    // database away.
    .target(
      name: "LinkParseServerTestSupport",
      dependencies: [
        "LinkParseCore", "LinkParsePostgres", "LinkParseAuthorization",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ],
      path: "Tests/LinkParseServerTestSupport"
    ),
    // Against a real PostgreSQL server (LINKPARSE_TEST_DATABASE_URL, started by .ci/postgres.sh).
    .testTarget(
      name: "LinkParsePostgresTests",
      dependencies: [
        "LinkParsePostgres", "LinkParseProviders", "LinkParseAuthorization", "LinkParseOAuth", "LinkParseIDToken", "LinkParseCore",
        "LinkParseServerTestSupport", "LinkParseHTTP", "LinkParseHummingbird",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "LinkParseHummingbirdTests",
      dependencies: [
        "LinkParseHummingbird", "LinkParseProviders", "LinkParseAuthorization", "LinkParseCore", "LinkParseRouter",
        "LinkParseTestSupport",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Hummingbird apps on 127.0.0.1 with the PostgreSQL store, driven by AsyncHTTPClient.
    .testTarget(
      name: "LinkParseServerTests",
      dependencies: [
        "LinkParseHummingbird", "LinkParsePostgres", "LinkParseRouter", "LinkParseProviders", "LinkParseCore",
        "LinkParseAuthorization", "LinkParseServerTestSupport", "LinkParseTestSupport", "linkparse-example-server",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    .testTarget(name: "LinkParseCLITests", dependencies: ["_LinkParseCLI", "LinkParse", "LinkParseBytes", "linkparse"]),
    // Every Swift code block of README.md, docs/ and the DocC catalogs, extracted by Scripts/doc-snippets.py
    // into Snippets/ with its own imports only (make check-generated keeps them current) and compiled here.
    .testTarget(
      name: "DocumentationTests",
      dependencies: [
        "LinkParse", "LinkParseCore", "LinkParseProviders", "LinkParseAuthorization", "LinkParseRouter",
        "LinkParseOAuth", "LinkParseIDToken", "LinkParseHTTP", "LinkParsePostgres", "LinkParseHummingbird",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // The fuzz targets' properties (Fuzz/Sources/FuzzSupport): one module, which the nested Fuzz package's
    // targets use through the product below and the regression test here directly.
    .target(
      name: "FuzzSupport",
      dependencies: [
        "LinkParse", "LinkParseCore", "LinkParseBytes", "LinkParseRouter", "LinkParseProviders",
        "LinkParseAuthorization", "LinkParseOAuth", "LinkParseIDToken", "_LinkParseCLI",
        // The `server` target: a WebLogin on a Hummingbird router, in process.
        "LinkParseHTTP", "LinkParseHummingbird",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ],
      path: "Fuzz/Sources/FuzzSupport"
    ),
    // Replays corpus/regressions/ through the fuzz targets' properties.
    .testTarget(
      name: "FuzzRegressionTests",
      dependencies: [
        "FuzzSupport", "LinkParseCore", "LinkParseRouter", "LinkParseProviders", "LinkParseOAuth", "LinkParseIDToken", "_LinkParseCLI",
        "LinkParseTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// The CI fuzz smoke's build (`Fuzz/run.sh --shared-build`, which alone sets LINKPARSE_FUZZ_INSTRUMENTATION):
// LinkParse's own modules compiled for libFuzzer (coverage) and AddressSanitizer, its C for
// UndefinedBehaviorSanitizer, into the same .build as `make test`, so the dependencies' debug build serves the fuzz
// executable too instead of being compiled again with the sanitizers (the nightly run and ClusterFuzzLite still
// instrument everything, in a build of their own). Unset, as for every package that depends on LinkParse, the
// manifest has no unsafe flags.
if Context.environment["LINKPARSE_FUZZ_INSTRUMENTATION"] != nil {
  let fuzzed: Set<String> = [
    "CICUShims", "CByteScan", "LinkParseBytes", "LinkParseCore", "LinkParseRouter", "LinkParseProviders",
    "LinkParseAuthorization", "LinkParseOAuth", "LinkParseIDToken", "LinkParseHTTP", "LinkParseHummingbird",
    "LinkParse", "_LinkParseCLI", "FuzzSupport",
  ]
  for target in package.targets where fuzzed.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    target.cSettings = (target.cSettings ?? []) + [
      .unsafeFlags(["-fsanitize=undefined", "-fno-sanitize-recover=undefined"]),
    ]
  }
}
