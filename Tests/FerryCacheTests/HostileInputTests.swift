import Testing

@testable import FerryCache

/// Whatever a client or server sends, the core answers without trapping: pseudo-random fields
/// from the characters the parsers cut at (and some that combine with them) through every step.
@Test func survivesArbitraryFieldsThroughEveryStep() {
  let alphabet: [String] = [
    "\"", ",", "=", " ", "\t", "\\", ";", ":", "/", "?", "#", "@", "[", "]", "*", "W/", "0", "9", "max-age",
    "no-cache", "s-maxage", "max-stale", "min-fresh", "private", "public", "must-revalidate", "GMT", "Sun",
    "Nov", "1994", "08:49:37", "-", "é", "\u{301}", "🙂", "a", "Z", "2147483648", "99999999999999999999",
  ]
  let names = [
    "cache-control", "expires", "date", "last-modified", "age", "etag", "vary", "pragma", "connection",
    "if-none-match", "if-modified-since", "location", "content-location", "accept", "authorization",
  ]
  var seed: UInt64 = 0x2545_F491_4F6C_DD1D
  func next(_ bound: Int) -> Int {
    seed ^= seed << 13
    seed ^= seed >> 7
    seed ^= seed << 17
    return Int(seed % UInt64(bound))
  }
  func text() -> String { (0..<next(12)).map { _ in alphabet[next(alphabet.count)] }.joined() }
  func fields() -> CacheHeaderList { (0..<next(8)).map { _ in (names[next(names.count)], text()) } }
  var stored = 0
  for round in 0..<1000 {
    let url = round % 3 == 0 ? "https://h.test/" + text() : "https://" + text() + "/" + text()
    for partition in [CachePartition.user(1), .shared] {
      guard
        let request = CacheRequest(
          method: round % 5 == 0 ? "POST" : "GET", url: url, headers: fields(), partition: partition)
      else { continue }
      let response = fields()
      let status = [200, 203, 304, 404, 500, 206, 301][next(7)]
      let now = Int64(1_700_000_000 + next(100_000))
      var candidates: [CacheEntry] = []
      if let entry = CacheEntry.storing(
        request, status: status, headers: response, requestTime: now - 5, responseTime: now)
      {
        candidates.append(entry)
        stored += 1
      }
      for policy in CachePolicy.allCases {
        switch CacheLookup.decide(
          request, policy: policy, candidates: candidates, now: now + Int64(next(1000)))
        {
        case .revalidate(let index, _):
          _ = CacheRevalidation(
            entry: candidates[index], request: request, status: [304, 200, 503][next(3)], headers: fields(),
            requestTime: now, responseTime: now + 1)
        case .serve(let index, let age), .serveNotModified(let index, let age):
          _ = candidates[index].notModifiedHeaders(age: age)
        case .fetch, .fail: break
        }
      }
      _ = CacheInvalidation.targets(for: request, status: status, headers: response)
      _ = request.key.url.resolving(text())
    }
  }
  #expect(stored > 30)
}
