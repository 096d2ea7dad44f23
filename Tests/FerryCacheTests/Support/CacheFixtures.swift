import FerryCache

/// An instant the tests measure from, and ways to build requests and entries around it.
enum Fix {
  static let t0: Int64 = 1_700_000_000
  static let url = "https://api.example.test/items?page=2"

  static func date(_ offset: Int64) -> String { HTTPDate.format(t0 + offset) }

  static func request(
    _ method: String = "GET", _ url: String = Fix.url, _ headers: CacheHeaderList = [], shared: Bool = false
  ) -> CacheRequest {
    CacheRequest(method: method, url: url, headers: headers, partition: shared ? .shared : .user(1000))!
  }

  /// An entry stored from a response with `headers` received at t0 (sent at t0).
  static func entry(_ headers: CacheHeaderList, status: Int = 200, request: CacheRequest = Fix.request())
    -> CacheEntry
  {
    CacheEntry.storing(request, status: status, headers: headers, requestTime: t0, responseTime: t0)!
  }

  static func decide(
    _ request: CacheRequest, _ entries: [CacheEntry], at now: Int64, policy: CachePolicy = .useProtocol
  ) -> CacheDecision {
    CacheLookup.decide(request, policy: policy, candidates: entries, now: now)
  }
}

/// A decision reduced to a comparable label: "serve", "serve304", "revalidate:<condition names>",
/// "fetch", "fetch-nostore", "fail:<code>".
func label(_ decision: CacheDecision) -> String {
  switch decision {
  case .serve: "serve"
  case .serveNotModified: "serve304"
  case .revalidate(_, let conditions): "revalidate:" + conditions.map(\.name).joined(separator: ",")
  case .fetch(let store): store ? "fetch" : "fetch-nostore"
  case .fail(let failure): "fail:" + failure.rawValue
  }
}
