import Testing

@testable import FerryCache

/// One row: stored response headers, request headers, seconds since storing, decision expected.
struct LookupCase: Sendable, CustomTestStringConvertible {
  var stored: [(String, String)]
  var request: [(String, String)] = []
  var after: Int64
  var shared = false
  var expected: String
  var testDescription: String { "\(stored) then \(request) after \(after) s" }
}

private let fresh60 = [("cache-control", "max-age=60"), ("etag", "\"v1\"")]

@Test(arguments: [
  LookupCase(stored: fresh60, after: 10, expected: "serve"),
  LookupCase(stored: fresh60, after: 60, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: [("cache-control", "max-age=60"), ("last-modified", Fix.date(-100))], after: 61,
    expected: "revalidate:if-modified-since"),
  LookupCase(
    stored: fresh60 + [("last-modified", Fix.date(-100))], after: 61,
    expected: "revalidate:if-none-match,if-modified-since"),
  LookupCase(stored: [("cache-control", "max-age=60")], after: 61, expected: "revalidate:"),
  // The request's directives.
  LookupCase(
    stored: fresh60, request: [("cache-control", "max-age=5")], after: 10,
    expected: "revalidate:if-none-match"),
  LookupCase(stored: fresh60, request: [("cache-control", "max-age=10")], after: 10, expected: "serve"),
  LookupCase(stored: fresh60, request: [("cache-control", "min-fresh=50")], after: 10, expected: "serve"),
  LookupCase(
    stored: fresh60, request: [("cache-control", "min-fresh=51")], after: 10,
    expected: "revalidate:if-none-match"),
  LookupCase(stored: fresh60, request: [("cache-control", "max-stale=30")], after: 90, expected: "serve"),
  LookupCase(
    stored: fresh60, request: [("cache-control", "max-stale=30")], after: 91,
    expected: "revalidate:if-none-match"),
  LookupCase(stored: fresh60, request: [("cache-control", "max-stale")], after: 100_000, expected: "serve"),
  LookupCase(
    stored: fresh60, request: [("cache-control", "no-cache")], after: 1, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60, request: [("pragma", "no-cache")], after: 1, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60, request: [("pragma", "no-cache"), ("cache-control", "max-age=100")], after: 1,
    expected: "serve"),
  LookupCase(stored: fresh60, request: [("cache-control", "no-store")], after: 1, expected: "serve"),
  LookupCase(stored: fresh60, request: [("cache-control", "only-if-cached")], after: 1, expected: "serve"),
  LookupCase(
    stored: fresh60, request: [("cache-control", "only-if-cached")], after: 61,
    expected: "fail:only_if_cached"),
  // The response's directives.
  LookupCase(
    stored: fresh60 + [("cache-control", "no-cache")], after: 1, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60 + [("cache-control", "no-cache=\"x\"")], after: 1, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60 + [("cache-control", "must-revalidate")], request: [("cache-control", "max-stale")],
    after: 61,
    expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60 + [("cache-control", "proxy-revalidate")], request: [("cache-control", "max-stale")],
    after: 61,
    expected: "serve"),
  LookupCase(
    stored: fresh60 + [("cache-control", "proxy-revalidate")], request: [("cache-control", "max-stale")],
    after: 61,
    shared: true, expected: "revalidate:if-none-match"),
  LookupCase(
    stored: fresh60 + [("cache-control", "immutable")], after: 61, expected: "revalidate:if-none-match"),
  LookupCase(stored: [("cache-control", "s-maxage=600, max-age=10")], after: 100, expected: "revalidate:"),
  LookupCase(
    stored: [("cache-control", "s-maxage=600, max-age=10")], after: 100, shared: true, expected: "serve"),
  // The client's own validators, against a usable entry.
  LookupCase(
    stored: fresh60, request: [("if-none-match", "\"v0\", W/\"v1\"")], after: 1, expected: "serve304"),
  LookupCase(stored: fresh60, request: [("if-none-match", "*")], after: 1, expected: "serve304"),
  LookupCase(stored: fresh60, request: [("if-none-match", "\"v2\"")], after: 1, expected: "serve"),
  LookupCase(stored: fresh60, request: [("if-none-match", "\"v2\"")], after: 61, expected: "fetch"),
  LookupCase(
    stored: fresh60 + [("last-modified", Fix.date(-100))], request: [("if-modified-since", Fix.date(-100))],
    after: 1,
    expected: "serve304"),
  LookupCase(
    stored: fresh60 + [("last-modified", Fix.date(-100))], request: [("if-modified-since", Fix.date(-101))],
    after: 1,
    expected: "serve"),
  // One byte range: a usable entry answers it (ferryd cuts the slice); a stale one does not
  // revalidate for it, and any other Range, or an If-Range, goes to the origin unstored.
  LookupCase(stored: fresh60, request: [("range", "bytes=0-1")], after: 1, expected: "serve"),
  LookupCase(stored: fresh60, request: [("range", "bytes=0-1")], after: 120, expected: "fetch-nostore"),
  LookupCase(stored: fresh60, request: [("range", "bytes=0-1,4-5")], after: 1, expected: "fetch-nostore"),
  LookupCase(stored: fresh60, request: [("range", "items=0-1")], after: 1, expected: "fetch-nostore"),
  LookupCase(
    stored: fresh60, request: [("range", "bytes=0-1"), ("if-range", "\"v1\"")], after: 1,
    expected: "fetch-nostore"),
  LookupCase(stored: fresh60, request: [("if-match", "\"v1\"")], after: 1, expected: "fetch-nostore"),
])
func decidesUnderTheProtocolPolicy(row: LookupCase) {
  let stored = Fix.entry(
    row.stored.map { (name: $0.0, value: $0.1) }, request: Fix.request(shared: row.shared))
  let request = Fix.request("GET", Fix.url, row.request.map { (name: $0.0, value: $0.1) }, shared: row.shared)
  #expect(label(Fix.decide(request, [stored], at: Fix.t0 + row.after)) == row.expected)
}

