import FerryCache
import FerrySerializer
import FerryStore
import FerryWire

/// Sessions' HTTP caches (issue 17, docs/CACHE.md): the lookup when a job is submitted (a hit
/// is answered there, without a transfer or a session slot), the `cache` and `purge` ops, and
/// `stats`' counters. The per-job driver is `JobRun+Cache`, the decisions `CacheJob` and
/// FerryCache.
extension Daemon {
  /// What the cache makes of a submitted job.
  enum CacheStart {
    /// The cache takes no part: the job runs as on a session without one.
    case uncached
    /// The job was answered (a hit, `not_cached`, `only-if-cached`'s 504): nothing more to do.
    case answered
    /// The job runs its transfer with this cache state (a miss to store, a revalidation, an
    /// unsafe method that invalidates).
    case job(CacheJob)
  }

  /// Looks the job up in its session's cache. `request` is the serialized request (session
  /// defaults and the job's headers in); a revalidation adds its conditions to it. A hit
  /// takes `descriptorOutput` (the job's `output_fd`), which is nil after it.
  func beginCache(
    _ job: Job, request: inout Request, session: Session, profile: SessionProfile, client: Client, id: String,
    outputKey: String?, descriptorOutput: inout DescriptorOutput?
  ) -> CacheStart {
    let policy = CachePolicy(rawValue: (job.cache ?? .useProtocol).rawValue) ?? .useProtocol
    let dontLoad = policy == .returnCacheDontLoad
    func notCached(_ why: String) -> CacheStart {
      client.send(.job(id: id, seq: 1, .failed(JobFailure(error: WireError(.notCached, why)))))
      return .answered
    }
    let cached: CacheRequest
    let settings: CacheSettings
    switch cacheRequest(job, request, profile: profile, client: client) {
    case .success(let found): (cached, settings) = found
    case .failure(let bypass): return dontLoad ? notCached(bypass.why) : .uncached
    }
    let name = session.name
    let stored = httpCache.candidates(name, key: cached.key.text)
    let now = JobRun.cacheNow()
    let decision = CacheLookup.decide(cached, policy: policy, candidates: stored.map(\.entry), now: now)
    let mayStore = policy != .noStore && !cached.control.noStore
    func running(_ phase: CacheJob.Phase) -> CacheStart {
      .job(CacheJob(request: cached, session: name, limits: settings, phase: phase))
    }
    func answering() -> JobRun {
      cacheAnswering(
        job, request, session: session, profile: profile, client: client, id: id, outputKey: outputKey)
    }
    switch decision {
    case .serve(let index, let age), .serveNotModified(let index, let age):
      var notModified = false
      if case .serveNotModified = decision { notModified = true }
      let served = StoredAnswer(
        response: stored[index], age: age, notModified: notModified, range: cached.range, now: now,
        dontLoad: dontLoad, mayStore: mayStore)
      return serve(
        served, session: session, descriptorOutput: &descriptorOutput, answering: answering,
        running: running, notCached: notCached)
    case .revalidate(let index, let conditions):
      for c in conditions {
        request.headers.append(
          (name: c.name == "if-none-match" ? "If-None-Match" : "If-Modified-Since", value: c.value))
      }
      return running(.revalidating(stored[index]))
    case .fetch(let store):
      return running(.fetching(store: store))
    case .fail(.notCached):
      return notCached("nothing usable is stored for this request (return_cache_dont_load)")
    case .fail(.onlyIfCached):
      // RFC 9111 5.2.1.7: a 504, as a response, not a failure of the job.
      answering().answerOnlyIfCached()
      countCache(.miss, session: name, slot: session.metricsSlot)
      return .answered
    }
  }

