// Every failure as an OAuthResponseError: AsyncHTTPClient/NIO errors to .timeout or .transport, a non-2xx
// answer to .providerError (the provider's error JSON) or .httpStatus (anything else, quoted briefly). Every
// piece of a response a message quotes goes through StatusErrors.quote, which masks secrets (ExcerptMasking).

internal import AsyncHTTPClient
internal import LinkParseOAuth
internal import LinkParseProviders
internal import NIOCore
internal import NIOPosix

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// AsyncHTTPClient's and SwiftNIO's errors, and this module's own, as ``OAuthResponseError``s.
enum TransportErrors {
  static func map(
    _ error: any Error, kind: OAuthRequest.Kind, target: RequestTarget, configuration: OAuthHTTPClient.Configuration
  ) -> OAuthResponseError {
    if let error = error as? OAuthResponseError { return error }
    let host = target.host
    let timedOut = OAuthResponseError(
      .timeout, message: "no complete answer from \(host) within \(configuration.timeout)")

    switch error {
    case is BodyTimedOut:
      return timedOut
    case let error as BodyLimitExceeded:
      let limit = configuration.maxResponseBodySize
      if let declared = error.declaredLength {
        return OAuthResponseError(
          .bodyTooLarge, message: "\(host) announced a \(declared)-byte body; the limit is \(limit) bytes")
      }
      return OAuthResponseError(.bodyTooLarge, message: "the body from \(host) exceeds the limit of \(limit) bytes")
    case let error as HTTPClientError:
      switch error {
      case .connectTimeout, .getConnectionFromPoolTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout,
        .httpProxyHandshakeTimeout:
        return notSent(timedOut, kind)
      case .deadlineExceeded, .readTimeout, .writeTimeout:
        return timedOut
      case .invalidURL, .emptyHost, .emptyScheme:
        return notSent(
          OAuthResponseError(.transport, message: "the request's URL is not one that can be sent (\(error))"), kind)
      case .cancelled:
        return OAuthResponseError(.transport, message: "the request to \(host) was cancelled")
      case .remoteConnectionClosed:
        return OAuthResponseError(.transport, message: "\(host) closed the connection before answering in full")
      default:
        return OAuthResponseError(.transport, message: "the exchange with \(host) failed: \(brief(error))")
      }
    case let error as NIOConnectionError:
      let failures = error.connectionErrors
      if !failures.isEmpty && failures.allSatisfy({ isConnectTimeout($0.error) }) { return notSent(timedOut, kind) }
      let cause = failures.first.map { brief($0.error) } ?? error.dnsAError.map { brief($0) } ?? "no address"
      return notSent(
        OAuthResponseError(.transport, message: "could not connect to \(error.host):\(error.port): \(cause)"), kind)
    case let error as IOError:
      // A refused connection is the connect's own failure: nothing was written.
      let failure = OAuthResponseError(.transport, message: "the connection to \(host) failed: \(brief(error))")
      return error.errnoCode == ECONNREFUSED ? notSent(failure, kind) : failure
    case let error where isConnectTimeout(error):
      return notSent(timedOut, kind)
    case is CancellationError:
      return OAuthResponseError(.transport, message: "the request to \(host) was cancelled")
    default:
      return OAuthResponseError(.transport, message: "the exchange with \(host) failed: \(brief(error))")
    }
  }

  /// `error`, marked as one whose request (of `kind`) never left this process.
  static func notSent(_ error: OAuthResponseError, _ kind: OAuthRequest.Kind) -> OAuthResponseError {
    var error = error
    error.unsentRequest = kind
    return error
  }

  static func isConnectTimeout(_ error: any Error) -> Bool {
    if case ChannelError.connectTimeout = error { return true }
    return false
  }

  /// An error's description, at most 200 characters (these never hold a request's secrets: NIO and
  /// AsyncHTTPClient describe sockets, addresses and states, not requests).
  static func brief(_ error: any Error) -> String {
    // An I/O error by its errno, as the system names it ("connection refused (errno 111)"): NIO's own text
    // names the call that noticed it ("connection reset (error set): Connection refused (errno: 111)"), which
    // reads as another failure.
    if let error = error as? IOError { return "\(errnoName(error.errnoCode).lowercased()) (errno \(error.errnoCode))" }
    let text = String(describing: error)
    return text.count <= 200 ? text : String(text.prefix(200)) + "…"
  }

