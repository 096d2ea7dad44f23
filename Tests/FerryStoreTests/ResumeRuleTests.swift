import Testing

@testable import FerryStore

/// Issue 14's rule for a job found after a restart, as a table, then through a real journal.
@Suite struct ResumeRuleTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let phase: JournalPhase
    let method: String
    let resendSafe: Bool
    let expected: Resumption
    var testDescription: String { "\(phase) \(method) resendSafe=\(resendSafe)" }
  }

  static let cases: [Case] = [
    Case(phase: .queued, method: "POST", resendSafe: false, expected: .queue),
    Case(phase: .queued, method: "GET", resendSafe: false, expected: .queue),
    Case(phase: .ended, method: "POST", resendSafe: false, expected: .result),
    Case(phase: .running(attempt: 1), method: "GET", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 1), method: "HEAD", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 3), method: "PUT", resendSafe: false, expected: .resend(attempt: 4)),
    Case(phase: .running(attempt: 1), method: "DELETE", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 1), method: "OPTIONS", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 1), method: "TRACE", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 1), method: "POST", resendSafe: false, expected: .interrupt),
    Case(phase: .running(attempt: 1), method: "PATCH", resendSafe: false, expected: .interrupt),
    // Methods are case-sensitive (RFC 9110 §9.1): "get" is not GET.
    Case(phase: .running(attempt: 1), method: "get", resendSafe: false, expected: .interrupt),
    Case(phase: .running(attempt: 1), method: "POST", resendSafe: true, expected: .resend(attempt: 2)),
    Case(phase: .running(attempt: 2), method: "PATCH", resendSafe: true, expected: .resend(attempt: 3)),
    // Between attempts nothing is in flight, and the retry policy had already decided.
    Case(phase: .waitingRetry(attempt: 1), method: "POST", resendSafe: false, expected: .resend(attempt: 2)),
    Case(phase: .waitingRetry(attempt: 4), method: "GET", resendSafe: false, expected: .resend(attempt: 5)),
  ]

  @Test(arguments: cases) func resumption(_ c: Case) {
    #expect(
      ResumeRule.resumption(phase: c.phase, method: c.method, declaresResendSafe: c.resendSafe) == c.expected)
  }

  @Test func recoverAppliesTheRuleToWhatWasCommitted() throws {
    let dir = TempDirectory("resume")
    do {
      let journal = try Journal.openForTest(dir.journal)
      let queued = journal.submitted(sampleSubmission("queued", method: "POST"))
      let get = journal.submitted(sampleSubmission("get", method: "GET"))
      let post = journal.submitted(sampleSubmission("post", method: "POST"))
      let keyed = journal.submitted(sampleSubmission("keyed", method: "POST", resendSafe: true))
      let ended = journal.submitted(sampleSubmission("ended", method: "POST"))
      for k in [get, post, keyed, ended] { journal.phaseChanged(k, to: .running(attempt: 1)) }
      journal.phaseChanged(get, to: .waitingRetry(attempt: 1))
      journal.phaseChanged(get, to: .running(attempt: 2))
      journal.ended(ended, seq: 1, line: eventLine(1, "done"), outcome: .done)
      _ = queued
      #expect(journal.flush().committed.count == 5)
    }
    let jobs = try Journal.openForTest(dir.journal).recover()
    #expect(jobs.map(\.submission.id) == ["queued", "get", "post", "keyed", "ended"])
    #expect(
      jobs.map(\.resumption) == [.queue, .resend(attempt: 3), .interrupt, .resend(attempt: 2), .result])
    #expect(jobs.map(\.attempts) == [0, 2, 1, 1, 1])
  }
}