  /// A job the cache answers at its submission is a live job from before its answer starts
  /// until it ends (issue 28): the table holds it as `answering`, so it counts for `max_jobs`
  /// and in `stats`' `running` while its answer goes out, a graceful shutdown waits for it, the
  /// grace period's end or its client's going cancels it, and the table chooses its ending
  /// (`reported`, as for any job; `jobFinished` takes it out of `jobs` again).
  private func cacheAnswering(
    _ job: Job, _ request: Request, session: Session, profile: SessionProfile, client: Client, id: String,
    outputKey: String?
  ) -> JobRun {
    nextSerial += 1
    let run = JobRun(
      serial: nextSerial, id: JobIDKey(id), job: job, request: request, heldRequestBytes: 0, session: session,
      profile: profile, client: client, outputBaseline: outputKey.map { OutputFile.Baseline(of: $0) },
      outputOwner: client.credentials?.outputOwner, daemon: self)
    jobs[run.serial] = run
    feed(.answering(run.serial, session: session.name, client: client.serial), known: run)
    return run
  }

  /// The stored answer could not be used (damaged, or not for this job) before any of it went
  /// out: the job leaves the table without an ending, and runs as a transfer instead.
  func answerWithdrawn(_ run: JobRun) {
    jobs[run.serial] = nil
    feed(.answerWithdrawn(run.serial))
  }

  /// Why the cache takes no part in a job (the message `not_cached` gives when it had to).
  struct CacheBypass: Error {
    var why: String
  }

  /// The job's request as the cache sees it, in the caller's partition, with its session's
  /// settings; or why the cache takes no part.
  private func cacheRequest(_ job: Job, _ request: Request, profile: SessionProfile, client: Client)
    -> Result<(CacheRequest, CacheSettings), CacheBypass>
  {
    guard let settings = profile.config.cache else {
      return .failure(CacheBypass(why: "the session keeps no cache (return_cache_dont_load)"))
    }
    guard job.detach != true, job.durable != true else {
      return .failure(CacheBypass(why: "detached and durable jobs do not use the cache"))
    }
    // A private cache is per user: a client whose uid is unknown shares no one's entries.
    guard let partition = cachePartition(settings, client: client) else {
      return .failure(CacheBypass(why: "the client's user is unknown (no SO_PEERCRED)"))
    }
    guard openHTTPCache() else { return .failure(CacheBypass(why: "the cache cannot be opened")) }
    var headers: CacheHeaderList = []
    headers.reserveCapacity(request.headers.count)
    for h in request.headers { headers.append((TextCheck.asciiLowercased(h.name), h.value)) }
    // Credentials curl adds itself (digest, a per-user cookie jar's cookies) are not among the
    // headers, and the session's secret fields are not all called Authorization: in a shared
    // cache they count as Authorization (RFC 9111 3.5), so another user is never served an
    // answer to them.
    let perUserCookies = profile.config.cookies.map { !$0.shared } ?? false
    let secret = request.headers.contains {
      Request.isSecretHeader($0.name, extra: profile.config.secretHeaders)
    }
    let traits = CacheRequestTraits(
      hasBody: request.body != nil,
      ownTLS: JobRun.tls(profile.tls, job.tls) != JobRun.tls(profile.tls, profile.config.defaults.tls),
      addedCredentials: secret || request.digest != nil || (perUserCookies && job.cookies != false))
    let cached: CacheRequest
    switch CacheAdmission(
      method: request.method, url: request.url, headers: headers, partition: partition, traits: traits)
    {
    case .admitted(let admitted): cached = admitted
    case .bypass(let reason): return .failure(CacheBypass(why: reason.why))
    }
    return .success((cached, settings))
  }

  /// `<state dir>/cache.db` and `<state dir>/cache/`, opened (and swept) at the first cached
  /// job; false (logged once) without a state directory or when they cannot be opened: the
  /// sessions then run uncached.
  func openHTTPCache() -> Bool {
    if httpCache.store != nil { return true }
    if httpCache.unavailable { return false }
    let dir = StateDirectory.resolve(configured: config.stateDirectory, environment: processEnvironment)
    httpCache.onFlushFailure = { [unowned self] error in
      logger.warning(
        "the HTTP cache could not record its hits and updated heads: trying again",
        ["error": "\(error)"])
    }
    if case .failure(let error)? = httpCache.open(stateDirectory: dir, sync: config.journalSync, loop: loop) {
      logger.error(
        "the HTTP cache cannot be opened: sessions run uncached", ["error": "\(error)"],
        event: .cacheUnavailable)
    }
    return httpCache.store != nil
  }

