import FerryCache

/// A response as the simulated client receives it.
struct SimResponse {
  var status: Int
  var headers: CacheHeaderList
  var body: String
  /// How the cache answered: "hit", "revalidated", "miss", "stale" or "failed".
  var source: String

  func header(_ name: String) -> String? { CacheFields.combined(name.lowercased(), in: headers) }
}

/// What the simulated origin is asked to answer.
struct SimOriginAnswer {
  var status: Int
  var headers: CacheHeaderList
  var body: String
  /// Seconds the origin takes before the head arrives.
  var delay: Int64 = 0
}

/// The driver the next session builds, in memory: the store is an array of entries with bodies,
/// the network a closure. It runs FerryCache's decisions exactly as the daemon will, so
/// scenario and corpus tests exercise the pure core end to end.
struct CacheSimulator {
  var partition: CachePartition
  var now: Int64 = 1_700_000_000
  var entries: [(entry: CacheEntry, body: String)] = []
  /// Every request the origin saw: its headers.
  var originRequests: [CacheHeaderList] = []

  init(partition: CachePartition = .user(1000)) { self.partition = partition }

  /// Sends one request through the cache; `origin` answers the headers sent at the time given
  /// (nil: the connection fails).
  mutating func send(
    _ url: String, headers: CacheHeaderList = [], policy: CachePolicy = .useProtocol,
    origin: (CacheHeaderList, Int64) -> SimOriginAnswer?
  ) -> SimResponse? {
    send("GET", url, headers: headers, policy: policy, origin: origin)
  }

  mutating func send(
    _ method: String, _ url: String, headers: CacheHeaderList = [], policy: CachePolicy = .useProtocol,
    origin: (CacheHeaderList, Int64) -> SimOriginAnswer?
  ) -> SimResponse? {
    guard let request = CacheRequest(method: method, url: url, headers: headers, partition: partition) else {
      return nil
    }
    let candidates = entries.map(\.entry)
    switch CacheLookup.decide(request, policy: policy, candidates: candidates, now: now) {
    case .serve(let index, let age) where request.range != nil:
      // The slice of a stored complete 200 as a 206, as ferryd cuts it; else the origin's.
      let stored = entries[index]
      let body = Array(stored.body.utf8)
      guard stored.entry.status == 200, let cut = request.range!.resolve(length: Int64(body.count)) else {
        return fetch(request, headers: headers, store: false, origin: origin)
      }
      let part = String(decoding: body[Int(cut.lowerBound)...Int(cut.upperBound)], as: UTF8.self)
      return SimResponse(
        status: 206,
        headers: ByteRange.partialHeaders(
          stored.entry.servedHeaders(age: age), slice: cut, length: Int64(body.count)),
        body: part, source: "hit")
    case .serve(let index, let age):
      return SimResponse(
        status: entries[index].entry.status, headers: entries[index].entry.servedHeaders(age: age),
        body: entries[index].body, source: "hit")
    case .serveNotModified(let index, let age):
      return SimResponse(
        status: 304, headers: entries[index].entry.notModifiedHeaders(age: age), body: "", source: "hit")
    case .fail(let failure):
      return failure == .onlyIfCached
        ? SimResponse(status: 504, headers: [], body: "", source: "failed") : nil
    case .fetch(let store):
      return fetch(request, headers: headers, store: store, origin: origin)
    case .revalidate(let index, let conditions):
      let requestTime = now
      originRequests.append(headers + conditions)
      guard let answer = origin(headers + conditions, now) else {
        return staleOrGatewayTimeout(
          index, CacheRevalidation.afterFailure(entry: entries[index].entry, request: request))
      }
      now += answer.delay
      let outcome = CacheRevalidation(
        entry: entries[index].entry, request: request, status: answer.status, headers: answer.headers,
        requestTime: requestTime, responseTime: now)
      switch outcome {
      case .serveStored(let updated):
        entries[index].entry = updated
        return served(index, source: "revalidated")
      case .serveStale:
        return served(index, source: "stale")
      case .refetch:
        return fetch(request, headers: headers, store: true, origin: origin)
      case .forward(let replacement, let dropStored):
        if dropStored { entries.remove(at: index) }
        if let replacement { put(replacement, body: answer.body) }
        return SimResponse(status: answer.status, headers: answer.headers, body: answer.body, source: "miss")
      }
    }
  }

  private mutating func fetch(
    _ request: CacheRequest, headers: CacheHeaderList, store: Bool,
    origin: (CacheHeaderList, Int64) -> SimOriginAnswer?
  ) -> SimResponse? {
    let requestTime = now
    originRequests.append(headers)
    guard let answer = origin(headers, now) else { return Self.gatewayTimeout }
    now += answer.delay
    if store,
      let entry = CacheEntry.storing(
        request, status: answer.status, headers: answer.headers, requestTime: requestTime, responseTime: now)
    {
      put(entry, body: answer.body)
    }
    let stale = CacheInvalidation.targets(for: request, status: answer.status, headers: answer.headers)
    entries.removeAll { entry in stale.contains(entry.entry.key.url) && entry.entry.key.partition == partition
    }
    return SimResponse(status: answer.status, headers: answer.headers, body: answer.body, source: "miss")
  }

  /// Stores `entry`, replacing the entry of the same key and the same Vary values.
  private mutating func put(_ entry: CacheEntry, body: String) {
    entries.removeAll { stored in
      stored.entry.key == entry.key
        && stored.entry.varyValues.elementsEqual(entry.varyValues) {
          $0.name == $1.name && $0.value == $1.value
        }
    }
    entries.append((entry, body))
  }

  private func served(_ index: Int, source: String) -> SimResponse {
    let entry = entries[index].entry
    let age = Freshness(entry: entry, control: entry.control, shared: partition.isShared, now: now).age
    return SimResponse(
      status: entry.status, headers: entry.servedHeaders(age: age), body: entries[index].body, source: source)
  }

  private func staleOrGatewayTimeout(_ index: Int, _ outcome: CacheRevalidation) -> SimResponse {
    if case .serveStale = outcome { return served(index, source: "stale") }
    return Self.gatewayTimeout
  }

  /// What a proxy answers for a failed transfer; the daemon reports a `failed` event instead.
  static let gatewayTimeout = SimResponse(status: 504, headers: [], body: "", source: "failed")
}
