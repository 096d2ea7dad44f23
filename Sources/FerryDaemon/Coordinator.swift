import FerryLoop
import FerryRedis

/// The driver side of shared limits (issue 32, docs/FLEET.md): asks Redis for permits (one
/// `EVALSHA` per start), keeps this host's concurrency leases renewed while their jobs run and
/// releases them at the end, and answers from a local share of each limit while Redis cannot
/// be reached. The job table decides which job asks and when (JobTable+Admission); this class
/// only does the I/O and reports each answer through `answer`.
@MainActor final class Coordinator {
  let config: CoordinationConfig
  private let loop: EventLoop
  private let logger: Logger
  let redis: RedisConnection
  /// The permit script's SHA-1 once `SCRIPT LOAD` told it; until then the script goes whole
  /// (`EVAL`, which caches it in Redis too).
  private var permitSHA: String?
  private var renewSHA: String?
  /// Leases held by running jobs: job serial → (the Redis key of its leases, lease id).
  private var leases: [UInt64: (key: String, id: String)] = [:]
  /// Jobs running on a local permit (granted while Redis was unreachable), by shared key.
  private var localPermits: [UInt64: String] = [:]
  private var localShares: [String: LocalShare] = [:]
  private var renewTimer: Timer?
  /// Whether the last round trip failed: logged once per outage, and once at the return.
  private(set) var isDegraded = false
  /// A unique prefix for this host's lease ids.
  private let hostTag: String
  private var nextLease: UInt64 = 0

  init(config: CoordinationConfig, loop: EventLoop, logger: Logger, hostTag: String) {
    self.config = config
    self.loop = loop
    self.logger = logger
    self.hostTag = hostTag
    redis = RedisConnection(address: config.redis, timeoutMs: config.timeoutMs, loop: loop)
  }

  /// `PREFIX{KEY}:suffix`: the braces are Redis Cluster's hash tag, so one key's three Redis
  /// keys share a slot (a script may only touch keys of one slot there).
  func key(_ limit: SharedLimit, _ suffix: String) -> String {
    config.prefix + "{" + limit.key + "}:" + suffix
  }

  /// Asks for a permit for job `serial` under `limit`; `answer` gets nil (granted) or the
  /// milliseconds to wait. Redis failing is never a refusal: the local share answers.
  func ask(
    _ serial: UInt64, _ limit: SharedLimit, answer: @escaping @MainActor (_ retryAfterMs: Int?) -> Void
  ) {
    nextLease += 1
    let leaseID = "\(hostTag):\(nextLease)"
    let keys = [key(limit, "rate"), key(limit, "leases"), key(limit, "hold")]
    let args = [
      String((limit.startIntervalMs ?? 0) * 1000), String(limit.maxConcurrent ?? 0), leaseID,
      String(config.leaseMs), String(LocalShare.fullRetryMs),
    ]
    run(CoordinationScript.permit, sha: \.permitSHA, keys: keys, args: args) { [self] result in
      guard case .success(.array(let items?)) = result, items.count == 2,
        case .integer(let granted) = items[0], case .integer(let wait) = items[1]
      else { return answerLocally(serial, limit, result, answer: answer) }
      reachable()
      guard granted == 1 else { return answer(Int(clamping: max(1, wait))) }
      if limit.maxConcurrent != nil { holdLease(serial, key: keys[1], id: leaseID) }
      answer(nil)
    }
  }

  /// Redis did not answer as it should: the local share decides, and the outage is logged once.
  private func answerLocally(
    _ serial: UInt64, _ limit: SharedLimit, _ result: Result<RedisReply, RedisError>,
    answer: @MainActor (Int?) -> Void
  ) {
    if !isDegraded {
      isDegraded = true
      let reason: String
      switch result {
      case .failure(let e): reason = e.code + ": " + e.message
      case .success(let reply): reason = "unexpected reply \(reply)"
      }
      logger.warning(
        "coordination unreachable; each host takes its local share",
        ["expected_hosts": String(config.expectedHosts), "reason": reason])
    }
    var share = localShares[limit.key] ?? LocalShare(limit, expectedHosts: config.expectedHosts)
    let wait = share.ask(nowMs: loop.now())
    localShares[limit.key] = share
    if wait == nil { localPermits[serial] = limit.key }
    answer(wait)
  }

