import FerryWire
/// Header fields in send order, set and removed by case-insensitive name.
///
/// Setting a name that is already present replaces that field where it stands (taking the new
/// spelling of the name), so a later layer (session over defaults, job over session) wins
/// without reordering the request.
struct HeaderList: Sendable {
  var fields: [(name: String, value: String)] = []

  init() { fields.reserveCapacity(8) }

  /// Sets `name` to `value`, or removes it when `value` is `nil`.
  mutating func set(_ name: String, _ value: String?) {
    guard let i = index(of: name) else {
      if let value { fields.append((name, value)) }
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
    }
  }

  /// The position of the first field named `name`, compared case-insensitively.
  func index(of name: String) -> Int? {
    fields.firstIndex { TextCheck.equalsIgnoringASCIICase($0.name, name) }
  }

  /// The value of the first field named `name`.
  func value(of name: String) -> String? {
    index(of: name).map { fields[$0].value }
  }
}
