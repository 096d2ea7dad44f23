import FerryCache
import FerryLoop
import FerryStore

/// The sessions' HTTP caches in memory over their store (issue 17, docs/CACHE.md): the index
/// `cache.db` and the body files, loaded once at first use; the entries of each session by key,
/// and its least-recently-used order within `max_bytes`. All of it runs on the loop.
///
/// Writes: a stored response's row is committed (after its body file is durable) before the
/// job's `done` goes out; hits only move `last_use` and `hits`, which are written in one
/// transaction a second later (`flushUses`), or at shutdown: losing them to a crash only makes
/// eviction order a little older.
@MainActor final class HTTPCache {
  /// One session's entries.
  final class SessionEntries {
    var byKey: [String: [CachedResponse]] = [:]
    /// Per partition: eviction takes from the user holding the most bytes first.
    var order = SharedEvictionOrder<CachePartition, String>()
    var hits = 0
    var revalidated = 0
    var misses = 0

    var count: Int { order.count }
    var bytes: Int64 { order.totalBytes }
  }

  private(set) var store: CacheStore?
  private(set) var bodies: CacheBodyFiles?
  /// Purged entries, removed from the store in slices (`purgeAll`).
  private(set) var purge: CachePurge?
  /// Opening failed, or there is no state directory (logged once): no session caches.
  private(set) var unavailable = false
  private var loaded = false
  private(set) var sessions: [String: SessionEntries] = [:]
  /// Entries whose `last_use` and `hits` changed since the last flush: (session, key, variant).
  private var dirty: Set<[String]> = []
  /// Entries whose head a 304 updated since the last flush (the body is the same).
  private var rewritten: Set<[String]> = []
  private var flushTimer: Timer?
  /// Told of each flush that failed (the daemon logs it).
  var onFlushFailure: ((StoreError) -> Void)?
  /// The body directory's filesystem block: an entry's size counts its body in whole blocks.
  private(set) var blockBytes = CacheFootprint.defaultBlockBytes

  /// Opens the store under `stateDirectory` and loads it; false when the cache cannot work
  /// (the caller logs `error` once).
  func open(stateDirectory: String?, sync: JournalSync, loop: EventLoop) -> Result<Void, StoreError>? {
    guard !loaded else { return nil }
    loaded = true
    guard let dir = stateDirectory else {
      unavailable = true
      return .failure(StoreError(.cannotOpen, "no state directory"))
    }
    do throws(StoreError) {
      try StateDirectory.prepare(dir)
      let store = try CacheStore(path: dir + "/cache.db", sync: sync)
      let bodies = try CacheBodyFiles(path: dir + "/cache", syncs: sync == .full)
      blockBytes = bodies.blockBytes ?? CacheFootprint.defaultBlockBytes
      var names: Set<String> = []
      var damaged: [(session: String, key: String, variant: String)] = []
      for row in try store.all() {
        guard let response = CachedResponse(row: row) else {
          damaged.append((row.session, row.key, row.variant))
          continue
        }
        names.insert(response.bodyFile)
        let entries = self.entries(row.session)
        entries.byKey[response.entry.key.text, default: []].append(response)
        entries.order.insert(response.id, in: response.partition, bytes: size(response, row.session))
      }
      if !damaged.isEmpty { try store.put(nil, removing: damaged) }
      // Bodies no row names: an interrupted store, or files whose row went first.
      bodies.sweep(keeping: names)
      self.store = store
      self.bodies = bodies
      purge = CachePurge(store: store, bodies: bodies, loop: loop)
      flushTimer = Timer(loop: loop) { [unowned self] in _ = self.flushUses() }
      return .success(())
    } catch {
      unavailable = true
      sessions = [:]
      return .failure(error)
    }
  }

  /// The most variants (Vary values) one key keeps.
  static let maxVariants = 16

  /// What `response` counts against its session's `max_bytes` (`CachedResponse.size`).
  func size(_ response: CachedResponse, _ session: String) -> Int64 {
    response.size(session: session, block: blockBytes)
  }

  /// The entries of `session`, made when missing.
  func entries(_ session: String) -> SessionEntries {
    if let found = sessions[session] { return found }
    let made = SessionEntries()
    sessions[session] = made
    return made
  }

  /// The stored responses of `key` in `session` (every variant).
  func candidates(_ session: String, key: String) -> [CachedResponse] {
    sessions[session]?.byKey[key] ?? []
  }

