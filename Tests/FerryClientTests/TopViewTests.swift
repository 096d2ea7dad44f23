import Testing

@testable import FerryClient

/// `ferry top`'s screen from two `stats` answers, line for line, and its keys.
struct TopViewTests {
  static let first = sample(
    at: 0,
    #"{"event":"stats","jobs":{"queued":3,"running":2,"done":10,"failed":1,"cancelled":0},"#
      + #""connections":{"opened":4,"reused":6},"bytes":{"up":1000,"down":20480},"clients":2,"uptime_s":10,"#
      + #""sessions":{"api":{"jobs":{"queued":3,"running":1,"done":4,"failed":1,"cancelled":0},"#
      + #""connections":{"opened":2,"reused":3},"bytes":{"up":1000,"down":10240}},"#
      + #""default":{"jobs":{"queued":0,"running":1,"done":6,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":2,"reused":3},"bytes":{"up":0,"down":10240}}},"#
      + #""cache":{"api":{"hit":3,"revalidated":1,"miss":4,"entries":2,"bytes":100}}}"#)
  static let second = sample(
    at: 2000,
    #"{"event":"stats","jobs":{"queued":1,"running":2,"done":14,"failed":1,"cancelled":0},"#
      + #""connections":{"opened":5,"reused":9},"bytes":{"up":1000,"down":24576},"clients":2,"uptime_s":12,"#
      + #""sessions":{"api":{"jobs":{"queued":1,"running":1,"done":6,"failed":1,"cancelled":0},"#
      + #""connections":{"opened":3,"reused":5},"bytes":{"up":1000,"down":12288}},"#
      + #""default":{"jobs":{"queued":0,"running":1,"done":8,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":2,"reused":4},"bytes":{"up":0,"down":12288}}},"#
      + #""cache":{"api":{"hit":5,"revalidated":1,"miss":4,"entries":2,"bytes":100}}}"#)

  static func sample(at ms: Int64, _ json: String) -> StatsSample {
    StatsSample(answer: Array(json.utf8), atMs: ms)!
  }

  static let tableHead =
    "SESSION              RUNNING  QUEUED     DONE  FAILED   JOBS/S        UP/S      DOWN/S  CACHE"

  @Test func ratesAreTheChangeBetweenTwoSamples() {
    let view = TopView(configured: ["default", "api", "idle"])
    #expect(
      view.lines(previous: Self.first, current: Self.second, width: 200, height: nil) == [
        "ferry top   up 0:12   clients 2   sort name",
        "jobs       running 2   queued 1   done 14   failed 1   cancelled 0   2.0/s",
        "transfer   up 0 B/s   down 2.0 KiB/s   connections 5 opened, 9 reused",
        "cache      60% answered   (5 hit, 1 revalidated, 4 miss)",
        "",
        Self.tableHead,
        "api                        1       1        6       1      1.0         0 B     1.0 KiB    60%",
        "default                    1       0        8       0      1.0         0 B     1.0 KiB      -",
        "idle                       0       0        0       0      0.0         0 B         0 B      -",
      ])
  }

  @Test func oneSampleGivesTheAveragesSinceTheDaemonStarted() {
    let view = TopView(configured: ["default", "api", "idle"])
    #expect(
      view.lines(previous: nil, current: Self.first, width: 200, height: nil) == [
        "ferry top   up 0:10   clients 2   sort name",
        "jobs       running 2   queued 3   done 10   failed 1   cancelled 0   1.1/s",
        "transfer   up 100 B/s   down 2.0 KiB/s   connections 4 opened, 6 reused",
        "cache      50% answered   (3 hit, 1 revalidated, 4 miss)",
        "",
        Self.tableHead,
        "api                        1       3        4       1      0.5       100 B     1.0 KiB    50%",
        "default                    1       0        6       0      0.6         0 B     1.0 KiB      -",
        "idle                       0       0        0       0      0.0         0 B         0 B      -",
      ])
  }

