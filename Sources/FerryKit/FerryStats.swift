import FerryWire

/// The daemon's counters (`op: stats`), as `ferry top` reads them: the whole daemon's, each
/// session's, the HTTP caches', and with `slowest` the caller's longest-running jobs.
///
/// Only what the answer holds: a member the daemon leaves out reads as zero, and `retries` is
/// nil when the daemon does not count them.
public struct FerryStats: Sendable, Equatable {
  /// The job, connection and byte counters of the daemon or of one session.
  public struct Counts: Sendable, Equatable {
    public var queued = 0
    public var running = 0
    public var done = 0
    public var failed = 0
    public var cancelled = 0
    public var retries: Int?
    /// HTTP connections opened, and requests that reused one.
    public var connectionsOpened = 0
    public var connectionsReused = 0
    /// Bytes sent and received over HTTP.
    public var bytesUp = 0
    public var bytesDown = 0

    public init() {}

    init(_ o: JSONObject) {
      let jobs = o["jobs"]?.objectValue ?? JSONObject()
      queued = FerryStats.int(jobs["queued"])
      running = FerryStats.int(jobs["running"])
      done = FerryStats.int(jobs["done"])
      failed = FerryStats.int(jobs["failed"])
      cancelled = FerryStats.int(jobs["cancelled"])
      retries = jobs["retries"].map { FerryStats.int($0) }
      let connections = o["connections"]?.objectValue ?? JSONObject()
      connectionsOpened = FerryStats.int(connections["opened"])
      connectionsReused = FerryStats.int(connections["reused"])
      let bytes = o["bytes"]?.objectValue ?? JSONObject()
      bytesUp = FerryStats.int(bytes["up"])
      bytesDown = FerryStats.int(bytes["down"])
    }
  }

  /// A session's counters.
  public struct Session: Sendable, Equatable {
    public var name: String
    public var counts: Counts
  }

  /// A session's HTTP cache lookups.
  public struct CacheCounts: Sendable, Equatable {
    public var hit = 0
    public var revalidated = 0
    public var miss = 0
  }

  /// A running job of the `slowest` list: its URL's origin only (`scheme://host:port`), as the
  /// daemon gives it.
  public struct SlowJob: Sendable, Equatable {
    public var id: String
    public var session: String
    public var origin: String
    /// Milliseconds since the daemon accepted the job.
    public var ageMs: Int
    public var receivedBytes: Int
    /// The job's owner: given to root only, who sees every user's jobs.
    public var uid: Int?
  }

  public var total = Counts()
  /// Connected clients.
  public var clients = 0
  /// Running jobs whose transfer holds a chunk back until its client reads: a slow reader,
  /// not lost data.
  public var paused = 0
  public var uptimeSeconds = 0
  /// Per session, in the daemon's order.
  public var sessions: [Session] = []
  /// Per session with an HTTP cache.
  public var cache: [String: CacheCounts] = [:]
  /// The caller's running jobs accepted longest ago, oldest first (`stats(slowest:)`).
  public var slowest: [SlowJob] = []

  public init() {}

  /// The counters of a `stats` answer.
  init(answer o: JSONObject) {
    total = Counts(o)
    clients = Self.int(o["clients"])
    paused = Self.int(o["paused"])
    uptimeSeconds = Self.int(o["uptime_s"])
    for m in o["sessions"]?.objectValue?.members ?? [] {
      sessions.append(Session(name: m.key, counts: Counts(m.value.objectValue ?? JSONObject())))
    }
    for m in o["cache"]?.objectValue?.members ?? [] {
      let c = m.value.objectValue ?? JSONObject()
      cache[m.key] = CacheCounts(
        hit: Self.int(c["hit"]), revalidated: Self.int(c["revalidated"]), miss: Self.int(c["miss"]))
    }
    guard case .array(let jobs)? = o["slowest"] else { return }
    slowest = jobs.compactMap(\.objectValue).map { j in
      SlowJob(
        id: j["id"]?.stringValue ?? "", session: j["session"]?.stringValue ?? "",
        origin: j["origin"]?.stringValue ?? "", ageMs: Self.int(j["age_ms"]),
        receivedBytes: Self.int(j["received_bytes"]), uid: j["uid"].flatMap(FerryResponse.int))
    }
  }

  static func int(_ value: JSONValue?) -> Int { value.flatMap(FerryResponse.int) ?? 0 }
}

extension FerryClient {
  /// The daemon's counters (`op: stats`). With `slowest` (0–50; the daemon refuses more,
  /// `invalid_job`) the answer lists the caller's that many running jobs accepted longest ago
  /// (every user's for root): a walk of the running jobs, for a monitor such as `ferry top`,
  /// not for polling in a hot loop.
  public func stats(slowest: Int = 0) async throws -> FerryStats {
    var op = JSONObject(["op": "stats"])
    if slowest != 0 { op.append(key: "slowest", value: .number(JSONNumber(slowest))) }
    return FerryStats(answer: try await connection.op(op, answers: ["stats"]))
  }
}
