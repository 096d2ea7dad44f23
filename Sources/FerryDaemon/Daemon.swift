import FerryLoop
import FerrySerializer
import FerrySession
import FerryStore
import FerryWire

/// The daemon: the listener, its clients and the sessions (each with its engine), all owned by
/// the loop thread.
@MainActor public final class Daemon {
  public let loop: EventLoop
  public internal(set) var config: DaemonConfig
  let logger: Logger
  /// Where the configuration was read from, for SIGHUP.
  public var configPath: String?
  let environment: DaemonEnvironment
  /// The process environment, for reloads (credential lookups).
  let processEnvironment: [String: String]
  let curl: CurlFeatures
  let decoder = JobDecoder()
  var listener: UnixListener?
  var clients: SerialMap<Client> = [:]
  /// One runtime per session name, kept across reloads; a removed session stays (without a
  /// profile) while its jobs run, and a later reload drops it once idle.
  var sessions: [String: Session] = [:] { didSet { lastSession = nil } }
  /// The session the last job named (`session(named:)`): jobs in a row nearly always name the
  /// same one, and comparing a short name costs less than hashing it (issue 29).
  private var lastSession: Session?
  /// Shared limits through Redis (issue 32): made at the first permit a session asks for.
  var coordinator: Coordinator?
  /// Per session, the timer that asks again for a denied permit.
  var permitTimers: [String: Timer] = [:]
  /// Every live job's state: phases, sessions' schedulers, clients' body budgets, inline
  /// bodies, detached records, counters. The one place where a job changes phase; the daemon
  /// performs what it decides (`perform`).
  var table: JobTable
  /// The loop objects of live jobs, by serial (what the table's actions act on).
  var jobs: SerialMap<JobRun> = [:]
  /// Output files live jobs write (`FileRoots.outputTarget`), and which job holds each.
  var outputsInUse: [String: UInt64] = [:]
  /// The action list of the last job table event, kept for the next (`takeActions`).
  var spareActions: [JobTable.Action] = []
  /// A second one, for the `ended` an `end` feeds while its own list is performed.
  var spareNestedActions: [JobTable.Action] = []
  /// Waiting jobs that ended jobs released, started together once the loop's callbacks of this
  /// iteration are done (`startReleased`): the ends of a burst of transfers are all handled
  /// first, then the jobs behind them start at once, and their requests go out together.
  var releasedStarts: [UInt64] = []
  /// The list `releasedStarts` had, emptied, kept for the next flush.
  var spareReleased: [UInt64] = []
  var releasedTimer: Timer?
  var nextSerial: UInt64 = 0
  var signals: [SignalWatch] = []
  let startedAtMs: UInt64
  var shutdownTimer: Timer?
  let notifier: SystemdNotifier?
  var watchdogTimer: Timer?
  /// The durable journal (issue 14), opened at start when its file exists, else by the first
  /// durable job: a daemon that never sees one never creates it (`Daemon+Journal`).
  var journal: Journal?
  /// Opening the journal failed (logged once): durable jobs fail `journal_failed`.
  var journalUnavailable = false
  /// Records are staged and not yet handed to the writer thread.
  var journalPending = false
  /// Hands staged records to the writer at the end of the iteration (`flushJournal`).
  var journalTimer: Timer?
  /// The thread that commits the journal, and the wake its reports come back by
  /// (`Daemon+Journal`): commits never run on the loop.
  var journalWriter: JournalWriter?
  var journalWake: LoopWake?
  /// Batches handed to the writer and not yet reported, oldest first: the jobs each one's
  /// report lets go on (`settle`). One at a time (two for a `drain`): while the writer is
  /// behind, the next batch grows.
  var journalInFlight: [[JobRun]] = []
  /// Batches handed to the writer so far, and those whose reports the loop took: a durable
  /// job's line waits in its client's outbox until its batch is done (`journalHoldMark`).
  var journalBatchesHanded: UInt64 = 0
  var journalBatchesDone: UInt64 = 0
  /// The list the writer's reports are swapped into, kept (no allocation per batch).
  var journalReports: [JournalWriter.Report] = []
  /// Clients whose outbox holds lines of a batch not yet done.
  var clientsAwaitingJournal: [Client] = []
  /// Compacts the journal once no batch came for `journalCompactIdleMs` after some removals.
  var journalCompactTimer: Timer?
  var journalCompactIdleMs = 1_000
  /// `Journal.removedCount` when the last compaction was asked for.
  var journalRemovalsCompacted = 0
  /// A test's hook, run on the writer thread before each commit (set before the journal opens).
  var journalCommitGate: (@Sendable () -> Void)?
  /// Results of durable jobs that ended with nobody attached, by owner and id: their journal
  /// rows go when `attach` takes them or they expire.
  var journaledResults: [JobTable.DetachedKey: JournalKey] = [:]
  /// Reads of the journal handed to its writer thread, by tag, and what waits for each.
  var journalReads: [UInt64: JournalRead] = [:]
  var journalReadsAsked: UInt64 = 0
  /// `attach` ops that came while a vanished client's results were being read back.
  var attachesAwaitingJournal: [(id: String, client: Client)] = []
  /// Removes durable results from the journal when they expire (`armResultExpiry`).
  var resultExpiryTimer: Timer?
  /// A durable result began to wait for `attach`: the expiry timer is armed once the job's
  /// ending is through the job table (`jobFinished`).
  var needsResultExpiry = false
  /// Durable jobs whose submissions are staged and not yet committed, in the order staged:
  /// their lines and starts wait for the flush (`settle`).
  var awaitingCommit: [JobRun] = []
  /// The list `awaitingCommit` had, emptied, kept for the next flush (no allocation per flush).
  var spareAwaiting: [JobRun] = []
  /// Sessions' cookie jars and their store (`Daemon+Cookies`).
  let cookieJars = CookieJars()
  /// Sessions' HTTP caches and their store (`Daemon+Cache`), opened at the first cached job.
  let httpCache = HTTPCache()
  /// ferryd's hold on its state directory, for its whole life (`lockStateDirectory`).
  var stateLock: StateDirectoryLock?
  /// `stats`' cache counters, per session.
  var cacheCounts: [String: CacheCounts] = [:]
  /// The Prometheus counters (`Metrics`), kept as work happens; `metricsServer` serves them.
  var metrics = Metrics()
  var metricsServer: MetricsServer?
  /// Jobs the journal holds: recovered ones, plus committed submissions, less removals.
  var journalJobsAdded = 0
  /// The network monitor (issue 31); nil when `network.monitor` is false (state `unknown`).
  var networkMonitor: NetworkMonitor?
  /// The last submission's origin (issue 32's holds and budgets): the next job to the same
  /// scheme and authority shares it without a parse.
  var originMemo = OriginMemo()
  /// A test's stub for the monitor's socket (set before `run`).
  var networkSocketOpener: (() throws(LoopError) -> NetlinkSocket)?
  /// Clients that asked `watch_network`, by serial.
  var networkWatchers: Set<UInt64> = []
  /// When the last `overloaded` refusal was logged: at most one a second is (`logOverload`).
  var overloadLoggedAtMs: UInt64?

