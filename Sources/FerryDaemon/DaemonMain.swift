import FerryLoop
/// ferryd's command line: arguments → configuration → a running daemon → exit code.
public enum DaemonMain {
  static let usage = """
    usage: ferryd [--config FILE] [--socket PATH] [--log-level LEVEL] [--check-config]
      --config FILE      JSON configuration (default /etc/ferry/ferry.json)
      --socket PATH      listen here (overrides the config and the environment)
      --log-level LEVEL  error, warning, notice, info or debug
      --check-config     validate the configuration and exit
      --announce         print the socket path and a socat line to stdout once listening
      --version          print the version and exit
    """

  /// Runs ferryd; returns the process exit code (0 after a clean shutdown).
  @MainActor public static func run(arguments: [String], environment: [String: String]) -> Int32 {
    var configPath = "/etc/ferry/ferry.json"
    var socketArgument: String?
    var levelArgument: LogLevel?
    var checkOnly = false
    var announce = false
    var args = arguments.dropFirst().makeIterator()
    while let arg = args.next() {
      switch arg {
      case "--config": configPath = args.next() ?? ""
      case "--socket": socketArgument = args.next()
      case "--log-level":
        guard let l = args.next().flatMap(LogLevel.init(rawValue:)) else {
          return fail("--log-level takes error|warning|notice|info|debug")
        }
        levelArgument = l
      case "--check-config": checkOnly = true
      case "--announce": announce = true
      case "--version":
        print("ferryd \(FerryVersion.string)")
        return 0
      case "-h", "--help":
        print(usage)
        return 0
      default: return fail("unknown argument \(arg)\n\(usage)")
      }
    }
    let config: DaemonConfig
    do {
      config = try ConfigLoader.load(path: configPath, environment: environment)
    } catch {
      return fail("invalid config: \(error)")
    }
    if checkOnly {
      print("ferryd: \(configPath) is valid")
      return 0
    }
    let logger = Logger(level: levelArgument ?? config.logLevel, environment: environment)
    do {
      let daemon = try Daemon(config: config, logger: logger, environment: environment)
      daemon.configPath = configPath
      // Before listening: a second daemon must not take over the first one's socket path.
      try daemon.lockStateDirectory()
      let path = try listen(daemon, socketArgument: socketArgument, environment: environment)
      if announce {
        var text = Array("ferryd: listening on \(path)\n".utf8)
        // socat's -t: wait for ferryd to close after the last job, not its default 0.5 s.
        let job = #"{"id":"hi","url":"https://example.com/"}"#
        text += Array("try:    echo '\(job)' | socat -t 3600 - UNIX-CONNECT:\(path)".utf8)
        text.append(10)
        _ = text.withUnsafeBytes { SystemCall.write(1, $0, trapsOnBadDescriptor: false) }
      }
      return daemon.run()
    } catch {
      return fail("\(error)")
    }
  }

  /// Starts the metrics listener, then the control socket: one systemd passed (unless
  /// `--socket` or the config names a path), else the path. Returns the path named.
  @MainActor private static func listen(
    _ daemon: Daemon, socketArgument: String?, environment: [String: String]
  ) throws -> String {
    let activated = SystemdNotifier.activatedSockets(environment: environment)
    // Before the socket: once clients can connect, a scraper can too.
    try daemon.listenForMetrics(activatedFD: activated.metrics)
    let path = SocketPath.resolve(
      argument: socketArgument, configured: daemon.config.socket, environment: environment,
      uid: SystemCall.realUserID)
    if socketArgument == nil, daemon.config.socket == nil, let fd = activated.control {
      try daemon.listen(path: nil, adoptingFD: fd)
    } else {
      if path
        == SocketPath.resolve(argument: nil, configured: nil, environment: [:], uid: SystemCall.realUserID)
      {
        try SocketPath.prepareFallbackDirectory(uid: SystemCall.realUserID)
      }
      try daemon.listen(path: path)
    }
    return path
  }

  private static func fail(_ message: String) -> Int32 {
    let line = Array("ferryd: \(message)\n".utf8)
    _ = line.withUnsafeBytes { SystemCall.write(2, $0, trapsOnBadDescriptor: false) }
    return 1
  }
}
