/// The keys of the objects being read, for rejecting a key given twice in one object.
///
/// Keys are byte ranges, not strings: of the input when a key has no escape, else of `arena`,
/// where its decoded bytes are copied. Two plain ASCII keys are the same key exactly when their
/// bytes are equal; when either holds non-ASCII or escapes they are compared as `String`s, as
/// the reader always has (Swift's `==` is canonical equivalence: `"e\u0301"` repeats `"é"`, the
/// Kelvin sign repeats `K`). Past `setThreshold` keys an object's keys also go into a
/// `Set<String>`: a 1 MiB line can hold 100 000 keys, and a pairwise scan would stall the loop.
///
/// The entries live in memory of its own (hence `~Copyable`, freed in `deinit`): an array's
/// uniqueness check and growth on every key cost more than the comparisons themselves.
struct JSONKeyTracker: ~Copyable {
  /// One key: where its bytes start, and their count with `flags` above it.
  struct Entry {
    var start: Int
    /// The byte count, or-ed with `nonASCII` and `inArena`: two plain keys of the same length
    /// have the same `packed`, and a key with either flag never equals a plain one here.
    var packed: Int

    var count: Int { packed & Self.countMask }
    var isPlain: Bool { packed & ~Self.countMask == 0 }

    static let nonASCII = 1 << 62
    static let inArena = 1 << 61
    static let countMask = (1 << 61) - 1
  }

  /// Keys an object may have before they are also kept in a set.
  static let setThreshold = 16

  /// The keys of every open object, innermost object's last.
  private var entries: UnsafeMutablePointer<Entry>?
  private var capacity = 0
  /// Entries in use; an object's keys start at the count taken when it opened.
  private(set) var count = 0
  /// Decoded bytes of keys that had escapes; never shrinks while a value is read, so entries
  /// stay valid (it holds at most the input's size).
  private var arena: [UInt8] = []

  init() {}

  deinit { entries?.deallocate() }

  /// Forgets the keys of the object whose keys started at `mark`.
  mutating func reset(to mark: Int) { count = mark }

  /// Records `key` as a key of the object whose keys start at `mark`; returns false when that
  /// object already has it. `scratch` holds the decoded bytes of an escaped key.
  @inline(__always)
  mutating func insert(
    _ key: JSONStringToken, input: UnsafeBufferPointer<UInt8>, scratch: [UInt8], since mark: Int,
    set: inout Set<String>?
  ) -> Bool {
    if count == capacity { grow() }
    guard let entries else { return true }
    if key.isEscaped || !key.isASCII || set != nil || count - mark >= Self.setThreshold {
      return insertSlowly(key, input: input, scratch: scratch, since: mark, set: &set)
    }
    let entry = Entry(start: key.start, packed: key.end - key.start)
    // The usual case: plain ASCII keys compared in place.
    var isNew = true
    var i = mark
    while i < count {
      let old = entries[i]
      if old.packed == entry.packed {
        if Self.equal(input, old.start, entry.start, count: entry.count) {
          isNew = false
          break
        }
      } else if !old.isPlain {
        return insertSlowly(key, input: input, scratch: scratch, since: mark, set: &set)
      }
      i += 1
    }
    // Recorded even when repeated, so that the error can name it.
    entries[count] = entry
    count += 1
    return isNew
  }

  /// `insert` for escaped or non-ASCII keys, and for objects with many keys.
  private mutating func insertSlowly(
    _ key: JSONStringToken, input: UnsafeBufferPointer<UInt8>, scratch: [UInt8], since mark: Int,
    set: inout Set<String>?
  ) -> Bool {
    var packed = key.isASCII ? 0 : Entry.nonASCII
    let entry: Entry
    if key.isEscaped {
      entry = Entry(start: arena.count, packed: scratch.count | packed | Entry.inArena)
      arena.append(contentsOf: scratch)
    } else {
      packed |= key.end - key.start
      entry = Entry(start: key.start, packed: packed)
    }
    let isNew: Bool
    if set != nil {
      isNew = set?.insert(string(of: entry, input: input)).inserted == true
    } else if count - mark < Self.setThreshold {
      isNew = !repeats(entry, since: mark, input: input)
    } else {
      var keys = Set<String>(minimumCapacity: 2 * Self.setThreshold)
      for i in mark..<count { keys.insert(string(at: i, input: input)) }
      isNew = keys.insert(string(of: entry, input: input)).inserted
      set = keys
    }
    entries?[count] = entry
    count += 1
    return isNew
  }

  private mutating func grow() {
    let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: max(32, capacity * 2))
    if let entries {
      bigger.moveInitialize(from: entries, count: count)
      entries.deallocate()
    }
    entries = bigger
    capacity = max(32, capacity * 2)
  }

  /// Whether `entry` equals a key recorded since `mark`, comparing as the type comment says.
  private func repeats(_ entry: Entry, since mark: Int, input: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let entries else { return false }
    return arena.withUnsafeBufferPointer { arena in
      let new = Self.bytes(of: entry, input: input, arena: arena)
      for i in mark..<count {
        let old = entries[i]
        let bytes = Self.bytes(of: old, input: input, arena: arena)
        if old.packed & Entry.nonASCII == 0 && entry.packed & Entry.nonASCII == 0 {
          if bytes.elementsEqual(new) { return true }
        } else if String(decoding: bytes, as: UTF8.self) == String(decoding: new, as: UTF8.self) {
          return true
        }
      }
      return false
    }
  }

  /// The key recorded at `index` (below `count`), as a string (for sets and error messages).
  func string(at index: Int, input: UnsafeBufferPointer<UInt8>) -> String {
    guard let entries, index >= 0, index < count else { return "" }
    return string(of: entries[index], input: input)
  }

  private func string(of entry: Entry, input: UnsafeBufferPointer<UInt8>) -> String {
    arena.withUnsafeBufferPointer { arena in
      String(decoding: Self.bytes(of: entry, input: input, arena: arena), as: UTF8.self)
    }
  }

  private static func bytes(
    of entry: Entry, input: UnsafeBufferPointer<UInt8>, arena: UnsafeBufferPointer<UInt8>
  ) -> UnsafeBufferPointer<UInt8> {
    let source = entry.packed & Entry.inArena != 0 ? arena : input
    return UnsafeBufferPointer(rebasing: source[entry.start..<(entry.start + entry.count)])
  }

  /// Whether `count` bytes of `input` at `a` and at `b` are equal.
  @inline(__always) private static func equal(
    _ input: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int, count: Int
  ) -> Bool {
    for i in 0..<count where input[a + i] != input[b + i] { return false }
    return true
  }
}
