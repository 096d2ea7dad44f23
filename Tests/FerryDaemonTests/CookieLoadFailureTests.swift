import FerryStore
import FerryTestSupport
import FerryWire
import Foundation
import Testing

@testable import FerryDaemon

/// A jar whose load from `cookies.db` failed (issue 28), in process: the daemon once started it
/// empty and its next save replaced the user's stored cookies with what that empty jar
/// collected. Now such a jar is kept in memory only and never saved.
@MainActor @Suite(.serialized) struct CookieLoadFailureTests {
  @Test func aJarWhoseLoadFailedIsNeverSavedOverTheStoredOne() throws {
    let state = Paths.tempDirectory("cookie-load-failure")
    defer { try? FileManager.default.removeItem(atPath: state) }
    try FileManager.default.createDirectory(
      atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let stored = "127.0.0.1\tFALSE\t/\tFALSE\t0\tstored\tkept"
    do {
      let store = try CookieStore(path: state + "/cookies.db")
      try store.replace(
        session: "default", owner: 1000, with: [CookieStore.Row(line: stored, firstMs: Journal.wallClockMs())]
      )
    }
    let d = try InProcessDaemon(
      config: #"{"state_dir": "\#(state)", "sessions": {"default": {"cookies": true}}}"#)
    defer { d.close() }
    d.daemon.cookieJars.loadRows = { _, _ throws(StoreError) in
      throw StoreError(.other, "injected read failure")
    }
    let c = try d.connect(uid: 1000)
    let url = d.url("/redirect-to?url=/echo&set_cookie=" + CookieJarTests.q("new=1; Max-Age=3600"))
    c.send(#"{"id":"1","url":"\#(url)","events":[]}"#)
    let done = c.waitFor("1", "done")
    #expect(done != nil, "\(c.trace)")
    // The job had its cookie in memory all the same.
    let jar = d.daemon.cookieJars.entries[CookieJars.Key(session: "default", owner: 1000)]
    #expect(jar?.persist == false)
    #expect(jar?.jar.lines().contains { $0.hasSuffix("\tnew\t1") } == true)
    let rows = try d.daemon.cookieJars.store?.load(session: "default", owner: 1000).map(\.line)
    #expect(rows == [stored])
  }
}
