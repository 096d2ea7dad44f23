import Testing

@testable import FerryCache

/// An origin for scenarios: answers with `headers`, a 304 when the request's validator is the
/// current ETag, and counts what it was sent.
private final class Origin {
  var etag = "\"v1\""
  var body = "one"
  var extra: CacheHeaderList = []
  var status = 200
  var seen: [CacheHeaderList] = []

  func answer(_ request: CacheHeaderList, _ now: Int64) -> SimOriginAnswer? {
    seen.append(request)
    let headers: CacheHeaderList =
      [("cache-control", "max-age=60"), ("etag", etag), ("date", HTTPDate.format(now))] + extra
    if CacheFields.first("if-none-match", in: request) == etag {
      return SimOriginAnswer(status: 304, headers: headers, body: "")
    }
    return SimOriginAnswer(status: status, headers: headers, body: body)
  }
}

@Test func storesServesFreshGoesStaleRevalidatesAndUpdatesHeaders() {
  var sim = CacheSimulator()
  sim.now = Fix.t0
  let origin = Origin()
  let first = sim.send(Fix.url, origin: origin.answer)
  #expect(first?.source == "miss" && first?.body == "one" && sim.entries.count == 1)

  sim.now += 30
  let hit = sim.send(Fix.url, origin: origin.answer)
  #expect(hit?.source == "hit" && hit?.body == "one" && hit?.header("age") == "30" && origin.seen.count == 1)

  sim.now += 31
  origin.extra = [("x-revision", "2")]
  let revalidated = sim.send(Fix.url, origin: origin.answer)
  #expect(revalidated?.source == "revalidated" && revalidated?.status == 200 && revalidated?.body == "one")
  #expect(CacheFields.first("if-none-match", in: origin.seen[1]) == "\"v1\"")
  #expect(revalidated?.header("x-revision") == "2" && revalidated?.header("age") == "0")

  sim.now += 10
  let again = sim.send(Fix.url, origin: origin.answer)
  #expect(again?.source == "hit" && again?.header("x-revision") == "2" && again?.header("age") == "10")
  #expect(origin.seen.count == 2)

  sim.now += 100
  origin.etag = "\"v2\""
  origin.body = "two"
  let changed = sim.send(Fix.url, origin: origin.answer)
  #expect(changed?.source == "miss" && changed?.body == "two" && sim.entries.count == 1)
  #expect(sim.send(Fix.url, origin: origin.answer)?.body == "two" && origin.seen.count == 3)
}

@Test func aPostInvalidatesTheTargetAndItsSameOriginLocation() {
  var sim = CacheSimulator()
  let origin = Origin()
  let item = "https://api.example.test/items/7"
  _ = sim.send(Fix.url, origin: origin.answer)
  _ = sim.send(item, origin: origin.answer)
  _ = sim.send("https://other.test/items/7", origin: origin.answer)
  #expect(sim.entries.count == 3)
  let post = sim.send(
    "POST", Fix.url,
    origin: { _, _ in
      SimOriginAnswer(
        status: 201, headers: [("location", "/items/7"), ("content-location", "https://other.test/items/7")],
        body: "")
    })
  #expect(post?.status == 201)
  #expect(sim.entries.map(\.entry.key.url.text) == ["https://other.test/items/7"])
  #expect(sim.send(Fix.url, origin: origin.answer)?.source == "miss")
}

@Test func aFailedPostInvalidatesNothing() {
  var sim = CacheSimulator()
  let origin = Origin()
  _ = sim.send(Fix.url, origin: origin.answer)
  _ = sim.send("POST", Fix.url, origin: { _, _ in SimOriginAnswer(status: 500, headers: [], body: "") })
  #expect(sim.send(Fix.url, origin: origin.answer)?.source == "hit")
}

@Test func oneUsersEntriesAreInvisibleToAnother() {
  var alice = CacheSimulator(partition: .user(1000))
  let origin = Origin()
  _ = alice.send(Fix.url, origin: origin.answer)
  var bob = CacheSimulator(partition: .user(1001))
  bob.entries = alice.entries  // one store, two partitions
  #expect(bob.send(Fix.url, policy: .returnCacheDontLoad, origin: origin.answer) == nil)
  #expect(bob.send(Fix.url, origin: origin.answer)?.source == "miss")
  #expect(bob.entries.count == 2 && alice.send(Fix.url, origin: origin.answer)?.source == "hit")
}

@Test func aStaleEntryAnswersWhenTheOriginFailsUnlessMustRevalidate() {
  for (control, expected) in [("max-age=60", "stale"), ("max-age=60, must-revalidate", "failed")] {
    var sim = CacheSimulator()
    sim.now = Fix.t0
    _ = sim.send(
      Fix.url,
      origin: { _, now in
        SimOriginAnswer(status: 200, headers: [("cache-control", control), ("etag", "\"v1\"")], body: "one")
      })
    sim.now += 120
    let down = sim.send(Fix.url, origin: { _, _ in SimOriginAnswer(status: 503, headers: [], body: "busy") })
    let gone = sim.send(Fix.url, origin: { _, _ in nil })
    #expect(down?.source == (expected == "stale" ? "stale" : "miss"), "\(control)")
    #expect(down?.body == (expected == "stale" ? "one" : "busy"), "\(control)")
    #expect(gone?.source == expected, "\(control)")
    #expect(sim.entries.count == 1, "\(control): the stored entry is kept")
  }
}
