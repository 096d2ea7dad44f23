import Testing

@testable import FerryCache

/// One row: request method and headers, response status and headers, private and shared verdicts.
struct StorabilityCase: Sendable, CustomTestStringConvertible {
  var method = "GET"
  var request: [(String, String)] = []
  var status = 200
  var response: [(String, String)]
  var privately: String
  var shared: String
  var testDescription: String { "\(method) \(request) → \(status) \(response)" }
}

private let storable = "storable"

@Test(arguments: [
  StorabilityCase(response: [("cache-control", "max-age=60")], privately: storable, shared: storable),
  StorabilityCase(response: [], privately: storable, shared: storable),  // 200 is cacheable by default
  StorabilityCase(
    method: "POST", response: [("cache-control", "max-age=60")], privately: "method", shared: "method"),
  StorabilityCase(
    method: "HEAD", response: [("cache-control", "max-age=60")], privately: "method", shared: "method"),
  StorabilityCase(
    status: 206, response: [("cache-control", "max-age=60")], privately: "status", shared: "status"),
  StorabilityCase(
    status: 304, response: [("cache-control", "max-age=60")], privately: "status", shared: "status"),
  StorabilityCase(status: 100, response: [], privately: "status", shared: "status"),
  StorabilityCase(status: 302, response: [], privately: "status", shared: "status"),
  StorabilityCase(
    status: 302, response: [("cache-control", "max-age=60")], privately: storable, shared: storable),
  StorabilityCase(status: 500, response: [("expires", Fix.date(60))], privately: storable, shared: storable),
  StorabilityCase(status: 404, response: [], privately: storable, shared: storable),
  StorabilityCase(status: 410, response: [], privately: storable, shared: storable),
  StorabilityCase(
    status: 201, response: [("cache-control", "public")], privately: storable, shared: storable),
  StorabilityCase(
    status: 201, response: [("cache-control", "private")], privately: storable, shared: "private_in_shared"),
  StorabilityCase(
    status: 201, response: [("cache-control", "s-maxage=5")], privately: "status", shared: storable),
  StorabilityCase(
    request: [("cache-control", "no-store")], response: [("cache-control", "max-age=60")],
    privately: "request_no_store", shared: "request_no_store"),
  StorabilityCase(
    response: [("cache-control", "max-age=60, no-store")], privately: "response_no_store",
    shared: "response_no_store"),
  StorabilityCase(
    response: [("cache-control", "private, max-age=60")], privately: storable, shared: "private_in_shared"),
  StorabilityCase(
    response: [("cache-control", "private=\"x\", max-age=60")], privately: storable,
    shared: "private_in_shared"),
  StorabilityCase(
    request: [("authorization", "Bearer t")], response: [("cache-control", "max-age=60")],
    privately: storable, shared: "authorization"),
  StorabilityCase(
    request: [("authorization", "Bearer t")], response: [("cache-control", "max-age=60, public")],
    privately: storable, shared: storable),
  StorabilityCase(
    request: [("authorization", "Bearer t")], response: [("cache-control", "s-maxage=60")],
    privately: storable, shared: storable),
  StorabilityCase(
    request: [("authorization", "Bearer t")], response: [("cache-control", "max-age=60, must-revalidate")],
    privately: storable, shared: storable),
  StorabilityCase(
    response: [("cache-control", "max-age=60"), ("vary", "Accept, *")], privately: "vary_star",
    shared: "vary_star"),
  StorabilityCase(
    request: [("range", "bytes=0-1")], response: [("cache-control", "max-age=60")],
    privately: "partial_request", shared: "partial_request"),
])
func decidesWhatMayBeStored(row: StorabilityCase) {
  for (shared, expected) in [(false, row.privately), (true, row.shared)] {
    let request = Fix.request(
      row.method, Fix.url, row.request.map { (name: $0.0, value: $0.1) }, shared: shared)
    let verdict = CacheStorability(
      request: request, status: row.status, headers: row.response.map { (name: $0.0, value: $0.1) })
    let name: String
    switch verdict {
    case .storable: name = storable
    case .notStorable(let reason): name = reason.rawValue
    }
    #expect(name == expected, "shared: \(shared)")
  }
}

@Test func storesNeitherHopByHopFieldsNorASharedCachesCookies() {
  let headers: CacheHeaderList = [
    ("cache-control", "max-age=60"), ("connection", "close, x-private-hop"), ("keep-alive", "timeout=5"),
    ("x-private-hop", "1"), ("transfer-encoding", "chunked"), ("set-cookie", "sid=1"), ("etag", "\"v1\""),
    ("date", Fix.date(0)),
  ]
  let privately = Fix.entry(headers).headers.map(\.name)
  #expect(privately == ["cache-control", "set-cookie", "etag", "date"])
  let shared = Fix.entry(headers, request: Fix.request(shared: true)).headers.map(\.name)
  #expect(shared == ["cache-control", "etag", "date"])
}

@Test func addsADateFromTheResponseTimeWhenTheOriginSentNone() {
  let entry = Fix.entry([("cache-control", "max-age=60")])
  #expect(CacheFields.first("date", in: entry.headers) == Fix.date(0))
}
