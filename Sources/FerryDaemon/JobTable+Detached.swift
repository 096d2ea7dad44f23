import FerryWire

/// Detached jobs: they outlive their client, their events are recorded, and `attach` from a
/// connection of the same user replays them and takes the rest.
///
/// Records are filed by user and id: a detached job's id is unique among its user's detached
/// jobs (not just on its connection, so `attach` can name it), and another user's ids are
/// another namespace, never revealed by `duplicate_id` nor taken. A record lives while its job
/// runs; once the job has ended with no client to tell, it keeps the replay (with the terminal
/// event) until an `attach` takes it, it expires (`detached_ttl_s`), or newer results push it
/// out (`max_detached_bytes`).
extension JobTable {
  /// Where a detached job is filed: its user (nil when the peer's credentials could not be
  /// read), then its id.
  public struct DetachedKey: Hashable, Sendable {
    public var uid: UInt32?
    public var id: String

    public init(uid: UInt32?, id: String) {
      self.uid = uid
      self.id = id
    }
  }

  /// One detached job's record.
  struct DetachedRecord: Sendable {
    /// The job while it lives.
    var serial: UInt64?
    var replay: ReplayBuffer
    /// When the job ended with no client attached (ms); nil while it lives.
    var orphanedSinceMs: UInt64?
    /// Its session, and the `seq` of the last event recorded, for `{"op":"jobs"}`.
    var session = ""
    var seq = 0
    /// Durable: the journal lists it (`jobs`), not this record.
    var isDurable = false
  }

  /// A plain detached job (not durable) as `{"op":"jobs"}` lists it: live (`serial`) or with
  /// its result waiting for `attach` (`serial` nil).
  public struct DetachedListing: Sendable, Equatable {
    public var id: String
    public var session: String
    public var serial: UInt64?
    public var seq: Int
  }

  /// The plain detached jobs (not durable) of user `uid` that live or hold a result not yet
  /// collected; root (uid 0) sees every user's. Oldest first (live jobs by serial, then
  /// waiting results).
  public func plainDetachedJobs(visibleTo uid: UInt32) -> [DetachedListing] {
    detached.compactMap { key, r -> DetachedListing? in
      guard !r.isDurable, uid == 0 || key.uid == uid else { return nil }
      return DetachedListing(id: key.id, session: r.session, serial: r.serial, seq: r.seq)
    }.sorted { ($0.serial ?? .max, $0.id) < ($1.serial ?? .max, $1.id) }
  }

  /// Whether user `key.uid` has a detached job `key.id` that lives or whose result waits.
  public func isDetachedIDTaken(_ key: DetachedKey) -> Bool { detached[key] != nil }

  /// The live detached job `id` that a client running as `uid` may reach (for `cancel`).
  public func liveDetachedJob(_ id: String, uid: UInt32?) -> UInt64? {
    reachableKey(id, uid: uid).flatMap { detached[$0]?.serial }
  }

  /// Records one encoded event line of a detached job, for `attach`.
  public mutating func recorded(_ serial: UInt64, line: [UInt8], isTerminal: Bool, seq: Int = 0) {
    guard let key = entries[serial]?.detached, let index = detached.index(forKey: key) else { return }
    detached.values[index].replay.record(line, isTerminal: isTerminal)
    detached.values[index].seq = max(detached.values[index].seq, seq)
  }

  /// `{"op":"attach","id"}` from `client`, running as `uid`; `hasLiveID`: the client already
  /// has a live job of that id. Sends the replay, then either moves the live job to the client
  /// or hands the waiting result over (once: it is forgotten).
  public mutating func attachRequested(
    _ id: String, uid: UInt32?, client: UInt64, hasLiveID: Bool, nowMs: UInt64, into actions: inout [Action]
  ) {
    expireDetached(nowMs: nowMs)
    // Another user's job is reported as unknown: its existence is not theirs to learn.
    guard let key = reachableKey(id, uid: uid), let record = detached[key] else {
      return actions.append(
        .sendError(client: client, WireError(.unknownID, "no detached job \(id) to attach to"), id: id))
    }
    guard !hasLiveID else {
      return actions.append(
        .sendError(
          client: client, WireError(.duplicateID, "a job with id \(id) is live on this connection"), id: id))
    }
    for line in record.replay.lines { actions.append(.sendLines(client: client, line)) }
    guard let serial = record.serial, let index = entries.index(forKey: serial) else {
      // The result is handed over: it is the job's one result, delivered once.
      forgetResult(key)
      return
    }
    let bytes = entries.values[index].bodyBytes
    if let previous = entries.values[index].client {
      releaseBody(of: serial, bytes: bytes, client: previous, output: nil, into: &actions)
      actions.append(.budgetMayHaveRoom(client: previous))
    }
    entries.values[index].client = client
    admitBody(of: serial, bytes: bytes, client: client)
    actions.append(.moveJob(serial, to: client))
    actions.append(.resume(serial))
  }

