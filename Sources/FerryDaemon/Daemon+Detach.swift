import FerryWire

/// `detach` and `attach`, as the driver of the job table's detached records
/// (`JobTable+Detached`): a detached job outlives its client; `attach` from a connection of the
/// same user replays what the job has sent so far (bounded) and hands it its remaining events.
extension Daemon {
  /// `{"op": "attach", "id": …}`.
  func attach(_ id: String, from client: Client) {
    // A vanished client's results are being read back on the journal's writer: the id may be
    // among them, so the attach waits for that read (`journalRecovered`).
    if journalReads.values.contains(where: { if case .results = $0 { true } else { false } }) {
      attachesAwaitingJournal.append((id, client))
      return
    }
    let replyStart = client.outboxCount
    feed(
      .attachRequested(
        id: id, uid: client.credentials?.uid, client: client.serial, hasLiveID: client.job(id) != nil,
        nowMs: loop.now()))
    // A durable job's result handed over (or expired meanwhile) leaves the journal too.
    reconcileJournaledResults(attachedBy: client, id: id)
    // The reply (a replay, or `unknown_id` for a result already handed over) goes out once
    // everything recorded so far is committed: what it says, a restart says too.
    if journal != nil { client.holdOutbox(from: replyStart, batch: journalHoldMark) }
  }

  /// One encoded event line of a detached job, recorded for `attach`.
  func recordDetached(_ run: JobRun, line: [UInt8], seq: Int, isTerminal: Bool) {
    feed(.recorded(run.serial, line: line, isTerminal: isTerminal, seq: seq), known: run)
  }

  /// The job's events go to `newClient` from now on (attach), or to nobody (its client went
  /// away): the job table moved it (`moveJob`).
  func move(_ run: JobRun, to newClient: Client?) {
    let previous = run.client
    run.moveToClient(newClient)
    previous?.letGo(of: run)
    if let newClient {
      newClient.adopt(run)
      logger.debug("detached job attached", ["job": run.id, "client": "\(newClient.serial)"])
    } else {
      logger.debug("detached job runs on without its client", ["job": run.id])
    }
  }
}
