import FerryLoop

/// The Prometheus text: the `metrics` op and the optional listener (`metrics.listen`).
extension Daemon {
  /// The exposition now: the counters `metrics` kept, and gauges read from values the daemon
  /// holds anyway (no walk of the jobs).
  func metricsText() -> String {
    var gauges = Metrics.Gauges(
      version: FerryVersion.string, queued: table.waitingCount, running: table.runningCount,
      clients: clients.count, journalJobs: max(0, journalJobsAdded - (journal?.removedCount ?? 0)))
    gauges.waitingForNetwork = table.heldCounts.values.reduce(0, +)
    gauges.online = table.network.isOffline ? 0 : 1
    return metrics.render(gauges)
  }

  /// Logs a refusal for a limit (`overloaded`), at most once a second: under overload every
  /// job would otherwise add a line.
  func logOverload(_ message: String, _ fields: KeyValuePairs<String, String>) {
    let now = loop.now()
    if let last = overloadLoggedAtMs, now < last + 1_000 { return }
    overloadLoggedAtMs = now
    logger.warning(message, fields, event: .overloaded)
  }

  /// Starts the metrics listener when the configuration names one, or on the socket systemd
  /// passed named `metrics` (`FileDescriptorName=metrics`); a start-up failure when it cannot
  /// bind. The configuration wins, as `socket` does over the activated control socket.
  public func listenForMetrics(activatedFD: Int32? = nil) throws(StartupError) {
    if config.metricsListen == nil, let fd = activatedFD {
      do {
        metricsServer = try MetricsServer(loop: loop, adoptingFD: fd) { [unowned self] in self.metricsText() }
      } catch {
        throw StartupError("cannot serve metrics on the activated socket: \(error)")
      }
      logger.notice("serving metrics", ["listen": "activated socket"])
      return
    }
    guard let address = config.metricsListen else { return }
    if activatedFD != nil {
      logger.warning(
        "metrics.listen is set: the activated metrics socket is not used", ["listen": "\(address)"])
    }
    do {
      metricsServer = try MetricsServer(loop: loop, address: address) { [unowned self] in self.metricsText() }
    } catch {
      throw StartupError("cannot listen for metrics on \(address): \(error)")
    }
    let shown = metricsServer?.port.map { port in
      if case .tcp(let host, 0) = address { return MetricsAddress.tcp(host: host, port: UInt16(port)) }
      return address
    }
    logger.notice("serving metrics", ["listen": "\(shown ?? address)"])
  }
}
