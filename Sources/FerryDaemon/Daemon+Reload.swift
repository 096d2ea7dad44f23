import FerrySession
import FerryWire

/// SIGHUP: read the configuration again. A valid one replaces sessions, limits, the egress
/// policy and the log level for jobs submitted from now on; jobs already accepted keep the
/// session they started with. An invalid one is logged and the old one kept. The socket is
/// not moved by a reload.
extension Daemon {
  func reload() {
    guard let path = configPath else { return }
    notifier?.send("RELOADING=1\nSTATUS=reloading \(path)")
    defer { notifier?.send("READY=1\nSTATUS=\(statusLine())") }
    let next: DaemonConfig
    do {
      next = try ConfigLoader.load(path: path, environment: processEnvironment)
    } catch {
      logger.error("reload failed, keeping the old configuration", ["reason": "\(error)"])
      return
    }
    if next.socket != config.socket {
      logger.warning("socket changes take effect at restart", ["socket": next.socket ?? "default"])
    }
    var replaced: [String: Session] = [:]
    var env = environment
    env.readRoots = next.readRoots
    env.protectedPaths = next.protectedPaths
    env.maxRequestBytes = next.limits.maxRequestBytes
    do {
      for (name, sessionConfig) in next.sessions {
        // A session that keeps its name keeps its engine: the pool stays warm and the new
        // limits apply to it. A removed session's engine lives on with the jobs that use it.
        let engine = try sessions[name]?.engine ?? Engine(loop: loop)
        replaced[name] = Session(config: sessionConfig, environment: env, engine: engine)
      }
    } catch {
      logger.error("reload failed, keeping the old configuration", ["reason": "\(error)"])
      return
    }
    sessions = replaced
    config = next
    logger.level = next.logLevel
    logger.notice("configuration reloaded", ["config": path, "sessions": "\(replaced.count)"])
  }
}
