import FerryWire

/// Header fields in send order, set and removed by case-insensitive name.
///
/// Setting a name that is already present replaces that field where it stands (taking the new
/// spelling of the name), so a later layer (session over defaults, job over session) wins
/// without reordering the request.
struct HeaderList: Sendable {
  private(set) var fields: [(name: String, value: String)] = []
  /// The lower-cased names of `fields`, kept once the list is long. Every header of every
  /// layer is `set`, and a linear search each time made a job with 40 000 headers hold the
  /// loop (every client's) for 15 s; the usual few headers are cheaper to scan.
  private var names: Set<String>?
  /// Past this many fields, `names` is kept.
  static let indexThreshold = 16

  init() { fields.reserveCapacity(8) }

  /// Sets `name` to `value`, or removes it when `value` is `nil`.
  mutating func set(_ name: String, _ value: String?) {
    guard let i = index(of: name) else {
      if let value { append((name, value)) }
      return
    }
    // Only one field per name survives: a list built from a JSON object may have held the name
    // twice in different cases.
    var j = fields.count - 1
    while j > i {
      if TextCheck.equalsIgnoringASCIICase(fields[j].name, name) { fields.remove(at: j) }
      j -= 1
    }
    if let value {
      fields[i] = (name, value)
    } else {
      fields.remove(at: i)
      names?.remove(TextCheck.asciiLowercased(name))
    }
  }

  /// Inserts a field at `position` (the caller knows its name is not in the list).
  mutating func insert(_ field: (name: String, value: String), at position: Int) {
    fields.insert(field, at: position)
    names?.insert(TextCheck.asciiLowercased(field.name))
  }

  /// Removes the field at `position`.
  mutating func remove(at position: Int) {
    let name = fields.remove(at: position).name
    if names != nil, index(of: name) == nil { names?.remove(TextCheck.asciiLowercased(name)) }
  }

  /// The position of the first field named `name`, compared case-insensitively.
  func index(of name: String) -> Int? {
    if let names, !names.contains(TextCheck.asciiLowercased(name)) { return nil }
    return fields.firstIndex { TextCheck.equalsIgnoringASCIICase($0.name, name) }
  }

  /// The value of the first field named `name`.
  func value(of name: String) -> String? {
    index(of: name).map { fields[$0].value }
  }

  private mutating func append(_ field: (name: String, value: String)) {
    fields.append(field)
    if names != nil {
      names?.insert(TextCheck.asciiLowercased(field.name))
    } else if fields.count > Self.indexThreshold {
      names = Set(fields.map { TextCheck.asciiLowercased($0.name) })
    }
  }
}
