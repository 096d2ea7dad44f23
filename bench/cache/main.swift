// Per-lookup cost of FerryCache's pure core (docs/CACHE.md): a fresh hit, a stale entry's
// revalidation decision, storing a response and merging a 304. Built and run by run.sh
// (swiftc -O over Sources/FerryCache and this file; no package target).
import Glibc

func nowNanos() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

func measure(_ name: String, iterations: Int, _ body: () -> Void) {
  for _ in 0..<(iterations / 10) { body() }
  let start = nowNanos()
  for _ in 0..<iterations { body() }
  let ns = Double(nowNanos() - start) / Double(iterations)
  print("\(name): \(Int(ns)) ns per operation")
}

let t0: Int64 = 1_700_000_000
let requestHeaders: CacheHeaderList = [
  ("accept", "application/json"), ("user-agent", "ferry/1.0"), ("accept-language", "en"),
  ("x-request-id", "abc123"),
]
let responseHeaders: CacheHeaderList = [
  ("date", HTTPDate.format(t0)), ("content-type", "application/json"), ("content-length", "1234"),
  ("cache-control", "public, max-age=300"), ("etag", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""),
  ("last-modified", HTTPDate.format(t0 - 86_400)), ("vary", "Accept-Encoding, Accept-Language"),
  ("server", "nginx"), ("x-ratelimit-remaining", "4999"),
]
let url = "https://api.example.test/repos/ferry/issues?state=open&page=2"
let request = CacheRequest(method: "GET", url: url, headers: requestHeaders, partition: .user(1000))!
let entry = CacheEntry.storing(request, status: 200, headers: responseHeaders, requestTime: t0, responseTime: t0)!
let candidates = [entry]
let n = 200_000

measure("CacheRequest (parse URL, key, directives)", iterations: n) {
  blackHole(CacheRequest(method: "GET", url: url, headers: requestHeaders, partition: .user(1000)))
}
measure("decide: fresh hit", iterations: n) {
  blackHole(CacheLookup.decide(request, policy: .useProtocol, candidates: candidates, now: t0 + 10))
}
measure("decide: stale, revalidate", iterations: n) {
  blackHole(CacheLookup.decide(request, policy: .useProtocol, candidates: candidates, now: t0 + 1000))
}
measure("CacheEntry.storing (storability, stored headers, Vary values)", iterations: n) {
  blackHole(CacheEntry.storing(request, status: 200, headers: responseHeaders, requestTime: t0, responseTime: t0))
}
let notModified: CacheHeaderList = [
  ("date", HTTPDate.format(t0 + 1000)), ("cache-control", "public, max-age=300"),
  ("etag", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""),
]
measure("CacheRevalidation: 304 merge", iterations: n) {
  blackHole(
    CacheRevalidation(
      entry: entry, request: request, status: 304, headers: notModified, requestTime: t0 + 999,
      responseTime: t0 + 1000))
}
measure("HTTPDate.parse", iterations: n) { blackHole(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")) }
var order = EvictionOrder<Int>()
for i in 0..<10_000 { order.insert(i, bytes: 1000) }
var next = 0
measure("EvictionOrder: use + insert + victims (10,000 entries)", iterations: n) {
  order.use(next % 10_000)
  order.insert(next % 10_000, bytes: 1000)
  blackHole(order.victims(maxBytes: 10_000_000))
  next &+= 7
}
