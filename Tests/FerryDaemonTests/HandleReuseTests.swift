import FerryTestSupport
import FerryWire
import Foundation
import Testing

@testable import FerryDaemon

/// Easy handles are reused between jobs over HTTP/2 too (issue 29). libcurl 7.88 keeps a
/// handle's receive buffer after an HTTP/2 transfer, which makes it refuse
/// `CURLOPT_BUFFERSIZE` (issue 25); the first fix dropped every such handle, so most https jobs
/// made a new easy handle (1 203 for 2 000 jobs in the profile). Now such a handle serves the
/// next job that keeps curl's buffer size, and a job that sets its own (`output`) takes another.
@MainActor @Suite(.serialized) struct HandleReuseTests {
  @Test func http2HandlesServeTheNextJobsAndAnOutputJobStillGetsItsBuffer() throws {
    let nginx = try NginxHarness()
    let dir = Paths.tempDirectory("handle-reuse")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let d = try InProcessDaemon(
      config:
        #"{"files": {"write_roots": ["\#(dir)"]}, "sessions": {"tls": {"ca_file": "\#(nginx.caFile)"}}}"#)
    defer { d.close() }
    let c = try d.connect(uid: getuid())
    let url = nginx.https("/small.json")
    // Rounds of 16 at once on the one HTTP/2 connection: each round's jobs take the handles the
    // last round freed.
    for round in 0..<10 {
      for i in 0..<16 { c.send(#"{"id":"j\#(round)-\#(i)","session":"tls","url":"\#(url)","events":[]}"#) }
      d.run(until: { c.events.filter { $0.isTerminal }.count == 16 * (round + 1) })
    }
    let ends = c.events.filter(\.isTerminal)
    #expect(
      ends.count == 160 && ends.allSatisfy { $0.event == "done" && $0["http_version"]?.stringValue == "2" })
    let engine = try #require(d.daemon.sessions["tls"]?.engine)
    #expect(
      engine.stats.handlesMade <= 16, "160 jobs, 16 at a time, made \(engine.stats.handlesMade) handles")
    let out = dir + "/small.json"
    let written = HTTPCacheTests.run(
      c, d, "o", #""session":"tls","url":"\#(url)","output":"\#(out)","events":[]"#)
    #expect(written?.event == "done", "\(String(describing: written))")
    #expect(FileManager.default.fileExists(atPath: out))
  }

  /// A handle kept as an ordinary job left it holds that job's TLS settings: a job with others
  /// gets curl's full reset first, so one job's `insecure` never reaches the next on the handle.
  @Test func aJobsInsecureDoesNotReachTheNextJobOnItsHandle() throws {
    let nginx = try NginxHarness()
    let d = try InProcessDaemon(config: "{}")
    defer { d.close() }
    let c = try d.connect(uid: getuid())
    let url = nginx.https("/small.json")
    let a = HTTPCacheTests.run(c, d, "a", #""url":"\#(url)","tls":{"insecure":true},"events":[]"#)
    #expect(a?.event == "done", "\(String(describing: a))")
    let engine = try #require(d.daemon.sessions["default"]?.engine)
    #expect(engine.stats.handlesKeptSet == 1)
    let b = HTTPCacheTests.run(c, d, "b", #""url":"\#(url)","events":[]"#)
    #expect(b?.event == "failed", "\(String(describing: b))")
    #expect(b?["error"]?.objectValue?["code"]?.stringValue == "tls_failed")
    #expect(engine.stats.handlesMade == 1)
  }
}
