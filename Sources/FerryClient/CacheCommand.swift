import FerryWire

/// `ferry cache` and `ferry purge`: a session's HTTP cache listed, or entries of it removed
/// (the daemon's `cache` and `purge` ops, docs/PROTOCOL.md "Ops", docs/CACHE.md).
public struct CacheCommand: Sendable, Equatable {
  /// What the command asks of the cache.
  public enum Action: Sendable, Equatable {
    /// `ferry cache`: the `cache` op.
    case list
    /// `ferry purge URL`: the `purge` op with `url` (every stored variant of it).
    case purge(url: String)
    /// `ferry purge --all`: the `purge` op with `"all": true`.
    case purgeAll
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

  /// The event that answers the op.
  var answer: String { action == .list ? "cache" : "purged" }

  /// The op line: `op`, then `session` when given, then `url` or `all`.
  var op: JSONObject {
    var o = JSONObject()
    o.append(key: "op", value: .string(action == .list ? "cache" : "purge"))
    if let session { o.append(key: "session", value: .string(session)) }
    switch action {
    case .list: break
    case .purge(let url): o.append(key: "url", value: .string(url))
    case .purgeAll: o.append(key: "all", value: true)
    }
    return o
  }
}
