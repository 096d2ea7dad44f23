import Testing

/// The HTTP Caching Tests (http-tests/cache-tests) as a private and as a shared cache. The cases
/// that fail are pinned, with their reasons in docs/CACHE.md: a case that starts passing or
/// starts failing fails this test, so the list stays true.
@Suite struct CacheTestsCorpusTests {
  func results(shared: Bool) throws -> (run: [CacheTestsCorpus.Case], failed: [String: String]) {
    let run = try CacheTestsCorpus().cases.filter { CacheTestsCorpus.exclusion($0, shared: shared) == nil }
    var failed: [String: String] = [:]
    for c in run {
      if let failure = CacheTestsCorpus.run(c, shared: shared) { failed[c.id] = failure }
    }
    return (run, failed)
  }

  func report(_ label: String, _ r: (run: [CacheTestsCorpus.Case], failed: [String: String])) {
    let required = r.run.filter(\.isRequired)
    let requiredPassed = required.filter { r.failed[$0.id] == nil }.count
    // Issue 17's bar for the third-party run: 95 % of the required cases it runs.
    #expect(requiredPassed * 100 >= required.count * 95)
    print(
      "cache-tests \(label): \(r.run.count - r.failed.count)/\(r.run.count) passed, required \(requiredPassed)/\(required.count)"
    )
    for c in r.run where r.failed[c.id] != nil {
      print("  \(c.isRequired ? "required" : c.kind) \(c.id): \(r.failed[c.id]!)")
    }
  }

  @Test func privateCacheFailsOnlyThePinnedCases() throws {
    let r = try results(shared: false)
    report("private", r)
    #expect(Set(r.failed.keys) == Self.privateFailures)
  }

  @Test func sharedCacheFailsOnlyThePinnedCases() throws {
    let r = try results(shared: true)
    report("shared", r)
    #expect(Set(r.failed.keys) == Self.sharedFailures)
  }

  /// docs/CACHE.md "Cases that fail" gives the reason for each.
  static let privateFailures: Set<String> = [
    "304-etag-update-response-ETag",
    "age-parse-numeric-parameter",
    "age-parse-parameter",
    "ccreq-no-store",
    "conditional-etag-forward-unquoted",
    "conditional-etag-strong-generate-unquoted",
    "conditional-etag-vary-headers-mismatch",
    "freshness-expires-wrong-case-month",
    "freshness-expires-wrong-case-tz",
    "freshness-max-age-100a",
    "freshness-max-age-a100",
    "freshness-max-age-decimal-five",
    "freshness-max-age-decimal-zero",
    "freshness-max-age-space-after-equals",
    "freshness-max-age-space-before-equals",
    "freshness-max-age-two-stale-fresh-sameline",
    "freshness-max-age-two-stale-fresh-sepline",
    "head-200-freshness-update",
    "head-200-retain",
    "head-200-update",
    "head-410-update",
    "headers-omit-headers-listed-in-Cache-Control-no-cache",
    "headers-omit-headers-listed-in-Cache-Control-no-cache-single",
    "heuristic-delta-10",
    "heuristic-delta-30",
    "heuristic-delta-5",
    "method-POST",
    "other-age-delay",
    "partial-store-partial-complete",
    "partial-store-partial-reuse-partial",
    "partial-store-partial-reuse-partial-absent",
    "partial-store-partial-reuse-partial-byterange",
    "partial-store-partial-reuse-partial-suffix",
    "stale-warning-become",
    "stale-warning-stored",
    "stale-while-revalidate",
    "stale-while-revalidate-window",
    "status-200-must-understand",
    "vary-normalise-lang-case",
    "vary-normalise-lang-order",
    "vary-normalise-lang-select",
  ]
  /// The private list with the shared-only differences (docs/CACHE.md).
  static let sharedFailures: Set<String> = [
    "304-etag-update-response-ETag",
    "304-etag-update-response-Set-Cookie",
    "304-etag-update-response-Set-Cookie2",
    "age-parse-numeric-parameter",
    "age-parse-parameter",
    "ccreq-no-store",
    "conditional-etag-forward-unquoted",
    "conditional-etag-quoted-respond-unquoted",
    "conditional-etag-strong-generate-unquoted",
    "conditional-etag-unquoted-respond-quoted",
    "conditional-etag-vary-headers-mismatch",
    "conditional-lm-fresh-no-lm",
    "freshness-expires-wrong-case-month",
    "freshness-expires-wrong-case-tz",
    "freshness-max-age-100a",
    "freshness-max-age-a100",
    "freshness-max-age-decimal-five",
    "freshness-max-age-decimal-zero",
    "freshness-max-age-space-after-equals",
    "freshness-max-age-space-before-equals",
    "freshness-max-age-two-stale-fresh-sameline",
    "freshness-max-age-two-stale-fresh-sepline",
    "head-200-freshness-update",
    "head-200-retain",
    "head-200-update",
    "head-410-update",
    "headers-omit-headers-listed-in-Cache-Control-no-cache",
    "headers-omit-headers-listed-in-Cache-Control-no-cache-single",
    "headers-store-Set-Cookie",
    "headers-store-Set-Cookie2",
    "heuristic-delta-10",
    "heuristic-delta-30",
    "heuristic-delta-5",
    "method-POST",
    "other-age-delay",
    "partial-store-partial-complete",
    "partial-store-partial-reuse-partial",
    "partial-store-partial-reuse-partial-absent",
    "partial-store-partial-reuse-partial-byterange",
    "partial-store-partial-reuse-partial-suffix",
    "stale-warning-become",
    "stale-warning-stored",
    "stale-while-revalidate",
    "stale-while-revalidate-window",
    "status-200-must-understand",
    "vary-normalise-lang-case",
    "vary-normalise-lang-order",
    "vary-normalise-lang-select",
  ]
}
