/// The status line and headers of a response's last hop, as events report them.
public struct ResponseHead: Sendable, Equatable {
  public var status: Int
  /// Header fields in arrival order, names lower-cased, repeated names kept as separate entries
  /// (the event encoder joins them with `, `, and makes `set-cookie` an array). Kept as bytes
  /// (`HeaderFields`): iterating them makes Strings, `header(_:)` makes only the one asked for.
  public var headers: HeaderFields
  /// `"1.0"`, `"1.1"`, `"2"` or `"3"`.
  public var httpVersion: String

  public init(status: Int, headers: [(name: String, value: String)], httpVersion: String) {
    self.init(status: status, fields: HeaderFields(headers), httpVersion: httpVersion)
  }

  public init(status: Int, fields: HeaderFields, httpVersion: String) {
    self.status = status
    self.headers = fields
    self.httpVersion = httpVersion
  }

  /// The value of `name` (lower-case), repeated values joined with `, `.
  public func header(_ name: String) -> String? {
    headers.value(named: name)
  }
}
