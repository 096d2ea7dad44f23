import FerryStore

/// What only some jobs hold: a durable job's journal state, and the cookie jar a job of a
/// session with cookies uses.
///
/// Out of `JobRun` so that every other job, a queued one above all (issue 29, B4), does not
/// carry them: `JobRun+Extras` makes it on the first write.
@MainActor final class JobRunExtras {
  /// A durable job's key in the journal; nil for every other job, whose path never touches
  /// the journal.
  var journalKey: JournalKey?
  /// Where a durable job's result is filed (its user and id).
  var journalOwner: JobTable.DetachedKey?
  /// The journal batch the job's latest event record is in: its lines wait for that batch.
  var journalBatch: UInt64 = 0
  /// A durable job whose submission is staged but not committed yet: its lines wait here
  /// (nil once it is committed, and for every other job), and its transfer does not start,
  /// until the iteration's flush commits it (`journalCommitted`) or refuses it
  /// (`journalRefused`). Its `queued` is the acknowledgement.
  var heldLines: [UInt8]?
  var startHeld = false
  /// A durable job's transfer starts once its `running` phase is committed
  /// (`journalCommitted`): a restart then knows the request may have left (a POST is not sent
  /// twice, a resend counts the next attempt).
  var transferAwaitsCommit = false
  /// The cookie jar the job uses (its session's, for its user), fixed when it was accepted;
  /// nil for none. `cookieLease` holds the jar while the job lives.
  var cookieKey: CookieJars.Key?
  var cookieLease: CookieLease?
}
