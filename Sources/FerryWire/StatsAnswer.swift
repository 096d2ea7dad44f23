/// The daemon's counters (a `stats` answer, PROTOCOL.md "Ops"): the whole daemon's, each
/// session's, the HTTP caches', and with `slowest` the caller's longest-running jobs. One
/// reading for FerryKit (`FerryStats`) and `ferry top` (`StatsSample`).
///
/// Only what the answer holds: a member the daemon leaves out reads as zero, and `retries` is
/// nil when the daemon does not count them.
public struct StatsAnswer: Sendable, Equatable {
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

    public init(_ o: JSONObject) {
      let jobs = o["jobs"]?.objectValue ?? JSONObject()
      queued = StatsAnswer.int(jobs["queued"])
      running = StatsAnswer.int(jobs["running"])
      done = StatsAnswer.int(jobs["done"])
      failed = StatsAnswer.int(jobs["failed"])
      cancelled = StatsAnswer.int(jobs["cancelled"])
      retries = jobs["retries"].map { StatsAnswer.int($0) }
      let connections = o["connections"]?.objectValue ?? JSONObject()
      connectionsOpened = StatsAnswer.int(connections["opened"])
      connectionsReused = StatsAnswer.int(connections["reused"])
      let bytes = o["bytes"]?.objectValue ?? JSONObject()
      bytesUp = StatsAnswer.int(bytes["up"])
      bytesDown = StatsAnswer.int(bytes["down"])
    }
  }

  /// A session's counters.
  public struct Session: Sendable, Equatable {
    public var name: String
    public var counts: Counts

    public init(name: String, counts: Counts) {
      self.name = name
      self.counts = counts
    }
  }

  /// A session's HTTP cache lookups.
  public struct CacheCounts: Sendable, Equatable {
    public var hit = 0
    public var revalidated = 0
    public var miss = 0

    public init(hit: Int = 0, revalidated: Int = 0, miss: Int = 0) {
      self.hit = hit
      self.revalidated = revalidated
      self.miss = miss
    }
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

    public init(id: String, session: String, origin: String, ageMs: Int, receivedBytes: Int, uid: Int? = nil)
    {
      self.id = id
      self.session = session
      self.origin = origin
      self.ageMs = ageMs
      self.receivedBytes = receivedBytes
      self.uid = uid
    }
  }

  /// A server-taught hold (issue 32): a session's origin (shown to root and to a user with a
  /// job to it), until when (unix seconds), and how many waiting jobs it keeps back.
  public struct Hold: Sendable, Equatable {
    public var session: String
    public var origin: String?
    public var until: Int
    public var jobs: Int
  }

  public var total = Counts()
  /// Jobs held for the network now, by reason (`offline`, `metered`; issue 31).
  public var waiting: [String: Int] = [:]
  /// Server-taught holds in force.
  public var holds: [Hold] = []
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
  public init(answer o: JSONObject) {
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
    for m in o["waiting"]?.objectValue?.members ?? [] { waiting[m.key] = Self.int(m.value) }
    if case .array(let list)? = o["holds"] {
      holds = list.compactMap(\.objectValue).map { h in
        Hold(
          session: h["session"]?.stringValue ?? "", origin: h["origin"]?.stringValue,
          until: Self.int(h["until"]), jobs: Self.int(h["jobs"]))
      }
    }
    guard case .array(let jobs)? = o["slowest"] else { return }
    slowest = jobs.compactMap(\.objectValue).map { j in
      SlowJob(
        id: j["id"]?.stringValue ?? "", session: j["session"]?.stringValue ?? "",
        origin: j["origin"]?.stringValue ?? "", ageMs: Self.int(j["age_ms"]),
        receivedBytes: Self.int(j["received_bytes"]), uid: j["uid"].map { Self.int($0) })
    }
  }

  /// A counter: 0 when absent or not an integer.
  static func int(_ value: JSONValue?) -> Int {
    guard case .number(let n)? = value else { return 0 }
    return Int(n.text) ?? Int(exactly: n.doubleValue) ?? 0
  }
}
