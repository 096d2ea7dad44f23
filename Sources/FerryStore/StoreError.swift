import CFerrySQLite

/// A failure of the store: SQLite's own result code and message, or one of ferry's checks on
/// the file (another application's database, a schema newer than this build).
///
/// `kind` is the stable part callers branch on and logs name (`code`); `sqliteCode` is SQLite's
/// extended result code (0 for ferry's own checks) and `message` says what failed, in words.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong, as callers need to tell it apart.
  public enum Kind: String, Sendable, Equatable {
    /// Another connection holds the database (SQLITE_BUSY, SQLITE_LOCKED), e.g. a second daemon
    /// on the same state directory.
    case busy
    /// The disk or the quota is full (SQLITE_FULL), or the database reached its size limit.
    case full
    /// The file is an SQLite database whose pages are damaged (SQLITE_CORRUPT).
    case corrupt
    /// The file is not an SQLite database at all (SQLITE_NOTADB).
    case notADatabase = "not_a_database"
    /// An SQLite database of another application (its `application_id` is not ours).
    case foreign
    /// A journal written by a newer build: its `user_version` is past every migration here.
    case newerSchema = "newer_schema"
    /// The file or its directory cannot be opened or prepared (SQLITE_CANTOPEN, SQLITE_PERM,
    /// or a system call on the path failed).
    case cannotOpen = "cannot_open"
    /// The file or its directory is read-only (SQLITE_READONLY).
    case readOnly = "read_only"
    /// The kernel reported an I/O error (SQLITE_IOERR).
    case io
    /// A constraint failed (SQLITE_CONSTRAINT): a bug in the caller's records.
    case constraint
    /// Anything else SQLite reported.
    case other
  }

  public var kind: Kind
  /// SQLite's extended result code; 0 for ferry's own checks.
  public var sqliteCode: Int32
  public var message: String

  public init(_ kind: Kind, sqliteCode: Int32 = 0, _ message: String) {
    self.kind = kind
    self.sqliteCode = sqliteCode
    self.message = message
  }

  /// An error from SQLite's result code `code`, with SQLite's message and what ferry was doing.
  init(sqliteCode code: Int32, message: String, doing what: String) {
    self.init(Self.kind(of: code), sqliteCode: code, "\(what): \(message)")
  }

  /// The stable code, for logs (`journal error code=full`).
  public var code: String { kind.rawValue }

  /// Whether the file itself is unusable as a journal (damaged, not a database, another
  /// application's, or from a newer build): what a daemon moves aside and starts over from.
  /// A busy, full or read-only journal is not: the file may be fine.
  public var isDamagedFile: Bool {
    switch kind {
    case .corrupt, .notADatabase, .foreign, .newerSchema: true
    default: false
    }
  }

  public var description: String { "\(kind.rawValue): \(message)" }

  /// The kind of an SQLite result code, extended or primary.
  static func kind(of code: Int32) -> Kind {
    switch code & 0xff {
    case SQLITE_BUSY, SQLITE_LOCKED: .busy
    case SQLITE_FULL: .full
    case SQLITE_CORRUPT: .corrupt
    case SQLITE_NOTADB: .notADatabase
    case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: .cannotOpen
    case SQLITE_READONLY: .readOnly
    case SQLITE_IOERR: .io
    case SQLITE_CONSTRAINT: .constraint
    default: .other
    }
  }
}
