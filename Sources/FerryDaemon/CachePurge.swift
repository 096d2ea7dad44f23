import FerryLoop
import FerryStore

/// Entries of `purge` with `all`, removed from the store a bounded slice per loop iteration
/// (issue 26): the purge once held the loop for one transaction and one `unlink` per entry,
/// 6.5 s for 20 000 entries, and every other client waited; even one `DELETE` of them all
/// holds it about 20 µs a row (0.44 s for 20 000 here, most of it the WAL's writes).
///
/// The entries leave memory at once (no lookup serves them); here each slice deletes its rows
/// in one transaction, then removes their bodies, so a row never names a removed file, and a
/// crash meanwhile leaves whole entries (the purge was not answered) or files no row names
/// (swept at start). A row is matched with its body file too: an entry stored again under the
/// same key meanwhile is not touched. Then a 0 ms timer lets the loop serve its other clients
/// before the next slice. A caller waits for its entries with `whenDone`.
@MainActor final class CachePurge {
  /// Entries per slice: about a millisecond of `unlink`s and one small transaction.
  static let sliceSize = 32

  typealias Item = CacheStore.StoredBody

  private let store: CacheStore
  private let bodies: CacheBodyFiles
  private var pending: [Item] = []
  /// Index in `pending` of the next entry.
  private var next = 0
  /// Entries done since the start (the position `whenDone` waits for).
  private var done = 0
  /// The first failure since the last waiter was answered.
  private var failure: StoreError?
  private var waiting: [(position: Int, callback: @MainActor (StoreError?) -> Void)] = []
  private var timer: Timer?

  init(store: CacheStore, bodies: CacheBodyFiles, loop: EventLoop) {
    self.store = store
    self.bodies = bodies
    timer = Timer(loop: loop) { [unowned self] in self.removeSlice() }
  }

  /// Entries queued and not removed yet.
  var count: Int { pending.count - next }

  /// Queues `items` for removal.
  func remove(_ items: [Item]) {
    guard !items.isEmpty else { return }
    pending.append(contentsOf: items)
    if timer?.isScheduled == false { timer?.schedule(afterMs: 0) }
  }

  /// Runs `callback` once every entry queued so far is removed (at once when none is left),
  /// with the first store error met meanwhile (those entries' rows and bodies are kept).
  func whenDone(_ callback: @escaping @MainActor (StoreError?) -> Void) {
    guard count > 0 else { return callback(nil) }
    waiting.append((done + count, callback))
  }

  private func removeSlice() {
    let end = min(pending.count, next + Self.sliceSize)
    let slice = Array(pending[next..<end])
    do throws(StoreError) {
      try store.remove(slice)
      for item in slice { bodies.remove(item.bodyFile) }
    } catch {
      failure = failure ?? error
    }
    done += end - next
    next = end
    if next == pending.count {
      pending.removeAll(keepingCapacity: false)
      next = 0
    } else {
      timer?.schedule(afterMs: 0)
    }
    let ready = waiting.filter { $0.position <= done }
    guard !ready.isEmpty else { return }
    waiting.removeAll { $0.position <= done }
    let error = failure
    failure = nil
    for w in ready { w.callback(error) }
  }
}
