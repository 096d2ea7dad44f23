import Glibc

/// A value behind a `pthread_mutex_t`, with `Mutex`'s shape: `withLock { value in … }`.
///
/// Not Synchronization's `Mutex`: on Linux it locks with futex(2) directly
/// (stdlib/public/Synchronization/Mutex/LinuxImpl.swift), which ThreadSanitizer does not model,
/// so TSan reported every access inside `withLock` as a race. TSan intercepts pthread_mutex,
/// sees the happens-before edges, and checks these accesses for real. The mutex lives on the
/// heap: a `pthread_mutex_t` must not move once initialized.
// @unchecked Sendable: `value` is only read or written between lock and unlock of `mutex`.
final class FerryLock<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held and the value to read or change.
  func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