  /// A hit or a revalidation of `response`: it moves to the front of its session's order.
  func used(_ response: CachedResponse, session: String, now: Int64) {
    guard let entries = sessions[session], var list = entries.byKey[response.entry.key.text],
      let i = list.firstIndex(where: { $0.variant == response.variant })
    else { return }
    list[i].hits += 1
    list[i].lastUse = now
    list[i].verified = list[i].verified || response.verified
    entries.byKey[response.entry.key.text] = list
    entries.order.use(response.id, in: response.partition)
    dirty.insert([session, response.entry.key.text, response.variant])
    if flushTimer?.isScheduled == false { flushTimer?.schedule(afterMs: 1_000) }
  }

  /// `response`'s body was read whole and hashed to its SHA-256: later reads check its size.
  func markVerified(_ response: CachedResponse, session: String) {
    guard !response.verified, let entries = sessions[session],
      var list = entries.byKey[response.entry.key.text],
      let i = list.firstIndex(where: { $0.variant == response.variant })
    else { return }
    list[i].verified = true
    entries.byKey[response.entry.key.text] = list
  }

  /// Writes the `last_use` and `hits` of the entries used since the last flush, and the heads
  /// a 304 updated. A write that fails (the database busy or full) keeps what it did not write
  /// for the next flush, a few seconds later, and returns the error for the caller to log: the
  /// updated heads and use counts are never dropped silently (issue 28).
  @discardableResult
  func flushUses() -> StoreError? {
    guard let store, !dirty.isEmpty || !rewritten.isEmpty else { return nil }
    var rows: [CacheStore.Row] = []
    for d in rewritten {
      guard let r = sessions[d[0]]?.byKey[d[1]]?.first(where: { $0.variant == d[2] }) else { continue }
      rows.append(r.row(session: d[0]))
    }
    var uses: [(session: String, key: String, variant: String, lastUse: Int64, hits: Int64)] = []
    for d in dirty where !rewritten.contains(d) {
      guard let r = sessions[d[0]]?.byKey[d[1]]?.first(where: { $0.variant == d[2] }) else { continue }
      uses.append((d[0], d[1], d[2], r.lastUse, r.hits))
    }
    do throws(StoreError) {
      try store.rewrite(rows)
      rewritten.removeAll()
      try store.touch(uses)
      dirty.removeAll()
      return nil
    } catch {
      // Each write is one transaction: what failed is still all in `rewritten` or `dirty`.
      if flushTimer?.isScheduled == false { flushTimer?.schedule(afterMs: Self.flushRetryMs) }
      onFlushFailure?(error)
      return error
    }
  }

  /// How long a failed flush waits before it tries again.
  static let flushRetryMs = 5_000

  /// Stores the body `writer` holds as `entry`'s (replacing the entry of the same key and
  /// variant) and evicts to fit the session's `max_bytes` and `max_entries`: the body file is
  /// made durable, then the row is committed with the victims' rows deleted, then the old files
  /// go. Nothing is stored when anything fails, or when the entry alone is larger than
  /// `max_bytes`.
  @discardableResult
  func store(
    _ entry: CacheEntry, body writer: CacheBodyFiles.Writer, session: String, limits: CacheSettings,
    now: Int64
  ) -> Bool {
    guard let store, let bodies else { return false }
    guard let (name, sha) = bodies.commit(writer) else { return false }
    let response = CachedResponse(
      entry: entry, bodyFile: name, bodyBytes: writer.bytes, sha256: sha, now: now)
    let bytes = size(response, session)
    guard bytes <= limits.maxBytes else {
      bodies.remove(name)
      return false
    }
    let entries = self.entries(session)
    let key = entry.key.text
    let replaced = entries.byKey[key]?.first { $0.variant == response.variant }
    // A key holds at most `maxVariants` (Vary values): past it the oldest variant goes, so a
    // server (or a client) varying on a field cannot make one key's lookups long.
    if replaced == nil, let list = entries.byKey[key], list.count >= Self.maxVariants,
      let oldest = list.min(by: { $0.entry.responseTime < $1.entry.responseTime })
    {
      forget(oldest, in: entries, removeRow: true)
    }
    entries.order.insert(response.id, in: response.partition, bytes: bytes)
    let victims = entries.order.victims(maxBytes: limits.maxBytes, maxEntries: limits.maxEntries)
    // The new entry would itself go: its user holds the most, and it does not fit beside what
    // the others keep of their share. Nothing is stored; what was there stays.
    guard !victims.contains(where: { $0.key == response.id && $0.partition == response.partition }) else {
      withdraw(response, restoring: replaced, body: name, in: entries, session)
      return false
    }
    var removing: [(session: String, key: String, variant: String)] = []
    var victimResponses: [CachedResponse] = []
    for (_, id) in victims {
      guard let newline = id.firstIndex(of: "\n") else { continue }
      let k = String(id[..<newline])
      let v = String(id[id.index(after: newline)...])
      if let r = entries.byKey[k]?.first(where: { $0.variant == v }) { victimResponses.append(r) }
      removing.append((session, k, v))
    }
    do throws(StoreError) {
      try store.put(response.row(session: session), removing: removing)
    } catch {
      // The index did not take it: the order goes back to what the index holds.
      withdraw(response, restoring: replaced, body: name, in: entries, session)
      return false
    }
    if let replaced { bodies.remove(replaced.bodyFile) }
    var list = entries.byKey[key] ?? []
    list.removeAll { $0.variant == response.variant }
    list.append(response)
    entries.byKey[key] = list
    for victim in victimResponses { forget(victim, in: entries, removeRow: false) }
    return true
  }