  /// Counts a job's `done.cache` for `stats`.
  func countCache(_ outcome: CacheOutcome, session: String, slot: Int) {
    switch outcome {
    case .hit:
      cacheCounts[session, default: CacheCounts()].hit += 1
      metrics.recordCacheLookup(slot: slot, .hit)
    case .revalidated:
      cacheCounts[session, default: CacheCounts()].revalidated += 1
      metrics.recordCacheLookup(slot: slot, .revalidated)
    case .miss:
      cacheCounts[session, default: CacheCounts()].miss += 1
      metrics.recordCacheLookup(slot: slot, .miss)
    }
  }

  /// `stats`' `cache` member: per session with a cache, its counters and its size.
  func cacheStats() -> JSONValue? {
    var o = JSONObject()
    for name in sessions.keys.sorted() {
      guard sessions[name]?.profile?.config.cache != nil else { continue }
      let counts = cacheCounts[name] ?? CacheCounts()
      let entries = httpCache.sessions[name]
      o.append(
        key: name,
        value: [
          "hit": .number(JSONNumber(counts.hit)), "revalidated": .number(JSONNumber(counts.revalidated)),
          "miss": .number(JSONNumber(counts.miss)), "entries": .number(JSONNumber(entries?.count ?? 0)),
          "bytes": .number(JSONNumber(validatedText: String(entries?.bytes ?? 0))),
        ])
    }
    return o.members.isEmpty ? nil : .object(o)
  }

  /// The caller's partition in a session's cache: nil when the session has none, or it is
  /// private and the caller's uid is unknown.
  private func cachePartition(_ settings: CacheSettings, client: Client) -> CachePartition? {
    if settings.shared { return .shared }
    return client.credentials.map { .user($0.uid) }
  }

  /// The session and its cache settings of an op, or nil after sending `unknown_session`.
  private func cacheOpTarget(_ name: String?, client: Client) -> (String, CacheSettings?)? {
    let name = name ?? "default"
    guard let profile = sessions[name]?.profile else {
      client.send(.error(WireError(.unknownSession, "no session named \(name)", field: "session"), id: nil))
      return nil
    }
    return (name, profile.config.cache)
  }

  /// `{"op":"cache"}`: the session's cache: entries, bytes, counters; the URLs (with status,
  /// size, hits) of the caller's own partition only, at most `cacheListLimit`.
  func cacheOp(session: String?, client: Client) {
    guard let (name, settings) = cacheOpTarget(session, client: client) else { return }
    var o = JSONObject()
    o.append(key: "session", value: .string(name))
    guard let settings, openHTTPCache() else {
      o.append(key: "enabled", value: false)
      // Configured, but the store cannot be opened (logged once): its jobs run uncached.
      if settings != nil { o.append(key: "unavailable", value: true) }
      return client.send(.payload(name: "cache", o))
    }
    let entries = httpCache.sessions[name]
    let counts = cacheCounts[name] ?? CacheCounts()
    o.append(key: "enabled", value: true)
    o.append(key: "shared", value: .bool(settings.shared))
    o.append(key: "max_bytes", value: .number(JSONNumber(validatedText: String(settings.maxBytes))))
    o.append(key: "max_entries", value: .number(JSONNumber(settings.maxEntries)))
    o.append(key: "entries", value: .number(JSONNumber(entries?.count ?? 0)))
    o.append(key: "bytes", value: .number(JSONNumber(validatedText: String(entries?.bytes ?? 0))))
    o.append(
      key: "hits",
      value: [
        "hit": .number(JSONNumber(counts.hit)), "revalidated": .number(JSONNumber(counts.revalidated)),
        "miss": .number(JSONNumber(counts.miss)),
      ])
    var mine: [CachedResponse] = []
    if let partition = cachePartition(settings, client: client), let entries {
      for list in entries.byKey.values {
        for r in list where r.entry.key.partition == partition { mine.append(r) }
      }
    }
    mine.sort { ($0.entry.key.url.text, $0.variant) < ($1.entry.key.url.text, $1.variant) }
    var list: [JSONValue] = []
    let secrets = sessions[name]?.profile?.config.secretHeaders ?? []
    for r in mine.prefix(Self.cacheListLimit) {
      var row = JSONObject([
        "url": .string(r.entry.key.url.text), "status": .number(JSONNumber(r.entry.status)),
        "bytes": .number(JSONNumber(validatedText: String(r.bodyBytes))),
        "hits": .number(JSONNumber(validatedText: String(r.hits))),
        "stored": .number(JSONNumber(validatedText: String(r.entry.responseTime))),
      ])
      if !r.entry.varyValues.isEmpty {
        row.append(
          key: "vary", value: Self.varyListing(r.entry.varyValues, shared: settings.shared, secrets: secrets))
      }
      list.append(.object(row))
    }
    o.append(key: "urls", value: .array(list))
    if mine.count > Self.cacheListLimit { o.append(key: "truncated", value: true) }
    client.send(.payload(name: "cache", o))
  }

