import FerryTestSupport
import FerryWire
import Foundation
import Testing

/// A smaller version of issue 14's kill test: 50 durable jobs (GETs, POSTs with and without
/// `Idempotency-Key`) from rounds of clients, SIGKILL at random moments 5 times with a restart
/// each time, then everything attached.
@Suite(.serialized) struct DurableKillTests {
  @Test func fiftyDurableJobsAcrossFiveSIGKILLsEachEndOnceAndNoPOSTIsSentTwice() throws {
    let server = try RecordingServer()
    let state = Paths.tempDirectory("state")
    let config = #"{"state_dir": "\#(state)", "sessions": {"default": {"max_concurrent": 3}}}"#
    var acked = Set<String>()
    var endings: [String: JSONObject] = [:]  // terminal lines a connected client was written
    var daemon = try DaemonHarness(config: config)
    var n = 0
    for _ in 0..<5 {
      let c = try daemon.connect()
      for _ in 0..<10 {
        n += 1
        let id = "j\(n)"
        let path = "/slow/\(id)"
        let line: String
        switch n % 3 {
        case 0: line = #"{"id":"\#(id)","url":"\#(server.url(path))","durable":true}"#
        case 1:
          line =
            #"{"id":"\#(id)","method":"POST","url":"\#(server.url(path))","body":{"text":"x"},"durable":true}"#
        default:
          line =
            #"{"id":"\#(id)","method":"POST","url":"\#(server.url(path))","body":{"text":"x"},"durable":true,"#
            + #""headers":{"Idempotency-Key":"\#(id)"}}"#
        }
        try c.send(line)
      }
      // The kill comes at a random moment while the jobs run (30 ms each, 3 at a time).
      usleep(UInt32.random(in: 0...120_000))
      daemon.process.signal(SIGKILL)
      _ = daemon.process.wait(timeoutMs: TestTime.ms(5_000))
      // What the daemon wrote before it died is still readable: `queued` acknowledged a job.
      while let text = c.readLine(timeoutMs: 2_000) {
        guard case .object(let e) = try JSONReader().read(text) else { continue }
        if e.event == "queued" { acked.insert(e.id) }
        if e.isTerminal {
          #expect(endings[e.id] == nil, "two endings for \(e.id)")
          endings[e.id] = e
        }
      }
      daemon = try DaemonHarness(config: config)
    }
    // Everything acknowledged ends exactly once: an ending already written is the same on
    // attach (when its removal had not been committed) or unknown; any other comes now. Jobs
    // never acknowledged may or may not have been committed: attached too, so none is left.
    for id in (1...n).map({ "j\($0)" }) {
      let c = try daemon.connect()
      try c.send(#"{"op":"attach","id":"\#(id)"}"#)
      var terminal: JSONObject?
      while terminal == nil {
        let e = try c.readEvent(timeoutMs: 20_000)
        if e.event == "error" { break }
        if e.id == id, e.isTerminal { terminal = e }
      }
      if let written = endings[id] {
        if let terminal {
          #expect(terminal.seq == written.seq && terminal.event == written.event, "\(id) ended twice")
        }
      } else {
        #expect(terminal != nil || !acked.contains(id), "\(id) was acknowledged and never ended")
        if let terminal { endings[id] = terminal }
      }
    }
    for (id, e) in endings {
      #expect(e.event == "done" || e.errorCode == "interrupted", "\(id): \(JSONWriter.string(.object(e)))")
    }
    // No POST without a key reached the server twice.
    for i in 1...n where i % 3 == 1 {
      #expect(server.count("/slow/j\(i)") <= 1, "j\(i) sent \(server.count("/slow/j\(i)")) times")
    }
    // Collected: nothing is left to list.
    let c = try daemon.connect()
    try c.send(#"{"op":"jobs"}"#)
    let left = try c.readEvent()["jobs"]?.arrayElements ?? []
    #expect(left.isEmpty, "\(left.count) jobs left in the journal")
    #expect(acked.count > 0)
  }
}
