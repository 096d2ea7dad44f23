import Testing

@testable import FerryClient

/// The slowest jobs under the sessions: from `stats`' `slowest`, filtered by session like the
/// rows, and only where a terminal leaves room for their head and one job.
struct TopViewSlowestTests {
  static let sample = TopViewTests.sample(
    at: 0,
    #"{"event":"stats","jobs":{"queued":0,"running":2,"done":0,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":2,"reused":0},"bytes":{"up":0,"down":3072},"clients":1,"uptime_s":100,"#
      + #""sessions":{"api":{"jobs":{"queued":0,"running":1,"done":0,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":1,"reused":0},"bytes":{"up":0,"down":2048}},"#
      + #""default":{"jobs":{"queued":0,"running":1,"done":0,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":1,"reused":0},"bytes":{"up":0,"down":1024}}},"#
      + #""slowest":[{"id":"export-2026-nightly-full","session":"api","origin":"https://api.test:443","#
      + #""age_ms":95000,"received_bytes":2048},"#
      + #"{"id":"j7","session":"default","origin":"http://127.0.0.1:8080","age_ms":1500,"received_bytes":1024}]}"#
  )

  @Test func onePassListsTheSlowestJobsAfterTheSessions() {
    let lines = TopView(configured: ["api", "default"]).lines(
      previous: nil, current: Self.sample, width: 200, height: nil)
    #expect(
      Array(lines.suffix(4)) == [
        "",
        "SLOWEST JOB         SESSION              AGE   RECEIVED  ORIGIN",
        "export-2026-nightl~ api                 1:35    2.0 KiB  https://api.test:443",
        "j7                  default             0:01    1.0 KiB  http://127.0.0.1:8080",
      ])
  }

  @Test func theFilterAppliesAndASmallTerminalLeavesThemOut() {
    let filtered = TopView(filter: "def", configured: ["api", "default"]).lines(
      previous: nil, current: Self.sample, width: 200, height: nil)
    #expect(filtered.last?.hasPrefix("j7 ") == true && !filtered.contains { $0.hasPrefix("export") })
    let view = TopView(configured: ["api", "default"])
    // 4 summary lines, a blank, the head, 2 sessions, the keys: no room left for the list.
    let tight = view.lines(previous: nil, current: Self.sample, width: 200, height: 9)
    #expect(!tight.contains { $0.hasPrefix("SLOWEST") })
    // Room for the blank, the head and one job.
    let three = view.lines(previous: nil, current: Self.sample, width: 200, height: 12)
    #expect(
      three[8] == "" && three[9].hasPrefix("SLOWEST") && three[10].hasPrefix("export") && three.count == 12)
  }

  @Test func anAnswerWithoutTheListShowsNone() {
    let lines = TopView(configured: ["default", "api", "idle"]).lines(
      previous: nil, current: TopViewTests.first, width: 200, height: nil)
    #expect(!lines.contains { $0.hasPrefix("SLOWEST") })
  }
}