  private func reachable() {
    guard isDegraded else { return }
    isDegraded = false
    logger.notice("coordination reachable again; shared limits rejoined")
  }

  private func holdLease(_ serial: UInt64, key: String, id: String) {
    leases[serial] = (key, id)
    if renewTimer == nil { renewTimer = Timer(loop: loop) { [unowned self] in renewLeases() } }
    if renewTimer?.isScheduled != true { renewTimer?.schedule(afterMs: max(50, config.leaseMs / 3)) }
  }

  /// Job `serial` ended (or was granted after it was gone): its lease goes, or its local permit.
  func release(_ serial: UInt64) {
    if let lease = leases.removeValue(forKey: serial) {
      redis.send(["ZREM", lease.key, lease.id]) { _ in }
    }
    if let key = localPermits.removeValue(forKey: serial) { localShares[key]?.release() }
  }

  /// Renews every lease this host holds, one script call per key; a renewal that fails is
  /// tried again at the next round (a lease lives three rounds).
  private func renewLeases() {
    guard !leases.isEmpty else { return }
    var byKey: [String: [String]] = [:]
    for lease in leases.values { byKey[lease.key, default: []].append(lease.id) }
    for (key, ids) in byKey.sorted(by: { $0.key < $1.key }) {
      run(CoordinationScript.renew, sha: \.renewSHA, keys: [key], args: [String(config.leaseMs)] + ids) { _ in
      }
    }
    renewTimer?.schedule(afterMs: max(50, config.leaseMs / 3))
  }

  /// Runs a script by its SHA-1 when known, else whole; loads it on `NOSCRIPT` (a restarted or
  /// flushed Redis) by sending it whole once more.
  private func run(
    _ script: String, sha: ReferenceWritableKeyPath<Coordinator, String?>, keys: [String], args: [String],
    completion: @escaping @MainActor (Result<RedisReply, RedisError>) -> Void
  ) {
    let tail = [String(keys.count)] + keys + args
    guard let known = self[keyPath: sha] else {
      redis.send(["SCRIPT", "LOAD", script]) { [self] in
        if case .success(.bulk(let b?)) = $0 { self[keyPath: sha] = String(decoding: b, as: UTF8.self) }
      }
      return redis.send(["EVAL", script] + tail, completion: completion)
    }
    redis.send(["EVALSHA", known] + tail) { [self] result in
      guard case .success(.error(let message)) = result, message.hasPrefix("NOSCRIPT") else {
        return completion(result)
      }
      self[keyPath: sha] = nil
      run(script, sha: sha, keys: keys, args: args, completion: completion)
    }
  }

  /// Publishes a server-taught hold on `limit`'s key for `ms` (a 429's Retry-After): every
  /// host's next permit waits for it. A longer hold already there is kept (`PEXPIRE … GT`).
  func publishHold(_ limit: SharedLimit, ms: Int, completion: @escaping @MainActor (Bool) -> Void = { _ in })
  {
    let hold = key(limit, "hold")
    redis.send(["SET", hold, "1", "PX", String(ms), "NX"]) { _ in }
    redis.send(["PEXPIRE", hold, String(ms), "GT"]) { result in
      if case .success(.integer) = result { completion(true) } else { completion(false) }
    }
  }

  /// The hold left on `limit`'s key, in ms (0 when none), or nil when Redis did not answer.
  func readHold(_ limit: SharedLimit, completion: @escaping @MainActor (Int?) -> Void) {
    redis.send(["PTTL", key(limit, "hold")]) { result in
      if case .success(.integer(let ms)) = result { completion(max(0, Int(ms))) } else { completion(nil) }
    }
  }
}