@Test(arguments: [
  // policy, stored?, fresh?, expected
  (CachePolicy.useProtocol, false, false, "fetch"),
  (.useProtocol, true, true, "serve"),
  (.useProtocol, true, false, "revalidate:if-none-match"),
  (.reload, true, true, "fetch"),
  (.reload, false, false, "fetch"),
  (.returnCacheElseLoad, true, false, "serve"),
  (.returnCacheElseLoad, false, false, "fetch"),
  (.returnCacheDontLoad, true, false, "serve"),
  (.returnCacheDontLoad, false, false, "fail:not_cached"),
  (.noStore, true, true, "fetch-nostore"),
  (.noStore, false, false, "fetch-nostore"),
])
func followsTheJobsCachePolicy(policy: CachePolicy, isStored: Bool, isFresh: Bool, expected: String) {
  let stored = isStored ? [Fix.entry(fresh60.map { (name: $0.0, value: $0.1) })] : []
  #expect(
    label(Fix.decide(Fix.request(), stored, at: Fix.t0 + (isFresh ? 1 : 3600), policy: policy)) == expected)
}

@Test func requestNoStoreFetchesWithoutStoring() {
  let request = Fix.request("GET", Fix.url, [("cache-control", "no-store")])
  #expect(label(Fix.decide(request, [], at: Fix.t0)) == "fetch-nostore")
  #expect(label(Fix.decide(request, [], at: Fix.t0, policy: .reload)) == "fetch-nostore")
}

@Test func neverAnswersAnotherMethodOrKeyFromTheCache() {
  let stored = Fix.entry(fresh60.map { (name: $0.0, value: $0.1) })
  #expect(label(Fix.decide(Fix.request("POST"), [stored], at: Fix.t0)) == "fetch-nostore")
  #expect(
    label(Fix.decide(Fix.request("GET", "https://api.example.test/items?page=3"), [stored], at: Fix.t0))
      == "fetch")
  let otherUser = CacheRequest(method: "GET", url: Fix.url, headers: [], partition: .user(1001))!
  #expect(label(Fix.decide(otherUser, [stored], at: Fix.t0)) == "fetch")
}

@Test func servesTheNewestMatchingVariantWithItsAge() {
  let old = Fix.entry([("cache-control", "max-age=600"), ("x-v", "old")])
  var new = Fix.entry([("cache-control", "max-age=600"), ("x-v", "new")])
  new.requestTime += 5
  new.responseTime += 5
  guard case .serve(let index, let age) = Fix.decide(Fix.request(), [new, old], at: Fix.t0 + 20) else {
    Issue.record("not served")
    return
  }
  // Its Date says t0: 5 s apparent age on arrival at t0 + 5, then 15 s resident.
  #expect(index == 0 && age == 20)
  #expect(CacheFields.first("age", in: new.servedHeaders(age: age)) == "20")
}
