import FerrySession
import FerryStore
import FerryWire

/// The daemon's configuration, read from one JSON file with the wire's own strict reader.
///
/// Unknown keys are errors, as on the wire, so that a typo never passes silently.
public struct DaemonConfig: Sendable {
  /// Socket path; nil means the PROTOCOL fallback chain.
  public var socket: String?
  /// Permission bits of the socket file.
  public var socketMode: UInt32 = 0o660
  public var logLevel: LogLevel = .info
  /// Seconds running jobs get to finish after SIGTERM before they are cancelled.
  public var shutdownGraceSeconds: Double = 10
  public var limits = Limits()
  public var sessions: [String: SessionConfig] = ["default": SessionConfig(name: "default")]
  /// Users allowed to connect (by uid); with `allowGroups`, nil lets anyone who can open the
  /// socket in.
  public var allowUIDs: [UInt32]?
  /// Groups (gids) whose members may connect, primary or supplementary.
  public var allowGroups: [UInt32]?
  /// Where jobs may read files (parts, bodies) from; nil: anywhere the daemon can read.
  public var readRoots: [String]?
  /// Where jobs may write `output` files; nil: anywhere the daemon can write.
  public var writeRoots: [String]?
  /// Daemon-wide egress policy; nil when nothing is configured (no checks, no cost).
  public var egress: EgressPolicy?
  /// The daemon's own files: this config, its drop-ins, the credential files it read and
  /// `$CREDENTIALS_DIRECTORY`. No job reads or writes them, whatever the roots say.
  public var protectedPaths: [String] = []
  /// Where the durable journal lives (`state_dir`); nil: `StateDirectory.resolve`'s chain
  /// ($STATE_DIRECTORY, $XDG_STATE_HOME/ferry, ~/.local/state/ferry).
  public var stateDirectory: String?
  /// `journal.sync`: what a commit of the journal survives.
  public var journalSync: JournalSync = .normal
  /// `cookies`: the bounds of every session's jars.
  public var cookieLimits = CookieLimits()
  /// `metrics.listen`: where Prometheus text is served; nil: only the `metrics` op.
  public var metricsListen: MetricsAddress?
  /// `coordination`: the Redis that sessions' `shared` limits go through (docs/FLEET.md).
  public var coordination: CoordinationConfig?
  /// `network.monitor`: whether ferryd watches the network (issue 31); false leaves the state
  /// `unknown` and no job waits for the network.
  public var networkMonitor = true
  /// `network.loopback_waits`: whether a job to a loopback host (`localhost`, 127.0.0.0/8,
  /// `[::1]`) waits for the network as any other does. False (the default): it needs no
  /// network, so it never waits for one (docs/NETWORK.md).
  public var loopbackWaits = false

  public init() {}

  /// Daemon-wide limits.
  public struct Limits: Sendable, Equatable {
    /// Live jobs across all clients; past it new jobs fail `overloaded`.
    public var maxJobs = 10_000
    public var maxJobsPerConnection = 1_000
    public var maxLineBytes = 1 << 20
    /// Bytes of events queued for one client before its transfers are paused.
    public var maxOutputBytes = 4 << 20
    /// Client connections held at once; past it new ones get one `overloaded` line and close.
    public var maxClients = 4_096
    /// Request body bytes held in memory by all live jobs; past it new jobs fail `overloaded`.
    public var maxRequestBytes = 64 << 20
    /// Event lines kept per detached job for a client that attaches later.
    public var maxReplayEvents = 256
    /// Bytes of event lines kept per detached job (its terminal event is always kept whole).
    public var maxReplayBytes = 1 << 20
    /// How long the result of a detached job that ended with no client waits for `attach`.
    public var detachedTTLSeconds = 3_600
    /// Bytes all such waiting results may hold; past it the oldest are forgotten.
    public var maxDetachedBytes = 64 << 20
    /// The largest `max_inline_bytes` a job may ask for; a larger one is `invalid_job`.
    public var maxInlineBytes = 64 << 20
    /// Inline response bodies all live jobs may hold together; a job whose body would take
    /// more fails `response_too_large`.
    public var maxInlineTotalBytes = 256 << 20
    /// Milliseconds of callbacks after which a loop iteration takes no more curl work, so one
    /// user's burst cannot hold the other clients (issue 26; `Engine.yieldAfterMs`).
    public var loopSliceMs = 5

    public init() {}

    /// The keys of the `limits` object, for a "did you mean".
    static let keys = [
      "max_jobs", "max_jobs_per_connection", "max_line_bytes", "max_output_bytes", "max_clients",
      "max_request_bytes", "max_replay_events", "max_replay_bytes", "detached_ttl_s", "max_detached_bytes",
      "max_inline_bytes", "max_inline_total_bytes", "loop_slice_ms",
    ]
  }

