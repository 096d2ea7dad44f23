import FerryWire

/// `ferry cookies` and `ferry clear-cookies`: the caller's cookie jar in a session listed, or
/// emptied (the daemon's `cookies` and `clear_cookies` ops, docs/PROTOCOL.md "Ops").
public struct CookieCommand: Sendable, Equatable {
  /// What the command asks of the jar.
  public enum Action: Sendable, Equatable {
    /// `ferry cookies`: the `cookies` op; `showsValues` is `--values` (values are secrets).
    case list(showsValues: Bool)
    /// `ferry clear-cookies`: the `clear_cookies` op, with `domain` when given.
    case clear(domain: String?)
  }

  public var action: Action
  /// `--session S`; nil leaves the field out, and the daemon uses `default`.
  public var session: String?
  /// `--json`: the answer printed as JSON, as `ferry stats` prints its answer.
  public var printsJSON: Bool

  public init(_ action: Action, session: String? = nil, printsJSON: Bool = false) {
    self.action = action
    self.session = session
    self.printsJSON = printsJSON
  }

  /// Whether the command lists the jar (rather than clearing it).
  var isListing: Bool {
    if case .list = action { return true }
    return false
  }

  /// The event that answers the op.
  var answer: String { isListing ? "cookies" : "cookies_cleared" }

  /// The op line: `op`, then `session` when given, then `values` or `domain` when asked for.
  var op: JSONObject {
    var o = JSONObject()
    o.append(key: "op", value: .string(isListing ? "cookies" : "clear_cookies"))
    if let session { o.append(key: "session", value: .string(session)) }
    switch action {
    case .list(let showsValues): if showsValues { o.append(key: "values", value: true) }
    case .clear(let domain): if let domain { o.append(key: "domain", value: .string(domain)) }
    }
    return o
  }
}
