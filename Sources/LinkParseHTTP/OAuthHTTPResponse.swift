// A provider's answer as received: status, header fields, body bytes (never more than the configured limit).

public import LinkParseOAuth

/// The HTTP answer to an ``OAuthRequest``, whatever its status.
///
/// ``OAuthHTTPClient/send(_:)`` returns it for every status; ``OAuthHTTPClient/perform(_:as:)`` turns it
/// into a typed result or an ``OAuthResponseError``. The body is never larger than
/// ``OAuthHTTPClient/Configuration/maxResponseBodySize``.
///
/// ```swift
/// let response = try await client.send(request)
/// if response.isSuccess, response.headerValue("content-type")?.hasPrefix("application/json") == true {
///   print(response.body.count)
/// }
/// ```
public struct OAuthHTTPResponse: Sendable, Hashable {
  /// The status code.
  ///
  /// ```swift
  /// response.status  // 200
  /// ```
  public var status: Int
  /// The header fields, in the order received (names as the server wrote them).
  ///
  /// ```swift
  /// response.headers.map(\.name)  // ["Content-Type", "Content-Length"]
  /// ```
  public var headers: [OAuthRequest.Header]
  /// The body, at most ``OAuthHTTPClient/Configuration/maxResponseBodySize`` bytes.
  ///
  /// ```swift
  /// String(decoding: response.body, as: UTF8.self)  // {"access_token":"…",…}
  /// ```
  public var body: [UInt8]

  /// Creates a response from its parts.
  ///
  /// ```swift
  /// OAuthHTTPResponse(status: 200, headers: [.init("Content-Type", "application/json")], body: Array("{}".utf8))
  /// ```
  public init(status: Int, headers: [OAuthRequest.Header] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// Whether the status is 2xx.
  ///
  /// ```swift
  /// OAuthHTTPResponse(status: 204).isSuccess  // true
  /// ```
  public var isSuccess: Bool { (200..<300).contains(status) }

  /// The first value of header `name` (case-insensitive), if any.
  ///
  /// ```swift
  /// response.headerValue("content-type")  // "application/json; charset=utf-8"
  /// ```
  public func headerValue(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }
}
