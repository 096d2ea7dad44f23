import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

/// The network monitor's reading in the daemon (issue 31, docs/NETWORK.md): the job table
/// hears each change (`networkChanged`), the sessions' pooled connections and DNS caches are
/// dropped on the way back online, and `network` / `watch_network` show it.
extension Daemon {
  /// Starts the monitor unless `network.monitor` is false; its first reading is in before the
  /// journal's jobs are recovered.
  func startNetworkMonitor() {
    guard config.networkMonitor else { return logger.info("network monitor off by configuration") }
    let monitor = NetworkMonitor(loop: loop, logger: logger) { [unowned self] state in
      self.networkChanged(state)
    }
    networkMonitor = monitor
    monitor.start(open: networkSocketOpener ?? Self.openNetlinkSocket)
  }

  /// What a merged job needs of the network: a job to a loopback host needs none, so it never
  /// waits for one (unless `network.loopback_waits`), as URLSession's `waitsForConnectivity`
  /// does not hold a request to localhost.
  func networkNeed(_ job: Job, _ request: Request) -> JobTable.NetworkNeed {
    networkNeed(JobTable.NetworkNeed(job), request)
  }

  /// `networkNeed(_:_:)` from the job's need as its fields ask it.
  func networkNeed(_ need: JobTable.NetworkNeed, _ request: Request) -> JobTable.NetworkNeed {
    guard need.waits || need.unmeteredOnly, !config.loopbackWaits, URLOrigin.namesLoopback(request.url)
    else { return need }
    return JobTable.NetworkNeed()
  }

  /// The monitor's socket.
  static func openNetlinkSocket() throws(LoopError) -> NetlinkSocket { try NetlinkSocket() }

  /// The monitor's reading changed: back online, connections opened before (which may be
  /// bound to an address that is gone) are not reused and names are resolved afresh; then the
  /// table lets held jobs go, and watchers hear of it.
  func networkChanged(_ state: NetworkMonitor.State) {
    let offline = state == .offline
    if !offline, table.network.isOffline {
      for session in sessions.values { session.engine.dropConnectionsAndNames() }
    }
    feed(.networkChanged(JobTable.NetworkCondition(isOffline: offline), nowMs: loop.now()))
    guard !networkWatchers.isEmpty else { return }
    let payload = networkPayload()
    for serial in networkWatchers {
      guard let client = clients[serial] else {
        networkWatchers.remove(serial)
        continue
      }
      client.send(.payload(name: "network", payload))
    }
  }

  /// The `network` event's members after `event`.
  func networkPayload() -> JSONObject {
    let state = networkMonitor?.state ?? .unknown
    return JSONObject([
      "state": .string(state.rawValue),
      // No metered detection yet (docs/NETWORK.md): always unknown.
      "metered": .null,
      "interfaces": .array((networkMonitor?.interfaces ?? []).map(JSONValue.string)),
      "since": .number(
        JSONNumber(
          networkMonitor?.sinceSeconds
            ?? SystemCall.wallClockSeconds() - Int((loop.now() - startedAtMs) / 1000))),
    ])
  }
}
