/// The keys of the objects being read, for rejecting a key given twice in one object.
///
/// Keys are byte ranges, not strings: of the input when a key has no escape, else of `arena`,
/// where its decoded bytes are copied. Two ASCII keys are the same key exactly when their bytes
/// are equal; when either holds non-ASCII they are compared as `String`s, as the reader always
/// has (Swift's `==` is canonical equivalence: `"e\u0301"` repeats `"é"`, the Kelvin sign repeats
/// `K`). Past `setThreshold` keys an object's keys also go into a `Set<String>`: a 1 MiB line can
/// hold 100 000 keys, and a pairwise scan over those would stall the loop.
struct JSONKeyTracker {
  /// One key: where its decoded bytes are, and whether they are all ASCII.
  struct Entry {
    var start: Int
    var count: Int
    var isASCII: Bool
    var isInArena: Bool
  }

  /// Where an object's keys begin, taken when the object opens.
  struct Mark {
    let entry: Int
    let arena: Int
  }

  /// Keys an object may have before they are also kept in a set.
  static let setThreshold = 16

  /// The keys of every object being read, innermost object's last.
  private(set) var entries: [Entry] = []
  /// Decoded bytes of keys that had escapes.
  private var arena: [UInt8] = []

  func mark() -> Mark { Mark(entry: entries.count, arena: arena.count) }

  /// Forgets the keys of the object that opened at `mark`.
  mutating func reset(to mark: Mark) {
    entries.removeLast(entries.count - mark.entry)
    arena.removeLast(arena.count - mark.arena)
  }

  /// Records `key` as a key of the object opened at `mark`; returns false when that object
  /// already has it. `scratch` holds the decoded bytes of an escaped key.
  mutating func insert(
    _ key: JSONStringToken, input: UnsafeBufferPointer<UInt8>, scratch: [UInt8], since mark: Mark,
    set: inout Set<String>?
  ) -> Bool {
    let entry: Entry
    if key.isEscaped {
      entry = Entry(start: arena.count, count: scratch.count, isASCII: key.isASCII, isInArena: true)
      arena.append(contentsOf: scratch)
    } else {
      entry = Entry(start: key.start, count: key.end - key.start, isASCII: key.isASCII, isInArena: false)
    }
    let isNew: Bool
    if set != nil {
      isNew = set?.insert(string(of: entry, input: input)).inserted == true
    } else if entries.count - mark.entry < Self.setThreshold {
      isNew = !repeats(entry, since: mark, input: input)
    } else {
      var keys = Set(entries[mark.entry...].map { string(of: $0, input: input) })
      isNew = keys.insert(string(of: entry, input: input)).inserted
      set = keys
    }
    entries.append(entry)
    return isNew
  }

  /// Whether `entry` equals a key recorded since `mark`.
  private func repeats(_ entry: Entry, since mark: Mark, input: UnsafeBufferPointer<UInt8>) -> Bool {
    arena.withUnsafeBufferPointer { arena in
      let new = Self.bytes(of: entry, input: input, arena: arena)
      for i in mark.entry..<entries.count {
        let old = entries[i]
        if old.isASCII && entry.isASCII {
          if old.count == entry.count, Self.equal(Self.bytes(of: old, input: input, arena: arena), new) {
            return true
          }
        } else if String(decoding: Self.bytes(of: old, input: input, arena: arena), as: UTF8.self)
          == String(decoding: new, as: UTF8.self)
        {
          return true
        }
      }
      return false
    }
  }

  /// The key recorded at `index` of `entries`, as a string (for sets and error messages).
  func string(at index: Int, input: UnsafeBufferPointer<UInt8>) -> String {
    string(of: entries[index], input: input)
  }

  private func string(of entry: Entry, input: UnsafeBufferPointer<UInt8>) -> String {
    arena.withUnsafeBufferPointer { arena in
      String(decoding: Self.bytes(of: entry, input: input, arena: arena), as: UTF8.self)
    }
  }

  @inline(__always) private static func bytes(
    of entry: Entry, input: UnsafeBufferPointer<UInt8>, arena: UnsafeBufferPointer<UInt8>
  ) -> UnsafeBufferPointer<UInt8> {
    let source = entry.isInArena ? arena : input
    return UnsafeBufferPointer(rebasing: source[entry.start..<(entry.start + entry.count)])
  }

  /// Byte equality of two buffers of the same length.
  @inline(__always) private static func equal(
    _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    for i in 0..<a.count where a[i] != b[i] { return false }
    return true
  }
}
