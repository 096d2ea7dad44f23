/// How each record is written: the SQL of the journal's transitions, run inside `flush`'s
/// transaction. A record about a job the journal no longer has (removed, or refused in an
/// earlier flush) changes nothing.
extension Journal {
  func apply(_ record: JournalRecord) throws(StoreError) {
    switch record {
    case .submitted(let key, let s, let at): try insertJob(key, s, atMs: at)
    case .event(let key, let seq, let line, let at): try insertEvent(key, seq: seq, line: line, atMs: at)
    case .phase(let key, let phase, let at): try updatePhase(key, phase, atMs: at)
    case .ended(let key, let seq, let line, let outcome, let at):
      try insertResult(key, seq: seq, line: line, outcome: outcome, atMs: at)
    case .removed(let key): try deleteJob(key)
    }
  }

  private func insertJob(_ key: JournalKey, _ s: JournalSubmission, atMs at: Int64) throws(StoreError) {
    let insert = try database.statement(
      """
      INSERT INTO jobs (key, id, uid, session, lane, method, resend_safe, line, phase, attempts, seq,
        event_count, event_bytes, dropped_events, created_ms, updated_ms)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, 0, 0, 0, 0, 0, ?9, ?9)
      """)
    insert.bind(1, key.rawValue)
    insert.bind(2, s.id)
    insert.bind(3, s.uid.map { Int64($0) })
    insert.bind(4, s.session)
    insert.bind(5, s.lane)
    insert.bind(6, s.method)
    insert.bind(7, s.declaresResendSafe)
    insert.bind(8, bytes: s.line)
    insert.bind(9, at)
    try insert.run()
  }

  private func insertEvent(_ key: JournalKey, seq: Int, line: [UInt8], atMs at: Int64) throws(StoreError) {
    let update = try database.statement(
      """
      UPDATE jobs SET seq = max(seq, ?2), event_count = event_count + 1, event_bytes = event_bytes + ?3,
        updated_ms = ?4
      WHERE key = ?1 AND phase != 3 RETURNING event_count, event_bytes
      """)
    update.bind(1, key.rawValue)
    update.bind(2, seq)
    update.bind(3, line.count)
    update.bind(4, at)
    guard let (count, bytes) = try kept(update) else { return }
    let insert = try database.statement("INSERT INTO events (job, seq, line) VALUES (?1, ?2, ?3)")
    insert.bind(1, key.rawValue)
    insert.bind(2, seq)
    insert.bind(3, bytes: line)
    try insert.run()
    try trimEvents(key, count: count, bytes: bytes)
  }

  private func updatePhase(_ key: JournalKey, _ phase: JournalPhase, atMs at: Int64) throws(StoreError) {
    // A job ends through `ended`, with its terminal line; a phase alone cannot end it.
    guard phase != .ended else { return }
    let update = try database.statement(
      "UPDATE jobs SET phase = ?2, attempts = max(attempts, ?3), updated_ms = ?4 WHERE key = ?1 AND phase != 3"
    )
    let (number, attempts) = phase.stored
    update.bind(1, key.rawValue)
    update.bind(2, number)
    update.bind(3, attempts)
    update.bind(4, at)
    try update.run()
  }

  private func insertResult(
    _ key: JournalKey, seq: Int, line: [UInt8], outcome: JournalOutcome, atMs at: Int64
  ) throws(StoreError) {
    // A job ends once: a second terminal record for it changes nothing. An ended job is never
    // sent again, so its submission line goes (its result is its event lines): a waiting
    // result holds at most its replay bounds, not a 1 MiB job line (issue 26).
    let update = try database.statement(
      """
      UPDATE jobs SET phase = 3, seq = max(seq, ?2), updated_ms = ?3, line = x''
      WHERE key = ?1 AND phase != 3
      RETURNING event_count, event_bytes
      """)
    update.bind(1, key.rawValue)
    update.bind(2, seq)
    update.bind(3, at)
    guard let (count, bytes) = try kept(update) else { return }
    let insert = try database.statement(
      "INSERT INTO results (job, seq, line, outcome, ended_ms) VALUES (?1, ?2, ?3, ?4, ?5)")
    insert.bind(1, key.rawValue)
    insert.bind(2, seq)
    insert.bind(3, bytes: line)
    insert.bind(4, outcome.rawValue)
    insert.bind(5, at)
    try insert.run()
    // The terminal line counts against the bounds like any other, and is never dropped.
    try trimEvents(key, count: count + 1, bytes: bytes + line.count)
  }

  private func deleteJob(_ key: JournalKey) throws(StoreError) {
    for sql in [
      "DELETE FROM events WHERE job = ?1", "DELETE FROM results WHERE job = ?1",
      "DELETE FROM jobs WHERE key = ?1",
    ] {
      let delete = try database.statement(sql)
      delete.bind(1, key.rawValue)
      try delete.run()
    }
  }

  /// The (event count, event bytes) an `UPDATE … RETURNING` gave, or nil when no job matched.
  private func kept(_ update: Statement) throws(StoreError) -> (Int, Int)? {
    defer { update.reset() }
    guard try update.step() else { return nil }
    let counts = (update.int(0), update.int(1))
    // Steps to the end so the update is complete before the reset.
    while try update.step() {}
    return counts
  }

  /// Drops the job's oldest event lines while its lines (`count`, `bytes`, the terminal line
  /// included once it has one) exceed the bounds, keeping the newest line: the
  /// same rule as the daemon's `ReplayBuffer`, so a replay after a restart shows what one
  /// before it would have.
  private func trimEvents(_ key: JournalKey, count: Int, bytes: Int) throws(StoreError) {
    let maxEvents = options.maxEventsPerJob
    let maxBytes = options.maxEventBytesPerJob
    guard count > maxEvents || bytes > maxBytes else { return }
    let oldest = try database.statement("SELECT seq, length(line) FROM events WHERE job = ?1 ORDER BY seq")
    oldest.bind(1, key.rawValue)
    var left = (count: count, bytes: bytes)
    var cutoff: Int?
    var dropped = 0
    do {
      defer { oldest.reset() }
      // One line always stays: the terminal one (not in `events`) or else the newest event.
      while left.count > 1, left.count > maxEvents || left.bytes > maxBytes, try oldest.step() {
        left.count -= 1
        left.bytes -= oldest.int(1)
        cutoff = oldest.int(0)
        dropped += 1
      }
    }
    guard let cutoff else { return }
    let delete = try database.statement("DELETE FROM events WHERE job = ?1 AND seq <= ?2")
    delete.bind(1, key.rawValue)
    delete.bind(2, cutoff)
    try delete.run()
    let update = try database.statement(
      """
      UPDATE jobs SET event_count = event_count - ?2, event_bytes = event_bytes - ?3,
        dropped_events = dropped_events + ?2 WHERE key = ?1
      """)
    update.bind(1, key.rawValue)
    update.bind(2, dropped)
    update.bind(3, bytes - left.bytes)
    try update.run()
  }
}