  /// Builds the daemon from a validated configuration; nothing listens yet.
  public init(config: DaemonConfig, logger: Logger, environment: [String: String]) throws(StartupError) {
    do {
      loop = try EventLoop()
    } catch {
      throw StartupError("cannot create the event loop: \(error)")
    }
    self.config = config
    self.table = JobTable(
      sessions: config.sessions.mapValues(\.schedulingLimits), limits: JobTable.Limits(config.limits))
    self.logger = logger
    logger.attach(to: loop)
    self.curl = CurlFeatures.current()
    self.startedAtMs = loop.now()
    self.notifier = SystemdNotifier(environment: environment)
    var env = DaemonEnvironment(
      acceptLanguage: AcceptLanguage(language: environment["LANGUAGE"], lang: environment["LANG"]).value,
      acceptEncoding: curl.encodings.isEmpty ? nil : curl.encodings.joined(separator: ", "),
      mimeTypes: Self.readMIMETypes(), readRoots: config.readRoots, protectedPaths: config.protectedPaths)
    env.maxRequestBytes = config.limits.maxRequestBytes
    Engine.yieldAfterMs = Int64(config.limits.loopSliceMs)
    self.environment = env
    self.processEnvironment = environment
    do {
      for (name, sessionConfig) in config.sessions {
        let profile = SessionProfile(config: sessionConfig, environment: env, egress: config.egress)
        let session = Session(profile: profile, engine: try Engine(loop: loop))
        session.metricsSlot = metrics.slot(for: name)
        sessions[name] = session
      }
    } catch {
      throw StartupError("cannot start libcurl: \(error)")
    }
    if !curl.hasAsynchronousResolver {
      logger.warning("libcurl has no asynchronous resolver; name lookups block the loop")
    }
  }

  isolated deinit {
    // A daemon that never ran (an in-process test's) still ends its writer thread.
    journalWriter?.stop()
  }

  /// Listens on `path` (replacing a stale socket file), or adopts a listening descriptor.
  public func listen(path: String?, adoptingFD: Int32? = nil) throws(StartupError) {
    let onAccept: @MainActor (Int32) -> Void = { [unowned self] fd in self.accept(fd) }
    do {
      if let fd = adoptingFD {
        listener = try UnixListener(loop: loop, adoptingFD: fd, onAccept: onAccept)
      } else if let path {
        listener = try UnixListener(
          loop: loop, path: path, mode: config.socketMode, onAccept: onAccept)
      }
    } catch {
      throw StartupError("cannot listen on \(path ?? "the passed socket"): \(error)")
    }
    logger.notice(
      "listening",
      [
        "socket": path ?? "fd:\(adoptingFD ?? -1)", "curl": curl.version,
        "async_dns": "\(curl.hasAsynchronousResolver)",
      ])
  }

