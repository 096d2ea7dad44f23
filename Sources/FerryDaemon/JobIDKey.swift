import FerryWire

/// A job id as the key of a client's tables (its live jobs, the ids of its ended ones), with
/// the id's hash computed once: a job's id was hashed four times on its way (the duplicate
/// check, the insert, the removal, the ended ids), each a SipHash of its bytes (issue 29).
///
/// The hash is the id's own `hashValue`: SipHash under the process's random seed, as every
/// `String` key's, so that ids a client picks cannot be made to collide; a table then mixes it
/// with its seed (`SerialKey`'s mixer, a bijection, which keeps it as hard to collide).
struct JobIDKey: Hashable, Sendable {
  let id: String
  private let hash: Int

  init(_ id: String) {
    self.id = id
    hash = id.hashValue
  }

  static func == (a: JobIDKey, b: JobIDKey) -> Bool { a.hash == b.hash && a.id == b.id }

  func hash(into hasher: inout Hasher) { hasher.combine(hash) }

  func _rawHashValue(seed: Int) -> Int {
    SerialKey(UInt64(bitPattern: Int64(hash)))._rawHashValue(seed: seed)
  }
}
