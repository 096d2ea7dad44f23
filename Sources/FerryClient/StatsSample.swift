import FerryWire

/// One `stats` answer, read for `ferry top`, with the monotonic time it was taken at.
///
/// Only what the daemon's answer holds: a member it leaves out reads as zero, and `retries`
/// is shown only when the daemon counts them.
public struct StatsSample: Sendable, Equatable {
  /// The job, connection and byte counters of the daemon or of one session.
  public struct Counts: Sendable, Equatable {
    public var queued: Int64 = 0
    public var running: Int64 = 0
    public var done: Int64 = 0
    public var failed: Int64 = 0
    public var cancelled: Int64 = 0
    public var retries: Int64?
    public var opened: Int64 = 0
    public var reused: Int64 = 0
    public var up: Int64 = 0
    public var down: Int64 = 0

    public init() {}

    /// Jobs that have ended, however.
    var ended: Int64 { done + failed + cancelled }

    init(_ o: JSONObject) {
      let jobs = o["jobs"]?.objectValue ?? JSONObject()
      queued = StatsSample.int(jobs["queued"])
      running = StatsSample.int(jobs["running"])
      done = StatsSample.int(jobs["done"])
      failed = StatsSample.int(jobs["failed"])
      cancelled = StatsSample.int(jobs["cancelled"])
      retries = jobs["retries"].map { StatsSample.int($0) }
      let connections = o["connections"]?.objectValue ?? JSONObject()
      opened = StatsSample.int(connections["opened"])
      reused = StatsSample.int(connections["reused"])
      let bytes = o["bytes"]?.objectValue ?? JSONObject()
      up = StatsSample.int(bytes["up"])
      down = StatsSample.int(bytes["down"])
    }
  }

  /// A session's HTTP cache lookups.
  public struct CacheCounts: Sendable, Equatable {
    public var hit: Int64 = 0
    public var revalidated: Int64 = 0
    public var miss: Int64 = 0

    public init(hit: Int64 = 0, revalidated: Int64 = 0, miss: Int64 = 0) {
      self.hit = hit
      self.revalidated = revalidated
      self.miss = miss
    }

    /// Lookups answered from the cache (fresh or revalidated), of all lookups.
    var answered: Int64 { hit + revalidated }
    var lookups: Int64 { hit + revalidated + miss }
  }

  public var atMs: Int64
  public var total = Counts()
  public var clients: Int64 = 0
  /// Jobs holding a chunk back until their client reads (a slow reader), 0 from a daemon
  /// without the field.
  public var paused: Int64 = 0
  public var uptimeSeconds: Int64 = 0
  /// Per session, in the daemon's order.
  public var sessions: [(name: String, counts: Counts)] = []
  public var cache: [String: CacheCounts] = [:]
  /// The longest-running jobs the caller may see (`"slowest"` in the answer), oldest first.
  public var slowest: [SlowJob] = []

  /// A running job in the `slowest` list: its URL's origin only, as the daemon gives it.
  public struct SlowJob: Sendable, Equatable {
    public var id: String
    public var session: String
    public var origin: String
    public var ageMs: Int64
    public var receivedBytes: Int64

    public init(id: String, session: String, origin: String, ageMs: Int64, receivedBytes: Int64) {
      self.id = id
      self.session = session
      self.origin = origin
      self.ageMs = ageMs
      self.receivedBytes = receivedBytes
    }
  }

  public init(atMs: Int64) { self.atMs = atMs }

  /// The sample in a `stats` answer line; nil for any other line.
  public init?(answer line: [UInt8], atMs: Int64) {
    guard let o = (try? JSONReader().read(line))?.objectValue, o["event"]?.stringValue == "stats" else {
      return nil
    }
    self.atMs = atMs
    total = Counts(o)
    clients = Self.int(o["clients"])
    paused = Self.int(o["paused"])
    uptimeSeconds = Self.int(o["uptime_s"])
    for m in o["sessions"]?.objectValue?.members ?? [] {
      sessions.append((m.key, Counts(m.value.objectValue ?? JSONObject())))
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
        receivedBytes: Self.int(j["received_bytes"]))
    }
  }

  /// The counts of session `name` (zero when the daemon has none yet).
  func counts(_ name: String) -> Counts { sessions.first { $0.name == name }?.counts ?? Counts() }

  public static func == (a: StatsSample, b: StatsSample) -> Bool {
    a.atMs == b.atMs && a.total == b.total && a.clients == b.clients && a.paused == b.paused
      && a.uptimeSeconds == b.uptimeSeconds
      && a.sessions.map(\.name) == b.sessions.map(\.name)
      && a.sessions.map(\.counts) == b.sessions.map(\.counts)
      && a.cache == b.cache && a.slowest == b.slowest
  }

  static func int(_ value: JSONValue?) -> Int64 {
    guard case .number(let n) = value else { return 0 }
    return n.int64Value ?? 0
  }
}
