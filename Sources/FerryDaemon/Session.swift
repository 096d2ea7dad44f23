import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

/// A session at run time, one per session *name* for the daemon's life: the engine that runs
/// its jobs (its own curl multi handle, so connections are pooled and limited per session), the
/// profile new jobs are submitted under, and the timer of its `rate`. Which of its jobs run is
/// the job table's (`JobTable`), whose scheduler for the name survives reloads too.
@MainActor final class Session {
  let name: String
  /// This session's transfers, connection pool and DNS/TLS caches.
  let engine: Engine
  /// The configuration a job submitted now gets; nil once a reload removed the session (its
  /// running jobs finish under the profile each holds).
  private(set) var profile: SessionProfile?
  /// Wakes the job table when a `rate` lets the next waiting job start.
  private var rateTimer: Timer?
  /// One timer per held origin (issue 32), fed to the table as `holdEnded`.
  private var holdTimers: [String: Timer] = [:]
  /// Whether the session has a `rate`, the one setting that makes its scheduler read the clock.
  private(set) var hasRate: Bool
  /// Every `HOST:PORT` a configuration of the session has pinned (`resolve`): a later profile
  /// that no longer pins one takes it out of the DNS caches (`unpins(for:)`).
  private(set) var pinnedEver: Set<String> = []
  /// The session's counters in the daemon's `Metrics`, resolved once when it was made.
  var metricsSlot = 0

  init(profile: SessionProfile, engine: Engine) {
    self.name = profile.config.name
    self.profile = profile
    self.engine = engine
    pinnedEver = Set(profile.config.resolve.map(Self.hostPort))
    hasRate = profile.config.startIntervalMs != nil
    engine.setPoolLimits(profile.config.poolLimits)
  }

  /// A reload kept (or brought back) the session: new jobs get `profile`, its pool limits
  /// apply from now on.
  func reconfigure(_ profile: SessionProfile) {
    self.profile = profile
    pinnedEver.formUnion(profile.config.resolve.map(Self.hostPort))
    hasRate = profile.config.startIntervalMs != nil
    engine.setPoolLimits(profile.config.poolLimits)
  }

  /// Calls `due` in `delay` ms, unless the rate timer is already set: the job table asked to
  /// be woken when the `rate` lets the next waiting job start. The first call's `due` stays.
  func wakeForRate(afterMs delay: Int, _ due: @escaping @MainActor () -> Void) {
    if rateTimer == nil { rateTimer = Timer(loop: engine.loop, handler: due) }
    if rateTimer?.isScheduled == false { rateTimer?.schedule(afterMs: delay) }
  }

  /// Calls `due` in `delay` ms for the hold on `origin` (issue 32), replacing that origin's
  /// timer when it was set. Timers that fired go here, not in their own handler (which a
  /// timer must outlive), so the map holds about the origins held now.
  func wakeForHold(_ origin: String, afterMs delay: Int, _ due: @escaping @MainActor () -> Void) {
    let timer = holdTimers[origin] ?? Timer(loop: engine.loop, handler: due)
    if holdTimers.count >= 16 { holdTimers = holdTimers.filter { $0.value.isScheduled } }
    holdTimers[origin] = timer
    timer.schedule(afterMs: delay)
  }

  /// `-HOST:PORT` for each name pinned by an earlier configuration and not by `config`: curl
  /// keeps pins in the DNS cache of the share a transfer ran on, so every later transfer first
  /// takes them out.
  func unpins(for config: SessionConfig) -> [String] {
    let now = Set(config.resolve.map(Self.hostPort))
    return pinnedEver.subtracting(now).sorted().map { "-" + $0 }
  }

  /// `HOST:PORT` of a `HOST:PORT:ADDRESSES` entry.
  static func hostPort(_ entry: String) -> String {
    let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    return parts.prefix(2).joined(separator: ":")
  }

  /// A reload removed the session: it takes no new jobs.
  func retire() {
    profile = nil
    rateTimer?.cancel()
    for timer in holdTimers.values { timer.cancel() }
    holdTimers = [:]
  }
}

/// What one configuration says about a session's jobs: the session's settings, the serializer
/// built from them, and the daemon-wide transfer settings of that configuration. A job keeps
/// the profile it was submitted under for its whole life, retries included.
final class SessionProfile: Sendable {
  let config: SessionConfig
  let serializer: RequestSerializer
  /// TLS and proxy settings for this session's transfers.
  let tls: TLSOptions
  let egress: EgressPolicy?
  let readRoots: [String]?
  /// The session's `resolve` pins, after the removals of earlier configurations' pins; nil
  /// when there are none.
  let resolve: ResolveList?
  /// Whether the session gives any job field a default: without one, `merged` has nothing
  /// to do (and need not copy the defaults, a whole `Job`, for every job).
  private let hasDefaults: Bool

