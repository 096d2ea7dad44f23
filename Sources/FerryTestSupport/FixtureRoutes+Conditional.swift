/// `/conditional?etag=E&Name=value&…`: a resource for HTTP cache tests (issue 17). A request
/// whose `If-None-Match` lists `E` (or is `*`) gets a `304` with the query's fields and
/// `X-Validated: 1`; any other gets a `200` with `ETag: E` (unless `etag` is absent), the
/// query's fields and the body `{"etag":"E","n":N}`, N from `n=N` (default 1) so that tests can
/// tell two answers apart. Every other query item is a response header field, repeats kept.
extension FixtureRoutes {
  static func conditional(_ head: HTTPRequestHead) -> FixtureReply {
    let etag = head.queryValue("etag")
    let n = head.queryValue("n").flatMap { Int($0) } ?? 1
    let fields = head.queryItems.filter { $0.name != "etag" && $0.name != "n" }.map {
      FixtureHeader($0.name, $0.value)
    }
    let valid = fields.allSatisfy { field in
      !field.name.isEmpty && field.name.utf8.allSatisfy(isTokenByte) && isSafeHeaderValue(field.value)
    }
    guard valid, etag.map(isSafeHeaderValue) ?? true else { return .text("bad header\n", status: 400) }
    if let etag, let asked = head.header("if-none-match") {
      let tags = asked.split(separator: ",").map { $0.trimmingWhitespace() }
      if tags.contains("*") || tags.contains(where: { $0 == etag || $0 == "W/" + etag }) {
        return .full(
          status: 304, headers: fields + [FixtureHeader("X-Validated", "1"), FixtureHeader("ETag", etag)],
          body: [])
      }
    }
    let tag = etag.map { [FixtureHeader("ETag", $0)] } ?? []
    let body = "{\"etag\":\"\(etag?.filter { $0 != "\"" } ?? "")\",\"n\":\(n)}"
    return .full(
      status: 200, headers: [FixtureHeader("Content-Type", "application/json")] + tag + fields,
      body: Array(body.utf8))
  }
}

extension Substring {
  fileprivate func trimmingWhitespace() -> String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
