/// Least-recently-used bookkeeping over entries' sizes: which entries go to fit `maxBytes`.
///
/// A doubly linked list threaded through an array of slots, with a dictionary from key to slot:
/// `use`, `insert` and `remove` are O(1) and allocate nothing once the slots exist (freed slots
/// are reused). The store keeps one per session, rebuilt at start from the index's last-use
/// column.
public struct EvictionOrder<Key: Hashable & Sendable>: Sendable {
  private struct Slot: Sendable {
    var key: Key?
    var bytes: Int64
    var older: Int
    var newer: Int
  }

  private var slots: [Slot] = []
  private var slotOf: [Key: Int] = [:]
  private var freeSlots: [Int] = []
  /// The least and most recently used slots, -1 when empty.
  private var oldest = -1
  private var newest = -1
  public private(set) var totalBytes: Int64 = 0

  public init() {}

  public var count: Int { slotOf.count }

  public func contains(_ key: Key) -> Bool { slotOf[key] != nil }

  /// Records `key` as just used with `bytes` (a new entry, or a replaced one's new size).
  public mutating func insert(_ key: Key, bytes: Int64) {
    if let slot = slotOf[key] {
      totalBytes += bytes - slots[slot].bytes
      slots[slot].bytes = bytes
      moveToNewest(slot)
      return
    }
    let slot: Int
    if let reused = freeSlots.popLast() {
      slot = reused
      slots[slot] = Slot(key: key, bytes: bytes, older: -1, newer: -1)
    } else {
      slot = slots.count
      slots.append(Slot(key: key, bytes: bytes, older: -1, newer: -1))
    }
    slotOf[key] = slot
    totalBytes += bytes
    link(slot)
  }

  /// Records a hit or a revalidation of `key`; unknown keys are ignored.
  public mutating func use(_ key: Key) {
    if let slot = slotOf[key] { moveToNewest(slot) }
  }

  /// Forgets `key` (purged, invalidated, evicted, or found corrupt).
  public mutating func remove(_ key: Key) {
    guard let slot = slotOf.removeValue(forKey: key) else { return }
    unlink(slot)
    totalBytes -= slots[slot].bytes
    slots[slot].key = nil
    freeSlots.append(slot)
  }

  /// The keys to evict, least recently used first, so that what stays is within `maxBytes`;
  /// the caller removes them (from the store, then from here) once their files are gone.
  public func victims(maxBytes: Int64) -> [Key] {
    var victims: [Key] = []
    var remaining = totalBytes
    var slot = oldest
    while remaining > maxBytes, slot >= 0, let key = slots[slot].key {
      victims.append(key)
      remaining -= slots[slot].bytes
      slot = slots[slot].newer
    }
    return victims
  }

  /// The least recently used keys, oldest first, with their sizes, until they add up to at
  /// least `bytes` and number at least `count` (or every key, when the whole order holds less).
  public func oldestFirst(coveringBytes bytes: Int64, count: Int = 0) -> [(key: Key, bytes: Int64)] {
    var found: [(key: Key, bytes: Int64)] = []
    var covered: Int64 = 0
    var slot = oldest
    while covered < bytes || found.count < count, slot >= 0, let key = slots[slot].key {
      found.append((key, slots[slot].bytes))
      covered += slots[slot].bytes
      slot = slots[slot].newer
    }
    return found
  }

  /// All keys, least recently used first (for tests and the `cache` op's listing).
  public var keysOldestFirst: [Key] {
    var keys: [Key] = []
    var slot = oldest
    while slot >= 0, let key = slots[slot].key {
      keys.append(key)
      slot = slots[slot].newer
    }
    return keys
  }

  private mutating func moveToNewest(_ slot: Int) {
    guard slot != newest else { return }
    unlink(slot)
    link(slot)
  }

  private mutating func link(_ slot: Int) {
    slots[slot].older = newest
    slots[slot].newer = -1
    if newest >= 0 { slots[newest].newer = slot } else { oldest = slot }
    newest = slot
  }

  private mutating func unlink(_ slot: Int) {
    let older = slots[slot].older
    let newer = slots[slot].newer
    if older >= 0 { slots[older].newer = newer } else { oldest = newer }
    if newer >= 0 { slots[newer].older = older } else { newest = older }
  }
}
