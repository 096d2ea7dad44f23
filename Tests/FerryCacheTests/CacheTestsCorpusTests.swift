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

  static let privateFailures: Set<String> = []
  static let sharedFailures: Set<String> = []
}