  /// Bounds of cookie jars, daemon-wide (docs/CONFIG.md, "Cookies").
  public struct CookieLimits: Sendable, Equatable {
    /// How long a session cookie (one without an expiry) survives restarts, counted from when
    /// ferry first stored it.
    public var sessionCookieTTLSeconds = 86_400
    /// Cookies in one jar; past it the oldest are dropped.
    public var maxCookiesPerJar = 300
    /// Cookies of one domain in a jar; past it the domain's oldest are dropped until
    /// `cookiesKeptPerDomain` are left, as browsers do (180, purged to 150).
    public var maxCookiesPerDomain = 180
    /// Bytes of one jar (its cookie-file lines); past it the oldest are dropped.
    public var maxJarBytes = 256 << 10
    /// Jars a session holds in memory; past it the least recently used idle one is dropped
    /// (it stays in the store when persisted).
    public var maxJarsPerSession = 64

    /// What a domain past `maxCookiesPerDomain` is cut to: five sixths of it (150 of 180, as
    /// Chromium's 30 purged and Firefox's `quotaPerHost`), so that the next few cookies of a
    /// full domain do not cut it again each.
    public var cookiesKeptPerDomain: Int { max(1, maxCookiesPerDomain * 5 / 6) }

    public init() {}
  }

  /// The keys of the top-level object, for a "did you mean".
  static let topLevelKeys = [
    "socket", "socket_mode", "log_level", "shutdown_grace_s", "limits", "sessions", "egress", "files",
    "allow_uids", "allow_groups", "state_dir", "journal", "cookies", "comment", "network",
    "coordination",
  ]

  /// Parses a config file's bytes; `file` names it in errors. Credential files named by
  /// sessions are looked up in `$CREDENTIALS_DIRECTORY` first, then beside the config file.
  public static func parse(
    _ bytes: [UInt8], file: String, environment: [String: String] = [:], baseDirectory: String? = nil
  ) throws(ConfigError) -> DaemonConfig {
    let root: JSONValue
    do {
      root = try JSONReader(rejectsDuplicateKeys: true).read(bytes)
    } catch {
      throw ConfigError.invalidJSON(error, in: bytes, file: file)
    }
    guard case .object(let object) = root else {
      throw ConfigError(file: file, field: "", reason: "the top level must be an object")
    }
    var config = DaemonConfig()
    let reader = ConfigReader(
      file: file, credentialsDirectory: environment["CREDENTIALS_DIRECTORY"], baseDirectory: baseDirectory)
    for member in object {
      switch member.key {
      case "socket": config.socket = try reader.string(member.value, "socket")
      case "socket_mode": config.socketMode = try reader.mode(member.value, "socket_mode")
      case "log_level": config.logLevel = try reader.logLevel(member.value, "log_level")
      case "shutdown_grace_s":
        config.shutdownGraceSeconds = try reader.number(member.value, "shutdown_grace_s", 0...3600)
      case "limits": config.limits = try reader.limits(member.value)
      case "sessions": config.sessions = try reader.sessions(member.value)
      case "egress": config.egress = try reader.egress(member.value)
      case "files": (config.readRoots, config.writeRoots) = try reader.files(member.value)
      case "allow_uids": config.allowUIDs = try reader.uids(member.value, "allow_uids")
      case "allow_groups": config.allowGroups = try reader.groups(member.value, "allow_groups")
      case "state_dir": config.stateDirectory = try reader.absolutePath(member.value, "state_dir")
      case "journal": config.journalSync = try reader.journal(member.value)
      case "metrics": config.metricsListen = try reader.metrics(member.value)
      case "cookies": config.cookieLimits = try reader.cookieLimits(member.value)
      case "coordination": config.coordination = try reader.coordination(member.value)
      case "network": (config.networkMonitor, config.loopbackWaits) = try reader.network(member.value)
      // A note for whoever reads the file (JSON has no comments); ignored.
      case "comment": _ = try reader.string(member.value, "comment")
      default: throw ConfigError.unknownSetting(member.key, among: topLevelKeys, file: file)
      }
    }
    config.protectedPaths = [file] + reader.credentialFiles.paths
    if let dir = environment["CREDENTIALS_DIRECTORY"] { config.protectedPaths.append(dir) }
    if config.coordination == nil,
      let name = config.sessions.keys.sorted().first(where: { config.sessions[$0]?.shared != nil })
    {
      throw ConfigError(
        file: file, field: "sessions.\(name).shared",
        reason: "needs a top-level coordination with a redis address")
    }
    if config.sessions["default"] == nil {
      config.sessions["default"] = SessionConfig(name: "default")
    }
    return config
  }
}

/// Log levels, most severe first; the number is the syslog priority.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
  case error
  case warning
  case notice
  case info
  case debug

  /// The syslog priority (3 error … 7 debug), for journald's `<N>` prefix.
  public var priority: Int {
    switch self {
    case .error: 3
    case .warning: 4
    case .notice: 5
    case .info: 6
    case .debug: 7
    }
  }

  public static func < (a: LogLevel, b: LogLevel) -> Bool { a.priority < b.priority }
}
