/// The journal's schema, as migrations. Version 1 is the first; a change adds a step, never
/// edits one that shipped.
///
/// - `jobs`: one row per durable job that is live or holds a result not yet collected: the
///   job line as sent and the fields decoded from it that recovery and `jobs` need without
///   decoding (id, uid, session, lane, method, whether it declared a resend safe), its phase,
///   attempts and last `seq`, the count and bytes of its kept events, and wall-clock times.
/// - `events`: the job's non-terminal event lines for replay, bounded per job as the replay
///   buffer is (`Journal.Options.maxEventsPerJob`, `maxEventBytesPerJob`).
/// - `results`: the terminal event line of each job that ended and whose result is not yet
///   collected, kept whole.
///
/// No foreign keys: a job's rows go together in `Journal`'s `removed`, and SQLite's checks
/// would cost a lookup per insert.
enum JournalSchema {
  /// `PRAGMA application_id` of a ferry journal: "FRRY".
  static let applicationID: Int32 = 0x4652_5259

  /// Before the first table: free pages go back to the file system on `Journal.compact()`.
  static let preamble = "PRAGMA auto_vacuum = INCREMENTAL"

  static let migrations: [Migration] = [
    Migration(
      version: 1,
      sql: """
        CREATE TABLE jobs (
          key INTEGER PRIMARY KEY,
          id TEXT NOT NULL,
          uid INTEGER,
          session TEXT NOT NULL,
          lane TEXT,
          method TEXT NOT NULL,
          resend_safe INTEGER NOT NULL,
          line BLOB NOT NULL,
          phase INTEGER NOT NULL,
          attempts INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          event_count INTEGER NOT NULL,
          event_bytes INTEGER NOT NULL,
          dropped_events INTEGER NOT NULL,
          created_ms INTEGER NOT NULL,
          updated_ms INTEGER NOT NULL
        );
        CREATE INDEX jobs_by_uid ON jobs(uid, key);
        CREATE TABLE events (
          job INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          line BLOB NOT NULL
        );
        CREATE INDEX events_by_job ON events(job, seq);
        CREATE TABLE results (
          job INTEGER PRIMARY KEY,
          seq INTEGER NOT NULL,
          line BLOB NOT NULL,
          outcome INTEGER NOT NULL,
          ended_ms INTEGER NOT NULL
        );
        """)
  ]

  static var latestVersion: Int32 { Int32(migrations.count) }
}
