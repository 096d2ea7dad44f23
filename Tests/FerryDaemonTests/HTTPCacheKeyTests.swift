import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// What enters the cache key, and what makes a job bypass the cache (issue 26): a `Host` or
/// forwarding field, a GET's body and a job's own TLS settings are not in the key, so such a
/// job neither reads nor stores, in a shared cache and in a private one; credentials the job
/// wrote itself count as `Authorization` in a shared cache. Two users are two uids of
/// `connect(uid:)`; in a private cache the "other" job is the same user's.
@MainActor @Suite(.serialized) struct HTTPCacheKeyTests {
  typealias T = HTTPCacheTests

  /// The users of each run: (shared, the storing user, the other user).
  static let runs: [(shared: Bool, a: UInt32, b: UInt32)] = [(true, 1000, 1001), (false, 1000, 1000)]

  /// Alice's job with `Host: attacker.test` is not stored under the URL, and is not served the
  /// entry Bob's plain job stored: both go to the origin.
  @Test func aHostHeaderBypassesTheCache() throws {
    for run in Self.runs {
      let state = Paths.tempDirectory("cache-host")
      defer { try? FileManager.default.removeItem(atPath: state) }
      let d = try InProcessDaemon(config: T.config(state, shared: run.shared))
      defer { d.close() }
      let a = try d.connect(uid: run.a)
      let b = try d.connect(uid: run.b)
      let url = d.url("/conditional?Cache-Control=max-age%3D600&n=1")
      let forged = #""url":"\#(url)","headers":{"Host":"attacker.test"}"#
      #expect(T.run(a, d, "a1", forged)?.event == "done")
      #expect(d.server.lastRequestHead?.header("host") == "attacker.test")
      #expect(T.cacheOf(T.run(b, d, "b1", #""url":"\#(url)""#)) == "miss", "shared: \(run.shared)")
      #expect(d.server.requestsServed == 2, "shared: \(run.shared)")
      // Bob's answer is stored now; Alice's forged job is not served it either.
      #expect(T.cacheOf(T.run(b, d, "b2", #""url":"\#(url)""#)) == "hit")
      #expect(T.cacheOf(T.run(a, d, "a2", forged)) != "hit", "shared: \(run.shared)")
      #expect(d.server.requestsServed == 3, "shared: \(run.shared)")
      for field in ["X-Forwarded-Host", "Forwarded", "X-Original-URL"] {
        let e = T.run(a, d, "f-\(field)", #""url":"\#(url)","headers":{"\#(field)":"attacker.test"}"#)
        #expect(T.cacheOf(e) != "hit", "\(field), shared: \(run.shared)")
      }
      #expect(d.server.requestsServed == 6, "shared: \(run.shared)")
      #expect(d.daemon.httpCache.sessions["default"]?.count == 1)
    }
  }

  /// A GET with a body: the key does not hold the body, so the answer is not stored and a
  /// stored entry does not answer it.
  @Test func aGETWithABodyBypassesTheCache() throws {
    for run in Self.runs {
      let state = Paths.tempDirectory("cache-getbody")
      defer { try? FileManager.default.removeItem(atPath: state) }
      let d = try InProcessDaemon(config: T.config(state, shared: run.shared))
      defer { d.close() }
      let a = try d.connect(uid: run.a)
      let b = try d.connect(uid: run.b)
      let url = d.url("/conditional?Cache-Control=max-age%3D600&n=2")
      let withBody = #""url":"\#(url)","body":{"text":"POISON"}"#
      #expect(T.run(a, d, "a1", withBody)?.event == "done")
      let dontLoad = T.run(b, d, "b1", #""url":"\#(url)","cache":"return_cache_dont_load""#)
      #expect(dontLoad?.errorCode == "not_cached", "shared: \(run.shared)")
      #expect(T.cacheOf(T.run(b, d, "b2", #""url":"\#(url)""#)) == "miss")
      #expect(T.cacheOf(T.run(a, d, "a2", withBody)) != "hit", "shared: \(run.shared)")
      #expect(d.server.requestsServed == 3, "shared: \(run.shared)")
    }
  }

  /// A job's own `tls` (`insecure`, or its own `ca_file`) against a self-signed server: its
  /// answer is not stored, so a job that verifies with the session's trust still fails
  /// `tls_failed` (in a private cache too: the same user's verified job).
  @Test func aJobsOwnTLSSettingsBypassTheCache() throws {
    let nginx = try NginxHarness(bigBytes: 1)
    // nginx's Last-Modified 10 days back: heuristically fresh for a day (10 %).
    let path = nginx.dir + "/root/old.json"
    try Data(#"{"answer":"unverified"}"#.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -864_000)], ofItemAtPath: path)
    for run in Self.runs {
      let state = Paths.tempDirectory("cache-tls")
      defer { try? FileManager.default.removeItem(atPath: state) }
      let roots = #", "files": {"read_roots": ["\#(nginx.dir)"]}"#
      let d = try InProcessDaemon(config: T.config(state, shared: run.shared, extra: roots))
      defer { d.close() }
      let a = try d.connect(uid: run.a)
      let b = try d.connect(uid: run.b)
      for (i, tls) in [#"{"insecure":true}"#, #"{"ca_file":"\#(nginx.caFile)"}"#].enumerated() {
        let url = nginx.https("/old.json?i=\(i)")
        let own = T.run(a, d, "a\(i)", #""url":"\#(url)","tls":\#(tls)"#)
        #expect(own?.event == "done" && own?.int("status") == 200, "\(String(describing: own))")
        let verified = T.run(b, d, "b\(i)", #""url":"\#(url)""#)
        #expect(
          verified?.errorCode == "tls_failed",
          "\(tls), shared: \(run.shared): \(String(describing: verified))")
      }
      #expect((d.daemon.httpCache.sessions["default"]?.count ?? 0) == 0)
    }
  }

  /// In a shared cache, a job's own `Cookie`, `Proxy-Authorization` or a secret field such as
  /// `X-Api-Key` counts as `Authorization` (RFC 9111 3.5): its answer is stored only when the
  /// origin allows it (`public`). In a private cache the same user's answer is stored.
  @Test func handWrittenCredentialsCountAsAuthorizationInASharedCache() throws {
    for run in Self.runs {
      let state = Paths.tempDirectory("cache-owncreds")
      defer { try? FileManager.default.removeItem(atPath: state) }
      let d = try InProcessDaemon(config: T.config(state, shared: run.shared))
      defer { d.close() }
      let a = try d.connect(uid: run.a)
      let b = try d.connect(uid: run.b)
      let fields = [
        #"{"Cookie":"own=ALICE"}"#, #"{"Proxy-Authorization":"Basic YTpi"}"#, #"{"X-Api-Key":"ALICEKEY"}"#,
      ]
      for (i, field) in fields.enumerated() {
        let url = d.url("/conditional?Cache-Control=max-age%3D600&n=\(10 + i)")
        #expect(T.cacheOf(T.run(a, d, "a\(i)", #""url":"\#(url)","headers":\#(field)"#)) == "miss")
        let other = T.cacheOf(T.run(b, d, "b\(i)", #""url":"\#(url)""#))
        #expect(other == (run.shared ? "miss" : "hit"), "\(field), shared: \(run.shared)")
      }
      // The origin allows it.
      let open = d.url("/conditional?Cache-Control=public,max-age%3D600&n=20")
      #expect(T.cacheOf(T.run(a, d, "ap", #""url":"\#(open)","headers":{"Cookie":"own=ALICE"}"#)) == "miss")
      #expect(T.cacheOf(T.run(b, d, "bp", #""url":"\#(open)""#)) == "hit")
      #expect(d.server.requestsServed == (run.shared ? 7 : 4), "shared: \(run.shared)")
    }
  }
}
