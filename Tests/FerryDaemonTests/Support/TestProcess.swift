import Glibc

/// Process-wide resource limits of the test runner itself.
enum TestProcess {
  /// Raises the soft RLIMIT_NOFILE to at least `wanted` (up to the hard limit); returns the
  /// soft limit now in force. Children spawned later (ferryd) inherit it.
  static func raiseFileLimit(to wanted: Int) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < rlim_t(wanted) {
      limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
      _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
  }
}
