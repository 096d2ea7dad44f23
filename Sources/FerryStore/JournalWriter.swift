import FerryLoop
import Glibc

/// The thread that commits the journal (issue 14; docs/STORE.md "The writer thread"), so that
/// a commit (and `journal.sync: full`'s fsync) never holds up the loop and its other clients.
///
/// The loop stages records on the `Journal` as before (`submitted`, `eventSent`, …: staging
/// never touches SQLite), takes the iteration's batch (`Journal.takeBatch`) and hands it over
/// (`submit`); this thread commits it (`Journal.commit`) and reports the `FlushReport` back
/// through a `LoopWake`: the loop takes the reports (`takeReports`) and only then lets the
/// batch's jobs go on (their `queued`) or refuses them (`journal_failed`). Reports come in the
/// order the batches were handed over. `compact()` runs here too, at an idle moment, and the
/// loop's reads (`listJobs`, `recoverJobs`), each after the batches handed over before it.
///
/// The driver hands over one batch at a time and stages into the next meanwhile, so when the
/// writer is behind, batches grow instead of multiplying (`submit` takes more only for a
/// `drain`). The connection is used under the `Journal`'s own lock: commits and reads here, a
/// read of the loop (`recover` at start, before this thread) there, never both at once.
///
/// @unchecked Sendable: what the two threads share (`work`, `reports`, `isBusy`,
/// `isStopping`) is read and written only under `lock`; `thread` is the loop's alone; the rest
/// is `let` and Sendable itself.
public final class JournalWriter: @unchecked Sendable {
  /// What the thread did with one piece of work, in the order it was handed over.
  public enum Report: Sendable, Equatable {
    /// A batch was committed (or refused): what `Journal.flush()` returns.
    case batch(FlushReport)
    /// A slice of compaction ran (`Journal.compactSlice`); the error when it failed.
    case compacted(StoreError?)
    /// `listJobs` read the jobs a user may see (`Journal.jobs(visibleTo:)`), or failed.
    case listed(tag: UInt64, Result<[JobListing], StoreError>)
    /// `recoverJobs` read every job back (`Journal.recover()`), or failed.
    case recovered(tag: UInt64, Result<[RecoveredJob], StoreError>)
  }

  private enum Work: Sendable {
    case batch(JournalBatch)
    case compact
    case list(tag: UInt64, uid: UInt32)
    case recover(tag: UInt64)
  }

  private let journal: Journal
  private let wake: LoopWake.Signal
  /// Runs on the thread before each commit: a test's hook to hold a commit back.
  private let beforeCommit: (@Sendable () -> Void)?
  private let lock = StoreLock()
  // Guarded by `lock`.
  private var work: [Work] = []
  private var reports: [Report] = []
  private var isBusy = false
  private var isStopping = false
  /// The loop's: set at start, cleared by `stop`.
  private var thread: pthread_t?

  /// Starts the thread. From now on the journal's commits and compaction belong to it.
  public init(
    journal: Journal, wake: LoopWake.Signal, beforeCommit: (@Sendable () -> Void)? = nil
  ) throws(StoreError) {
    self.journal = journal
    self.wake = wake
    self.beforeCommit = beforeCommit
    let context = Unmanaged.passRetained(self).toOpaque()
    var id = pthread_t()
    let rc = pthread_create(
      &id, nil,
      { raw in
        guard let raw else { return nil }
        Unmanaged<JournalWriter>.fromOpaque(raw).takeRetainedValue().main()
        return nil
      }, context)
    guard rc == 0 else {
      Unmanaged<JournalWriter>.fromOpaque(context).release()
      throw StoreError(.other, "cannot start the journal's writer thread: \(Errno(rc))")
    }
    thread = id
  }

  /// Hands a batch to the thread. Its report comes back through the wake.
  public func submit(_ batch: JournalBatch) {
    enqueue(.batch(batch))
  }

  /// Asks the thread to compact the journal after what it holds, in bounded slices
  /// (`Journal.compactSlice`), each queued behind the batches handed over meanwhile.
  public func compact() {
    enqueue(.compact)
  }

  /// Reads the jobs `uid` may see after what was handed over before (issue 28: the `jobs` op
  /// once drained the writer on the loop, an fsync under `journal.sync: full`). The answer
  /// comes back as `.listed(tag:)`.
  public func listJobs(visibleTo uid: UInt32, tag: UInt64) {
    enqueue(.list(tag: tag, uid: uid))
  }

  /// Reads every job back (`Journal.recover()`) after what was handed over before; the answer
  /// comes back as `.recovered(tag:)`.
  public func recoverJobs(tag: UInt64) {
    enqueue(.recover(tag: tag))
  }

  /// The reports of the work done since the last call, oldest first, swapped into `list`
  /// (which should be empty: its storage is kept for the next call, no allocation per batch).
  public func takeReports(into list: inout [Report]) {
    lock.withLock { swap(&list, &reports) }
  }

  /// Waits until everything handed over is done (its reports wait for `takeReports`): what
  /// the loop reads next sees it committed. Blocks the calling thread for that long.
  public func drain() {
    lock.withLock {
      while !work.isEmpty || isBusy { lock.wait() }
    }
  }

  /// Does what was handed over, then ends the thread and waits for it: the journal is the
  /// caller's alone again. The reports of that work are left untaken.
  public func stop() {
    guard let thread else { return }
    lock.withLock {
      isStopping = true
      lock.broadcast()
    }
    pthread_join(thread, nil)
    self.thread = nil
  }

  private func enqueue(_ item: Work) {
    lock.withLock {
      work.append(item)
      lock.broadcast()
    }
  }

  /// The thread: takes work in order until stopped with nothing left.
  private func main() {
    // Signals go to the loop's thread (SIGTERM, SIGHUP, SIGCHLD…), never to this one.
    var all = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_BLOCK, &all, nil)
    lock.lock()
    while true {
      while work.isEmpty, !isStopping { lock.wait() }
      if work.isEmpty { break }
      let item = work.removeFirst()
      isBusy = true
      lock.unlock()
      let report = perform(item)
      lock.lock()
      isBusy = false
      reports.append(report)
      lock.broadcast()
      lock.unlock()
      wake.fire()
      lock.lock()
    }
    lock.unlock()
  }

  private func perform(_ item: Work) -> Report {
    switch item {
    case .batch(let batch):
      beforeCommit?()
      var start = timespec()
      clock_gettime(CLOCK_MONOTONIC, &start)
      var report = journal.commit(batch)
      var end = timespec()
      clock_gettime(CLOCK_MONOTONIC, &end)
      report.seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
      return .batch(report)
    case .compact:
      do throws(StoreError) {
        if try journal.compactSlice() {
          lock.withLock { work.append(.compact) }
        }
        return .compacted(nil)
      } catch {
        return .compacted(error)
      }
    case .list(let tag, let uid):
      do throws(StoreError) {
        return .listed(tag: tag, .success(try journal.jobs(visibleTo: uid)))
      } catch {
        return .listed(tag: tag, .failure(error))
      }
    case .recover(let tag):
      do throws(StoreError) {
        return .recovered(tag: tag, .success(try journal.recover()))
      } catch {
        return .recovered(tag: tag, .failure(error))
      }
    }
  }
}