  /// Runs until shutdown completes; returns the process exit code, 0: every shutdown is clean
  /// (a start-up failure never gets here).
  public func run() -> Int32 {
    for sig in [SystemCall.Signal.terminate, SystemCall.Signal.interrupt] {
      signals.append(
        SignalWatch(loop: loop, signal: sig) { [unowned self] in self.beginShutdown(signal: sig) })
    }
    signals.append(
      SignalWatch(loop: loop, signal: SystemCall.Signal.hangUp) { [unowned self] in self.reload() })
    SystemCall.ignore(signal: SystemCall.Signal.brokenPipe)
    // Past RLIMIT_FSIZE an output write must fail with EFBIG (output_failed for that job),
    // not kill the daemon and every client's jobs with it.
    SystemCall.ignore(signal: SystemCall.Signal.fileSizeLimit)
    notifier?.send("READY=1\nSTATUS=\(statusLine())")
    startWatchdog()
    startNetworkMonitor()
    recoverJournal()
    openCookieStoreAtStart()
    loop.run()
    stopJournal()
    saveDirtyCookieJars()
    httpCache.flushUses()
    for session in sessions.values { session.engine.shutdown() }
    logger.notice("stopped")
    return 0
  }

  /// `sessions[name]`, remembering the answer for the next job that names the same session.
  func session(named name: String) -> Session? {
    if let lastSession, lastSession.name == name { return lastSession }
    let found = sessions[name]
    lastSession = found
    return found
  }

  /// Takes a connected, non-blocking client descriptor (from the listener, or a test's
  /// socketpair, which may name the peer's `credentials` instead of SO_PEERCRED's).
  func accept(_ fd: Int32, credentials: PeerCredentials? = nil) {
    guard case .running = table.shutdown else {
      SystemCall.close(fd)
      return
    }
    nextSerial += 1
    let client = Client(serial: nextSerial, fd: fd, daemon: self, credentials: credentials)
    // Every connection has a body budget, even one refused below until it closes.
    feed(.clientConnected(client.serial, budget: config.limits.maxOutputBytes))
    if clients.count >= config.limits.maxClients {
      // Kept in `clients` until its one line is flushed (clientClosed removes it).
      clients[client.serial] = client
      logOverload("client refused: too many clients", ["code": "overloaded", "limit": "max_clients"])
      client.send(.error(WireError(.overloaded, "too many client connections"), id: nil))
      client.closeWhenFlushed()
      return
    }
    let c = client.credentials
    guard PeerPolicy(uids: config.allowUIDs, groups: config.allowGroups).admits(c) else {
      logger.warning(
        "client refused",
        [
          "client.uid": c.map { "\($0.uid)" } ?? "?", "client.gid": c.map { "\($0.gid)" } ?? "?",
          "client.pid": c.map { "\($0.pid)" } ?? "?",
        ])
      clients[client.serial] = client
      client.send(
        .error(WireError(.accessDenied, "this user may not use ferryd (allow_uids, allow_groups)"), id: nil))
      client.closeWhenFlushed()
      return
    }
    clients[client.serial] = client
    logger.debug(
      "client connected",
      [
        "client": "\(client.serial)", "client.uid": c.map { "\($0.uid)" } ?? "?",
        "client.gid": c.map { "\($0.gid)" } ?? "?", "client.pid": c.map { "\($0.pid)" } ?? "?",
      ])
  }

  /// A client connection is gone, with the serials of the live jobs it held: detached ones
  /// run on without it, the others are cancelled (the job table decides).
  func clientClosed(_ client: Client, jobs held: [UInt64]) {
    clients[client.serial] = nil
    feed(.clientClosed(client.serial, jobs: held))
    logger.debug("client closed", ["client": "\(client.serial)"])
    shutdownProgress()
  }

  /// The `STATUS=` text systemctl shows.
  func statusLine() -> String {
    "\(table.runningCount) jobs running, \(table.waitingCount) queued, \(clients.count) clients"
  }

  /// Keep-alives for systemd's watchdog, sent from the loop itself, with the status.
  private func startWatchdog() {
    guard let notifier, let interval = notifier.watchdogIntervalMs else { return }
    let timer = Timer(loop: loop) { [unowned self] in
      notifier.send("WATCHDOG=1\nSTATUS=\(self.statusLine())")
      self.watchdogTimer?.schedule(afterMs: interval)
    }
    timer.schedule(afterMs: interval)
    watchdogTimer = timer
  }

  private static func readMIMETypes() -> MIMETypes {
    guard let text = readSmallFile("/etc/mime.types", limit: 4 << 20) else { return MIMETypes() }
    return MIMETypes(parsing: text)
  }
}

/// A start-up failure: ferryd prints it as one line and exits non-zero.
public struct StartupError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// Reads a small text file whole (config, mime.types); nil when unreadable or too big.
func readSmallFile(_ path: String, limit: Int) -> String? {
  SystemCall.readFile(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
}
