/// The known key closest to a misspelt one, for "did you mean" in configuration errors.
///
/// Closeness is the optimal-string-alignment distance (insertions, deletions, substitutions and
/// swaps of neighbours, one each), counted in Unicode scalars; a key is suggested only when it
/// is within a quarter of the misspelling's length (at least 1), so that a key that merely
/// shares letters with an unrelated word is never offered.
enum KeySuggestion {
  /// The closest of `known` to `key` (the first of equals, in `known`'s order), or nil when
  /// none is close enough.
  static func closest(to key: String, among known: [String]) -> String? {
    let typed = Array(key.unicodeScalars)
    let limit = max(1, typed.count / 4)
    var best: (name: String, distance: Int)?
    for name in known {
      let d = distance(typed, Array(name.unicodeScalars))
      if d <= limit, d < (best?.distance ?? Int.max) { best = (name, d) }
    }
    return best?.name
  }

  /// The optimal-string-alignment distance between `a` and `b`.
  static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    // Three rows of the table: two back (for swaps), one back, this one.
    var older = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, older[j - 2] + 1) }
        current[j] = d
      }
      (older, previous, current) = (previous, current, older)
    }
    return previous[b.count]
  }
}