  /// Drops results older than `detached_ttl_s`, then the oldest while over
  /// `max_detached_bytes`.
  public mutating func expireDetached(nowMs: UInt64) {
    // Every waiting result holds at least its terminal line, so no bytes means none waits.
    guard detachedResultBytes > 0 else { return }
    let waiting = detached.compactMap { k, r in r.orphanedSinceMs.map { (since: $0, key: k) } }
      .sorted { $0.since < $1.since }
    for (since, key) in waiting
    where (nowMs >= since && nowMs - since >= limits.detachedTTLMs)
      || detachedResultBytes > limits.maxDetachedBytes
    {
      forgetResult(key)
    }
  }

  /// Milliseconds from `nowMs` until the oldest waiting result expires (`detached_ttl_s`), or
  /// nil when none waits.
  public func nextDetachedExpiryMs(nowMs: UInt64) -> UInt64? {
    guard detachedResultBytes > 0 else { return nil }
    guard let oldest = detached.values.compactMap(\.orphanedSinceMs).min() else { return nil }
    let due = oldest + limits.detachedTTLMs
    return due > nowMs ? due - nowMs : 0
  }

  /// A detached job was admitted: its events are recorded from now on.
  mutating func registerDetached(_ key: DetachedKey, serial: UInt64, session: String, isDurable: Bool) {
    detached[key] = DetachedRecord(
      serial: serial,
      replay: ReplayBuffer(maxEvents: limits.maxReplayEvents, maxBytes: limits.maxReplayBytes),
      session: session, isDurable: isDurable)
  }

  /// A detached job ended: with a client, its result reached it; without, it waits for
  /// `attach`.
  mutating func detachedJobEnded(_ key: DetachedKey, hadClient: Bool, nowMs: UInt64) {
    guard let index = detached.index(forKey: key) else { return }
    guard !hadClient else {
      detached.remove(at: index)
      return
    }
    detached.values[index].serial = nil
    detached.values[index].orphanedSinceMs = nowMs
    detachedResultBytes += detached.values[index].replay.byteCount
    expireDetached(nowMs: nowMs)
  }

  /// The key a client of `uid` reaches by `id`: its own, or for root, its own first, else
  /// another user's of that id (the lowest uid).
  private func reachableKey(_ id: String, uid: UInt32?) -> DetachedKey? {
    guard let uid else { return nil }
    let own = DetachedKey(uid: uid, id: id)
    if detached[own] != nil { return own }
    guard uid == 0 else { return nil }
    return detached.keys.filter { $0.id == id }.min { ($0.uid ?? .max) < ($1.uid ?? .max) }
  }

  private mutating func forgetResult(_ key: DetachedKey) {
    guard let record = detached.removeValue(forKey: key) else { return }
    if record.orphanedSinceMs != nil { detachedResultBytes -= record.replay.byteCount }
  }
}

/// Detached records brought back from the journal after a restart (`Daemon+Recovery`).
extension JobTable {
  /// A durable job's result kept across a restart: it waits for `attach` as any other.
  public mutating func restoreResult(_ key: DetachedKey, lines: [[UInt8]], orphanedSinceMs: UInt64) {
    var replay = ReplayBuffer(maxEvents: limits.maxReplayEvents, maxBytes: limits.maxReplayBytes)
    for (i, line) in lines.enumerated() { replay.record(line, isTerminal: i == lines.count - 1) }
    detached[key] = DetachedRecord(
      serial: nil, replay: replay, orphanedSinceMs: orphanedSinceMs, isDurable: true)
    detachedResultBytes += replay.byteCount
  }

  /// A recovered job's events of the last run, replayed to whoever attaches before its own.
  public mutating func restoreReplay(_ serial: UInt64, lines: [[UInt8]]) {
    guard let key = entries[serial]?.detached else { return }
    for line in lines { detached[key]?.replay.record(line, isTerminal: false) }
  }
}
