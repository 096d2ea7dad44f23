import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

/// Black-box: a SIGKILL while a response is being stored never leaves an entry that a later
/// daemon serves (issue 17: the row is committed only after the body file is whole, fsynced
/// and renamed); the temporary body is swept at the next start.
@Suite(.serialized) struct HTTPCacheKillTests {
  let fixture: FixtureHarness

  init() throws { fixture = try FixtureHarness() }

  func config(_ state: String) -> String {
    #"{"state_dir": "\#(state)", "sessions": {"default": {"cache": {"max_bytes": 1048576}}}}"#
  }

  func cacheFiles(_ state: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: state + "/cache")) ?? []
  }

  func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }

  @Test func aSIGKILLMidStoreLeavesNoEntryToServe() throws {
    let state = Paths.tempDirectory("cache-kill")
    defer { try? FileManager.default.removeItem(atPath: state) }
    // `/halt/N`: a 200 (storable: cacheable by default) that sends N of its 2N bytes and stops.
    let url = fixture.url("/halt/3000")
    var daemon = try DaemonHarness(config: config(state))
    do {
      let c = try daemon.connect()
      try c.send(#"{"id":"k","url":"\#(url)"}"#)
      guard try c.awaitResponse(id: "k") else { return }
      // The body is being written: its temporary file holds the bytes that came.
      var temporary: String?
      _ = Poll.until(timeoutMs: 5_000) {
        temporary = cacheFiles(state).first { $0.hasPrefix("tmp-") }
        guard let t = temporary else { return false }
        return fileSize(state + "/cache/" + t) >= 3000
      }
      #expect(temporary != nil && fileSize(state + "/cache/" + (temporary ?? "")) >= 3000)
      daemon.process.signal(SIGKILL)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
    }
    daemon = try DaemonHarness(config: config(state))
    let c = try daemon.connect()
    // Offline: only a whole stored entry could answer; there is none.
    let events = try c.run(#"{"id":"o","url":"\#(url)","cache":"return_cache_dont_load"}"#, id: "o")
    #expect(events.last?.event == "failed" && events.last?.errorCode == "not_cached")
    #expect(!cacheFiles(state).contains { $0.hasPrefix("tmp-") }, "\(cacheFiles(state))")
    #expect(cacheFiles(state).isEmpty)
  }
}