  /// The C library's name of `code` ("Connection refused").
  static func errnoName(_ code: CInt) -> String {
    guard let name = strerror(code) else { return "error \(code)" }
    return String(cString: name)
  }
}

/// The error a non-2xx answer becomes in ``OAuthHTTPClient/perform(_:as:)``.
enum StatusErrors {
  /// The most bytes of a body a message quotes.
  static let quoteLimit = 200

  /// The request's fields (query or body) whose values are secrets (VK's `device_id` included: it is the
  /// session id), masked wherever a quoted body repeats them (values after token-shaped names are masked
  /// whatever the request sent: ``ExcerptMasking``).
  static let secretFields: Set<String> = [
    "code", "code_verifier", "client_secret", "client_assertion", "assertion", "refresh_token", "access_token",
    "token", "id_token", "password", "device_code", "device_id",
  ]

  static func error(for response: OAuthHTTPResponse, request: OAuthRequest) -> OAuthResponseError {
    let status = response.status
    // The provider's error JSON, if the body is one.
    if let providerError = ProviderErrorBody.read(response.body, provider: request.provider) {
      var message = "the provider answered HTTP \(status) with error \(providerError.error.rawValue)"
      if let description = providerError.errorDescription, !description.isEmpty {
        message += ": " + quote(description.utf8, secrets: secrets(of: request))
      }
      return OAuthResponseError(.providerError, message: message, providerError: providerError, status: status)
    }
    var message = "the provider answered HTTP \(status)"
    if response.body.isEmpty {
      message += " with an empty body"
    } else {
      let type = response.headerValue("Content-Type").map { "\(quote($0.utf8, secrets: [], limit: 100)), " } ?? ""
      message += " (\(type)\(response.body.count) bytes): \"\(quote(response.body, secrets: secrets(of: request)))\""
    }
    return OAuthResponseError(.httpStatus, message: message, status: status)
  }

  /// The values a quote must not repeat: secret form fields and the `Authorization` credentials.
  static func secrets(of request: OAuthRequest) -> [String] {
    var values = request.fields.filter { secretFields.contains($0.name) }.map(\.value)
    if let authorization = request.headerValue("Authorization") {
      values.append(authorization)
      if let space = authorization.firstIndex(of: " ") {
        values.append(String(authorization[authorization.index(after: space)...]))
      }
    }
    return values
  }

  /// At most `limit` bytes of `bytes` (a body, a provider's error description) as one line of text, for an
  /// error message: secrets masked (``ExcerptMasking``: token-shaped values and `secrets`), control characters
  /// and runs of whitespace as one space, cut on a character boundary with `…`. The only way a response's
  /// content reaches a message.
  static func quote(_ bytes: some Collection<UInt8>, secrets: [String], limit: Int = quoteLimit) -> String {
    // Masked first, then cut: the masker reads a value to its end even past the cut, so no secret is half
    // quoted. Twice the limit leaves room for the whitespace that collapses.
    let (masked, complete) = ExcerptMasking.mask(bytes, secrets: secrets, outputLimit: 2 * limit + 8)
    var decoded = String(decoding: masked, as: UTF8.self)
    // A stop mid-text may have split a character: its last one is dropped (the cut shows `…` anyway).
    if !complete && !decoded.isEmpty { decoded.removeLast() }
    let text = oneLine(decoded)
    var kept = ""
    var count = 0
    for character in text {
      let size = character.utf8.count
      if count + size > limit { break }
      kept.append(character)
      count += size
    }
    return kept.utf8.count < text.utf8.count || !complete ? kept + "…" : kept
  }

  /// `text` with control characters and whitespace as spaces, runs of them as one, none at the ends.
  private static func oneLine(_ text: String) -> String {
    var out = ""
    var lastWasSpace = false
    for scalar in text.unicodeScalars {
      let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
      if isSpace {
        if !lastWasSpace && !out.isEmpty { out.unicodeScalars.append(" ") }
      } else {
        out.unicodeScalars.append(scalar)
      }
      lastWasSpace = isSpace
    }
    while out.last == " " { out.removeLast() }
    return out
  }
}

