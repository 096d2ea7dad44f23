import FerrySession
import FerryWire

/// SIGHUP: read the configuration again. A valid one applies to jobs submitted from now on;
/// an invalid one is logged and the old one kept. The socket is not moved by a reload.
///
/// Sessions are migrated, not rebuilt (docs/CONFIG.md, "Reload"): each name keeps its runtime
/// (engine, scheduler, waiting order, lanes, rate clock), every accepted job keeps the profile
/// it was submitted under, and a removed session fails its waiting jobs `unknown_session`
/// while its running ones finish.
extension Daemon {
  func reload() {
    guard let path = configPath else { return }
    notifier?.send("RELOADING=1\nSTATUS=reloading \(path)")
    defer { notifier?.send("READY=1\nSTATUS=\(statusLine())") }
    let next: DaemonConfig
    do {
      next = try ConfigLoader.load(path: path, environment: processEnvironment)
    } catch {
      logger.error(
        "reload failed, keeping the old configuration", ["reason": "\(error)"], event: .reloadFailed)
      return
    }
    apply(next, from: path)
  }

  /// Puts a valid configuration in place (what SIGHUP does once the file is read).
  func apply(_ next: DaemonConfig, from path: String) {
    if next.socket != config.socket {
      logger.warning("socket changes take effect at restart", ["socket": next.socket ?? "default"])
    }
    if next.metricsListen != config.metricsListen {
      logger.warning(
        "metrics.listen changes take effect at restart",
        ["listen": next.metricsListen.map { "\($0)" } ?? "none"])
    }
    // New names get an engine first: failing here must leave everything as it was.
    var engines: [String: Engine] = [:]
    do {
      for name in next.sessions.keys where sessions[name] == nil { engines[name] = try Engine(loop: loop) }
    } catch {
      for engine in engines.values { engine.shutdown() }
      logger.error(
        "reload failed, keeping the old configuration", ["reason": "\(error)"], event: .reloadFailed)
      return
    }
    config = next
    logger.level = next.logLevel
    var env = environment
    env.readRoots = next.readRoots
    env.protectedPaths = next.protectedPaths
    env.maxRequestBytes = next.limits.maxRequestBytes
    for (name, sessionConfig) in next.sessions {
      let profile = SessionProfile(
        config: sessionConfig, environment: env, egress: next.egress,
        unpinning: sessions[name]?.unpins(for: sessionConfig) ?? [])
      if let session = sessions[name] {
        session.reconfigure(profile)
      } else if let engine = engines[name] {
        let session = Session(profile: profile, engine: engine)
        session.metricsSlot = metrics.slot(for: name)
        sessions[name] = session
      }
    }
    for (name, session) in sessions where next.sessions[name] == nil { session.retire() }
    Engine.yieldAfterMs = Int64(next.limits.loopSliceMs)
    feed(
      .reloaded(
        sessions: next.sessions.mapValues(\.schedulingLimits), limits: JobTable.Limits(next.limits),
        nowMs: loop.now()))
    logger.notice(
      "configuration reloaded", ["config": path, "sessions": "\(next.sessions.count)"], event: .reloaded)
  }
}
