import FerryLoop

/// The sd_notify protocol, written by hand: datagrams to `$NOTIFY_SOCKET`.
///
/// See sd_notify(3): `READY=1` once listening, `STATUS=` with what the daemon is doing,
/// `RELOADING=1` around a config reload, `STOPPING=1` at shutdown, and `WATCHDOG=1` at half of
/// `WATCHDOG_USEC` from the event loop, so a stuck loop gets restarted.
public struct SystemdNotifier {
  private let fd: Int32
  private let address: UnixDatagramAddress
  /// Half the watchdog interval in milliseconds, when systemd asked for keep-alives.
  public let watchdogIntervalMs: Int?

  /// A notifier for the environment, or nil when not run by systemd with `Type=notify`.
  public init?(environment: [String: String]) {
    guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108,
      path.hasPrefix("/") || path.hasPrefix("@")
    else { return nil }
    // A leading '@' names an abstract socket (UnixDatagramAddress puts its NUL on the wire).
    guard let address = UnixDatagramAddress(path: path),
      let fd = SystemCall.datagramSocket(nonBlocking: false)
    else { return nil }
    self.fd = fd
    self.address = address
    watchdogIntervalMs = Self.watchdogInterval(environment)
  }

  /// Half of `WATCHDOG_USEC` in ms, when `WATCHDOG_PID` is unset or names this process.
  static func watchdogInterval(_ environment: [String: String]) -> Int? {
    guard let usec = environment["WATCHDOG_USEC"].flatMap(Int.init), usec > 0 else { return nil }
    if let pid = environment["WATCHDOG_PID"].flatMap(Int32.init), pid != SystemCall.processID { return nil }
    return max(1, usec / 2000)
  }

  /// Sends one notification (several `KEY=value` lines); failures are ignored, as sd_notify's
  /// callers do.
  public func send(_ state: String) {
    _ = Array(state.utf8).withUnsafeBytes { SystemCall.send(fd, $0, to: address) }
  }

  /// The descriptors systemd passed for socket activation (`LISTEN_FDS`/`LISTEN_PID`), sorted
  /// by their names (`LISTEN_FDNAMES`, from each socket unit's `FileDescriptorName=`): the one
  /// named `metrics` serves the metrics text, the first other one is the control socket.
  /// Without names (or with a count that does not match) the first descriptor is the control
  /// socket and none is for metrics, as before names existed.
  public static func activatedSockets(environment: [String: String]) -> ActivatedSockets {
    guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == SystemCall.processID,
      let count = environment["LISTEN_FDS"].flatMap(Int32.init), count >= 1
    else { return ActivatedSockets() }
    // SD_LISTEN_FDS_START: the first passed descriptor is 3.
    let names = environment["LISTEN_FDNAMES"].map {
      $0.split(separator: ":", omittingEmptySubsequences: false)
    }
    guard let names, names.count == Int(count) else { return ActivatedSockets(control: 3) }
    var sockets = ActivatedSockets()
    for (index, name) in names.enumerated() {
      let fd = 3 + Int32(index)
      if name == "metrics" {
        if sockets.metrics == nil { sockets.metrics = fd }
      } else if sockets.control == nil {
        sockets.control = fd
      }
    }
    return sockets
  }
}

/// What socket activation passed: the control socket and the metrics socket, each optional.
public struct ActivatedSockets: Equatable, Sendable {
  public var control: Int32?
  public var metrics: Int32?

  public init(control: Int32? = nil, metrics: Int32? = nil) {
    self.control = control
    self.metrics = metrics
  }
}
