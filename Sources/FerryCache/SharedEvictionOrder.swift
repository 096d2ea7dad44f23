/// Least-recently-used order for one session's cache, kept per partition (per user in a private
/// cache), so that no user can evict another's entries by filling the session's `max_bytes`.
///
/// Eviction takes from the partition that holds the most bytes, its least recently used entry
/// first, one entry at a time, until the session is within `max_bytes`. So a user can push
/// another's entries out only while holding less than that user: each user keeps at least an
/// equal share of `max_bytes` (max-min fairness) whatever the others store, and a session with
/// one partition (a shared cache, or one user) is plain LRU. A tie goes to the partition that
/// sorts first (users by uid), so that the choice is the same on every run.
public struct SharedEvictionOrder<Partition: Hashable & Comparable & Sendable, Key: Hashable & Sendable>:
  Sendable
{
  private var orders: [Partition: EvictionOrder<Key>] = [:]
  public private(set) var totalBytes: Int64 = 0
  public private(set) var count = 0

  public init() {}

  /// The bytes `partition` holds.
  public func bytes(of partition: Partition) -> Int64 { orders[partition]?.totalBytes ?? 0 }

  public func contains(_ key: Key, in partition: Partition) -> Bool {
    orders[partition]?.contains(key) ?? false
  }

  /// Records `key` of `partition` as just used with `bytes` (new, or a replaced one's new size).
  public mutating func insert(_ key: Key, in partition: Partition, bytes: Int64) {
    var order = orders.removeValue(forKey: partition) ?? EvictionOrder()
    let before = (order.totalBytes, order.count)
    order.insert(key, bytes: bytes)
    totalBytes += order.totalBytes - before.0
    count += order.count - before.1
    orders[partition] = order
  }

  /// Records a hit or a revalidation; unknown keys are ignored.
  public mutating func use(_ key: Key, in partition: Partition) {
    orders[partition]?.use(key)
  }

  /// Forgets `key` (purged, invalidated, evicted, or found corrupt).
  public mutating func remove(_ key: Key, in partition: Partition) {
    guard var order = orders.removeValue(forKey: partition) else { return }
    let before = (order.totalBytes, order.count)
    order.remove(key)
    totalBytes -= before.0 - order.totalBytes
    count -= before.1 - order.count
    if order.count > 0 { orders[partition] = order }
  }

  /// The entries to evict so that what stays is within `maxBytes` and `maxEntries`, in the
  /// order they go: each from the partition holding the most bytes at that point (while the
  /// bytes are over), else the most entries (while only the count is), its least recently used
  /// first. The caller removes them (from the store, then from here).
  public func victims(maxBytes: Int64, maxEntries: Int = .max) -> [(partition: Partition, key: Key)] {
    var need = totalBytes - maxBytes
    var surplus = count - maxEntries
    guard need > 0 || surplus > 0 else { return [] }
    // No partition gives more than `need` bytes and `surplus` entries: each one's oldest
    // entries up to that.
    var candidates: [Candidate] = orders.keys.sorted().map { p in
      let order = orders[p]!
      return Candidate(
        partition: p, held: order.totalBytes, entries: order.count,
        list: order.oldestFirst(coveringBytes: need, count: surplus))
    }
    var victims: [(partition: Partition, key: Key)] = []
    while need > 0 || surplus > 0 {
      var pick = -1
      for (i, c) in candidates.enumerated() where c.next < c.list.count {
        if pick < 0 || (need > 0 ? c.held > candidates[pick].held : c.entries > candidates[pick].entries) {
          pick = i
        }
      }
      guard pick >= 0 else { break }
      let (key, bytes) = candidates[pick].list[candidates[pick].next]
      candidates[pick].next += 1
      candidates[pick].held -= bytes
      candidates[pick].entries -= 1
      need -= bytes
      surplus -= 1
      victims.append((candidates[pick].partition, key))
    }
    return victims
  }

  /// One partition's oldest entries while `victims` picks among them.
  private struct Candidate {
    var partition: Partition
    var held: Int64
    var entries: Int
    var next = 0
    var list: [(key: Key, bytes: Int64)]
  }
}
