import FerryTestSupport
import FerryWire
import Foundation
import Testing

@testable import FerryDaemon

/// With digest credentials, libcurl answers the server's 401 challenge itself: the job reports
/// one `response`, the answer's, never the challenge (issue 25).
@MainActor @Suite(.serialized) struct DigestResponseTests {
  static func responses(_ c: InProcessClient, _ id: String) -> [Int] {
    c.events.filter { $0.id == id && $0.event == "response" }.map { $0.int("status") }
  }

  static func run(_ d: InProcessDaemon, _ c: InProcessClient, _ line: String, id: String) -> JSONObject? {
    c.send(line)
    d.run(until: { c.events.contains { $0.id == id && $0.isTerminal } })
    return c.events.first { $0.id == id && $0.isTerminal }
  }

  @Test func aDigestJobReportsOnlyTheAnswer() throws {
    let d = try InProcessDaemon(config: #"{"sessions": {"default": {}}}"#)
    defer { d.close() }
    let c = try d.connect()
    let auth = #""auth":{"digest":{"username":"bob","password":"pw"}}"#
    let events = #""events":["response","data"]"#
    for (n, method) in ["GET", "POST", "PATCH"].enumerated() {
      let id = "ok\(n)"
      let url = d.url("/digest-auth/bob/pw")
      let done = Self.run(
        d, c, #"{"id":"\#(id)","method":"\#(method)","url":"\#(url)",\#(auth),\#(events)}"#, id: id)
      #expect(done?.event == "done" && done?.int("status") == 200, "\(method): \(c.trace)")
      #expect(Self.responses(c, id) == [200], "\(method): \(c.trace)")
      #expect(done?["body"]?.objectValue?["user"]?.stringValue == "bob", "\(method)")
    }
    // A wrong password: the server's second 401 is the answer, with its body.
    let url = d.url("/digest-auth/bob/other")
    let failed = Self.run(d, c, #"{"id":"w","url":"\#(url)",\#(auth),\#(events)}"#, id: "w")
    #expect(failed?.errorCode == "unacceptable_status" && failed?.int("status") == 401, "\(c.trace)")
    #expect(Self.responses(c, "w") == [401], "\(c.trace)")
    #expect(failed?["body"]?.stringValue == "digest needed\n", "\(String(describing: failed))")
    // A 401 without a digest challenge is the answer at once.
    let plain = Self.run(d, c, #"{"id":"p","url":"\#(d.url("/status/401"))",\#(auth),\#(events)}"#, id: "p")
    #expect(plain?.int("status") == 401 && Self.responses(c, "p") == [401], "\(c.trace)")
  }
}
