/// The engine's socket records by descriptor, in an array indexed by the descriptor.
///
/// Descriptors are small and dense (the kernel hands out the lowest free number), and every
/// socket event looks its record up: hashing the number cost about 75 instructions a lookup,
/// a dozen lookups a job with 1 000 transfers in flight (issue 29). The array grows to the
/// highest descriptor the engine has watched (8 bytes a number, at most the daemon's
/// descriptor limit) and keeps that size.
struct SocketTable {
  private var slots: [SocketRecord?] = []

  subscript(fd: Int32) -> SocketRecord? {
    get { fd >= 0 && Int(fd) < slots.count ? slots[Int(fd)] : nil }
    set {
      guard fd >= 0 else { return }
      let index = Int(fd)
      if index >= slots.count {
        guard newValue != nil else { return }
        slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count))
      }
      slots[index] = newValue
    }
  }

  /// Every record, in descriptor order.
  var records: [SocketRecord] { slots.compactMap { $0 } }

  mutating func removeAll() { slots.removeAll() }
}
