import FerryStore

/// One ferryd per state directory (issue 25).
extension Daemon {
  /// Takes the state directory for this daemon (`StateDirectoryLock`) before it listens, so a
  /// second ferryd started on the same directory exits at once with one line, instead of
  /// starting and fighting the first over the journal, cookie and cache databases
  /// (`database is locked`). A daemon with no state directory (no `state_dir`,
  /// `STATE_DIRECTORY`, `XDG_STATE_HOME` or `HOME`) shares nothing. A directory that cannot be
  /// made or opened is only logged, as before the lock: what needs it fails as it always did
  /// (durable jobs `journal_failed`, cookies and the cache unavailable).
  public func lockStateDirectory() throws(StartupError) {
    guard let dir = StateDirectory.resolve(configured: config.stateDirectory, environment: processEnvironment)
    else { return }
    do throws(StoreError) {
      stateLock = try StateDirectoryLock(directory: dir)
    } catch {
      guard error.kind != .busy else {
        throw StartupError("\(error.message); stop it, or give this one another state_dir")
      }
      logger.warning("cannot lock the state directory", ["path": dir, "error": "\(error)"])
    }
  }
}
