/// One step of a database's schema: the SQL that takes it from `version - 1` to `version`.
///
/// The version lives in the file's header as `PRAGMA user_version`; the file's owner as
/// `PRAGMA application_id`, so another application's SQLite file is never taken for ours.
public struct Migration: Sendable {
  public let version: Int32
  public let sql: String

  public init(version: Int32, sql: String) {
    self.version = version
    self.sql = sql
  }
}

/// What `migrate` found and did.
public struct MigrationOutcome: Sendable, Equatable {
  /// `user_version` before: 0 for a new file.
  public var from: Int32
  public var to: Int32
}

extension Database {
  /// Brings the schema to the last of `migrations` (versions 1, 2, … in order), all pending
  /// steps in one transaction: a failing step leaves the file at its old version.
  ///
  /// A new file (no tables, `user_version` 0) gets `applicationID` and `preamble` first (pragmas
  /// that must come before the first table, such as `auto_vacuum`). A file with another
  /// application id, or with tables and none, is `.foreign`; a version past the last
  /// migration is `.newerSchema`.
  public func migrate(
    applicationID: Int32, preamble: String = "", _ migrations: [Migration]
  ) throws(StoreError) -> MigrationOutcome {
    precondition(
      migrations.enumerated().allSatisfy { $0.element.version == Int32($0.offset + 1) },
      "migrations are numbered 1, 2, … in order")
    let latest = Int32(migrations.count)
    let id = Int32(truncatingIfNeeded: try integer("PRAGMA application_id") ?? 0)
    let version = Int32(truncatingIfNeeded: try integer("PRAGMA user_version") ?? 0)
    let tables = try integer("SELECT count(*) FROM sqlite_schema") ?? 0
    let isNew = id == 0 && version == 0 && tables == 0
    guard isNew || id == applicationID else {
      throw StoreError(
        .foreign,
        "\(path) is an SQLite database of another application (application_id \(id), not \(applicationID))")
    }
    guard version <= latest else {
      throw StoreError(
        .newerSchema, "\(path) has schema version \(version); this build knows up to \(latest)")
    }
    guard version < latest else { return MigrationOutcome(from: version, to: version) }
    if isNew, !preamble.isEmpty { try execute(preamble) }
    try transaction { () throws(StoreError) in
      if isNew { try execute("PRAGMA application_id = \(applicationID)") }
      for step in migrations where step.version > version {
        try execute(step.sql)
        try execute("PRAGMA user_version = \(step.version)")
      }
    }
    return MigrationOutcome(from: version, to: latest)
  }
}
