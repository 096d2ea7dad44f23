import Testing

@testable import FerryDaemon

/// A client's tables by job id (`JobIDKey`): the id's hash is computed once, and the key must
/// still answer as the `String` it stands for.
struct JobIDKeyTests {
  @Test func keysAreEqualExactlyWhenTheirIdsAre() {
    #expect(JobIDKey("a") == JobIDKey("a"))
    #expect(JobIDKey("a") != JobIDKey("b"))
    // Equal strings of different forms (composed and decomposed é) are equal ids, as they are
    // as `String` keys.
    #expect(JobIDKey("\u{e9}") == JobIDKey("e\u{301}"))
    #expect(Set([JobIDKey("\u{e9}"), JobIDKey("e\u{301}")]).count == 1)
  }

  // Loops rather than `allSatisfy { … "\($0)" … }` inside `#expect`: the macro's expansion
  // of that closure did not find the keys (swift-testing 6.3).
  @Test func manyIdsStayFindableAndApart() {
    var table: [JobIDKey: Int] = [:]
    for n in 0..<50_000 { table[JobIDKey("job-\(n)")] = n }
    #expect(table.count == 50_000)
    var missed: [Int] = []
    for n in 0..<50_000 where table[JobIDKey("job-\(n)")] != n { missed.append(n) }
    #expect(missed.isEmpty, "\(missed.count) ids not found, first \(missed.prefix(3))")
    #expect(table[JobIDKey("job-50000")] == nil)
  }

  /// A table of 1 024 buckets uses the low 10 bits: ids a client numbers must spread over
  /// them about as random hashes would (1 024 × (1 − 1/e) ≈ 647).
  @Test func idsSpreadOverTheBuckets() {
    var buckets = Set<Int>()
    for n in 0..<1_024 { buckets.insert(JobIDKey("j\(n)")._rawHashValue(seed: 0) & 1_023) }
    #expect(buckets.count >= 600)
  }
}
