import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// `max_bytes` bounds what the cache takes on disk, and `max_entries` how many entries it keeps
/// (issue 26): many tiny entries each take a filesystem block and an index row, which the
/// accounting counts, so `du` of the body files never exceeds what is counted.
@MainActor @Suite(.serialized) struct HTTPCacheBoundsTests {
  typealias T = HTTPCacheTests

  /// The bytes the files directly under `dir` take on disk (`du`'s count: st_blocks × 512),
  /// and how many there are.
  static func du(_ dir: String) -> (bytes: Int64, files: Int) {
    var bytes: Int64 = 0
    var files = 0
    for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
      var info = stat()
      guard lstat(dir + "/" + name, &info) == 0 else { continue }
      bytes += Int64(info.st_blocks) * 512
      files += 1
    }
    return (bytes, files)
  }

  /// The bytes one file takes on disk (st_blocks × 512), 0 when it is not there.
  static func du(_ dir: String, _ name: String) -> Int64 {
    var info = stat()
    return lstat(dir + "/" + name, &info) == 0 ? Int64(info.st_blocks) * 512 : 0
  }

  /// 200 entries of tiny bodies into a 100,000-byte cache: the body files' blocks are counted,
  /// so they stay under `max_bytes` (on 7855049 all 200 were kept, counted as 31,690 bytes, in
  /// 819,200 bytes of body files).
  @Test func manyTinyEntriesStayWithinMaxBytesOnDisk() throws {
    let state = Paths.tempDirectory("cache-tiny")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let d = try InProcessDaemon(config: T.config(state, maxBytes: 100_000))
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    for i in 0..<200 {
      let url = d.url("/conditional?Cache-Control=max-age%3D600&n=\(i)")
      #expect(T.cacheOf(T.run(c, d, "\(i)", #""url":"\#(url)","events":[]"#)) == "miss")
    }
    let entries = d.daemon.httpCache.sessions["default"]
    let accounted = entries?.bytes ?? 0
    let bodies = Self.du(state + "/cache")
    let db = Self.du(state, "cache.db")
    let wal = Self.du(state, "cache.db-wal")
    print(
      "tiny entries: kept \(entries?.count ?? 0), accounted \(accounted), du cache/ \(bodies.bytes) "
        + "(\(bodies.files) files), cache.db \(db), cache.db-wal \(wal)")
    #expect(accounted <= 100_000)
    #expect(bodies.bytes <= accounted, "du \(bodies.bytes) of \(bodies.files) files, accounted \(accounted)")
    #expect(bodies.files == entries?.count)
    #expect((entries?.count ?? 0) >= 10 && (entries?.count ?? 0) <= 24)
  }

  /// `max_entries`: past it the least recently used entries go, whatever their size.
  @Test func maxEntriesBoundsTheEntryCount() throws {
    let state = Paths.tempDirectory("cache-count")
    defer { try? FileManager.default.removeItem(atPath: state) }
    let config =
      #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 104857600, "max_entries": 50}}}}"#
    let d = try InProcessDaemon(config: config)
    defer { d.close() }
    let c = try d.connect(uid: 1000)
    for i in 0..<120 {
      let url = d.url("/conditional?Cache-Control=max-age%3D600&n=\(i)")
      #expect(T.cacheOf(T.run(c, d, "\(i)", #""url":"\#(url)","events":[]"#)) == "miss")
    }
    #expect(d.daemon.httpCache.sessions["default"]?.count == 50)
    #expect(Self.du(state + "/cache").files == 50)
    // The newest stayed, the oldest went.
    let newest = d.url("/conditional?Cache-Control=max-age%3D600&n=119")
    #expect(T.cacheOf(T.run(c, d, "new", #""url":"\#(newest)""#)) == "hit")
    let oldest = d.url("/conditional?Cache-Control=max-age%3D600&n=0")
    #expect(T.cacheOf(T.run(c, d, "old", #""url":"\#(oldest)""#)) == "miss")
    c.send(#"{"op":"cache"}"#)
    d.run(until: { c.events.contains { $0.event == "cache" } })
    #expect(c.events.first { $0.event == "cache" }?.int("max_entries") == 50)
  }
}
