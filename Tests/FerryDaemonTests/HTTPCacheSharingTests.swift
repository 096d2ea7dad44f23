import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// Who is served whose entries (issue 17): a private cache keeps each user's apart; a shared
/// one (`shared: true`) serves everyone but never credentialed or private answers.
@MainActor @Suite(.serialized) struct HTTPCacheSharingTests {
  /// A private cache is per uid: one user's entry is never served to another, the `cache` op
  /// lists only the caller's URLs, and a purge removes only the caller's.
  @Test func oneUsersEntriesAreNeverServedToAnother() throws {
    let state = Paths.tempDirectory("cache-users")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: HTTPCacheTests.config(state))
    defer { d.close() }
    let a = try d.connect(uid: 1000)
    let b = try d.connect(uid: 1001)
    let url = d.url("/conditional?Cache-Control=max-age%3D600&n=1")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a1", #""url":"\#(url)""#)) == "miss")
    #expect(
      HTTPCacheTests.cacheOf(
        HTTPCacheTests.run(b, d, "b1", #""url":"\#(url)","cache":"return_cache_dont_load""#)) == nil)
    #expect(b.events.first { $0.id == "b1" }?.errorCode == "not_cached")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b2", #""url":"\#(url)""#)) == "miss")
    #expect(d.server.requestsServed == 2)
    let mine = d.url("/conditional?Cache-Control=max-age%3D600&n=2")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a2", #""url":"\#(mine)""#)) == "miss")
    b.send(#"{"op":"cache"}"#)
    d.run(until: { b.events.contains { $0.event == "cache" } })
    let listing = b.events.first { $0.event == "cache" }
    var urls: [String] = []
    if case .array(let items)? = listing?["urls"] {
      urls = items.compactMap { $0.objectValue?["url"]?.stringValue }
    }
    #expect(urls.count == 1 && urls.first?.hasSuffix("n=1") == true, "\(urls)")
    #expect(listing?.int("entries") == 3)
    // b's purge of all removes only b's entry: a's are still hits.
    b.send(#"{"op":"purge","all":true}"#)
    d.run(until: { b.events.contains { $0.event == "purged" } })
    #expect(b.events.first { $0.event == "purged" }?.int("removed") == 1)
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a3", #""url":"\#(url)""#)) == "hit")
    a.send(#"{"op":"purge","url":"\#(url)"}"#)
    d.run(until: { a.events.contains { $0.event == "purged" } })
    #expect(a.events.first { $0.event == "purged" }?.int("removed") == 1)
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a4", #""url":"\#(url)""#)) == "miss")
    // The test's own uid (SO_PEERCRED of the socketpair) is a third partition.
    let nobody = try d.connect()
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(nobody, d, "x", #""url":"\#(url)""#)) == "miss")
  }

  /// One user filling a private cache's `max_bytes` evicts their own entries, not another's
  /// that hold less than an equal share (eviction takes from the largest holder first).
  @Test func oneUserFillingTheCacheDoesNotEvictAnothersShare() throws {
    let state = Paths.tempDirectory("cache-fair")
    defer { try? FileManager.default.removeItem(atPath: state) }
    // An entry counts its 2,000-byte body's 4 KiB block and ~900 bytes of row (CacheFootprint):
    // eleven fit in 60,000, five and a half in each user's half.
    let d = try InProcessDaemon(config: HTTPCacheTests.config(state, maxBytes: 60_000))
    defer { d.close() }
    let a = try d.connect(uid: 1000)
    let b = try d.connect(uid: 1001)
    let mine = (1...2).map { d.url("/bytes/2000?cache_control=max-age%3D600&n=\($0)") }
    for (i, url) in mine.enumerated() {
      #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a\(i)", #""url":"\#(url)""#)) == "miss")
    }
    for i in 1...30 {
      let url = d.url("/bytes/2000?cache_control=max-age%3D600&m=\(i)")
      #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b\(i)", #""url":"\#(url)""#)) == "miss")
    }
    let entries = d.daemon.httpCache.sessions["default"]
    #expect((entries?.bytes ?? 0) <= 60_000)
    for (i, url) in mine.enumerated() {
      #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a\(i)b", #""url":"\#(url)""#)) == "hit")
    }
    // b's most recent entry is still there; its oldest went.
    let last = d.url("/bytes/2000?cache_control=max-age%3D600&m=30")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b30b", #""url":"\#(last)""#)) == "hit")
    let first = d.url("/bytes/2000?cache_control=max-age%3D600&m=1")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b1b", #""url":"\#(first)""#)) == "miss")
  }

  /// `shared: true`: one partition for every user (a public answer stored for one is served to
  /// another), but never an answer to a request with credentials, nor a `private` one.
  @Test func aSharedCacheServesEveryoneButNeverCredentialedOrPrivateAnswers() throws {
    let state = Paths.tempDirectory("cache-shared")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: HTTPCacheTests.config(state, shared: true))
    defer { d.close() }
    let a = try d.connect(uid: 1000)
    let b = try d.connect(uid: 1001)
    let url = d.url("/conditional?Cache-Control=max-age%3D600")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a1", #""url":"\#(url)""#)) == "miss")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b1", #""url":"\#(url)""#)) == "hit")
    let secret = d.url("/conditional?Cache-Control=max-age%3D600&n=2")
    let auth = #""headers":{"Authorization":"Bearer t"}"#
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a2", #""url":"\#(secret)",\#(auth)"#)) == "miss")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b2", #""url":"\#(secret)""#)) == "miss")
    let mine = d.url("/conditional?Cache-Control=private,max-age%3D600&n=3")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a3", #""url":"\#(mine)""#)) == "miss")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b3", #""url":"\#(mine)""#)) == "miss")
    #expect(d.server.requestsServed == 5)
  }

  /// Credentials curl adds itself count as `Authorization` in a shared cache (RFC 9111 3.5):
  /// an answer to a request with digest credentials, or from a session with per-user cookie
  /// jars, is stored only when the origin allowed it (`public`, `s-maxage`, `must-revalidate`),
  /// so user B is never served user A's cookie-bearing answer; a job with `cookies: false`
  /// sends no jar's cookies, and its answer is shared as any.
  @Test func aSharedCacheCountsCurlsCredentialsAsAuthorization() throws {
    let state = Paths.tempDirectory("cache-shared-credentials")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(
      config:
        #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 1048576, "shared": true}, "cookies": true}}}"#
    )
    defer { d.close() }
    let a = try d.connect(uid: 1000)
    let b = try d.connect(uid: 1001)
    // A's jar gets a cookie; the answer that set it is not shared.
    let setter = d.url("/conditional?Cache-Control=max-age%3D600&Set-Cookie=sid%3Dalice&n=1")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a1", #""url":"\#(setter)""#)) == "miss")
    #expect(
      HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b1", #""url":"\#(setter)","cookies":false"#)) == "miss"
    )
    // A's request carries A's cookie: its answer is not stored, and B's request goes out
    // without it.
    let page = d.url("/conditional?Cache-Control=max-age%3D600&n=2")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a2", #""url":"\#(page)""#)) == "miss")
    #expect(d.server.lastRequestHead?.header("cookie") == "sid=alice")
    let b2 = HTTPCacheTests.run(b, d, "b2", #""url":"\#(page)""#)
    #expect(HTTPCacheTests.cacheOf(b2) == "miss")
    #expect(d.server.lastRequestHead?.header("cookie") == nil)
    #expect(d.server.requestsServed == 4)
    // The origin allows it: `public`.
    let open = d.url("/conditional?Cache-Control=public,max-age%3D600&n=3")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a3", #""url":"\#(open)""#)) == "miss")
    #expect(HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b3", #""url":"\#(open)""#)) == "hit")
    // No jar: shared as any answer.
    let plain = d.url("/conditional?Cache-Control=max-age%3D600&n=4")
    #expect(
      HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a4", #""url":"\#(plain)","cookies":false"#)) == "miss")
    #expect(
      HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b4", #""url":"\#(plain)","cookies":false"#)) == "hit")
    #expect(d.server.requestsServed == 6)
    // Digest credentials (curl answers a challenge with them; this origin sends none).
    let digest = #","cookies":false,"auth":{"digest":{"username":"alice","password":"pw"}}"#
    let nocookies = #","cookies":false"#
    for (n, control, shared) in [
      (5, "max-age%3D600", false), (6, "s-maxage%3D600", true), (7, "must-revalidate,max-age%3D600", true),
    ] {
      let url = d.url("/conditional?Cache-Control=\(control)&n=\(n)")
      #expect(
        HTTPCacheTests.cacheOf(HTTPCacheTests.run(a, d, "a\(n)", #""url":"\#(url)"\#(digest)"#)) == "miss")
      let other = HTTPCacheTests.cacheOf(HTTPCacheTests.run(b, d, "b\(n)", #""url":"\#(url)"\#(nocookies)"#))
      #expect(other == (shared ? "hit" : "miss"), "\(control)")
    }
    #expect(d.server.requestsServed == 6 + 4)
  }
}