  init(config: SessionConfig, environment: DaemonEnvironment, egress: EgressPolicy?, unpinning: [String] = [])
  {
    self.config = config
    hasDefaults = config.defaults != Job()
    self.egress = egress
    let pins = unpinning + config.resolve
    resolve = pins.isEmpty ? nil : ResolveList(pins)
    self.readRoots = environment.readRoots
    tls = TLSOptions(
      caFile: config.caFile, pinnedPublicKey: config.pinnedPublicKey, insecure: config.insecure,
      proxy: config.proxy)
    var settings = SerializerSettings(
      version: FerryVersion.string, baseURL: config.baseURL, uriMethods: config.uriMethods,
      headers: config.defaults.headers ?? [], auth: config.defaults.auth, accept: "*/*",
      acceptLanguage: environment.acceptLanguage, acceptEncoding: environment.acceptEncoding)
    settings.credentialScope = config.credentialScope
    settings.secretHeaders = config.secretHeaders
    settings.maxRequestBytes = environment.maxRequestBytes
    serializer = RequestSerializer(
      settings: settings, mimeTypes: environment.mimeTypes,
      files: SystemFileProbe(
        readRoots: environment.readRoots, protected: environment.protectedPaths, requiresRoots: true))
  }

  /// The job with every field it left out taken from the session's defaults. Headers and auth
  /// are not merged here: the serializer layers them (job over session over defaults).
  func merged(_ j: consuming Job) -> Job {
    guard hasDefaults else { return j }
    // Borrowed where it lies: a local copy of the defaults retained and released every field
    // for every job.
    Self.fill(&j, from: config.defaults)
    return j
  }

  /// Each field `j` left out, from `d`.
  private static func fill(_ j: inout Job, from d: borrowing Job) {
    j.method = j.method ?? d.method
    // hasParameters: reading `parameters` would build the tree the decoder avoided.
    if !j.hasParameters, d.hasParameters { j.parameters = d.parameters }
    j.encoding = j.encoding ?? d.encoding
    j.timeout = j.timeout ?? d.timeout
    j.connectTimeout = j.connectTimeout ?? d.connectTimeout
    j.idleTimeout = j.idleTimeout ?? d.idleTimeout
    j.arrayEncoding = j.arrayEncoding ?? d.arrayEncoding
    j.followRedirects = j.followRedirects ?? d.followRedirects
    j.maxRedirects = j.maxRedirects ?? d.maxRedirects
    j.accept = j.accept ?? d.accept
    j.response = j.response ?? d.response
    j.maxInlineBytes = j.maxInlineBytes ?? d.maxInlineBytes
    j.events = j.events ?? d.events
    j.progressIntervalMs = j.progressIntervalMs ?? d.progressIntervalMs
    j.lane = j.lane ?? d.lane
    j.retry = j.retry ?? d.retry
    j.detach = j.detach ?? d.detach
    j.durable = j.durable ?? d.durable
    j.tls = j.tls ?? d.tls
    j.waitsForConnectivity = j.waitsForConnectivity ?? d.waitsForConnectivity
    j.network = j.network ?? d.network
    j.deadline = j.deadline ?? d.deadline
  }
}

extension SessionConfig {
  /// What the job table's scheduler needs of the session.
  var schedulingLimits: JobTable.SessionLimits {
    JobTable.SessionLimits(
      maxConcurrent: maxConcurrent, startIntervalMs: startIntervalMs, sharedLanes: sharedLanes,
      isShared: shared != nil)
  }

  /// The session's connection limits as the engine applies them.
  ///
  /// Idle connections: curl's default keeps 4 per handle in the multi at the moment a
  /// connection comes back, so as a burst winds down it closes connections the next burst
  /// must open again (a pipelining client dips between replies and new jobs: 18 % of 20 000
  /// small GETs opened a connection). 4 per job the session may run keeps them.
  var poolLimits: PoolLimits {
    PoolLimits(
      maxHostConnections: maxHostConnections, maxTotalConnections: maxConnections,
      maxIdleConnections: 4 * maxConcurrent)
  }
}

/// What every session shares from the daemon's surroundings.
struct DaemonEnvironment: Sendable {
  var acceptLanguage: String?
  var acceptEncoding: String?
  var mimeTypes: MIMETypes
  var readRoots: [String]?
  /// The daemon's config, drop-ins and credentials (`DaemonConfig.protectedPaths`).
  var protectedPaths: [String] = []
  /// `limits.max_request_bytes`: parameters flattening past it are refused before built.
  var maxRequestBytes: Int?
}

/// The version ferry reports in `User-Agent` and `hello`.
public enum FerryVersion {
  public static let string = "0.1.0"
}
