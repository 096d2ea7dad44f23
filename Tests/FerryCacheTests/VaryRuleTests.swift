import Testing

@testable import FerryCache

/// One row: the response's Vary, the first request's fields, the second's, whether it matches.
@Test(
  arguments: [
    ("Accept-Language", [("accept-language", "en")], [("accept-language", "en")], true),
    ("Accept-Language", [("accept-language", "en")], [("accept-language", "fr")], false),
    ("accept-language", [("accept-language", "en")], [], false),
    ("Accept-Language", [], [], true),
    ("Accept-Language", [], [("accept-language", "en")], false),
    (
      " Accept-Language ,  X-A", [("accept-language", "en"), ("x-a", "1")],
      [("x-a", "1"), ("accept-language", "en")], true
    ),
    ("X-A, X-B", [("x-a", "1"), ("x-b", "2")], [("x-a", "1"), ("x-b", "3")], false),
    ("X-A", [("x-a", "1,  2")], [("x-a", "1"), ("x-a", "2")], true),
    ("X-A", [("x-a", " 1 , 2 ")], [("x-a", "1, 2")], true),
    ("X-A", [("x-a", "abc")], [("x-a", "ABC")], false),
    ("X-A", [("x-a", "1, 2")], [("x-a", "2, 1")], false),
    ("", [("x-a", "1")], [("x-a", "2")], true),
  ] as [(String, [(String, String)], [(String, String)], Bool)])
func matchesTheFieldsVaryNames(
  vary: String, first: [(String, String)], second: [(String, String)], matches: Bool
) {
  let firstRequest = Fix.request("GET", Fix.url, first.map { (name: $0.0, value: $0.1) })
  let entry = Fix.entry([("cache-control", "max-age=60"), ("vary", vary)], request: firstRequest)
  #expect(VaryRule.matches(entry, request: second.map { (name: $0.0, value: $0.1) }) == matches)
}

@Test func namesAreLowerCasedDeduplicatedAndStarWins() {
  #expect(VaryRule.names([("vary", "Accept, ACCEPT"), ("vary", "X-A")]) == ["accept", "x-a"])
  #expect(VaryRule.names([("vary", "Accept, *")]) == ["*"])
  var entry = Fix.entry([("cache-control", "max-age=60")])
  entry.varyValues = [(name: "*", value: nil)]
  #expect(!VaryRule.matches(entry, request: []))
}

@Test func aLookupPicksTheVariantTheRequestSelects() {
  let english = Fix.entry(
    [("cache-control", "max-age=60"), ("vary", "accept-language")],
    request: Fix.request("GET", Fix.url, [("accept-language", "en")]))
  let french = Fix.entry(
    [("cache-control", "max-age=60"), ("vary", "accept-language")],
    request: Fix.request("GET", Fix.url, [("accept-language", "fr")]))
  let decision = Fix.decide(
    Fix.request("GET", Fix.url, [("accept-language", "fr")]), [english, french], at: Fix.t0)
  guard case .serve(let index, _) = decision else {
    Issue.record("not served: \(label(decision))")
    return
  }
  #expect(index == 1)
  #expect(
    label(
      Fix.decide(Fix.request("GET", Fix.url, [("accept-language", "de")]), [english, french], at: Fix.t0))
      == "fetch")
}

@Test func aVaryOfTooManyFieldsIsNotStored() {
  let many = (0..<5000).map { "x-\($0)" }.joined(separator: ", ")
  #expect(VaryRule.names([("vary", many)]).first == "*")
  let verdict = CacheStorability(
    request: Fix.request(), status: 200, headers: [("cache-control", "max-age=60"), ("vary", many)])
  #expect(verdict == .notStorable(.varyStar))
  let enough = (0..<VaryRule.maxNames).map { "X-\($0)" }.joined(separator: ",")
  #expect(VaryRule.names([("vary", enough + ", x-0")]).count == VaryRule.maxNames)
}
