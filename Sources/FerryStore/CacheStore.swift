/// The HTTP cache's index (issue 17, docs/CACHE.md "The store"): `cache.db` in the state
/// directory, a database of its own beside the journal and the cookie jars, in WAL mode.
///
/// One row per stored response (session, key, Vary variant); the body is a file under
/// `<state dir>/cache/` (`CacheBodyFiles`) named by the row. A row is written only after its
/// body file was fsynced and renamed into place, so a row is the only thing a lookup trusts:
/// a crash before the commit leaves an orphan file (swept at start), never a row without a
/// whole body. Not in the journal's file: the journal commits in groups on its own schedule,
/// and one SQLite file has one writer.
///
/// The store knows nothing of HTTP: headers and Vary values are opaque bytes
/// (`CacheStore.encode`), the key and URL opaque text.
public final class CacheStore {
  /// `PRAGMA application_id` of a ferry cache index: "FRCA".
  static let applicationID: Int32 = 0x4652_4341

  static let migrations: [Migration] = [
    Migration(
      version: 1,
      sql: """
        CREATE TABLE cache_entry (
          session TEXT NOT NULL,
          key TEXT NOT NULL,
          variant TEXT NOT NULL,
          url TEXT NOT NULL,
          partition TEXT NOT NULL,
          status INTEGER NOT NULL,
          headers BLOB NOT NULL,
          vary BLOB NOT NULL,
          request_time INTEGER NOT NULL,
          response_time INTEGER NOT NULL,
          body_file TEXT NOT NULL,
          body_bytes INTEGER NOT NULL,
          body_sha256 BLOB NOT NULL,
          last_use INTEGER NOT NULL,
          hits INTEGER NOT NULL,
          PRIMARY KEY (session, key, variant)
        );
        CREATE INDEX cache_entry_by_url ON cache_entry(session, partition, url);
        """)
  ]

  /// One stored response.
  public struct Row: Sendable, Equatable {
    public var session: String
    public var key: String
    public var variant: String
    public var url: String
    public var partition: String
    public var status: Int
    public var headers: [UInt8]
    public var vary: [UInt8]
    public var requestTime: Int64
    public var responseTime: Int64
    /// The body's file name under the cache directory.
    public var bodyFile: String
    public var bodyBytes: Int64
    public var bodySHA256: [UInt8]
    /// Seconds since the epoch of the last hit, revalidation or store.
    public var lastUse: Int64
    public var hits: Int64

    public init(
      session: String, key: String, variant: String, url: String, partition: String, status: Int,
      headers: [UInt8], vary: [UInt8], requestTime: Int64, responseTime: Int64, bodyFile: String,
      bodyBytes: Int64, bodySHA256: [UInt8], lastUse: Int64, hits: Int64
    ) {
      self.session = session
      self.key = key
      self.variant = variant
      self.url = url
      self.partition = partition
      self.status = status
      self.headers = headers
      self.vary = vary
      self.requestTime = requestTime
      self.responseTime = responseTime
      self.bodyFile = bodyFile
      self.bodyBytes = bodyBytes
      self.bodySHA256 = bodySHA256
      self.lastUse = lastUse
      self.hits = hits
    }
  }

  public let path: String
  private let database: Database

  /// Opens (or creates) the index at `path`, mode 0600; `sync` as the journal's.
  public init(path: String, sync: JournalSync = .normal) throws(StoreError) {
    database = try Database.openStore(
      path: path, applicationID: Self.applicationID, migrations: Self.migrations, sync: sync)
    self.path = path
  }

  private static let columns =
    "session, key, variant, url, partition, status, headers, vary, request_time, response_time, body_file, body_bytes, body_sha256, last_use, hits"

  /// Every row, least recently used first (the order eviction is rebuilt in).
  public func all() throws(StoreError) -> [Row] {
    let s = try database.statement("SELECT \(Self.columns) FROM cache_entry ORDER BY last_use, rowid")
    var rows: [Row] = []
    try s.forEachRow { (r: Statement) throws(StoreError) in
      rows.append(
        Row(
          session: r.text(0), key: r.text(1), variant: r.text(2), url: r.text(3), partition: r.text(4),
          status: r.int(5), headers: r.bytes(6), vary: r.bytes(7), requestTime: r.int64(8),
          responseTime: r.int64(9), bodyFile: r.text(10), bodyBytes: r.int64(11), bodySHA256: r.bytes(12),
          lastUse: r.int64(13), hits: r.int64(14)))
    }
    return rows
  }

  /// Writes `row` (replacing the row of the same session, key and variant) and deletes
  /// `removing` in one transaction, committed when this returns.
  public func put(_ row: Row?, removing: [(session: String, key: String, variant: String)] = [])
    throws(StoreError)
  {
    try database.transaction { () throws(StoreError) in
      let delete = try database.statement(
        "DELETE FROM cache_entry WHERE session = ?1 AND key = ?2 AND variant = ?3")
      for r in removing {
        delete.bind(1, r.session)
        delete.bind(2, r.key)
        delete.bind(3, r.variant)
        try delete.run()
      }
      guard let row else { return }
      let insert = try database.statement(
        "INSERT OR REPLACE INTO cache_entry (\(Self.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
      )
      insert.bind(1, row.session)
      insert.bind(2, row.key)
      insert.bind(3, row.variant)
      insert.bind(4, row.url)
      insert.bind(5, row.partition)
      insert.bind(6, row.status)
      insert.bind(7, bytes: row.headers)
      insert.bind(8, bytes: row.vary)
      insert.bind(9, row.requestTime)
      insert.bind(10, row.responseTime)
      insert.bind(11, row.bodyFile)
      insert.bind(12, row.bodyBytes)
      insert.bind(13, bytes: row.bodySHA256)
      insert.bind(14, row.lastUse)
      insert.bind(15, row.hits)
      try insert.run()
    }
  }

