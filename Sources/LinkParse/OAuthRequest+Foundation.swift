// A provider request (LinkParseOAuth's `OAuthRequest`) as a Foundation `URLRequest`, for apps that send it
// with `URLSession`. On Linux `URLRequest` lives in FoundationNetworking.

#if canImport(FoundationNetworking)
public import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

extension OAuthRequest {

  /// The request as a `URLRequest`: method, URL (the form as the query of a `GET`), headers in order, and the
  /// form-encoded body of a `POST`. `nil` only when Foundation rejects the URL.
  ///
  /// ```swift
  /// let request = try pending.tokenRequest(for: callback)
  /// let (data, response) = try await URLSession.shared.data(for: request.urlRequest!)
  /// let tokens = try TokenResponse(json: Array(data), provider: .vk)
  /// ```
  public var urlRequest: URLRequest? {
    guard let url = URL(string: fullURL) else { return nil }
    var request = URLRequest(url: url)
    request.httpMethod = method.rawValue
    for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
    if let body { request.httpBody = Data(body.utf8) }
    return request
  }
}
