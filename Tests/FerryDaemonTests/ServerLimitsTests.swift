import FerryWire
import Testing

@testable import FerryDaemon

/// The pure rules of issue 32: which answers hold an origin, for how long, and which quota
/// `rate: "auto"` adopts.
struct ServerLimitsTests {
  let now = 1_800_000_000

  func read(_ status: Int, _ fields: [String: String]) -> ServerLimits.Reading? {
    ServerLimits.read(
      status: status, headers: HeaderFields(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
      nowSeconds: { now })
  }

  func hold(_ status: Int, _ fields: [String: String], maxMs: Int = 300_000) -> Int? {
    read(status, fields)?.holdMs(maxMs: maxMs)
  }

  @Test func retryAfterOnA429Or503Holds() {
    #expect(hold(429, ["retry-after": "7"]) == 7000)
    #expect(hold(503, ["retry-after": " 2 "]) == 2000)
    // An HTTP-date: 30 s after `now` (2027-01-15T08:00:00Z).
    #expect(hold(429, ["retry-after": "Fri, 15 Jan 2027 08:00:30 GMT"]) == 30_000)
    // Not on other statuses, not without the field, not for a date in the past.
    #expect(hold(500, ["retry-after": "7"]) == nil)
    #expect(hold(200, ["retry-after": "7"]) == nil)
    #expect(hold(429, [:]) == nil)
    #expect(hold(429, ["retry-after": "Fri, 15 Jan 2027 07:59:00 GMT"]) == nil)
    #expect(hold(429, ["retry-after": "soon"]) == nil)
  }

  @Test func aHoldIsBoundedByTheMaximum() {
    #expect(hold(429, ["retry-after": "86400"], maxMs: 300_000) == 300_000)
    #expect(hold(429, ["retry-after": "99999999999999999"], maxMs: 5000) == 5000)
  }

  @Test func rateLimitFieldsOfBothDrafts() {
    #expect(hold(200, ["ratelimit": "limit=100, remaining=0, reset=12"]) == 12_000)
    #expect(hold(200, ["ratelimit": "limit=100, remaining=3, reset=12"]) == nil)
    #expect(hold(200, ["ratelimit": "\"default\";r=0;t=9"]) == 9000)
    #expect(hold(200, ["ratelimit": "\"burst\";r=4;t=1, \"day\";r=0;t=40"]) == 40_000)
    #expect(hold(200, ["ratelimit": "\"default\";r=1;t=9"]) == nil)
  }

  @Test func xRateLimitResetAsEpochOrDelta() {
    // GitHub: epoch seconds.
    #expect(hold(403, ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "\(now + 25)"]) == 25_000)
    // Others: a delta.
    #expect(hold(200, ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "25"]) == 25_000)
    #expect(hold(200, ["ratelimit-remaining": "0", "ratelimit-reset": "4"]) == 4000)
    #expect(hold(200, ["x-ratelimit-remaining": "1", "x-ratelimit-reset": "25"]) == nil)
    #expect(hold(200, ["x-ratelimit-remaining": "0"]) == nil)
    #expect(hold(200, ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "\(now - 5)"]) == nil)
  }

  @Test func theLatestOfSeveralTimesHolds() {
    let fields = ["retry-after": "3", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "8"]
    #expect(hold(429, fields) == 8000)
  }

  @Test func announcedQuotas() {
    func quota(_ fields: [String: String]) -> ServerLimits.Quota? {
      read(200, fields)?.quota
    }
    #expect(quota(["ratelimit-policy": "100;w=60"]) == .init(quota: 100, windowSeconds: 60))
    #expect(quota(["ratelimit-policy": "\"default\";q=100;w=60"]) == .init(quota: 100, windowSeconds: 60))
    // The tightest of several: 10/s is looser than 100/min.
    #expect(
      quota(["ratelimit-policy": "\"burst\";q=10;w=1, \"minute\";q=100;w=60"])
        == .init(quota: 100, windowSeconds: 60))
    #expect(
      quota(["x-ratelimit-limit": "20", "x-ratelimit-window": "2"]) == .init(quota: 20, windowSeconds: 2))
    // A limit without a window is not adopted.
    #expect(quota(["x-ratelimit-limit": "5000"]) == nil)
    #expect(quota(["ratelimit-policy": "q=0;w=60"]) == nil)
    #expect(quota(["ratelimit-policy": "garbage"]) == nil)
  }

  @Test func theAdoptedIntervalNeverPassesTheCeiling() {
    let q = ServerLimits.Quota(quota: 100, windowSeconds: 60)
    #expect(ServerLimits.adoptedIntervalMs(q, ceilingIntervalMs: 100) == 600)
    #expect(ServerLimits.adoptedIntervalMs(q, ceilingIntervalMs: 1000) == 1000)
    #expect(ServerLimits.adoptedIntervalMs(.init(quota: 3, windowSeconds: 1), ceilingIntervalMs: 1) == 334)
  }

  @Test func anAnswerWithoutLimitsReadsAsNothing() {
    #expect(read(200, ["content-type": "text/plain", "x-request-id": "7", "retry-after": "3"]) == nil)
    #expect(read(200, [:]) == nil)
  }

  @Test func budgetsOfEachForm() {
    func budget(_ fields: [String: String]) -> ServerLimits.Budget? { read(200, fields)?.budget }
    #expect(budget(["ratelimit": "limit=20, remaining=7, reset=2"]) == .init(remaining: 7, resetSeconds: 2))
    #expect(budget(["ratelimit": "\"a\";r=9;t=1, \"b\";r=3;t=30"]) == .init(remaining: 3, resetSeconds: 30))
    #expect(
      budget(["x-ratelimit-remaining": "4999", "x-ratelimit-reset": "\(now + 60)"])
        == .init(remaining: 4999, resetSeconds: 60))
    #expect(
      budget([
        "ratelimit-remaining": "5", "ratelimit-reset": "3", "x-ratelimit-remaining": "2",
        "x-ratelimit-reset": "9",
      ])
        == .init(remaining: 2, resetSeconds: 9))
    // A remaining without a reset is no budget: when it ends is unknown.
    #expect(budget(["x-ratelimit-remaining": "4"]) == nil)
  }

  @Test func hugeQuotasNeitherTrapNorPassTheCeiling() {
    let max = "9223372036854775807"
    let q = read(200, ["ratelimit-policy": "\(max);w=\(max), \(max);w=1"])?.quota
    #expect(q == .init(quota: Int(Int32.max), windowSeconds: Int(Int32.max)))
    #expect(q.map { ServerLimits.adoptedIntervalMs($0, ceilingIntervalMs: 20) } == 1000)
    let x = read(200, ["x-ratelimit-limit": max, "x-ratelimit-window": "1"])?.quota
    #expect(x.map { ServerLimits.adoptedIntervalMs($0, ceilingIntervalMs: 20) } == 20)
  }
}
