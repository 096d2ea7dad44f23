/// At least the last `capacity` distinct ids inserted, and at most twice as many: bounded
/// memory for a connection that runs jobs forever.
///
/// Two generations of a set rather than a set and an insertion-order ring: an insert is one
/// hash of the id (the ring's way also hashed the oldest id out of the set, and an id ends with
/// every job), and the older generation goes whole once the newer one is full.
struct RecentIDs {
  let capacity: Int
  private var current: Set<JobIDKey> = []
  private var previous: Set<JobIDKey> = []

  init(capacity: Int) { self.capacity = max(1, capacity) }

  func contains(_ id: String) -> Bool {
    let key = JobIDKey(id)
    return current.contains(key) || previous.contains(key)
  }

  mutating func insert(_ id: String) { insert(JobIDKey(id)) }

  mutating func insert(_ id: JobIDKey) {
    if current.count >= capacity {
      previous = current
      current = Set(minimumCapacity: capacity)
    }
    current.insert(id)
  }
}
