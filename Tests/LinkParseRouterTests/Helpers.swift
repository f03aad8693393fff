import LinkParseCore
@_spi(Testing) import LinkParseRouter

func router(_ routes: [Route], limits: RegexLimits = .default) throws -> Router {
  do {
    return try Router(routes, limits: limits)
  } catch {
    Issue.record("compile failed: \(error)")
    throw error
  }
}

/// The compile errors of a table (empty when it compiles).
func compileErrors(_ routes: [Route]) -> [RouteError] { Router.check(routes) }

func match(_ router: Router, _ url: String) throws -> RouteMatch? {
  try router.match(ParsedURL(url))
}

/// `name` and the decoded captures of the route `url` selects, or nil.
func matched(_ router: Router, _ url: String) throws -> (String, [String: String])? {
  guard let m = try match(router, url) else { return nil }
  var captures: [String: String] = [:]
  for c in m.captures { captures[c.name] = c.value }
  return (m.name, captures)
}

import Testing
