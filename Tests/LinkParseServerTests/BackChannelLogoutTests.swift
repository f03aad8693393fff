// OpenID Connect Back-Channel Logout 1.0 through the example (a WebLogin) and the demo provider, which signs
// logout tokens and posts them to the example's /backchannel-logout as a provider does: a token naming a user
// (sub) or one login (sid) ends exactly those sessions, in memory and on PostgreSQL; a replayed token, one with a
// nonce, for another client, issued long ago, or not a form are refused and end nothing.

import AsyncHTTPClient
import Foundation
import LinkParseServerTestSupport
import LinkParseTestSupport
import NIOHTTP1
import Testing

extension ExampleServerTests {
@Suite(.timeLimit(.minutes(5))) struct BackChannelLogoutTests {
  typealias Server = ExampleServerTests
  typealias Lifecycle = SessionLifecycleTests

  /// The subject /me shows.
  static func subject(_ me: String) throws -> String {
    String(try #require(me.split(separator: "\"subject\":\"").last?.prefix { $0 != "\"" }))
  }

  /// The provider's logout token for `claims`, posted to the example: the status the example gave, and the token.
  static func logout(_ issuer: String, _ base: String, _ claims: [(String, String)]) async throws -> (status: Int, token: String) {
    let answer = try await Server.fetch(
      issuer + "/backchannel", method: .POST, form: [("target", base + "/backchannel-logout")] + claims)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    return (try #require(json["status"] as? Int), try #require(json["logout_token"] as? String))
  }

  @Test(arguments: Lifecycle.stores)
  func aLogoutTokenEndsTheSessionsItNames(_ store: Lifecycle.Store) async throws {
    try await Lifecycle.withExample(store) { base, issuer in
      let (a, b, c) = (try await Server.login(base), try await Server.login(base), try await Server.login(base))
      // By user (sub): A's session ends, B's and C's do not.
      let (status, token) = try await Self.logout(issuer, base, [("sub", try Self.subject(a.me))])
      #expect(status == 200)
      #expect(try await Server.fetch(base + "/me", cookie: a.session).status == 401)
      #expect(try await Server.fetch(base + "/me", cookie: b.session).status == 200)
      // The same token again (a replay): refused, and nothing more ends.
      let replay = try await Server.fetch(base + "/backchannel-logout", method: .POST, form: [("logout_token", token)])
      #expect(replay.status == 400 && replay.body.contains("\"code\":\"logout-token-replayed\""), "\(replay.body)")
      // By login (sid only): B's session ends.
      #expect(try await Self.logout(issuer, base, [("sid_of", try Self.subject(b.me))]).status == 200)
      #expect(try await Server.fetch(base + "/me", cookie: b.session).status == 401)

      // Tokens a relying party must refuse end nothing: a nonce (an id_token's), another client, issued an hour
      // ago, naming no one.
      let sub = try Self.subject(c.me)
      for claims in [
        [("sub", sub), ("nonce", "n")], [("sub", sub), ("aud", "another-client")],
        [("sub", sub), ("iat", "\(Int(Date().timeIntervalSince1970) - 3600)")], [],
      ] {
        #expect(try await Self.logout(issuer, base, claims).status == 400, "\(claims)")
      }
      // Not a token, two tokens, not a form.
      for form in [[("logout_token", "a.b.c")], [("logout_token", token), ("logout_token", token)], []] {
        let answer = try await Server.fetch(base + "/backchannel-logout", method: .POST, form: form)
        #expect(answer.status == 400 && answer.body.contains("\"code\":\"invalid-logout-token\""), "\(answer.body)")
      }
      let notAForm = try await Server.fetch(
        base + "/backchannel-logout", method: .POST, headers: [("Content-Type", "application/json")])
      #expect(notAForm.status == 415)
      #expect(try await Server.fetch(base + "/me", cookie: c.session).status == 200)
    }
  }
}
}
