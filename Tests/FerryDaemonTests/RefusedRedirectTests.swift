import FerryTestSupport
import FerryWire
import Foundation
import Glibc
import Testing

@testable import FerryDaemon

/// A refused redirect leaves nothing behind in its session (issue 25): every later job of the
/// session, whatever its output, runs as it would have without it.
///
/// libcurl 7.88 allocates a transfer's receive buffer when it enters its connect state and frees
/// it only once the transfer had a connection; a redirect to a scheme curl may not follow fails
/// in between, and the easy handle, reused, then refused `CURLOPT_BUFFERSIZE` for the next job
/// that writes to a file or a descriptor ("A libcurl function was given a bad argument").
@MainActor @Suite(.serialized) struct RefusedRedirectTests {
  /// A refused redirect: the path that sends it, the job's extra fields, the expected code.
  struct Refusal {
    let path: String
    let fields: String
    let code: String
  }

  /// Dropping the session's secret header, a job carries no credentials, so no origin check
  /// comes before the scheme's or the egress policy's (another scheme or host is another
  /// origin).
  static let uncredentialed = #","headers":{"X-Api-Key":null}"#

  static let refusals: [Refusal] = [
    Refusal(path: "/redirect-to?url=ftp://127.0.0.1/x", fields: uncredentialed, code: "unsupported_scheme"),
    Refusal(path: "/redirect-to?url=dict://127.0.0.1/x", fields: uncredentialed, code: "unsupported_scheme"),
    Refusal(
      path: "/redirect-to?url=gopher://127.0.0.1/x&status=307", fields: uncredentialed,
      code: "unsupported_scheme"),
    Refusal(path: "/redirect/3", fields: #","max_redirects":1"#, code: "too_many_redirects"),
    // Another port is another origin: the session's secret header may not go there.
    Refusal(path: "/redirect-to?url=http://127.0.0.1:1/x", fields: "", code: "origin_not_allowed"),
    Refusal(path: "/redirect-to?url=http://denied.invalid/x", fields: uncredentialed, code: "egress_denied"),
  ]

  /// The job outputs checked after each refusal.
  enum Output: String, CaseIterable {
    case inline, stream, output, outputFD, cache
  }

  static let bodyBytes = 3000

  /// Every refusal, by curl (GET) and by the transfer itself (PATCH), then each kind of output,
  /// all in one session: each output job succeeds with the whole body.
  @Test func aRefusedRedirectLeavesTheSessionWorkingForEveryOutput() throws {
    let dir = Paths.tempDirectory("refused-redirect")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let d = try InProcessDaemon(config: #"{"state_dir": "\#(dir)", "sessions": {"default": {}}}"#)
    defer { d.close() }
    try d.reload(
      #"""
      {"state_dir": "\#(dir)", "files": {"write_roots": ["\#(dir)"]},
       "egress": {"deny_hosts": ["denied.invalid"]},
       "sessions": {"default": {"base_url": "\#(d.url("/"))", "headers": {"X-Api-Key": "k1"},
         "cache": {"max_bytes": 8388608}}}}
      """#)
    // The daemon's own user: `output` writes only where the client may (issue 26), and the
    // test's directory is ours.
    let c = try d.connect(uid: getuid())
    var n = 0
    for method in ["GET", "PATCH"] {
      for refusal in Self.refusals {
        for output in Output.allCases {
          n += 1
          let refused = Self.run(
            d, c, #"{"id":"r\#(n)","method":"\#(method)","url":"\#(d.url(refusal.path))"\#(refusal.fields)}"#,
            id: "r\(n)")
          #expect(refused?.errorCode == refusal.code, "\(method) \(refusal.path): \(Self.summary(refused))")
          let context = "\(output) after \(method) \(refusal.path)"
          Self.check(output, n: n, d, c, dir: dir, context)
        }
      }
    }
    // Each redirect curl refused for its scheme left its handle holding curl's receive buffer:
    // the job after it that sets its own buffer size (`output`, `output_fd`, and the cache's
    // into a file) passed that handle over for another, 3 schemes × 3 such outputs (the PATCH
    // hops never reach curl); the jobs that keep curl's size took it.
    #expect(d.daemon.sessions["default"]?.engine.stats.handlesPassedOver == 9)
  }

  /// Runs one job line; its terminal event.
  static func run(_ d: InProcessDaemon, _ c: InProcessClient, _ line: String, id: String) -> JSONObject? {
    c.send(line)
    d.run(until: { c.events.contains { $0.id == id && $0.isTerminal } })
    return c.events.first { $0.id == id && $0.isTerminal }
  }

  /// Runs a job with `output` and checks that it got the whole body.
  static func check(
    _ output: Output, n: Int, _ d: InProcessDaemon, _ c: InProcessClient, dir: String, _ context: String
  ) {
    let id = "\(output)\(n)"
    let url = d.url("/bytes/\(bodyBytes)?n=\(n)")
    switch output {
    case .inline:
      let done = run(d, c, #"{"id":"\#(id)","url":"\#(url)"}"#, id: id)
      let body = Base64.decode(done?["body_base64"]?.stringValue ?? "") ?? []
      #expect(done?.event == "done" && body.count == bodyBytes, "\(context): \(summary(done))")
    case .stream:
      let done = run(d, c, #"{"id":"\#(id)","url":"\#(url)","response":"stream","events":["data"]}"#, id: id)
      let pieces = c.events.filter { $0.id == id && $0.event == "data" }
      let count = pieces.reduce(0) { $0 + (Base64.decode($1["base64"]?.stringValue ?? "") ?? []).count }
      #expect(done?.event == "done" && count == bodyBytes, "\(context): \(summary(done))")
    case .output:
      let path = "\(dir)/\(id).bin"
      let done = run(d, c, #"{"id":"\#(id)","url":"\#(url)","output":"\#(path)"}"#, id: id)
      #expect(done?.event == "done" && fileSize(path) == bodyBytes, "\(context): \(summary(done))")
    case .outputFD:
      let path = "\(dir)/\(id).bin"
      let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      c.send(#"{"id":"\#(id)","url":"\#(url)","output_fd":0}"#, descriptors: [file])
      _ = Glibc.close(file)
      d.run(until: { c.events.contains { $0.id == id && $0.isTerminal } })
      let done = c.events.first { $0.id == id && $0.isTerminal }
      #expect(done?.event == "done" && fileSize(path) == bodyBytes, "\(context): \(summary(done))")
    case .cache:
      // A miss stored on its way into a file, then the hit.
      let cached = url + "&cache_control=max-age%3D600"
      let path = "\(dir)/\(id).bin"
      let miss = run(d, c, #"{"id":"\#(id)m","url":"\#(cached)","output":"\#(path)"}"#, id: id + "m")
      #expect(
        miss?["cache"]?.stringValue == "miss" && fileSize(path) == bodyBytes, "\(context): \(summary(miss))")
      let hit = run(d, c, #"{"id":"\#(id)h","url":"\#(cached)"}"#, id: id + "h")
      #expect(hit?["cache"]?.stringValue == "hit" && hit?.event == "done", "\(context): \(summary(hit))")
    }
  }

  /// A terminal event in a few words: its name, and the error's code and message.
  static func summary(_ event: JSONObject?) -> String {
    guard let event else { return "no terminal event" }
    let error = event["error"]?.objectValue
    return [event.event, error?["code"]?.stringValue, error?["message"]?.stringValue].compactMap { $0 }
      .joined(separator: " ")
  }

  static func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }
}
