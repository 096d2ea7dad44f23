/// The secondary key of RFC 9111 4.1: the request fields a response's `Vary` names.
public enum VaryRule {
  /// More distinct names than this and the response is treated as `Vary: *` (not stored): a
  /// server cannot make every lookup compare thousands of fields.
  public static let maxNames = 32

  /// The field names `Vary` lists in `responseHeaders`, lower-cased, in order, without
  /// repeats; `["*"]` when it lists `*` or more than `maxNames` names.
  public static func names(_ responseHeaders: CacheHeaderList) -> [String] {
    guard let vary = CacheFields.combined("vary", in: responseHeaders) else { return [] }
    var names: [String] = []
    var seen: Set<String> = []
    for member in CacheFields.listMembers(vary) {
      let name = String(CacheFields.asciiLowercased(member))
      if name == "*" { return ["*"] }
      if seen.insert(name).inserted {
        guard names.count < maxNames else { return ["*"] }
        names.append(name)
      }
    }
    return names
  }

  /// What an entry records of its request: each named field's normalised value.
  public static func values(names: [String], request: CacheHeaderList) -> [(name: String, value: String?)] {
    names.map { (name: $0, value: CacheFields.normalisedValue($0, in: request)) }
  }

  /// Whether `request` selects `entry`: every recorded field has the same normalised value (list
  /// members trimmed and joined with `, `, case kept) or is absent in both; `*` never matches.
  public static func matches(_ entry: CacheEntry, request: CacheHeaderList) -> Bool {
    for recorded in entry.varyValues {
      if recorded.name == "*" { return false }
      if CacheFields.normalisedValue(recorded.name, in: request) != recorded.value { return false }
    }
    return true
  }
}
