// Serving the callback routes of a LinkParseRouter table: a Hummingbird middleware that matches every request's
// rebuilt URL against the table and answers the routes that name a provider.

public import Hummingbird
import LinkParseCore
import LinkParseProviders
public import LinkParseAuthorization
public import LinkParseRouter

/// Serves the callback routes of a ``LinkParseRouter/Router`` table on a Hummingbird router: every request's URL
/// (the endpoint's `publicBaseURL` + the request target) is matched against the table; a route that names a
/// provider is a callback route, answered like ``LinkParseCallbackEndpoint/respond(to:context:onCallback:)``
/// does (GET query or POST `form_post` body, the store consumed, problem JSON for rejections), with the
/// ``LinkParseRouter/RouteMatch`` (captures included) handed to the app. A route without a provider, and a URL
/// no route matches, go on to the app's own handlers; under ``unknownRoutePrefix`` a request nothing handles
/// is answered 404 `unknown-route` problem JSON instead of Hummingbird's plain 404.
///
/// Rules, each with its stable code: a method other than GET and POST on a callback route, 405
/// `method-not-allowed`; a callback whose pending authorization belongs to another provider than the route's,
/// 403 `provider-mismatch`; a constraint that hits its PCRE2 limits, 400 `constraint-limit-exceeded`. Routes
/// for `form_post` callbacks must not require query parameters (`?code&state`): Apple sends them in the body.
///
/// Add it to the `Router` itself (not a group: a group's middleware only runs for the group's own
/// endpoints):
///
/// ```swift
/// let table = try LinkParseRouter.Router([
///   Route("vk", "https://example.com/auth/vk/callback", provider: .vk),
///   Route("apple", "https://example.com/auth/apple/callback", provider: .apple),
/// ])
/// let router = Router()
/// router.add(middleware: endpoint.callbackRoutes(table, context: BasicRequestContext.self) { callback, match, _, _ in
///   Response(status: .seeOther, headers: [.location: "/welcome?via=\(match.name)"])
/// })
/// ```
public struct LinkParseCallbackRoutes<Store: PendingAuthorizationStoring, Context: RequestContext>: RouterMiddleware {
  /// The endpoint answering each matched callback.
  public let endpoint: LinkParseCallbackEndpoint<Store>
  /// The route table.
  public let routes: LinkParseRouter.Router
  /// A path prefix (`/auth/`) under which a request that nothing handles is answered 404 `unknown-route`
  /// problem JSON; `nil` leaves every such request to Hummingbird.
  public let unknownRoutePrefix: String?
  let providers: [Provider?]
  let onCallback: @Sendable (ConsumedAuthorization, RouteMatch, Request, Context) async throws -> Response

  init(
    endpoint: LinkParseCallbackEndpoint<Store>, routes: LinkParseRouter.Router, unknownRoutePrefix: String?,
    onCallback: @escaping @Sendable (ConsumedAuthorization, RouteMatch, Request, Context) async throws -> Response
  ) {
    self.endpoint = endpoint
    self.routes = routes
    self.unknownRoutePrefix = unknownRoutePrefix
    self.providers = routes.routes.map(\.provider)
    self.onCallback = onCallback
  }

  /// Answers a callback route, or passes the request on.
  ///
  /// ```swift
  /// // Called by Hummingbird for every request once added with `router.add(middleware:)`.
  /// ```
  public func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let target = request.uri.string
    guard target.hasPrefix("/"), let url = try? ParsedURL(endpoint.publicBaseURL + target) else {
      return try await passOn(request, context, next)
    }
    let match: RouteMatch?
    do {
      match = try routes.match(url)
    } catch {
      return endpoint.problem(.constraintLimitExceeded)
    }
    guard let match, let provider = providers[match.routeIndex] else {
      return try await passOn(request, context, next)
    }
    guard request.method == .get || request.method == .post else {
      var response = endpoint.problem(.methodNotAllowed)
      response.headers[.allow] = "GET, POST"
      return response
    }
    let endpoint = self.endpoint
    let onCallback = self.onCallback
    return try await endpoint.respond(to: request, context: context, url: match.url) { consumed, request, context in
      guard consumed.callback.provider == provider else { return endpoint.problem(.providerMismatch) }
      return try await onCallback(consumed, match, request, context)
    }
  }

  private func passOn(
    _ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let prefix = unknownRoutePrefix, request.uri.path.hasPrefix(prefix) else {
      return try await next(request, context)
    }
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound {
      return endpoint.problem(.unknownRoute)
    }
  }
}

extension LinkParseCallbackEndpoint {
  /// A middleware serving the callback routes of `routes` (those with a provider); see
  /// ``LinkParseCallbackRoutes``. `onCallback` gets every accepted callback with its route match.
  ///
  /// ```swift
  /// router.add(middleware: endpoint.callbackRoutes(table, context: BasicRequestContext.self, unknownRoutePrefix: "/auth/") {
  ///   callback, match, _, _ in Response(status: .seeOther, headers: [.location: "/"])
  /// })
  /// ```
  ///
  public func callbackRoutes<Context: RequestContext>(
    _ routes: LinkParseRouter.Router, context: Context.Type = Context.self, unknownRoutePrefix: String? = nil,
    onCallback: @escaping @Sendable (ConsumedAuthorization, RouteMatch, Request, Context) async throws -> Response
  ) -> LinkParseCallbackRoutes<Store, Context> {
    LinkParseCallbackRoutes(
      endpoint: self, routes: routes, unknownRoutePrefix: unknownRoutePrefix, onCallback: onCallback)
  }
}
