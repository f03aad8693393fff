// Every failure as an OAuthResponseError: AsyncHTTPClient/NIO errors to .timeout or .transport, a non-2xx
// answer to .providerError (the provider's error JSON) or .httpStatus (anything else, quoted briefly).

internal import AsyncHTTPClient
internal import LinkParseOAuth
internal import LinkParseProviders
internal import NIOCore
internal import NIOPosix

/// AsyncHTTPClient's and SwiftNIO's errors, and this module's own, as ``OAuthResponseError``s.
enum TransportErrors {
  static func map(_ error: any Error, target: RequestTarget, configuration: OAuthHTTPClient.Configuration)
    -> OAuthResponseError
  {
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
      case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
        .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
        return timedOut
      case .invalidURL, .emptyHost, .emptyScheme:
        return OAuthResponseError(.transport, message: "the request's URL is not one that can be sent (\(error))")
      case .cancelled:
        return OAuthResponseError(.transport, message: "the request to \(host) was cancelled")
      case .remoteConnectionClosed:
        return OAuthResponseError(.transport, message: "\(host) closed the connection before answering in full")
      default:
        return OAuthResponseError(.transport, message: "the exchange with \(host) failed: \(brief(error))")
      }
    case let error as NIOConnectionError:
      let failures = error.connectionErrors
      if !failures.isEmpty && failures.allSatisfy({ isConnectTimeout($0.error) }) { return timedOut }
      let cause = failures.first.map { brief($0.error) } ?? error.dnsAError.map(brief) ?? "no address"
      return OAuthResponseError(.transport, message: "could not connect to \(error.host):\(error.port): \(cause)")
    case let error as IOError:
      return OAuthResponseError(.transport, message: "the connection to \(host) failed: \(brief(error))")
    case let error where isConnectTimeout(error):
      return timedOut
    case is CancellationError:
      return OAuthResponseError(.transport, message: "the request to \(host) was cancelled")
    default:
      return OAuthResponseError(.transport, message: "the exchange with \(host) failed: \(brief(error))")
    }
  }

  static func isConnectTimeout(_ error: any Error) -> Bool {
    if case ChannelError.connectTimeout = error { return true }
    return false
  }

  /// An error's description, at most 200 characters (these never hold a request's secrets: NIO and
  /// AsyncHTTPClient describe sockets, addresses and states, not requests).
  static func brief(_ error: any Error) -> String {
    let text = String(describing: error)
    return text.count <= 200 ? text : String(text.prefix(200)) + "…"
  }
}

/// The error a non-2xx answer becomes in ``OAuthHTTPClient/perform(_:as:)``.
enum StatusErrors {
  /// The most bytes of a body a message quotes.
  static let quoteLimit = 200

  /// Form fields whose values are secrets, masked wherever a quoted body repeats them.
  static let secretFields: Set<String> = [
    "code", "code_verifier", "client_secret", "client_assertion", "assertion", "refresh_token", "access_token",
    "token", "id_token", "password", "device_code",
  ]

  static func error(for response: OAuthHTTPResponse, request: OAuthRequest) -> OAuthResponseError {
    let status = response.status
    // The provider's error JSON, if the body is one.
    if let providerError = ProviderErrorBody.read(response.body, provider: request.provider) {
      var message = "the provider answered HTTP \(status) with error \(providerError.error.rawValue)"
      if let description = providerError.errorDescription, !description.isEmpty {
        message += ": " + sanitized(description, secrets: secrets(of: request))
      }
      return OAuthResponseError(.providerError, message: message, providerError: providerError, status: status)
    }
    var message = "the provider answered HTTP \(status)"
    if response.body.isEmpty {
      message += " with an empty body"
    } else {
      let type = response.headerValue("Content-Type").map { "\(sanitized($0, secrets: [])), " } ?? ""
      message += " (\(type)\(response.body.count) bytes): \"\(quote(response.body, secrets: secrets(of: request)))\""
    }
    return OAuthResponseError(.httpStatus, message: message, status: status)
  }

  /// The values a quote must not repeat: secret form fields and the `Authorization` credentials.
  static func secrets(of request: OAuthRequest) -> [String] {
    var values = request.form.filter { secretFields.contains($0.name) }.map(\.value)
    if let authorization = request.headerValue("Authorization") {
      values.append(authorization)
      if let space = authorization.firstIndex(of: " ") {
        values.append(String(authorization[authorization.index(after: space)...]))
      }
    }
    // Longest first, so a secret that contains another is masked whole.
    return values.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
  }

  /// At most ``quoteLimit`` bytes of `body` as one line of text, secrets masked, `…` when cut.
  static func quote(_ body: [UInt8], secrets: [String]) -> String {
    // Mask before cutting, so a secret straddling the cut is not half-quoted.
    let longest = secrets.first?.utf8.count ?? 0
    let window = body.prefix(quoteLimit + longest + 4)
    let text = sanitized(String(decoding: window, as: UTF8.self), secrets: secrets)
    var kept = ""
    var bytes = 0
    for character in text {
      let size = character.utf8.count
      if bytes + size > quoteLimit { break }
      kept.append(character)
      bytes += size
    }
    let cut = kept.utf8.count < text.utf8.count || window.count < body.count
    return cut ? kept + "…" : kept
  }

  /// `text` with secrets replaced by `[redacted]`, control characters by spaces, runs of spaces collapsed.
  static func sanitized(_ text: String, secrets: [String]) -> String {
    var text = text
    for secret in secrets { text = text.replacing(secret, with: "[redacted]") }
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
