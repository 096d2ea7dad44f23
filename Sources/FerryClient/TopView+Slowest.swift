/// The slowest running jobs under the sessions (`stats`' `slowest`, the caller's own; root's
/// are every user's): id, session, age, bytes received, and the URL's origin only.
extension TopView {
  /// A blank line, the head and a row per job; nothing when no job runs. The session filter
  /// applies here too.
  func slowLines(_ s: StatsSample) -> [String] {
    let needle = filter.lowercased()
    let jobs = s.slowest.filter { needle.isEmpty || $0.session.lowercased().contains(needle) }
    guard !jobs.isEmpty else { return [] }
    return ["", Self.slowRow(["SLOWEST JOB", "SESSION", "AGE", "RECEIVED", "ORIGIN"])]
      + jobs.map { j in
        Self.slowRow([
          j.id, j.session, ByteFormat.duration(seconds: Int64(j.ageMs / 1000)),
          ByteFormat.text(Int64(j.receivedBytes)),
          j.origin,
        ])
      }
  }

  /// Id and session left-aligned (cut with `~`), age and bytes right-aligned, the origin last.
  static func slowRow(_ cells: [String]) -> String {
    func left(_ text: String, _ w: Int) -> String {
      let t = text.count > w - 1 ? String(text.prefix(w - 2)) + "~" : text
      return t + String(repeating: " ", count: max(w - t.count, 1))
    }
    func right(_ text: String, _ w: Int) -> String {
      String(repeating: " ", count: max(w - text.count, 1)) + text
    }
    return left(cells[0], 20) + left(cells[1], 16) + right(cells[2], 8) + right(cells[3], 11) + "  "
      + cells[4]
  }
}
