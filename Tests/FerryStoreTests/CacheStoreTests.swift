import Foundation
import Glibc
import Testing

@testable import FerryStore

/// The HTTP cache's index and body files (issue 17): rows round-trip, headers encode and
/// decode (damage is refused, not trapped), bodies are private, checked and swept.
@Suite struct CacheStoreTests {
  static func row(_ key: String, file: String = "00000000000000000000000000000000", lastUse: Int64 = 1)
    -> CacheStore.Row
  {
    CacheStore.Row(
      session: "default", key: "u1 GET " + key, variant: "", url: key, partition: "u1", status: 200,
      headers: CacheStore.encode([("etag", "\"a\""), ("date", "Mon, 01 Jan 2024 00:00:00 GMT")]),
      vary: CacheStore.encode([("accept-language", nil)]), requestTime: 10, responseTime: 11, bodyFile: file,
      bodyBytes: 3, bodySHA256: [1, 2, 3], lastUse: lastUse, hits: 0)
  }

  @Test func rowsRoundTripAndComeBackLeastRecentlyUsedFirst() throws {
    let dir = TempDirectory("cache-rows")
    let store = try CacheStore(path: dir.path + "/cache.db")
    try store.put(Self.row("http://a.test/2", lastUse: 20))
    try store.put(Self.row("http://a.test/1", lastUse: 10))
    #expect(try store.all().map(\.url) == ["http://a.test/1", "http://a.test/2"])
    #expect(try store.all().first == Self.row("http://a.test/1", lastUse: 10))
    try store.touch([("default", "u1 GET http://a.test/1", "", 30, 4)])
    #expect(try store.all().map(\.url) == ["http://a.test/2", "http://a.test/1"])
    #expect(try store.all().last?.hits == 4)
    try store.put(nil, removing: [("default", "u1 GET http://a.test/2", "")])
    #expect(try store.count() == 1)
    #expect(fileMode(dir.path + "/cache.db") == 0o600)
  }

  @Test func headerListsRoundTripAndDamageIsRefused() {
    let pairs: [(name: String, value: String?)] = [("a", "1"), ("b", nil), ("", ""), ("é", "ü, x")]
    let bytes = CacheStore.encode(pairs)
    let back = CacheStore.decode(bytes)
    #expect(back?.map(\.name) == pairs.map(\.name) && back?.map(\.value) == pairs.map(\.value))
    for cut in 0..<bytes.count where CacheStore.decode(Array(bytes[..<cut])) != nil {
      // Only cuts at a pair's end decode.
      #expect([0, 10, 19, 27].contains(cut), "cut \(cut)")
    }
    #expect(CacheStore.decode([0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    #expect(CacheStore.decode([1, 0, 0, 0, 0xC3]) == nil)
  }

  @Test func bodiesAreWrittenPrivatelyCheckedAndSwept() throws {
    let dir = TempDirectory("cache-bodies")
    let bodies = try CacheBodyFiles(path: dir.path + "/cache")
    #expect(fileMode(dir.path + "/cache") == 0o700)
    let writer = try #require(bodies.begin())
    #expect(Array("hello".utf8).withUnsafeBytes { writer.write($0) })
    let (name, sha) = try #require(bodies.commit(writer))
    #expect(fileMode(dir.path + "/cache/" + name) == 0o600)
    var read: [UInt8] = []
    #expect(bodies.read(name, bytes: 5, sha256: sha) { read += $0 })
    #expect(read == Array("hello".utf8))
    #expect(!bodies.read(name, bytes: 4, sha256: nil) { _ in })
    #expect(!bodies.read(name, bytes: 5, sha256: [UInt8](repeating: 0, count: 32)) { _ in })
    // A row's name is never a path.
    #expect(!bodies.read("../cache.db", bytes: 5, sha256: nil) { _ in })
    let abandoned = try #require(bodies.begin())
    _ = bodies.begin()
    #expect(bodies.sweep(keeping: [name]) == 2)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache") == [name])
    bodies.discard(abandoned)
  }

  /// A body is fsynced (with its directory) only under `journal.sync: full`: with `normal` a
  /// store never waits for the disk on the loop; either way the stored body reads back whole.
  @Test func bodiesAreSyncedOnlyWhenAsked() throws {
    let dir = TempDirectory("cache-syncs")
    for syncs in [false, true] {
      let bodies = try CacheBodyFiles(path: dir.path + "/cache-\(syncs)", syncs: syncs)
      for _ in 0..<3 {
        let writer = try #require(bodies.begin())
        #expect(Array("body".utf8).withUnsafeBytes { writer.write($0) })
        let (name, sha) = try #require(bodies.commit(writer))
        #expect(bodies.read(name, bytes: 4, sha256: sha) { _ in })
      }
      #expect(bodies.syncCount == (syncs ? 6 : 0))
    }
  }
}
