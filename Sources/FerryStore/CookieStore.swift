/// The cookie jars kept across restarts: `cookies.db` in the state directory, a database of
/// its own beside the journal (docs/STORE.md, "Cookie jars").
///
/// Not in the journal's file: a jar's change is committed before the `response` event that
/// acknowledges it goes out, in a small transaction of its own, while the journal commits
/// durable jobs' records in groups at the end of a loop iteration; one SQLite file has one
/// writer, so either would wait on or force the other's commit. The files are mode 0600 in the
/// 0700 state directory, as the journal's are (cookie values are credentials).
///
/// One row per cookie: the jar (session name and owner: a uid, or `sharedOwner`), the cookie as
/// curl's cookie-file line, and when ferry first stored it, which `cookies.session_cookie_ttl_s`
/// (for a session cookie) and the jar's oldest-first bounds count from. A save writes only
/// the rows that changed since the last one (`update`), in one transaction.
public final class CookieStore {
  /// The owner of a session's one jar under `"shared": true`.
  public static let sharedOwner: Int64 = -1

  /// `PRAGMA application_id` of a ferry cookie store: "FRCK".
  static let applicationID: Int32 = 0x4652_434B

  static let migrations: [Migration] = [
    Migration(
      version: 1,
      sql: """
        CREATE TABLE cookies (
          session TEXT NOT NULL,
          owner INTEGER NOT NULL,
          line TEXT NOT NULL,
          first_ms INTEGER
        );
        CREATE INDEX cookies_by_jar ON cookies(session, owner);
        """),
    // A save writes only the rows that changed (`update`), each found by its line.
    Migration(version: 2, sql: "CREATE INDEX cookies_by_line ON cookies(session, owner, line);"),
  ]

  public let path: String
  private let database: Database

  /// Opens (or creates) the store at `path`, mode 0600; `sync` as the journal's.
  public init(path: String, sync: JournalSync = .normal) throws(StoreError) {
    database = try Database.openStore(
      path: path, applicationID: Self.applicationID, migrations: Self.migrations, sync: sync)
    self.path = path
  }

  /// One stored cookie.
  public struct Row: Sendable, Equatable {
    /// curl's cookie-file line (`CookieJar.lines()`).
    public var line: String
    /// When ferry first stored the cookie (wall-clock ms); nil reads as "now".
    public var firstMs: Int64?

    public init(line: String, firstMs: Int64?) {
      self.line = line
      self.firstMs = firstMs
    }
  }

  /// The jar's cookies, in the order they were written.
  public func load(session: String, owner: Int64) throws(StoreError) -> [Row] {
    let s = try database.statement(
      "SELECT line, first_ms FROM cookies WHERE session = ?1 AND owner = ?2 ORDER BY rowid")
    s.bind(1, session)
    s.bind(2, owner)
    var rows: [Row] = []
    try s.forEachRow { (r: Statement) throws(StoreError) in
      rows.append(Row(line: r.text(0), firstMs: r.isNull(1) ? nil : r.int64(1)))
    }
    return rows
  }

  /// Makes the jar hold exactly `rows`, committed when this returns.
  public func replace(session: String, owner: Int64, with rows: [Row]) throws(StoreError) {
    try database.transaction { () throws(StoreError) in
      let delete = try database.statement("DELETE FROM cookies WHERE session = ?1 AND owner = ?2")
      delete.bind(1, session)
      delete.bind(2, owner)
      try delete.run()
      let insert = try database.statement(
        "INSERT INTO cookies (session, owner, line, first_ms) VALUES (?1, ?2, ?3, ?4)")
      for row in rows {
        insert.bind(1, session)
        insert.bind(2, owner)
        insert.bind(3, row.line)
        insert.bind(4, row.firstMs)
        try insert.run()
      }
    }
  }

  /// Changes the jar's rows by what changed since the last save (issue 26): deletes the rows
  /// of `removing` (lines), inserts `adding`, in one transaction committed when this returns.
  /// A jar whose cookies mostly stay costs a few rows, not all of them.
  public func update(session: String, owner: Int64, adding: [Row], removing: [String]) throws(StoreError) {
    guard !adding.isEmpty || !removing.isEmpty else { return }
    try database.transaction { () throws(StoreError) in
      let delete = try database.statement(
        "DELETE FROM cookies WHERE session = ?1 AND owner = ?2 AND line = ?3")
      for line in removing {
        delete.bind(1, session)
        delete.bind(2, owner)
        delete.bind(3, line)
        try delete.run()
      }
      let insert = try database.statement(
        "INSERT INTO cookies (session, owner, line, first_ms) VALUES (?1, ?2, ?3, ?4)")
      for row in adding {
        insert.bind(1, session)
        insert.bind(2, owner)
        insert.bind(3, row.line)
        insert.bind(4, row.firstMs)
        try insert.run()
      }
    }
  }

  /// Rows in the whole store (for tests and `stats`).
  public func count() throws(StoreError) -> Int {
    Int(try database.integer("SELECT count(*) FROM cookies") ?? 0)
  }
}
