import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// The HTTP cache's store and wiring (issue 17) against the fixture, in process: the fixture
/// counts the requests that reach it, so a hit is seen not to make one.
@MainActor @Suite(.serialized) struct HTTPCacheTests {
  static func config(_ state: String, shared: Bool = false, maxBytes: Int = 1 << 20, extra: String = "")
    -> String
  {
    #"{"state_dir": "\#(state)"\#(extra), "sessions": {"default": {"cache": {"max_bytes": \#(maxBytes), "shared": \#(shared)}}, "plain": {}}}"#
  }

  /// Sends the job (`fields` without braces) and returns its terminal event.
  @discardableResult
  static func run(_ c: InProcessClient, _ d: InProcessDaemon, _ id: String, _ fields: String) -> JSONObject? {
    c.send(#"{"id":"\#(id)",\#(fields)}"#)
    d.run(until: { c.events.contains { $0.id == id && $0.isTerminal } })
    let terminal = c.events.first { $0.id == id && $0.isTerminal }
    #expect(terminal != nil, "no terminal event for \(id): \(c.trace)")
    return terminal
  }

  static func cacheOf(_ e: JSONObject?) -> String? { e?["cache"]?.stringValue }

  /// A fresh answer is stored and the next job is served from it: the server sees one request,
  /// `done` says `hit` with `attempts` 0, the body and fields are the stored ones, `Age` set.
  @Test func aFreshAnswerIsServedWithoutARequest() throws {
    let state = Paths.tempDirectory("cache-fresh")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?etag=%22a%22&Cache-Control=max-age%3D600&n=7")
    let first = Self.run(c, d, "1", #""url":"\#(url)""#)
    #expect(first?.event == "done" && Self.cacheOf(first) == "miss")
    let second = Self.run(c, d, "2", #""url":"\#(url)""#)
    #expect(second?.event == "done" && Self.cacheOf(second) == "hit")
    #expect(d.server.requestsServed == 1)
    #expect(second?.int("attempts") == 0 && second?.int("status") == 200)
    #expect(second?["body"]?.objectValue?["n"] == .number(JSONNumber(7)))
    #expect(second?["headers"]?.objectValue?["etag"]?.stringValue == "\"a\"")
    #expect(second?["headers"]?.objectValue?["age"] != nil)
    #expect(c.names("2") == ["queued", "response", "done"])
    c.send(#"{"op":"stats"}"#)
    d.run(until: { c.events.contains { $0.event == "stats" } })
    let stats = c.events.first { $0.event == "stats" }?["cache"]?.objectValue?["default"]?.objectValue
    #expect(stats?.int("hit") == 1 && stats?.int("miss") == 1 && stats?.int("entries") == 1)
    c.send(#"{"op":"sessions"}"#)
    d.run(until: { c.events.contains { $0.event == "sessions" } })
    let sessions = c.events.first { $0.event == "sessions" }?["sessions"]?.objectValue
    #expect(sessions?["default"]?.objectValue?["cache"]?.objectValue?.int("max_bytes") == 1 << 20)
    #expect(sessions?["plain"]?.objectValue?["cache"] == nil)
  }

  /// A stale entry is revalidated with `If-None-Match`; the 304 serves the stored body with its
  /// fields merged in, and the client sees a 200, never the 304.
  @Test func aStaleEntryIsRevalidatedAndA304UpdatesItsHeaders() throws {
    let state = Paths.tempDirectory("cache-304")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?etag=%22v1%22&Cache-Control=max-age%3D0&n=3")
    #expect(Self.cacheOf(Self.run(c, d, "1", #""url":"\#(url)""#)) == "miss")
    let second = Self.run(c, d, "2", #""url":"\#(url)""#)
    #expect(d.server.requestsServed == 2)
    #expect(d.server.lastRequestHead?.header("if-none-match") == "\"v1\"")
    #expect(second?.event == "done" && Self.cacheOf(second) == "revalidated")
    #expect(second?.int("status") == 200)
    #expect(second?["body"]?.objectValue?["n"] == .number(JSONNumber(3)))
    // The 304's own field is merged into the stored head, and kept for the next answer.
    #expect(second?["headers"]?.objectValue?["x-validated"]?.stringValue == "1")
    #expect(!c.events.contains { $0.id == "2" && $0.event == "response" && $0.int("status") == 304 })
    let third = Self.run(c, d, "3", #""url":"\#(url)""#)
    #expect(Self.cacheOf(third) == "revalidated" && d.server.requestsServed == 3)
  }

  /// `Vary`: a variant is stored per value of the named field; each is served only to its own.
  @Test func varyKeepsOneVariantPerValue() throws {
    let state = Paths.tempDirectory("cache-vary")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600&Vary=Accept-Language")
    func get(_ id: String, _ lang: String) -> String? {
      Self.cacheOf(Self.run(c, d, id, #""url":"\#(url)","headers":{"Accept-Language":"\#(lang)"}"#))
    }
    #expect(get("fr1", "fr") == "miss")
    #expect(get("en1", "en") == "miss")
    #expect(get("fr2", "fr") == "hit")
    #expect(get("en2", "en") == "hit")
    #expect(d.server.requestsServed == 2)
  }

  /// `no-store` answers are never stored; a POST's success invalidates the URL's entry.
  @Test func noStoreIsNotStoredAndAPOSTInvalidates() throws {
    let state = Paths.tempDirectory("cache-nostore")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let noStore = d.url("/conditional?Cache-Control=no-store")
    #expect(Self.cacheOf(Self.run(c, d, "n1", #""url":"\#(noStore)""#)) == "miss")
    #expect(Self.cacheOf(Self.run(c, d, "n2", #""url":"\#(noStore)""#)) == "miss")
    #expect(d.server.requestsServed == 2)
    let url = d.url("/conditional?Cache-Control=max-age%3D600")
    #expect(Self.cacheOf(Self.run(c, d, "g1", #""url":"\#(url)""#)) == "miss")
    #expect(Self.cacheOf(Self.run(c, d, "g2", #""url":"\#(url)""#)) == "hit")
    let post = Self.run(c, d, "p", #""method":"POST","url":"\#(url)","body":{"text":"x"}"#)
    #expect(post?.event == "done" && Self.cacheOf(post) == "miss")
    #expect(Self.cacheOf(Self.run(c, d, "g3", #""url":"\#(url)""#)) == "miss")
    #expect(d.server.requestsServed == 5)
  }

  /// The job's `cache` policies (NSURLRequestCachePolicy).
  @Test func eachJobPolicy() throws {
    let state = Paths.tempDirectory("cache-policy")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D0")
    // Nothing stored: offline fails not_cached, without a request.
    let offline = Self.run(c, d, "o1", #""url":"\#(url)","cache":"return_cache_dont_load""#)
    #expect(offline?.event == "failed" && offline?.errorCode == "not_cached")
    #expect(d.server.requestsServed == 0)
    // no_store neither reads nor writes.
    #expect(Self.cacheOf(Self.run(c, d, "ns", #""url":"\#(url)","cache":"no_store""#)) == "miss")
    #expect(
      Self.run(c, d, "o2", #""url":"\#(url)","cache":"return_cache_dont_load""#)?.errorCode == "not_cached")
    // reload fetches and stores.
    #expect(Self.cacheOf(Self.run(c, d, "r", #""url":"\#(url)","cache":"reload""#)) == "miss")
    #expect(d.server.requestsServed == 2)
    // The stored entry is stale (max-age=0): the two "return cache" policies serve it as it is.
    #expect(Self.cacheOf(Self.run(c, d, "o3", #""url":"\#(url)","cache":"return_cache_dont_load""#)) == "hit")
    #expect(Self.cacheOf(Self.run(c, d, "e", #""url":"\#(url)","cache":"return_cache_else_load""#)) == "hit")
    #expect(d.server.requestsServed == 2)
    // reload goes to the origin even with an entry stored.
    #expect(Self.cacheOf(Self.run(c, d, "r2", #""url":"\#(url)","cache":"reload""#)) == "miss")
    #expect(d.server.requestsServed == 3)
    // A job's own bad policy is invalid_job.
    let bad = Self.run(c, d, "b", #""url":"\#(url)","cache":"sometimes""#)
    #expect(bad?.errorCode == "invalid_job")
  }

  /// A session without a cache: `return_cache_dont_load` fails not_cached (an empty cache);
  /// any other policy fetches, and `done` has no `cache` member.
  @Test func aSessionWithoutACache() throws {
    let state = Paths.tempDirectory("cache-none")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600")
    let offline = Self.run(c, d, "o", #""session":"plain","url":"\#(url)","cache":"return_cache_dont_load""#)
    #expect(offline?.errorCode == "not_cached")
    let plain = Self.run(c, d, "p", #""session":"plain","url":"\#(url)","cache":"use_protocol""#)
    #expect(plain?.event == "done" && plain?["cache"] == nil)
    #expect(Self.run(c, d, "p2", #""session":"plain","url":"\#(url)""#)?["cache"] == nil)
    #expect(d.server.requestsServed == 2)
  }

  /// A session whose cache store cannot be opened (here the state directory is a file) runs
  /// its jobs uncached, and the `cache` op says so rather than that it has no cache.
  @Test func aCacheWhoseStoreCannotOpenRunsUncachedAndSaysSo() throws {
    let state = Paths.tempDirectory("cache-broken")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let file = state + "/not-a-directory"
    #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
    let d = try InProcessDaemon(config: Self.config(file))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600")
    #expect(Self.run(c, d, "1", #""url":"\#(url)""#)?.event == "done")
    #expect(Self.run(c, d, "2", #""url":"\#(url)""#)?.event == "done")
    #expect(d.server.requestsServed == 2)
    c.send(#"{"op":"cache"}"#)
    d.run(until: { c.events.contains { $0.event == "cache" } })
    let answer = c.events.first { $0.event == "cache" }
    #expect(answer?["enabled"] == .bool(false) && answer?["unavailable"] == .bool(true), "\(c.trace)")
    c.send(#"{"op":"cache","session":"plain"}"#)
    d.run(until: { c.events.filter { $0.event == "cache" }.count == 2 })
    #expect(c.events.last { $0.event == "cache" }?["unavailable"] == nil)
  }

  /// Entries survive a restart; a body file found truncated or altered is never served (the
  /// job goes on as a miss and the entry is stored anew); orphan files are swept at start.
  @Test func entriesSurviveARestartAndADamagedBodyIsNeverServed() throws {
    let state = Paths.tempDirectory("cache-restart")
    defer { try? FileManager.default.removeItem(atPath: state) }
    var url = ""
    var bodyFiles: [String] = []
    do {
      let d = try InProcessDaemon(config: Self.config(state))
      let c = try d.connect(uid: 1000)
      url = d.url("/conditional?Cache-Control=max-age%3D600&n=5")
      #expect(Self.cacheOf(Self.run(c, d, "1", #""url":"\#(url)""#)) == "miss")
      bodyFiles = try FileManager.default.contentsOfDirectory(atPath: state + "/cache")
      #expect(bodyFiles.count == 1)
      d.daemon.httpCache.flushUses()
      d.close()
    }
    // What a SIGKILL in the middle of a store leaves: a temporary file, and a renamed body
    // whose row never committed. Neither is ever served; the start sweeps both.
    _ = FileManager.default.createFile(atPath: state + "/cache/tmp-0123", contents: Data("torn".utf8))
    _ = FileManager.default.createFile(
      atPath: state + "/cache/0123456789abcdef0123456789abcdef", contents: Data("orphan".utf8))
    do {
      // A new daemon (and fixture, on another port): the stored entry answers without one.
      let d = try InProcessDaemon(config: Self.config(state))
      let c = try d.connect(uid: 1000)
      let hit = Self.run(c, d, "2", #""url":"\#(url)""#)
      #expect(Self.cacheOf(hit) == "hit")
      #expect(hit?["body"]?.objectValue?["n"] == .number(JSONNumber(5)))
      let files = try FileManager.default.contentsOfDirectory(atPath: state + "/cache")
      #expect(files == bodyFiles, "orphans were not swept: \(files)")
      d.close()
    }
    // The same size, another byte: only the SHA-256 (checked on the first read after a start)
    // can tell. The entry is dropped and the job is a miss (here: the old port refuses).
    let path = state + "/cache/" + bodyFiles[0]
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes[bytes.count - 2] ^= 0x01
    try bytes.write(to: URL(fileURLWithPath: path))
    do {
      let d = try InProcessDaemon(config: Self.config(state))
      let c = try d.connect(uid: 1000)
      let damaged = Self.run(c, d, "3", #""url":"\#(url)","cache":"return_cache_dont_load""#)
      #expect(damaged?.errorCode == "not_cached", "\(String(describing: damaged))")
      // Stored anew from the live fixture, then truncated under the running daemon: the size
      // check at serve time drops it, and the job is fetched.
      let live = d.url("/conditional?Cache-Control=max-age%3D600&n=6")
      #expect(Self.cacheOf(Self.run(c, d, "4", #""url":"\#(live)""#)) == "miss")
      let files = try FileManager.default.contentsOfDirectory(atPath: state + "/cache")
      #expect(files.count == 1 && !files.contains(bodyFiles[0]), "\(files)")
      truncate(state + "/cache/" + files[0], 3)
      let refetched = Self.run(c, d, "5", #""url":"\#(live)""#)
      #expect(Self.cacheOf(refetched) == "miss")
      #expect(refetched?["body"]?.objectValue?["n"] == .number(JSONNumber(6)))
      #expect(d.server.requestsServed == 2)
      #expect(Self.cacheOf(Self.run(c, d, "6", #""url":"\#(live)""#)) == "hit")
      d.close()
    }
  }

  /// A hit into an `output` file (copied into place) and as `response: "stream"` data events.
  @Test func hitsIntoAnOutputFileAndAsAStream() throws {
    let state = Paths.tempDirectory("cache-output")
    // The client's own directory: a file is written only where its user could write it.
    let out = Paths.tempDirectory("cache-output-files")
    chown(out, 1000, 1000)
    defer {
      try? FileManager.default.removeItem(atPath: state)
      try? FileManager.default.removeItem(atPath: out)
    }
    let d = try InProcessDaemon(
      config: Self.config(state, extra: #", "files": {"write_roots": ["\#(out)"]}"#))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600&n=9")
    #expect(Self.cacheOf(Self.run(c, d, "1", #""url":"\#(url)""#)) == "miss")
    let file = Self.run(c, d, "2", #""url":"\#(url)","output":"\#(out)/out.json""#)
    #expect(Self.cacheOf(file) == "hit" && file?["output"]?.stringValue == out + "/out.json")
    var st = stat()
    #expect(lstat(out + "/out.json", &st) == 0 && st.st_uid == 1000 && st.st_mode & 0o777 == 0o600)
    let written = try String(contentsOfFile: out + "/out.json", encoding: .utf8)
    #expect(written == #"{"etag":"","n":9}"#)
    let stream = Self.run(c, d, "3", #""url":"\#(url)","response":"stream""#)
    #expect(Self.cacheOf(stream) == "hit" && stream?.int("bytes") == written.utf8.count)
    let data = c.events.filter { $0.id == "3" && $0.event == "data" }.compactMap { $0["text"]?.stringValue }
    #expect(data.joined() == written)
    #expect(d.server.requestsServed == 1)
  }

  /// Eviction: least recently used entries go to keep the session within `max_bytes`.
  @Test func leastRecentlyUsedEntriesAreEvictedWithinMaxBytes() throws {
    let state = Paths.tempDirectory("cache-evict")
    defer { try? FileManager.default.removeItem(atPath: state) }
    // Each entry counts its body's 4 KiB block and ~900 bytes of row (CacheFootprint): two fit
    // in 12,000, not three.
    let d = try InProcessDaemon(config: Self.config(state, maxBytes: 12_000))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let urls = (1...3).map { d.url("/conditional?Cache-Control=max-age%3D600&n=\($0)") }
    #expect(Self.cacheOf(Self.run(c, d, "1", #""url":"\#(urls[0])""#)) == "miss")
    #expect(Self.cacheOf(Self.run(c, d, "2", #""url":"\#(urls[1])""#)) == "miss")
    #expect(Self.cacheOf(Self.run(c, d, "1b", #""url":"\#(urls[0])""#)) == "hit")
    #expect(Self.cacheOf(Self.run(c, d, "3", #""url":"\#(urls[2])""#)) == "miss")
    // 2 was the least recently used: it went; 1 (used since) stayed.
    #expect(Self.cacheOf(Self.run(c, d, "1c", #""url":"\#(urls[0])""#)) == "hit")
    #expect(Self.cacheOf(Self.run(c, d, "2b", #""url":"\#(urls[1])""#)) == "miss")
    let entries = d.daemon.httpCache.sessions["default"]
    #expect((entries?.bytes ?? 0) <= 12_000 && entries?.count == 2)
    #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/cache").count == 2)
  }

  /// `Cache-Control: only-if-cached` with nothing stored: a 504 answer, no request.
  @Test func onlyIfCachedWithNothingStoredIsA504() throws {
    let state = Paths.tempDirectory("cache-oic")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600")
    let e = Self.run(c, d, "o", #""url":"\#(url)","headers":{"Cache-Control":"only-if-cached"}"#)
    #expect(e?.int("status") == 504 && Self.cacheOf(e) == "miss")
    #expect(d.server.requestsServed == 0)
  }

  /// A `cancel` right after a hit finds the job ended (no error), and one key keeps at most
  /// `HTTPCache.maxVariants` variants: a field varied without end does not grow its lookups.
  @Test func aHitEndsLikeAnyJobAndVariantsPerKeyAreBounded() throws {
    let state = Paths.tempDirectory("cache-variants")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: Self.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600&Vary=X-V")
    for v in 0...HTTPCache.maxVariants {
      #expect(Self.cacheOf(Self.run(c, d, "v\(v)", #""url":"\#(url)","headers":{"X-V":"\#(v)"}"#)) == "miss")
    }
    let key = d.daemon.httpCache.sessions["default"]?.byKey.values.first
    #expect(key?.count == HTTPCache.maxVariants)
    #expect(Self.cacheOf(Self.run(c, d, "v0b", #""url":"\#(url)","headers":{"X-V":"0"}"#)) == "miss")
    let hit = Self.run(c, d, "h", #""url":"\#(url)","headers":{"X-V":"5"}"#)
    #expect(Self.cacheOf(hit) == "hit")
    c.send(#"{"op":"cancel","id":"h"}"#)
    c.send(#"{"op":"ping"}"#)
    d.run(until: { c.events.contains { $0.event == "pong" } })
    #expect(!c.events.contains { $0.event == "error" }, "\(c.events.filter { $0.event == "error" })")
  }
}