  @Test func aSmallTerminalCutsRowsAndColumnsAndKeepsTheKeysLast() {
    let view = TopView(configured: ["default", "api", "idle"])
    let lines = view.lines(previous: Self.first, current: Self.second, width: 30, height: 9)
    #expect(
      lines == [
        "ferry top   up 0:12   clients ", "jobs       running 2   queued ", "transfer   up 0 B/s   down 2.0",
        "cache      60% answered   (5 h", "", "SESSION              RUNNING  ",
        "api                        1  ",
        "... 2 more", "q quit   s sort (name)   / fil",
      ])
    // A tall terminal pads to its height so the keys sit on the last row.
    let tall = view.lines(previous: Self.first, current: Self.second, width: 200, height: 14)
    #expect(tall.count == 14 && tall[9] == "" && tall[13] == "q quit   s sort (name)   / filter")
  }

  @Test func sKeyCyclesTheSortLargestFirstWithTiesByName() {
    var view = TopView(configured: ["default", "api", "idle"])
    #expect(view.press(UInt8(ascii: "s")) == .redraw)
    #expect(view.sort == .running)
    #expect(view.press(UInt8(ascii: "s")) == .redraw)
    #expect(view.sort == .queued)
    let rows = view.lines(previous: Self.first, current: Self.second, width: 200, height: nil).dropFirst(6)
    #expect(rows.map { String($0.prefix(8)) } == ["api     ", "default ", "idle    "])
    #expect(
      view.lines(previous: nil, current: Self.second, width: 200, height: nil)[0].hasSuffix("sort queued"))
    _ = view.press(UInt8(ascii: "s"))
    let done = view.lines(previous: Self.first, current: Self.second, width: 200, height: nil).dropFirst(6)
    #expect(done.map { String($0.prefix(8)) } == ["default ", "api     ", "idle    "])
    _ = view.press(UInt8(ascii: "s"))
    #expect(view.sort == .name)
  }

  @Test func slashTypesAFilterThatEnterAppliesAndEscDrops() {
    var view = TopView(configured: ["default", "api", "idle"])
    #expect(view.press(UInt8(ascii: "/")) == .redraw)
    for byte in "aPx".utf8 { #expect(view.press(byte) == .redraw) }
    #expect(view.press(0x7F) == .redraw)
    #expect(view.keys == "filter: aP_   (Enter applies, Esc cancels)")
    #expect(view.press(0x0D) == .redraw)
    #expect(view.filter == "aP" && view.draft == nil)
    let lines = view.lines(previous: Self.first, current: Self.second, width: 200, height: nil)
    #expect(lines[0] == "ferry top   up 0:12   clients 2   sort name   filter aP")
    #expect(lines.dropFirst(6).map { String($0.prefix(4)) } == ["api "])
    // q while typing is part of the filter, not quit; Esc drops it all.
    _ = view.press(UInt8(ascii: "/"))
    #expect(view.press(UInt8(ascii: "q")) == .redraw)
    #expect(view.press(0x1B) == .redraw)
    #expect(view.filter == "aP" && view.draft == nil)
    _ = view.press(UInt8(ascii: "/"))
    _ = view.press(0x0D)
    #expect(view.filter == "")
    #expect(view.press(UInt8(ascii: "x")) == .nothing)
    #expect(view.press(UInt8(ascii: "q")) == .quit)
  }

  @Test func sessionsTheDaemonCountsButTheConfigLacksStillShow() {
    let view = TopView(configured: [])
    let rows = view.lines(previous: nil, current: Self.second, width: 200, height: nil).dropFirst(6)
    #expect(rows.map { String($0.prefix(8)) } == ["api     ", "default "])
    #expect(StatsSample(answer: Array(#"{"event":"pong"}"#.utf8), atMs: 0) == nil)
  }

  @Test func retriesShowOnlyWhenTheDaemonCountsThem() {
    let plain = TopView().lines(previous: nil, current: Self.second, width: 200, height: nil)[1]
    #expect(!plain.contains("retries"))
    let counted = Self.sample(
      at: 0, #"{"event":"stats","jobs":{"running":0,"retries":7},"clients":0,"uptime_s":0,"sessions":{}}"#)
    let line = TopView().lines(previous: nil, current: counted, width: 200, height: nil)
    #expect(line[1] == "jobs       running 0   queued 0   done 0   failed 0   cancelled 0   retries 7   -/s")
    #expect(line[2] == "transfer   up -/s   down -/s   connections 0 opened, 0 reused")
    #expect(line[3] == "cache      none")
  }

  /// A slow reader shows: jobs holding a chunk back for their client (`paused`), only when
  /// there are any.
  @Test func pausedJobsShowOnTheJobsLine() {
    let json =
      #"{"event":"stats","jobs":{"queued":0,"running":3,"done":0,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":1,"reused":0},"bytes":{"up":0,"down":0},"clients":1,"paused":2,"#
      + #""uptime_s":1,"sessions":{}}"#
    let lines = TopView().lines(previous: nil, current: Self.sample(at: 0, json), width: 200, height: nil)
    #expect(
      lines[1] == "jobs       running 3   queued 0   done 0   failed 0   cancelled 0   paused 2   0.0/s")
  }

  /// Jobs that wait for the network (issue 31) or behind a server's hold (issue 32) show on the
  /// jobs line, only when there are any.
  @Test func jobsWaitingForTheNetworkOrAHoldShowOnTheJobsLine() {
    let json =
      #"{"event":"stats","jobs":{"queued":5,"running":0,"done":0,"failed":0,"cancelled":0},"#
      + #""connections":{"opened":0,"reused":0},"bytes":{"up":0,"down":0},"clients":1,"paused":0,"#
      + #""uptime_s":1,"sessions":{},"waiting":{"offline":2,"metered":0},"#
      + #""holds":[{"session":"api","origin":"https://api.example:443","until":1796595206,"jobs":3},"#
      + #"{"session":"api","until":1796595206,"jobs":1}]}"#
    let lines = TopView().lines(previous: nil, current: Self.sample(at: 0, json), width: 200, height: nil)
    #expect(
      lines[1]
        == "jobs       running 0   queued 5   done 0   failed 0   cancelled 0   waiting for network 2"
        + "   rate-limited 4   0.0/s")
    // The held origins on a line of their own (`holds` has them; another user's is hidden).
    #expect(lines[2] == "held       api https://api.example:443 3, api (hidden) 1")
  }
}
