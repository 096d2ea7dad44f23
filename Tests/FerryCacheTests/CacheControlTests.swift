import Testing

@testable import FerryCache

@Test func parsesEveryDirectiveTheCacheActsOn() {
  let c = CacheControl(headers: [
    ("cache-control", "Max-Age=60, s-maxage=\"120\", no-cache=\"set-cookie, x\", no-store"),
    ("cache-control", "private=\"a\", public, must-revalidate, proxy-revalidate, immutable, x-ext=1"),
  ])
  #expect(c.maxAge == 60 && c.sMaxAge == 120)
  #expect(c.noCache && c.noStore && c.isPrivate && c.isPublic)
  #expect(c.mustRevalidate && c.proxyRevalidate && c.immutable)
  #expect(c.maxStale == nil && c.minFresh == nil && !c.onlyIfCached)
  let r = CacheControl(headers: [("cache-control", "max-stale, min-fresh=5, only-if-cached")])
  #expect(r.maxStale == Int64.max && r.minFresh == 5 && r.onlyIfCached)
  #expect(CacheControl(headers: [("cache-control", "max-stale=30")]).maxStale == 30)
}

@Test(arguments: [
  ("max-age=3600", Int64(3600)),
  ("max-age=003600", 3600),
  ("max-age=\"3600\"", 3600),
  ("max-age=3600, max-age=1", 3600),
  ("max-age=1, max-age=3600", 1),
  ("max-age=3600.0", 0),
  ("max-age=a3600", 0),
  ("max-age='3600'", 0),
  ("max-age=-1", 0),
  ("max-age=", 0),
  ("max-age", 0),
  ("max-age=99999999999999999999", 2_147_483_648),
  ("max-age=2147483647", 2_147_483_647),
  ("foo=\"max-age=10\", max-age=20", 20),
  ("x=\"a, max-age=10\"", -1),
])
func readsMaxAgeAsDeltaSeconds(value: String, maxAge: Int64) {
  #expect(CacheControl(headers: [("cache-control", value)]).maxAge == (maxAge < 0 ? nil : maxAge))
}

@Test func ignoresOtherFieldsAndEmptyMembers() {
  #expect(CacheControl(headers: [("pragma", "no-cache"), ("cache-control", " , ,")]) == CacheControl())
}
