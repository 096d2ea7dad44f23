import Testing

@testable import FerryCache

/// One row: response headers (dates as offsets from t0), shared or not, lifetime expected.
struct LifetimeCase: Sendable, CustomTestStringConvertible {
  var status = 200
  var headers: [(String, String)]
  var shared = false
  var lifetime: Int64
  var testDescription: String { "\(status) \(headers) shared: \(shared)" }
}

@Test(arguments: [
  LifetimeCase(headers: [("cache-control", "max-age=60")], lifetime: 60),
  LifetimeCase(headers: [("cache-control", "max-age=60, s-maxage=600")], lifetime: 60),
  LifetimeCase(headers: [("cache-control", "max-age=60, s-maxage=600")], shared: true, lifetime: 600),
  LifetimeCase(headers: [("cache-control", "max-age=60"), ("expires", Fix.date(600))], lifetime: 60),
  LifetimeCase(headers: [("date", Fix.date(0)), ("expires", Fix.date(600))], lifetime: 600),
  LifetimeCase(headers: [("date", Fix.date(-100)), ("expires", Fix.date(600))], lifetime: 700),
  LifetimeCase(headers: [("date", Fix.date(0)), ("expires", Fix.date(-600))], lifetime: 0),
  LifetimeCase(headers: [("date", Fix.date(0)), ("expires", "0")], lifetime: 0),
  LifetimeCase(
    headers: [("date", Fix.date(0)), ("expires", "0"), ("last-modified", Fix.date(-10_000))], lifetime: 0),
  LifetimeCase(headers: [("date", Fix.date(0)), ("last-modified", Fix.date(-10_000))], lifetime: 1000),
  LifetimeCase(
    status: 404, headers: [("date", Fix.date(0)), ("last-modified", Fix.date(-10_000))], lifetime: 1000),
  LifetimeCase(
    status: 302,
    headers: [("cache-control", "public"), ("date", Fix.date(0)), ("last-modified", Fix.date(-10_000))],
    lifetime: 1000),
  LifetimeCase(headers: [("date", Fix.date(0)), ("last-modified", Fix.date(600))], lifetime: 0),
  LifetimeCase(headers: [("date", Fix.date(0)), ("last-modified", "garbage")], lifetime: 0),
  LifetimeCase(headers: [("date", Fix.date(0))], lifetime: 0),
  LifetimeCase(headers: [("cache-control", "max-age=0"), ("last-modified", Fix.date(-10_000))], lifetime: 0),
])
func computesTheFreshnessLifetime(row: LifetimeCase) {
  let headers = row.headers.map { (name: $0.0, value: $0.1) }
  let entry = CacheEntry(
    key: Fix.request().key, status: row.status, headers: headers, varyValues: [], requestTime: Fix.t0,
    responseTime: Fix.t0)
  let date = CacheFields.first("date", in: headers).flatMap(HTTPDate.parse)
  #expect(
    Freshness.lifetime(entry: entry, control: entry.control, date: date, shared: row.shared) == row.lifetime)
}

/// One row: Age and Date (offset from the response time), request and response times, now, age.
@Test(arguments: [
  (nil as String?, Int64(0), Int64(0), Int64(0), Int64(0), Int64(0)),
  (nil, 0, 0, 0, 100, 100),
  ("30", 0, 0, 0, 100, 130),
  ("30", 0, -5, 0, 100, 135),  // response delay counts against Age
  (nil, -50, 0, 0, 0, 50),  // apparent age from Date
  ("10", -50, 0, 0, 0, 50),
  ("80", -50, 0, 0, 0, 80),
  (nil, 3600, 0, 0, 0, 0),  // a Date in the future is no negative age
  ("7200, 10", 0, 0, 0, 0, 7200),
  ("abc", 0, 0, 0, 0, 0),
  ("-5", 0, 0, 0, 0, 0),
  ("99999999999999", 0, 0, 0, 0, 2_147_483_648),
])
func computesTheCurrentAge(
  age: String?, dateOffset: Int64, requestOffset: Int64, responseOffset: Int64, now: Int64, expected: Int64
) {
  var headers: CacheHeaderList = [("date", Fix.date(responseOffset + dateOffset))]
  if let age { headers.append(("age", age)) }
  let entry = CacheEntry(
    key: Fix.request().key, status: 200, headers: headers, varyValues: [],
    requestTime: Fix.t0 + requestOffset,
    responseTime: Fix.t0 + responseOffset)
  #expect(Freshness(entry: entry, control: entry.control, shared: false, now: Fix.t0 + now).age == expected)
}