  /// A response `store` counted in the eviction order but does not keep: the order goes back to
  /// what the index holds (the entry it would have replaced counts again) and its body file goes.
  private func withdraw(
    _ response: CachedResponse, restoring replaced: CachedResponse?, body name: String,
    in entries: SessionEntries, _ session: String
  ) {
    entries.order.remove(response.id, in: response.partition)
    if let replaced {
      entries.order.insert(replaced.id, in: replaced.partition, bytes: size(replaced, session))
    }
    bodies?.remove(name)
  }

  /// A revalidated entry's new head (a 304's fields merged in) replaces the stored one; the
  /// body stays. Written with the next flush of uses, not at once: a crash before it leaves the
  /// old head, whose entry is only older (it revalidates again), never wrong.
  func update(_ response: CachedResponse, session: String) {
    guard let entries = sessions[session], var list = entries.byKey[response.entry.key.text],
      let i = list.firstIndex(where: { $0.variant == response.variant })
    else { return }
    list[i] = response
    entries.byKey[response.entry.key.text] = list
    entries.order.insert(response.id, in: response.partition, bytes: size(response, session))
    rewritten.insert([session, response.entry.key.text, response.variant])
    if flushTimer?.isScheduled == false { flushTimer?.schedule(afterMs: 1_000) }
  }

  /// Drops one entry (found damaged at serve time, or superseded by a revalidation's answer).
  func drop(_ response: CachedResponse, session: String) {
    guard let entries = sessions[session] else { return }
    forget(response, in: entries, removeRow: true)
  }

  /// Drops every entry of `urls` in `partition` (all variants): RFC 9111 4.4's invalidation, and
  /// `purge`. Returns how many went.
  @discardableResult
  func invalidate(_ urls: [CacheURL], partition: CachePartition, session: String) -> Int {
    guard let entries = sessions[session] else { return 0 }
    var gone = 0
    for url in urls {
      let key = CacheKey(partition: partition, method: "GET", url: url).text
      for response in entries.byKey[key] ?? [] {
        forget(response, in: entries, removeRow: true)
        gone += 1
      }
    }
    return gone
  }

  /// Drops every entry of `partition` in `session` from memory at once and queues them on
  /// `purge`, which deletes their rows and then their bodies a slice per loop iteration (the
  /// caller waits with `purge.whenDone`). Returns how many went.
  @discardableResult
  func purgeAll(partition: CachePartition, session: String) -> Int {
    guard let entries = sessions[session], let purge else { return 0 }
    var items: [CachePurge.Item] = []
    for (key, list) in entries.byKey {
      let kept = list.filter { $0.entry.key.partition != partition }
      guard kept.count != list.count else { continue }
      for response in list where response.entry.key.partition == partition {
        entries.order.remove(response.id, in: response.partition)
        items.append(
          CachePurge.Item(session: session, key: key, variant: response.variant, bodyFile: response.bodyFile))
      }
      entries.byKey[key] = kept.isEmpty ? nil : kept
    }
    purge.remove(items)
    return items.count
  }

  private func forget(_ response: CachedResponse, in entries: SessionEntries, removeRow: Bool) {
    let key = response.entry.key.text
    guard var list = entries.byKey[key], let i = list.firstIndex(where: { $0.variant == response.variant })
    else { return }
    let file = list[i].bodyFile
    list.remove(at: i)
    entries.byKey[key] = list.isEmpty ? nil : list
    entries.order.remove(response.id, in: response.partition)
    if removeRow, let store, let session = sessions.first(where: { $0.value === entries })?.key {
      // The row first: a crash between the two leaves an orphan file, swept at start. A row
      // that could not be deleted keeps its body: a row never names a removed file.
      do throws(StoreError) {
        try store.put(nil, removing: [(session, key, response.variant)])
      } catch {
        return
      }
    }
    bodies?.remove(file)
  }
}