  /// The most URLs the `cache` op lists.
  static let cacheListLimit = 1_000

  /// A variant's selecting request fields for the `cache` op (`Vary`), so that variants of one
  /// URL can be told apart: name → the value the stored request had (null: it had none). A
  /// value is `<redacted>` when it could be another user's or a credential: in a shared cache
  /// (its requests were anyone's), and for credential and secret fields (`Authorization`,
  /// `Cookie`, the session's `secret_headers`) in any cache.
  static func varyListing(
    _ values: [(name: String, value: String?)], shared: Bool, secrets: Set<String>
  ) -> JSONValue {
    var o = JSONObject()
    for (name, value) in values {
      guard let value else {
        o.append(key: name, value: .null)
        continue
      }
      let hidden = shared || Request.isSecretHeader(name, extra: secrets)
      o.append(key: name, value: .string(hidden ? "<redacted>" : value))
    }
    return .object(o)
  }

  /// `{"op":"purge"}`: removes the entries of `url` (every variant), or all, of the caller's
  /// partition; a shared session's by any user allowed to use it. With `all`, the answer waits
  /// for the entries' rows and bodies, removed a slice per loop iteration (`CachePurge`), so
  /// other clients are served meanwhile.
  func purgeOp(session: String?, url: String?, all: Bool, client: Client) {
    guard let (name, settings) = cacheOpTarget(session, client: client) else { return }
    var removed = 0
    if let settings, let partition = cachePartition(settings, client: client), openHTTPCache() {
      if all {
        let count = httpCache.purgeAll(partition: partition, session: name)
        guard let purge = httpCache.purge else { return Self.sendPurged(name, count, to: client) }
        return purge.whenDone { [unowned self] error in
          guard let error else { return Self.sendPurged(name, count, to: client) }
          logger.warning("cache purge failed", ["session": name, "error": "\(error)"])
          client.send(.error(WireError(.storeFailed, "the cache could not be purged: \(error)"), id: nil))
        }
      } else if let url {
        guard let parsed = CacheURL(url) else {
          return client.send(.error(WireError.invalidJob("url", "url: expected an http(s) URL"), id: nil))
        }
        removed = httpCache.invalidate([parsed], partition: partition, session: name)
      }
    }
    Self.sendPurged(name, removed, to: client)
  }

  private static func sendPurged(_ session: String, _ removed: Int, to client: Client) {
    var o = JSONObject()
    o.append(key: "session", value: .string(session))
    o.append(key: "removed", value: .number(JSONNumber(removed)))
    client.send(.payload(name: "purged", o))
  }
}

/// A session's `done.cache` counts, for `stats` and the `cache` op.
struct CacheCounts {
  var hit = 0
  var revalidated = 0
  var miss = 0
}
