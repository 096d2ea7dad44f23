#if canImport(Glibc)
  import Glibc
#endif

/// The funnel every system call of this module goes through: retries `EINTR`.
enum Syscall {
  /// Runs `call` until it does not fail with `EINTR`; returns its result, `errno` left as set.
  @inline(__always)
  static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
      let result = call()
      if result >= 0 || errno != EINTR { return result }
    }
  }

}
