/// The last `capacity` distinct ids inserted, oldest forgotten first: bounded memory for a
/// connection that runs jobs forever.
struct RecentIDs {
  let capacity: Int
  private var members: Set<String> = []
  /// Insertion order as a ring; `next` is where the next id goes (and the oldest is).
  private var ring: [String] = []
  private var next = 0

  init(capacity: Int) { self.capacity = max(1, capacity) }

  func contains(_ id: String) -> Bool { members.contains(id) }

  mutating func insert(_ id: String) {
    guard members.insert(id).inserted else { return }
    if ring.count < capacity {
      ring.append(id)
      return
    }
    members.remove(ring[next])
    ring[next] = id
    next = (next + 1) % capacity
  }
}
