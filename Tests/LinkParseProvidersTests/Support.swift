import LinkParseAuthorization
import LinkParseCore
import LinkParseProviders
import Testing

/// The query (or fragment) parameters of a callback URL.
func params(_ url: String) throws -> FormParameters {
  ProviderDetector.callbackParameters(of: try ParsedURL(url))
}

/// The code of the `CallbackError` that `body` throws, or `nil` when it does not throw.
func rejection<T>(_ body: () throws -> T) -> CallbackError.Code? {
  thrown(body)?.code
}

/// The `CallbackError` that `body` throws, or `nil`.
func thrown<T>(_ body: () throws -> T) -> CallbackError? {
  do {
    _ = try body()
    return nil
  } catch let error as CallbackError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
    return nil
  }
}

/// The code of the `CallbackError` that the asynchronous `body` throws (a store's `consume`), or `nil`.
func asyncRejection<T>(_ body: () async throws -> T) async -> CallbackError.Code? {
  await asyncThrown(body)?.code
}

/// The `CallbackError` that the asynchronous `body` throws, or `nil`.
func asyncThrown<T>(_ body: () async throws -> T) async -> CallbackError? {
  do {
    _ = try await body()
    return nil
  } catch let error as CallbackError {
    return error
  } catch {
    Issue.record("unexpected error \(error)")
    return nil
  }
}

/// A compact JWT with the given JSON payload (header and signature are dummies).
func jwt(_ payloadJSON: String) -> String {
  let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
  let bytes = Array(payloadJSON.utf8)
  var out = ""
  var i = 0
  while i < bytes.count {
    let b0 = UInt32(bytes[i])
    let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
    let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
    let n = b0 << 16 | b1 << 8 | b2
    out.append(alphabet[Int(n >> 18 & 63)])
    out.append(alphabet[Int(n >> 12 & 63)])
    if i + 1 < bytes.count { out.append(alphabet[Int(n >> 6 & 63)]) }
    if i + 2 < bytes.count { out.append(alphabet[Int(n & 63)]) }
    i += 3
  }
  return "eyJhbGciOiJSUzI1NiJ9.\(out).c2ln"
}
