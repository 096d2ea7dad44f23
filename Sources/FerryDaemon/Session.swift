import FerryLoop
import FerrySerializer
import FerrySession
import FerryWire

/// A configured session at run time: its serializer, the defaults it lends to jobs, the
/// scheduler that decides which of its jobs run, and the engine that runs them (its own curl
/// multi handle, so connections are pooled and limited per session).
@MainActor final class Session {
  let config: SessionConfig
  /// This session's transfers, connection pool and DNS/TLS caches. Kept across reloads while
  /// the session keeps its name, so the pool stays warm.
  let engine: Engine
  let serializer: RequestSerializer
  var scheduler: SessionScheduler
  /// Wakes the scheduler when a `rate` lets the next waiting job start.
  var rateTimer: Timer?
  /// Jobs waiting for a slot, by serial.
  var waiting: [UInt64: JobRun] = [:]

  /// TLS and proxy settings for this session's transfers.
  let tls: TLSOptions

  init(config: SessionConfig, environment: DaemonEnvironment, engine: Engine) {
    self.config = config
    self.engine = engine
    engine.setPoolLimits(config.poolLimits)
    tls = TLSOptions(
      caFile: config.caFile, pinnedPublicKey: config.pinnedPublicKey, insecure: config.insecure,
      proxy: config.proxy)
    var settings = SerializerSettings(
      version: FerryVersion.string, baseURL: config.baseURL, uriMethods: config.uriMethods,
      headers: config.defaults.headers ?? [], auth: config.defaults.auth,
      acceptLanguage: environment.acceptLanguage, acceptEncoding: environment.acceptEncoding)
    settings.credentialScope = config.credentialScope
    settings.secretHeaders = config.secretHeaders
    settings.maxRequestBytes = environment.maxRequestBytes
    serializer = RequestSerializer(
      settings: settings, mimeTypes: environment.mimeTypes,
      files: SystemFileProbe(
        readRoots: environment.readRoots, protected: environment.protectedPaths, requiresRoots: true))
    scheduler = SessionScheduler(maxConcurrent: config.maxConcurrent, startIntervalMs: config.startIntervalMs)
  }

  var name: String { config.name }

  /// The job with every field it left out taken from the session's defaults. Headers and auth
  /// are not merged here: the serializer layers them (job over session over defaults).
  func merged(_ job: Job) -> Job {
    let d = config.defaults
    var j = job
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
    return j
  }
}

extension SessionConfig {
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
