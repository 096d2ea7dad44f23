/// A job submitted with `detach: true`: it outlives its client, and `attach` from another
/// connection of the same user takes its events over.
///
/// Registered daemon-wide by user and id (a detached job's id is unique among its user's
/// detached jobs, not just on its connection, so `attach` can name it; another user's ids are
/// another namespace, never revealed by `duplicate_id` nor taken). While the job runs, `run` is set and its events are
/// recorded into `replay`; once it has ended with no client to tell, the record keeps the
/// replay (with the terminal event) until an `attach` takes it or it expires.
@MainActor final class DetachedJob {
  let id: String
  /// The submitting user; only they (or root) may attach. nil when the peer's credentials
  /// could not be read.
  let uid: UInt32?
  var replay: ReplayBuffer
  /// The job while it runs.
  weak var run: JobRun?
  /// When the job ended with no client attached (loop clock, ms); nil while it runs or while a
  /// client receives it.
  var orphanedResultSinceMs: UInt64?

  /// Where the daemon files it: the user's namespace, then the id.
  struct Key: Hashable {
    var uid: UInt32?
    var id: String
  }

  var key: Key { Key(uid: uid, id: id) }

  init(id: String, uid: UInt32?, replay: ReplayBuffer) {
    self.id = id
    self.uid = uid
    self.replay = replay
  }

  /// Whether a client running as `uid` may attach: the same user, or root.
  func admits(uid other: UInt32?) -> Bool {
    guard let other else { return false }
    return other == 0 || other == uid
  }
}