  /// A row named with its body file: `remove` deletes it only while it still names that file.
  public struct StoredBody: Sendable, Equatable {
    public var session: String
    public var key: String
    public var variant: String
    public var bodyFile: String

    public init(session: String, key: String, variant: String, bodyFile: String) {
      self.session = session
      self.key = key
      self.variant = variant
      self.bodyFile = bodyFile
    }
  }

  /// Deletes the rows of `entries` that still name their body file (one stored again meanwhile
  /// names another) in one transaction, committed when this returns (`purge`, in slices).
  public func remove(_ entries: [StoredBody]) throws(StoreError) {
    guard !entries.isEmpty else { return }
    try database.transaction { () throws(StoreError) in
      let delete = try database.statement(
        "DELETE FROM cache_entry WHERE session = ?1 AND key = ?2 AND variant = ?3 AND body_file = ?4")
      for e in entries {
        delete.bind(1, e.session)
        delete.bind(2, e.key)
        delete.bind(3, e.variant)
        delete.bind(4, e.bodyFile)
        try delete.run()
      }
    }
  }

  /// Writes `rows` over the rows of the same session, key and variant (revalidated heads), in
  /// one transaction.
  public func rewrite(_ rows: [Row]) throws(StoreError) {
    guard !rows.isEmpty else { return }
    try database.transaction { () throws(StoreError) in
      let update = try database.statement(
        "UPDATE cache_entry SET headers = ?4, request_time = ?5, response_time = ?6, last_use = ?7, hits = ?8 WHERE session = ?1 AND key = ?2 AND variant = ?3"
      )
      for row in rows {
        update.bind(1, row.session)
        update.bind(2, row.key)
        update.bind(3, row.variant)
        update.bind(4, bytes: row.headers)
        update.bind(5, row.requestTime)
        update.bind(6, row.responseTime)
        update.bind(7, row.lastUse)
        update.bind(8, row.hits)
        try update.run()
      }
    }
  }

  /// Records hits: each row's `last_use` and `hits`, in one transaction.
  public func touch(_ uses: [(session: String, key: String, variant: String, lastUse: Int64, hits: Int64)])
    throws(StoreError)
  {
    guard !uses.isEmpty else { return }
    try database.transaction { () throws(StoreError) in
      let update = try database.statement(
        "UPDATE cache_entry SET last_use = ?4, hits = ?5 WHERE session = ?1 AND key = ?2 AND variant = ?3")
      for u in uses {
        update.bind(1, u.session)
        update.bind(2, u.key)
        update.bind(3, u.variant)
        update.bind(4, u.lastUse)
        update.bind(5, u.hits)
        try update.run()
      }
    }
  }

  /// Rows in the whole index (for tests).
  public func count() throws(StoreError) -> Int {
    Int(try database.integer("SELECT count(*) FROM cache_entry") ?? 0)
  }

  /// Header lists as the row keeps them: for each pair, the name's and the value's lengths as
  /// 4-byte little-endian integers, then the bytes; a nil value is length 0xFFFF_FFFF.
  public static func encode(_ pairs: [(name: String, value: String?)]) -> [UInt8] {
    var out: [UInt8] = []
    func length(_ n: UInt32) {
      for shift in stride(from: 0, to: 32, by: 8) {
        out.append(UInt8(truncatingIfNeeded: n >> UInt32(shift)))
      }
    }
    for (name, value) in pairs {
      length(UInt32(clamping: name.utf8.count))
      out += name.utf8
      if let value {
        length(UInt32(clamping: value.utf8.count))
        out += value.utf8
      } else {
        length(UInt32.max)
      }
    }
    return out
  }

  /// The pairs `encode` wrote; nil when the bytes are not such a list (a damaged row).
  public static func decode(_ bytes: [UInt8]) -> [(name: String, value: String?)]? {
    var pairs: [(name: String, value: String?)] = []
    var i = 0
    func length() -> UInt32? {
      guard bytes.count - i >= 4 else { return nil }
      var n: UInt32 = 0
      for k in 0..<4 { n |= UInt32(bytes[i + k]) << UInt32(8 * k) }
      i += 4
      return n
    }
    func text(_ n: UInt32) -> String? {
      guard Int(n) <= bytes.count - i else { return nil }
      let s = String(validating: bytes[i..<i + Int(n)], as: UTF8.self)
      i += Int(n)
      return s
    }
    while i < bytes.count {
      guard let n = length(), n != UInt32.max, let name = text(n), let v = length() else { return nil }
      if v == UInt32.max {
        pairs.append((name, nil))
      } else {
        guard let value = text(v) else { return nil }
        pairs.append((name, value))
      }
    }
    return pairs
  }
}
