import LinkParseCore
import LinkParseProviders
@_spi(Testing) import LinkParseRouter

/// The `router` target: route tables and URLs, both from the input.
///
/// Input layout: one mode byte, then lines. The lines before the first empty line are route patterns (route
/// `r<i>`, provider `Provider.allCases[i mod 3]`; a leading `!` sets `caseInsensitivePath`), at most 16; the lines after it
/// are URLs to match, at most 16. Mode bit 0 turns PCRE2's JIT off; bit 1 sets tiny match and depth limits.
///
/// Properties:
/// - compiling never crashes: a bad table is a `RouterCompileError` listing errors with codes, messages and
///   positions inside their pattern, the same list `Router.check` returns;
/// - matching never crashes or hangs (the limits are errors, as values); a match is the trie's own answer
///   (route and captures), whether the table was matched route by route or through the trie; it names a
///   route of the table, its captures are slices of the URL's href at the offsets they report, and
///   `explain` agrees with it;
/// - reverse routing a match (its captures, the URL's query) gives a URL that parses and that the same route
///   matches on its own.
enum RouterProperty {
  static func check(_ data: UnsafeBufferPointer<UInt8>) -> [String] {
    guard let mode = data.first else { return [] }
    let text = String(decoding: UnsafeBufferPointer(rebasing: data[1...]), as: UTF8.self)
    var problems = Problems()
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let blank = lines.firstIndex(where: \.isEmpty) ?? lines.endIndex
    var routes: [Route] = []
    for (i, line) in lines[..<blank].prefix(16).enumerated() {
      let insensitive = line.hasPrefix("!")
      routes.append(
        Route(
          "r\(i)", String(insensitive ? line.dropFirst() : line), provider: Provider.allCases[i % 3],
          options: insensitive ? .caseInsensitivePath : []))
    }
    let urls = lines[min(blank + 1, lines.endIndex)...].prefix(16)
    let limits =
      mode & 2 == 0
      ? RegexLimits(useJIT: mode & 1 == 0)
      : RegexLimits(matchLimit: 20, depthLimit: 5, heapLimitKiB: 16, useJIT: mode & 1 == 0)

    let router: Router
    do {
      router = try Router(routes, limits: limits)
      problems.check(Router.check(routes, limits: limits).isEmpty, "Router.check finds errors in a table that compiles")
    } catch {
      problems.check(!error.errors.isEmpty, "a compile error without errors")
      for e in error.errors {
        problems.check(!e.code.rawValue.isEmpty && !e.message.isEmpty, "a route error without a code or message: \(e)")
        if let position = e.position, let pattern = e.pattern {
          problems.check(
            position >= 0 && position <= pattern.utf8.count,
            "position \(position) outside the pattern \(show(pattern)): \(e)")
        }
      }
      problems.check(Router.check(routes, limits: limits) == error.errors, "Router.check and Router.init disagree")
      return finish(problems, mode: mode, text: text)
    }

    for line in urls {
      guard let url = try? ParsedURL(line) else { continue }
      let outcome: Result<RouteMatch?, RouteError>
      do { outcome = .success(try router.match(url)) } catch { outcome = .failure(error) }
      let explanation = router.explain(url)
      if case .success(let match) = outcome {
        // Small tables are matched route by route, others by the trie after the literal-only table: the
        // trie's own answer must be the same (route and captures).
        let trie = router.trieMatch(url)
        problems.check(
          trie?.routeIndex == match?.routeIndex && trie?.captures == match?.captures.map(\.utf8Range),
          "match (\(match?.name ?? "none")) and the trie (\(trie.map { "r\($0.routeIndex)" } ?? "none")) disagree on \(show(url.href))")
      }
      switch outcome {
      case .failure(let error):
        problems.check(error.code == .constraintLimitExceeded, "match threw \(error) for \(show(url.href))")
        problems.check(explanation.selected == nil && explanation.error == error, "explain disagrees with a match error")
      case .success(nil):
        problems.check(explanation.selected == nil, "explain selects \(explanation.selected ?? "") where match finds none")
      case .success(let match?):
        checkMatch(match, url: url, router: router, routes: routes, explanation: explanation, problems: &problems)
      }
    }
    return finish(problems, mode: mode, text: text)
  }

  static func finish(_ problems: Problems, mode: UInt8, text: String) -> [String] {
    var problems = problems
    if !problems.list.isEmpty { problems.add("mode \(mode), input \(show(text))") }
    return problems.list
  }

  static func checkMatch(
    _ match: RouteMatch, url: ParsedURL, router: Router, routes: [Route], explanation: RouteExplanation,
    problems: inout Problems
  ) {
    problems.check(routes.contains(match.route), "match returned a route not in the table: \(match.route)")
    problems.check(match.url == url, "the match's URL is not the URL matched")
    problems.check(explanation.selected == match.name, "explain selects \(explanation.selected ?? "none"), match \(match.name)")
    let entry = explanation.entries.first { $0.route.name == match.name }
    problems.check(entry?.matched == true && entry?.isSelected == true, "explain does not show \(match.name) as matched")
    let href = Array(url.href.utf8)
    var names = Set<String>()
    for capture in match.captures {
      problems.check(names.insert(capture.name).inserted, "capture \(capture.name) twice")
      let range = capture.utf8Range
      guard range.lowerBound >= 0 && range.upperBound <= href.count else {
        problems.add("capture \(capture.name) range \(range) outside \(show(url.href))")
        continue
      }
      problems.check(
        capture.rawValue.utf8.elementsEqual(href[range]),
        "capture \(capture.name) is \(show(capture.rawValue)), the href has \(show(href[range])) there")
      problems.check(match[capture.name] != nil, "match[\(capture.name)] is nil")
    }

    // Reverse routing: the same captures and query give a URL the same route matches on its own.
    var values: [String: String] = [:]
    for capture in match.captures { values[capture.name] = capture.value }
    let query = url.queryParameters.map { ($0.name(), $0.value() ?? "") }
    guard let reversed = try? router.url(for: match.name, captures: values, query: query) else { return }
    guard let again = try? ParsedURL(reversed) else {
      return problems.add("reverse routing \(match.name) gave \(show(reversed)), which does not parse")
    }
    let entryAgain = router.explain(again).entries.first { $0.route.name == match.name }
    if case .stopped(_, let code, _)? = entryAgain?.outcome, code != "constraint-limit-exceeded" {
      problems.add(
        "reverse routing \(match.name) (\(show(match.route.pattern))) from \(show(url.href)) gave \(show(again.href)), which it does not match (\(code))")
    }
  }
}
