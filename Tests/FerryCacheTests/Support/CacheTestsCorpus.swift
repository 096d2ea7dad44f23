import FerryCache
import Foundation

/// The HTTP Caching Tests (github:http-tests/cache-tests, Fixtures/README.md) run against
/// `CacheSimulator`: the suite's origin server and client checks re-implemented after its
/// test-engine (server/handle-test.mjs, client/test.mjs), with a simulated clock (a
/// `pause_after` is 3 s, a `response_pause` delays the head).
struct CacheTestsCorpus {
  struct Case {
    var id: String
    var suite: String
    var kind: String
    var browserOnly: Bool
    var browserSkip: Bool
    var cdnOnly: Bool
    var requests: [[String: Any]]

    var isRequired: Bool { kind == "required" }
  }

  let cases: [Case]

  init() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/cache-tests.json")
    let list = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]] ?? []
    cases = list.map { t in
      Case(
        id: t["id"] as? String ?? "", suite: t["suite"] as? String ?? "",
        kind: t["kind"] as? String ?? "required",
        browserOnly: t["browser_only"] as? Bool ?? false, browserSkip: t["browser_skip"] as? Bool ?? false,
        cdnOnly: t["cdn_only"] as? Bool ?? false, requests: t["requests"] as? [[String: Any]] ?? [])
    }
  }

  /// Why a case is not run (nil: it runs), for a private or a shared cache.
  static func exclusion(_ c: Case, shared: Bool) -> String? {
    if c.browserOnly { return "browser only" }
    if c.cdnOnly { return "CDN only (CDN-Cache-Control)" }
    if !shared && c.browserSkip { return "not run on private (browser) caches" }
    for request in c.requests {
      if request["interim_responses"] != nil || request["expected_interim_responses"] != nil {
        return "interim responses are curl's, not the cache's"
      }
      if request["cache"] != nil { return "Fetch's cache mode" }
    }
    return nil
  }

  /// Runs `c`; nil when every check passes, else the first failed check.
  static func run(_ c: Case, shared: Bool) -> String? {
    var sim = CacheSimulator(partition: shared ? .shared : .user(1000))
    let uuid = "uuid-\(c.id)"
    var originSent: [Int: CacheHeaderList] = [:]  // what the origin sent, by request index
    var served: [SimResponse] = []
    var serverState: [(num: Int, method: String, headers: CacheHeaderList, saved: [(String, String)])] = []
    for (i, r) in c.requests.enumerated() {
      let reqNum = i + 1
      var target = "/test/\(uuid)"
      if let file = r["filename"] as? String { target += "/\(file)" }
      if let query = r["query_arg"] as? String { target += "?\(query)" }
      let method = r["request_method"] as? String ?? "GET"
      var headers: CacheHeaderList = [("pragma", "foo"), ("cache-control", "nothing-to-see-here")]
      for h in r["request_headers"] as? [[Any]] ?? [] {
        let name = (h[0] as? String ?? "").lowercased()
        var value = h.count > 1 ? text(h[1]) : ""
        if name == "if-modified-since", r["magic_ims"] as? Bool == true, let offset = h[1] as? Int,
          let prevNow = served.last?.header("server-now").flatMap({ Int64($0) })
        {
          value = HTTPDate.format(prevNow + Int64(offset))
        }
        headers.append((name, value))
      }
      headers += [("test-id", c.id), ("req-num", "\(reqNum)")]
      let previousSent = i > 0 ? (originSent[i - 1] ?? rawStringHeaders(c.requests[i - 1])) : []
      let response = sim.send(method, "https://cache-tests.test\(target)", headers: headers) {
        reqHeaders, serverNow in
        if r["disconnect"] as? Bool == true {
          serverState.append((reqNum, method, reqHeaders, []))
          return nil
        }
        var status = (r["response_status"] as? [Any])?.first as? Int ?? 200
        if let type = r["expected_type"] as? String, type.hasSuffix("validated") {
          status = 999
          if let lm = CacheFields.first("last-modified", in: previousSent),
            CacheFields.first("if-modified-since", in: reqHeaders) == lm
          {
            status = 304
          }
          if let tag = CacheFields.first("etag", in: previousSent),
            CacheFields.first("if-none-match", in: reqHeaders) == tag
          {
            status = 304
          }
        }
        var out: CacheHeaderList = [
          ("server-base-url", target), ("server-request-count", "\(serverState.count + 1)"),
          ("client-request-count", "\(reqNum)"), ("server-now", "\(serverNow)"),
        ]
        var saved: [(String, String)] = []
        let rfc850 = (r["rfc850date"] as? [String]) ?? []
        for h in r["response_headers"] as? [[Any]] ?? [] {
          let name = (h[0] as? String ?? "").lowercased()
          var value = text(h[1])
          if dateHeaders.contains(name), let offset = h[1] as? Int, !(h[1] is Bool) {
            value =
              rfc850.contains(name)
              ? rfc850Date(serverNow + Int64(offset)) : HTTPDate.format(serverNow + Int64(offset))
          }
          if (name == "location" || name == "content-location"), r["magic_locations"] as? Bool == true {
            value = value.isEmpty ? target : "\(target)/\(value)"
          }
          out.append((name, value))
          if h.count < 3 || (h[2] as? Bool) != false {
            if let index = saved.firstIndex(where: { $0.0 == name }) {
              saved[index].1 += ", " + value
            } else {
              saved.append((name, value))
            }
          }
        }
        if !CacheFields.contains("content-type", in: out) { out.append(("content-type", "text/plain")) }
        serverState.append((reqNum, method, reqHeaders, saved))
        originSent[i] = out
        let body = status == 204 || status == 304 ? "" : (r["response_body"] as? String ?? uuid)
        return SimOriginAnswer(
          status: status, headers: out, body: body, delay: Int64(r["response_pause"] as? Int ?? 0))
      }
      guard let response else { return "request \(reqNum) failed (no response)" }
      served.append(response)
      if let failure = checkResponse(r, reqNum: reqNum, response, uuid: uuid, method: method) {
        return failure
      }
      if r["pause_after"] as? Bool == true { sim.now += 3 }
    }
    return checkServer(c.requests, served, serverState)
  }

  private static let dateHeaders: Set<String> = [
    "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since",
  ]

  private static func text(_ value: Any) -> String {
    if let s = value as? String { return s }
    if let n = value as? Int { return "\(n)" }
    return "\(value)"
  }

  /// A request config's response headers with string values (what handle-test compares against
  /// when the origin never handled that request and so never fixed its dates up).
  private static func rawStringHeaders(_ r: [String: Any]) -> CacheHeaderList {
    (r["response_headers"] as? [[Any]] ?? []).compactMap { h in
      guard let name = h[0] as? String, let value = h[1] as? String else { return nil }
      return (name.lowercased(), value)
    }
  }

  private static func rfc850Date(_ seconds: Int64) -> String {
    let days = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]
    let imf = HTTPDate.format(seconds)  // "Sun, 06 Nov 1994 08:49:37 GMT"
    let parts = imf.split(separator: " ")
    let dayIndex = Int(((seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400) % 7 + 7) % 7)
    return "\(days[dayIndex]), \(parts[1])-\(parts[2])-\(parts[3].suffix(2)) \(parts[4]) GMT"
  }
}
