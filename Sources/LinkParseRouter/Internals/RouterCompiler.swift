// Route list -> CompiledRouter, collecting every problem rather than stopping at the first.

import LinkParseCore

struct RouterCompiler {
  let limits: RegexLimits
  let matchLimits: MatchLimits
  var errors: [RouteError] = []
  var patterns: [ComponentPattern] = []
  var patternByKey: [String: ComponentPattern] = [:]
  var constraintByKey: [String: Constraint] = [:]
  var names: [String] = []
  var nameIndex: [String: Int32] = [:]

  init(limits: RegexLimits) {
    self.limits = limits
    matchLimits = MatchLimits(limits)
  }

  mutating func compile(_ routes: [Route]) throws(RouterCompileError) -> CompiledRouter {
    let (programs, failed) = compilePrograms(routes)
    // Ambiguities among the routes that compiled, so one pass reports every problem.
    errors += AmbiguityCheck(programs: programs, names: names).run()
    guard !failed && errors.isEmpty else {
      throw RouterCompileError(errors: errors.sorted { ($0.routeIndex ?? 0) < ($1.routeIndex ?? 0) })
    }
    return CompiledRouter(programs: programs, patterns: patterns, names: names, limits: limits)
  }

  /// Each route that compiles, and whether any route has a problem (recorded in `errors`), ambiguities left
  /// aside.
  mutating func compilePrograms(_ routes: [Route]) -> (programs: [RouteProgram], failed: Bool) {
    var programs: [RouteProgram] = []
    var seen: [String: Int] = [:]
    var failed = false
    for (index, route) in routes.enumerated() {
      if route.name.isEmpty || route.name.contains(where: \.isWhitespace) {
        errors.append(RouteError(
          code: .invalidRouteName, route: route.name, pattern: route.pattern,
          message: "a route name is non-empty and has no white space", routeIndex: index))
        failed = true
      } else if let first = seen[route.name] {
        errors.append(RouteError(
          code: .duplicateRouteName, route: route.name, pattern: route.pattern,
          message: "route \(index + 1) has the same name as route \(first + 1)", otherRoute: route.name,
          routeIndex: index))
        failed = true
      } else {
        seen[route.name] = index
      }
      if let program = compileRoute(route, index: index) {
        programs.append(program)
      } else {
        failed = true
      }
    }
    return (programs, failed)
  }

  private mutating func nameID(_ name: String) -> Int32 {
    if let id = nameIndex[name] { return id }
    let id = Int32(names.count)
    names.append(name)
    nameIndex[name] = id
    return id
  }

  private mutating func compileRoute(_ route: Route, index: Int) -> RouteProgram? {
    var parser = PatternParser(route.pattern)
    let spec: PatternSpec
    do {
      spec = try parser.parse()
    } catch {
      errors.append(RouteError(
        code: error.code, route: route.name, pattern: route.pattern, position: error.position,
        message: error.message, routeIndex: index))
      return nil
    }
    var ok = true
    var captureNames: [String: Int] = [:]
    func checkName(_ name: String, _ position: Int) {
      if captureNames[name] != nil {
        errors.append(RouteError(
          code: .duplicateCaptureName, route: route.name, pattern: route.pattern, position: position,
          message: "the capture name \"\(name)\" is used twice", routeIndex: index))
        ok = false
      }
      captureNames[name] = position
    }
    let caselessPath = route.options.contains(.caseInsensitivePath)
    func component(_ parts: [PartSpec], caseless: Bool, wildcard: Bool = false) -> ComponentPattern? {
      var compiled: [ComponentPattern.Part] = []
      var key = caseless ? "i" : "s"
      var display = ""
      for part in parts {
        switch part {
        case .literal(let bytes):
          compiled.append(.literal(bytes))
          let text = String(decoding: bytes, as: UTF8.self)
          key += "L\(bytes.count):" + text
          display += text
        case .capture(let name, let regex, let position, let regexOffset):
          checkName(name, position)
          var constraint: Constraint?
          if let regex {
            let ckey = (caseless ? "i:" : "s:") + regex
            if let c = constraintByKey[ckey] {
              constraint = c
            } else {
              do {
                let c = try Constraint(regex, caseless: caseless, limits: matchLimits)
                constraintByKey[ckey] = c
                constraint = c
              } catch {
                errors.append(RouteError(
                  code: error.code, route: route.name, pattern: route.pattern,
                  position: regexOffset + error.offset, message: "\(error.message) (constraint \"\(regex)\")",
                  routeIndex: index))
                ok = false
              }
            }
          }
          compiled.append(.capture(name: nameID(name), constraint: constraint))
          key += "C\(name.utf8.count):\(name)" + (regex.map { "R\($0.utf8.count):\($0)" } ?? "")
          display += regex.map { "{\(name):\($0)}" } ?? "{\(name)}"
        }
      }
      if wildcard { key = "*"; display = "*" }
      if let shared = patternByKey[key] { return shared }
      let pattern = ComponentPattern(parts: compiled, caseless: caseless, wildcard: wildcard, display: display)
      patternByKey[key] = pattern
      patterns.append(pattern)
      return pattern
    }
    let scheme = component(spec.scheme, caseless: true)
    let host = spec.host.map { component($0, caseless: true) }
    var segments: [ComponentPattern?] = []
    for segment in spec.segments {
      switch segment {
      case .wildcard: segments.append(component([], caseless: false, wildcard: true))
      case .parts(let parts): segments.append(component(parts, caseless: caselessPath))
      }
    }
    var rest: Int32?
    if let (name, position) = spec.rest {
      checkName(name, position)
      rest = nameID(name)
    }
    guard ok, let scheme, host.map({ $0 != nil }) ?? true else { return nil }
    let compiledSegments = segments.compactMap { $0 }
    guard compiledSegments.count == segments.count else { return nil }
    return RouteProgram(
      index: index, route: route, spec: spec, scheme: scheme, host: host ?? nil, segments: compiledSegments,
      rest: rest)
  }
}
