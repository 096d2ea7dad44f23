import Glibc

/// A mutex with its condition variable (pthread's): what the journal's writer thread and the
/// loop share (`JournalWriter`), and what keeps the journal's connection to one thread at a
/// time (`Journal`). What a thread did before `unlock` is seen by the next one to `lock`
/// (ThreadSanitizer knows these primitives).
///
/// @unchecked Sendable: it exists to be shared; pthread's mutex and condition variable are
/// made for use from many threads, and their storage (`let` pointers) is freed in `deinit`,
/// when no thread holds the lock any more.
final class StoreLock: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  func lock() { pthread_mutex_lock(mutex) }

  func unlock() { pthread_mutex_unlock(mutex) }

  /// Runs `body` with the lock held.
  func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    lock()
    defer { unlock() }
    return try body()
  }

  /// Waits for a `broadcast`, the lock held before and after (it is released while waiting).
  /// Wake-ups may be spurious: call it in a loop on the condition waited for.
  func wait() { pthread_cond_wait(condition, mutex) }

  /// Wakes every thread in `wait`; call it with the lock held.
  func broadcast() { pthread_cond_broadcast(condition) }
}
