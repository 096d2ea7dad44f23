import FerryLoop
import FerrySerializer
import FerryWire

/// Limits the server teaches (issue 32), on the driver's side: which origin a job is held by,
/// and what a response teaches the table (a hold, a rate for `rate: "auto"`).
extension Daemon {
  /// The `scheme://host:port` of the job's URL, which holds apply to; nil with `backoff: "job"`.
  func holdOrigin(_ config: SessionConfig, _ request: Request) -> String? {
    config.backoff == .session ? originMemo.text(of: request.url) : nil
  }

  /// A response of `run` came: what it says of the server's limits (a hold, a budget) goes to
  /// the table, bounded by `max_backoff_s`, and a `shared` session publishes a hold to every host
  /// of its key through Redis; with `rate: "auto"`, the table adopts the quota it announces
  /// (bounded by `rate_max`). Runs on every response: one pass over the head's fields, and an
  /// answer that names no limit (nearly all) costs no allocation and no URL parse.
  func learnLimits(_ run: JobRun, _ head: ResponseHead) {
    let config = run.profile.config
    guard config.backoff == .session || config.rateAuto,
      let reading = ServerLimits.read(
        status: head.status, headers: head.headers, nowSeconds: SystemCall.wallClockSeconds)
    else { return }
    let name = run.session.name
    if config.backoff == .session {
      let maxMs = config.maxBackoffSeconds * 1000
      let now = loop.now()
      let wasHeld = table.holdUntilMs(run.serial)
      feed(.limitsLearned(run.serial, reading, maxMs: maxMs, nowMs: now), known: run)
      if let until = table.holdUntilMs(run.serial), until != wasHeld {
        // The origin (a URL parse) only for the log line of a hold that began or grew.
        if wasHeld == nil, let origin = holdOrigin(config, run.request) {
          logger.info(
            "origin held",
            ["session": name, "origin": origin, "ms": "\(until - now)", "status": "\(head.status)"])
        }
        // A shared session's hold is the fleet's: every host sharing the key waits for it
        // (the permit script reads the hold key; a shorter hold never cuts a longer one).
        if let limit = config.shared { coordinatorIfConfigured()?.publishHold(limit, ms: Int(until - now)) }
      }
    }
    if config.rateAuto, let ceiling = config.rateCeilingIntervalMs, let quota = reading.quota {
      let interval = ServerLimits.adoptedIntervalMs(quota, ceilingIntervalMs: ceiling)
      if table.startIntervalMs(name) != interval {
        logger.info("rate learned", ["session": name, "interval_ms": "\(interval)"])
        feed(.rateLearned(session: name, intervalMs: interval, nowMs: loop.now()), known: run)
      }
    }
  }

  /// `stats`' `holds`: each session's held origins, until when (unix seconds) and how many
  /// waiting jobs each holds. The origin is shown to root and to a user with a live job to it
  /// in that session; to anyone else it is left out (a hold tells that some job went there).
  func holdsShown(to client: Client?) -> [JSONValue] {
    let uid = client?.credentials?.uid
    var out: [JSONValue] = []
    for (name, holds) in table.holds.sorted(by: { $0.key < $1.key }) {
      for hold in holds {
        var o = JSONObject()
        o.append(key: "session", value: .string(name))
        let mine = jobs.values.contains {
          $0.session.name == name && $0.outputOwner?.uid == uid
            && table.entries[$0.serial]?.origin == hold.origin
        }
        if uid == 0 || (uid != nil && mine) { o.append(key: "origin", value: .string(hold.origin)) }
        o.append(key: "until", value: .number(JSONNumber(wallSeconds(hold.untilMs))))
        o.append(key: "jobs", value: .number(JSONNumber(hold.held)))
        out.append(.object(o))
      }
    }
    return out
  }
}
