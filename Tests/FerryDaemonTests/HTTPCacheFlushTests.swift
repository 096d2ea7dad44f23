import FerryStore
import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// Hits and 304-updated heads are written to `cache.db` a second after they happen
/// (`HTTPCache.flushUses`). On 7855049 a flush that failed (`try?`) dropped them for good: the
/// stored row kept its old head and use count. Now a failed flush keeps them for the next one.
@MainActor @Suite(.serialized) struct HTTPCacheFlushTests {
  typealias T = HTTPCacheTests

  /// Fills `mount` with a file until a write fails (ENOSPC); the file's path, to unlink.
  static func fillUp(_ mount: Tmpfs) -> String {
    let filler = mount.path + "/filler"
    let fd = open(filler, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
    let block = [UInt8](repeating: 0x61, count: 4096)
    while write(fd, block, block.count) == block.count {}
    close(fd)
    return filler
  }

  /// The state directory is a small tmpfs, filled up before a flush: its write fails for real
  /// (SQLITE_FULL: the WAL cannot grow; the store holds its lock exclusively, so no other
  /// connection could make it fail). Once space is back, the next flush writes the hit and the
  /// 304's head that the failed one could not.
  @Test(.enabled(if: Tmpfs.canMount)) func aFlushThatFailedKeepsItsWritesForTheNext() throws {
    let mount = try Tmpfs(sizeKiB: 2048)
    let state = mount.path + "/state"
    let d = try InProcessDaemon(config: T.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let fresh = d.url("/conditional?Cache-Control=max-age%3D600&n=1")
    let stale = d.url("/conditional?etag=%22v1%22&Cache-Control=max-age%3D0&n=2")
    #expect(T.cacheOf(T.run(c, d, "1", #""url":"\#(fresh)""#)) == "miss")
    #expect(T.cacheOf(T.run(c, d, "2", #""url":"\#(stale)""#)) == "miss")
    #expect(T.cacheOf(T.run(c, d, "3", #""url":"\#(fresh)""#)) == "hit")
    #expect(T.cacheOf(T.run(c, d, "4", #""url":"\#(stale)""#)) == "revalidated")

    let filler = Self.fillUp(mount)
    #expect(d.daemon.httpCache.flushUses() != nil, "the flush should have failed on the full disk")
    unlink(filler)
    #expect(d.daemon.httpCache.flushUses() == nil)

    // The daemon's own connection: the store holds its file's lock exclusively.
    let rows = try #require(try d.daemon.httpCache.store?.all())
    let hit = rows.first { $0.url == fresh }
    #expect(hit?.hits == 1, "the hit was not recorded: \(String(describing: hit?.hits))")
    let revalidated = rows.first { $0.url == stale }
    let head = revalidated.map { CacheStore.decode($0.headers) } ?? nil
    #expect(
      head?.contains { $0.name.lowercased() == "x-validated" } == true,
      "the 304's head was not recorded: \(String(describing: head))")
  }
}

extension HTTPCacheFlushTests {
  /// An entry dropped while its row cannot be deleted (the disk full: SQLITE_FULL) keeps its
  /// body file: a row the next start reads never names a removed file. On 7855049 the body
  /// went all the same (`try?` in `HTTPCache.forget`).
  @Test(.enabled(if: Tmpfs.canMount)) func anEntryWhoseRowCouldNotBeDeletedKeepsItsBody() throws {
    let mount = try Tmpfs(sizeKiB: 2048)
    let state = mount.path + "/state"
    let d = try InProcessDaemon(config: T.config(state))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    let url = d.url("/conditional?Cache-Control=max-age%3D600&n=3")
    #expect(T.cacheOf(T.run(c, d, "1", #""url":"\#(url)""#)) == "miss")
    let stored = try #require(d.daemon.httpCache.sessions["default"]?.byKey.values.first?.first)
    let filler = Self.fillUp(mount)
    d.daemon.httpCache.drop(stored, session: "default")
    unlink(filler)
    let rows = try #require(try d.daemon.httpCache.store?.all())
    #expect(rows.count == 1, "the row's delete should have failed on the full disk")
    for row in rows {
      #expect(access(state + "/cache/" + row.bodyFile, F_OK) == 0, "row \(row.url) names a removed body")
    }
  }
}
