/// The status line and headers of a response's last hop, as events report them.
public struct ResponseHead: Sendable, Equatable {
  public var status: Int
  /// Header fields in arrival order, names lower-cased, repeated names kept as separate entries
  /// (the event encoder joins them with `, `, and makes `set-cookie` an array).
  public var headers: [(name: String, value: String)]
  /// `"1.0"`, `"1.1"`, `"2"` or `"3"`.
  public var httpVersion: String

  public init(status: Int, headers: [(name: String, value: String)], httpVersion: String) {
    self.status = status
    self.headers = headers
    self.httpVersion = httpVersion
  }

  /// The value of `name` (lower-case), repeated values joined with `, `.
  public func header(_ name: String) -> String? {
    // One pass, and no array unless the name repeats (asked for once or twice per job).
    var found: String?
    for field in headers where field.name == name {
      found = found.map { $0 + ", " + field.value } ?? field.value
    }
    return found
  }

  public static func == (a: ResponseHead, b: ResponseHead) -> Bool {
    a.status == b.status && a.httpVersion == b.httpVersion
      && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
  }
}
