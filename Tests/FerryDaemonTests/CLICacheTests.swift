import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// Black-box: `ferry cache` and `ferry purge` (the daemon's `cache` and `purge` ops) run as the
/// built `ferry` against a real ferryd whose session `c` keeps an HTTP cache, and ferry-fixture.
@Suite(.serialized) struct CLICacheTests {
  let fixture: FixtureHarness
  let state: String
  let daemon: DaemonHarness

  init() throws {
    fixture = try FixtureHarness()
    state = Paths.tempDirectory("cli-cache")
    daemon = try DaemonHarness(
      config:
        #"{"state_dir": "\#(state)", "sessions": {"default": {}, "c": {"cache": {"max_bytes": 1048576}}}}"#)
  }

  /// `/bytes/N` answers N bytes that may be stored for a minute.
  func path(_ n: Int) -> String { "/bytes/\(n)?cache_control=max-age%3D60" }

  func ferry(_ arguments: [String]) throws -> CLITests.Run {
    try CLITests.ferry(arguments, socket: daemon.socket)
  }

  /// Stores the answer to `url` in session `c`'s cache with `ferry get`.
  func store(_ url: String) throws {
    let get = try ferry(["get", "--session", "c", url])
    #expect(get.status == 0, "\(get.stderr)")
  }

  @Test func listsAStoredURLAndPurgesIt() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let url = fixture.url(path(512))
    try store(url)
    try store(url)  // served from the cache: a hit of the entry
    let json = try ferry(["cache", "--session", "c", "--json"]).json()
    #expect(json["entries"] == .number(JSONNumber(1)) && json["event"] == nil)
    guard case .array(let urls)? = json["urls"], case .object(let entry)? = urls.first,
      case .number(let total)? = json["bytes"], let bytes = total.int64Value
    else {
      Issue.record("no urls or bytes in \(json)")
      return
    }
    #expect(entry["url"]?.stringValue == url && entry["bytes"] == .number(JSONNumber(512)))
    // The session's bytes count what the entry takes on disk: the body's 4 KiB block and its
    // index row (CacheFootprint), under 6 KiB here.
    #expect(bytes > 4096 && bytes < 6144)
    let tenths = bytes * 10 / 1024
    let listed = try ferry(["cache", "--session", "c"])
    #expect(listed.status == 0 && listed.stderr.isEmpty)
    #expect(
      listed.stdout == """
        session:    c
        enabled:    yes
        shared:     no (the URLs below are yours; the counts are every user's)
        max_bytes:  1.0 MiB
        entries:    1
        bytes:      \(tenths / 10).\(tenths % 10) KiB
        hits:       1 hit, 0 revalidated, 1 miss

        STATUS   SIZE  HITS  URL
        200     512 B     1  \(url)

        """)
    let purge = try ferry(["purge", url, "--session", "c"])
    #expect(purge.status == 0 && purge.stderr.isEmpty)
    #expect(purge.stdout == "removed 1 entry from the cache of session c\n")
    let after = try ferry(["cache", "--session", "c"])
    #expect(after.status == 0)
    #expect(after.stdout.contains("entries:    0\nbytes:      0 B\n"))
    #expect(after.stdout.hasSuffix("\n\nno URLs of yours stored\n"))
    #expect(
      try ferry(["purge", url, "--session", "c"]).stdout == "removed 0 entries from the cache of session c\n")
  }

  @Test func variantsOfOneURLAreListedApartByTheirVaryFields() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let url = fixture.url("/headers?Vary=Accept-Language%2C%20Cookie&Cache-Control=max-age%3D60")
    for (language, cookie) in [("en", "s=1"), ("fr", "s=2")] {
      let get = try ferry(["get", "--session", "c", url, "Accept-Language:\(language)", "Cookie:\(cookie)"])
      #expect(get.status == 0, "\(get.stderr)")
    }
    let list = try ferry(["cache", "--session", "c"])
    #expect(list.status == 0)
    let lines = list.stdout.split(separator: "\n").filter { $0.contains(url) }
    // Each variant names what selected it; a credential's value is never shown.
    #expect(lines.count == 2, "\(list.stdout)")
    #expect(
      lines.contains { $0.hasSuffix("(vary accept-language: en, cookie: <redacted>)") }, "\(list.stdout)")
    #expect(
      lines.contains { $0.hasSuffix("(vary accept-language: fr, cookie: <redacted>)") }, "\(list.stdout)")
  }

  @Test func purgeAllRemovesEveryEntryAndTheShorthandIsExpanded() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    try store(fixture.url(path(10)))
    try store(fixture.url(path(20)))
    // `:PORT/path` is http://localhost:PORT/path, for `get` and `purge` alike.
    try store(":\(fixture.port)\(path(30))")
    let one = try ferry(["purge", ":\(fixture.port)\(path(30))", "--session", "c"])
    #expect(one.status == 0 && one.stdout == "removed 1 entry from the cache of session c\n")
    let all = try ferry(["purge", "--all", "--session", "c"])
    #expect(all.status == 0 && all.stdout == "removed 2 entries from the cache of session c\n")
    #expect(
      try ferry(["purge", "--all", "--session", "c", "--json"]).json()["removed"] == .number(JSONNumber(0)))
    #expect(try ferry(["cache", "--session", "c"]).stdout.contains("entries:    0\n"))
  }

  @Test func aSessionWithoutACacheSaysSoAndDaemonErrorsExit1() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    let plain = try ferry(["cache"])
    #expect(plain.status == 0 && plain.stdout == "session default has no cache\n" && plain.stderr.isEmpty)
    let unknown = try ferry(["cache", "--session", "nope"])
    #expect(unknown.status == 1 && unknown.stdout.isEmpty)
    #expect(unknown.stderr == "ferry: no session named nope (unknown_session, field session)\n")
    let unknownPurge = try ferry(["purge", "--all", "--session", "nope"])
    #expect(unknownPurge.status == 1 && unknownPurge.stderr.contains("(unknown_session, field session)"))
    // A URL without a scheme is not a cache key: the daemon refuses it.
    let relative = try ferry(["purge", "/x", "--session", "c"])
    #expect(relative.status == 1 && relative.stdout.isEmpty)
    #expect(relative.stderr == "ferry: url: expected an http(s) URL (invalid_job, field url)\n")
  }

  @Test func badCommandLinesExit2AndSendNothing() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    try store(fixture.url(path(40)))
    for (arguments, message) in [
      (["purge", "--session", "c"], "purge needs a URL or --all"),
      (["purge", fixture.url(path(40)), "--all", "--session", "c"], "purge takes a URL or --all, not both"),
      (["cache", "--session", "c", "extra"], "cache takes no arguments"),
      (["cache", "--session", "c", "-H", "a:b"], "-H does not apply to cache"),
    ] {
      let run = try ferry(arguments)
      #expect(run.status == 2 && run.stdout.isEmpty, "\(arguments)")
      let hint = arguments[0] == "cache" ? "cache" : "purge"
      #expect(run.stderr == "ferry: \(message)\nferry: see `ferry help \(hint)`\n", "\(arguments)")
    }
    // Nothing was purged.
    #expect(try ferry(["cache", "--session", "c"]).stdout.contains("entries:    1\n"))
  }

  @Test func helpPagesNeedNoDaemon() throws {
    defer { try? FileManager.default.removeItem(atPath: state) }
    for topic in ["cache", "purge"] {
      let run = try CLITests.ferry(["help", topic], socket: "/nonexistent/ferryd.sock")
      #expect(run.status == 0 && run.stdout.hasPrefix("Usage: ferry \(topic) "), "\(topic)")
    }
  }
}
