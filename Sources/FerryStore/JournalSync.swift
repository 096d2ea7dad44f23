/// How hard a commit is pushed to the disk: `journal.sync` in the configuration.
///
/// In WAL mode a commit appends the transaction's pages and a commit frame to the `-wal` file.
/// - `normal` (`PRAGMA synchronous=NORMAL`): the WAL is written at every commit but synced
///   only at checkpoints. A committed transaction is in the kernel's page cache when `flush`
///   returns, so it survives the daemon crashing, SIGKILL and the OOM killer; a power loss or
///   a kernel crash may lose the last transactions (never corrupt the file: SQLite's WAL
///   recovery drops an incomplete tail).
/// - `full` (`PRAGMA synchronous=FULL`): the WAL is also fsynced at every commit, so a commit
///   also survives power loss, at the cost of one fsync per commit: group commit makes it one
///   per loop iteration, not one per job.
public enum JournalSync: String, Sendable, Equatable, CaseIterable {
  case normal
  case full

  var pragma: String {
    switch self {
    case .normal: "NORMAL"
    case .full: "FULL"
    }
  }
}
