import FerryWire

/// `detach` and `attach`: a detached job outlives its client; `attach` from a connection of the
/// same user replays what the job has sent so far (bounded) and hands it its remaining events.
extension Daemon {
  /// Whether `id` names a detached job of user `uid` that runs or whose result waits for
  /// `attach`. Ids are per user: another user's ids are neither revealed nor taken.
  func isDetachedIDTaken(_ id: String, uid: UInt32?) -> Bool {
    expireDetachedResults()
    return detached[DetachedJob.Key(uid: uid, id: id)] != nil
  }

  /// The detached job `id` that a client running as `uid` may reach: its own, or for root,
  /// its own first, else another user's of that id.
  private func detachedRecord(_ id: String, for uid: UInt32?) -> DetachedJob? {
    if let record = detached[DetachedJob.Key(uid: uid, id: id)], record.admits(uid: uid) { return record }
    guard uid == 0 else { return nil }
    return detached.values.filter { $0.id == id }.min { ($0.uid ?? .max) < ($1.uid ?? .max) }
  }

  /// Starts recording a detached job's events.
  func registerDetached(_ run: JobRun, uid: UInt32?) {
    let l = config.limits
    let record = DetachedJob(
      id: run.id, uid: uid, replay: ReplayBuffer(maxEvents: l.maxReplayEvents, maxBytes: l.maxReplayBytes))
    record.run = run
    run.detachedRecord = record
    detached[record.key] = record
  }

  /// The job's client went away: it runs on with nobody to tell, its events recorded.
  func orphan(_ run: JobRun) {
    _ = run.moveToClient(nil)
    table.clientChanged(run.serial, to: nil)
    // It may have been holding a chunk back for the old client's budget.
    run.resumeForClient()
    logger.debug("detached job runs on without its client", ["job": run.id])
  }

  /// A detached job ended: with a client, the result reached it; without, it waits for
  /// `attach` until it expires or newer results push it out.
  func detachedJobEnded(_ run: JobRun) {
    guard let record = run.detachedRecord, detached[record.key] === record else { return }
    record.run = nil
    guard run.client == nil else {
      detached[record.key] = nil
      return
    }
    record.orphanedResultSinceMs = loop.now()
    detachedResultBytes += record.replay.byteCount
    logger.debug("detached result waits for attach", ["job": record.id])
    expireDetachedResults()
  }

  /// The running detached job `id`, when `client`'s user may reach it.
  func runningDetachedJob(_ id: String, for client: Client) -> JobRun? {
    guard let record = detachedRecord(id, for: client.credentials?.uid) else { return nil }
    guard let run = record.run, !run.isFinished else { return nil }
    return run
  }

  /// `{"op": "attach", "id": …}`.
  func attach(_ id: String, from client: Client) {
    expireDetachedResults()
    // Another user's job is reported as unknown: its existence is not theirs to learn.
    guard let record = detachedRecord(id, for: client.credentials?.uid) else {
      client.send(.error(WireError(.unknownID, "no detached job \(id) to attach to"), id: id))
      return
    }
    guard client.jobs[id] == nil else {
      client.send(.error(WireError(.duplicateID, "a job with id \(id) is live on this connection"), id: id))
      return
    }
    for line in record.replay.lines { client.sendLines(line) }
    if let run = record.run, !run.isFinished {
      if let previous = run.client { previous.jobEnded(run) }
      client.adopt(run)
      table.clientChanged(run.serial, to: client.serial)
      logger.debug("detached job attached", ["job": id, "client": "\(client.serial)"])
    } else {
      // The result is handed over: it is the job's one result, delivered once.
      forgetDetachedResult(record)
    }
  }

  private func forgetDetachedResult(_ record: DetachedJob) {
    guard detached[record.key] === record else { return }
    detached[record.key] = nil
    detachedResultBytes -= record.replay.byteCount
  }

  /// Drops results older than `detached_ttl_s`, then the oldest while over `max_detached_bytes`.
  func expireDetachedResults() {
    // Every waiting result holds at least its terminal line, so no bytes means none waits.
    guard detachedResultBytes > 0 else { return }
    let now = loop.now()
    let ttlMs = UInt64(config.limits.detachedTTLSeconds) * 1000
    let waiting = detached.values.compactMap { r in r.orphanedResultSinceMs.map { (since: $0, record: r) } }
      .sorted { $0.since < $1.since }
    for (since, record) in waiting
    where now - since >= ttlMs || detachedResultBytes > config.limits.maxDetachedBytes {
      forgetDetachedResult(record)
    }
  }
}
