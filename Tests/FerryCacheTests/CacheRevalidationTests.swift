import Testing

@testable import FerryCache

private func stored(_ extra: CacheHeaderList = []) -> CacheEntry {
  Fix.entry(
    [
      ("cache-control", "max-age=60"), ("etag", "\"v1\""), ("content-type", "text/plain"),
      ("content-length", "5"),
      ("x-kept", "a"), ("x-updated", "old"), ("date", Fix.date(0)),
    ] + extra)
}

private func outcome(_ entry: CacheEntry, _ status: Int, _ headers: CacheHeaderList, shared: Bool = false)
  -> CacheRevalidation
{
  CacheRevalidation(
    entry: entry, request: Fix.request(shared: shared), status: status, headers: headers,
    requestTime: Fix.t0 + 100, responseTime: Fix.t0 + 101)
}

@Test func a304UpdatesTheStoredHeadersButNeverTheBodysLength() {
  let answer: CacheHeaderList = [
    ("cache-control", "max-age=600"), ("etag", "\"v1\""), ("content-length", "0"), ("x-updated", "new"),
    ("connection", "keep-alive"), ("keep-alive", "timeout=5"), ("date", Fix.date(101)),
  ]
  guard case .serveStored(let updated) = outcome(stored(), 304, answer) else {
    Issue.record("not served from the store")
    return
  }
  #expect(CacheFields.first("content-length", in: updated.headers) == "5")
  #expect(CacheFields.first("content-type", in: updated.headers) == "text/plain")
  #expect(CacheFields.first("x-kept", in: updated.headers) == "a")
  #expect(CacheFields.combined("x-updated", in: updated.headers) == "new")
  #expect(CacheFields.combined("cache-control", in: updated.headers) == "max-age=600")
  #expect(
    !CacheFields.contains("keep-alive", in: updated.headers)
      && !CacheFields.contains("connection", in: updated.headers))
  #expect(updated.requestTime == Fix.t0 + 100 && updated.responseTime == Fix.t0 + 101)
  let freshness = Freshness(entry: updated, control: updated.control, shared: false, now: Fix.t0 + 200)
  #expect(freshness.lifetime == 600 && freshness.age == 100 && freshness.isFresh)
}

@Test func a304WithoutDateRestartsTheAgeFromTheValidation() {
  guard case .serveStored(let updated) = outcome(stored(), 304, [("cache-control", "max-age=60")]) else {
    Issue.record("not served from the store")
    return
  }
  #expect(CacheFields.combined("date", in: updated.headers) == Fix.date(101))
  #expect(Freshness(entry: updated, control: updated.control, shared: false, now: Fix.t0 + 111).age == 11)
}

@Test func a304ForAnotherStrongValidatorUpdatesNothing() {
  guard case .refetch = outcome(stored(), 304, [("etag", "\"v2\"")]) else {
    Issue.record("updated from a 304 for another representation")
    return
  }
  guard case .serveStored = outcome(stored(), 304, [("etag", "W/\"v2\"")]) else {
    Issue.record("a weak validator does not select (RFC 9111 4.3.4)")
    return
  }
}

@Test(arguments: [
  // stored Cache-Control, status, shared, expected
  ("max-age=60", 503, false, "stale"),
  ("max-age=60", 500, false, "stale"),
  ("max-age=60, must-revalidate", 503, false, "forward-keep"),
  ("max-age=60, no-cache", 503, false, "forward-keep"),
  ("max-age=60, proxy-revalidate", 503, false, "stale"),
  ("max-age=60, proxy-revalidate", 503, true, "forward-keep"),
  ("s-maxage=60", 503, true, "forward-keep"),
  ("max-age=60", 200, false, "forward-replace"),
  ("max-age=60", 404, false, "forward-replace"),
  ("max-age=60", 201, false, "forward-drop"),
])
func aFailingOriginServesStaleOnlyWhereTheEntryAllows(
  control: String, status: Int, shared: Bool, expected: String
) {
  let entry = Fix.entry(
    [("cache-control", control), ("etag", "\"v1\"")], request: Fix.request(shared: shared))
  let answer: CacheHeaderList = status == 201 ? [] : [("cache-control", "max-age=5")]
  #expect(describe(outcome(entry, status, answer, shared: shared)) == expected)
  if status == 503 {
    #expect(
      describe(CacheRevalidation.afterFailure(entry: entry, request: Fix.request(shared: shared))) == expected
    )
  }
}

private func describe(_ outcome: CacheRevalidation) -> String {
  switch outcome {
  case .serveStored: "stored"
  case .serveStale: "stale"
  case .refetch: "refetch"
  case .forward(let replacement, let dropStored):
    "forward-" + (replacement != nil ? "replace" : dropStored ? "drop" : "keep")
  }
}
