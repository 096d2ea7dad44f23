/// One member of an object being decoded, with what it takes to name it in an error.
///
/// The dotted path is only built when an error needs it, so a valid line pays for no path
/// strings.
struct Field {
  /// Dotted path of the containing object, `""` at the top of a job line.
  let parent: String
  let key: String
  let value: JSONValue

  /// Longest `id`, `session` and `lane`, in UTF-8 bytes.
  static let maxLabelBytes = 256
  /// Longest method token, in bytes.
  static let maxMethodBytes = 64
  /// Longest file path, in bytes (Linux's PATH_MAX less its NUL).
  static let maxPathBytes = 4095
  /// Largest timeout in seconds (one year): keeps the engine's millisecond arithmetic in range.
  static let maxSeconds = 31_536_000.0

  /// The dotted path of this member, e.g. `parts.2.file`.
  var path: String { Field.join(parent, key) }

  /// `parent.key`, or `key` at the top.
  static func join(_ parent: String, _ key: String) -> String {
    parent.isEmpty ? key : parent + "." + key
  }

  /// The member `key` of the object at `path`.
  init(parent: String, key: String, value: JSONValue) {
    self.parent = parent
    self.key = key
    self.value = value
  }

  /// An `invalid_job` error naming this member.
  func invalid(_ message: String) -> WireError {
    let path = self.path
    return .invalidJob(path, "\(path): \(message)")
  }

  /// A member of `object`, which is this member's value.
  func child(_ key: String, _ value: JSONValue) -> Field {
    Field(parent: path, key: key, value: value)
  }

  func string() throws(WireError) -> String {
    guard case .string(let s) = value else { throw invalid("expected a string, got \(value.typeName)") }
    return s
  }

  func bool() throws(WireError) -> Bool {
    guard case .bool(let b) = value else { throw invalid("expected true or false, got \(value.typeName)") }
    return b
  }

  func object() throws(WireError) -> JSONObject {
    guard case .object(let o) = value else { throw invalid("expected an object, got \(value.typeName)") }
    return o
  }

  func array() throws(WireError) -> [JSONValue] {
    guard case .array(let a) = value else { throw invalid("expected an array, got \(value.typeName)") }
    return a
  }

  /// An integer in `range`; `10.0` and `1e1` count as integers, `10.5` does not.
  func integer(_ range: ClosedRange<Int>) throws(WireError) -> Int {
    let bounds =
      range.upperBound == Int.max
      ? "an integer >= \(range.lowerBound)" : "an integer from \(range.lowerBound) to \(range.upperBound)"
    guard case .number(let n) = value else { throw invalid("expected \(bounds), got \(value.typeName)") }
    if let exact = Int(n.text) {
      guard range.contains(exact) else { throw invalid("must be \(bounds)") }
      return exact
    }
    // Not plain integer text: accept an integral value written with a fraction or exponent.
    let d = n.doubleValue
    guard d.isFinite, d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound),
      let exact = Int(exactly: d), range.contains(exact)
    else { throw invalid("must be \(bounds)") }
    return exact
  }

  /// A number of seconds greater than 0, at most `maxSeconds`.
  func seconds() throws(WireError) -> Double {
    guard case .number(let n) = value else {
      throw invalid("expected a number of seconds, got \(value.typeName)")
    }
    let d = n.doubleValue
    guard d.isFinite, d > 0, d <= Field.maxSeconds else {
      throw invalid("must be a number of seconds greater than 0 and at most \(Int(Field.maxSeconds))")
    }
    return d
  }

  /// A short name (`id`, `session`, `lane`): 1 to 256 bytes, no control characters.
  func label() throws(WireError) -> String {
    let s = try string()
    guard !s.isEmpty, s.utf8.count <= Field.maxLabelBytes, !TextCheck.hasControl(s) else {
      throw invalid("must be 1 to \(Field.maxLabelBytes) bytes without control characters")
    }
    return s
  }

  /// An absolute file path: `/` first, no NUL, at most `maxPathBytes`.
  func absolutePath() throws(WireError) -> String {
    let s = try string()
    guard s.utf8.first == UInt8(ascii: "/") else { throw invalid("must be an absolute path") }
    guard !s.utf8.contains(0) else { throw invalid("must not contain NUL") }
    guard s.utf8.count <= Field.maxPathBytes else {
      throw invalid("is longer than \(Field.maxPathBytes) bytes")
    }
    return s
  }

  /// A string that goes into a header line: no CR, LF or NUL.
  func headerText() throws(WireError) -> String {
    let s = try string()
    guard !TextCheck.hasLineBreakOrNUL(s) else { throw invalid("must not contain CR, LF or NUL") }
    return s
  }

  /// One of the raw values of `E`, e.g. `form` for `BodyEncoding.form`.
  func choice<E: RawRepresentable & CaseIterable>(_: E.Type) throws(WireError) -> E
  where E.RawValue == String {
    let s = try string()
    guard let e = E(rawValue: s) else {
      let names = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
      throw invalid("must be one of \(names)")
    }
    return e
  }
}
