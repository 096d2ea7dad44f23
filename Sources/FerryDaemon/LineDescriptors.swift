import FerryLoop
/// The descriptors passed with one job line (SCM_RIGHTS), at most `limit`, in the order sent:
/// a job's fields refer to them by index (`output_fd`, `body.fd`).
///
/// It owns them until a job takes one (`take`); `closeRest()` closes every one not taken, so
/// the descriptors of a refused line, or those its job does not use, are closed at once.
/// `close(2)` is never retried (Linux releases the descriptor even on EINTR).
struct LineDescriptors {
  /// Most descriptors one line may bring; more are closed as they arrive.
  static let limit = 4
  /// By index; -1 once taken.
  private(set) var fds: [Int32] = []

  var isEmpty: Bool { fds.isEmpty }

  /// Adds what arrived, closing what is past the limit.
  mutating func add(_ new: [Int32]) {
    for fd in new {
      if fds.count < Self.limit {
        fds.append(fd)
      } else {
        SystemCall.close(fd)
      }
    }
  }

  /// Hands descriptor `index` over to the caller, who must close it; nil when the line has
  /// none at that index or it was taken already.
  mutating func take(_ index: Int) -> Int32? {
    guard fds.indices.contains(index), fds[index] >= 0 else { return nil }
    defer { fds[index] = -1 }
    return fds[index]
  }

  /// Closes every descriptor not taken, and forgets them all.
  mutating func closeRest() {
    guard !fds.isEmpty else { return }
    for fd in fds where fd >= 0 { SystemCall.close(fd) }
    fds.removeAll(keepingCapacity: true)
  }
}
