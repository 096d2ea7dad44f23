import FerryCache
import FerryStore

/// One stored response as the daemon holds it in memory: the entry the pure core decides on,
/// and where its body is. The index's rows are loaded once, at the cache's first use; every
/// lookup after that reads only memory (docs/CACHE.md, "The store").
struct CachedResponse: Sendable {
  var entry: CacheEntry
  /// The Vary values as the index's `variant` text ("" without Vary).
  var variant: String
  var bodyFile: String
  var bodyBytes: Int64
  var sha256: [UInt8]
  /// The body's SHA-256 was checked since this daemon started (or it wrote the body): later
  /// reads check only the size.
  var verified: Bool
  var hits: Int64
  var lastUse: Int64

  /// What the entry counts against `max_bytes` in `session`: its body file's blocks of `block`
  /// bytes and its index row (`CacheFootprint`), not only the body's and fields' bytes (a
  /// 1-byte body takes a 4 KiB block and a row of a few hundred bytes: issue 26).
  func size(session: String, block: Int64) -> Int64 {
    var vary = 0
    for v in entry.varyValues { vary += v.name.utf8.count + (v.value?.utf8.count ?? 0) + 4 }
    let row = CacheFootprint.rowBytes(
      session: session.utf8.count, key: entry.key.text.utf8.count, variant: variant.utf8.count,
      url: entry.key.url.text.utf8.count, partition: Self.partitionText(entry.key.partition).utf8.count,
      fields: Int(Self.headerBytes(entry.headers)) + vary, bodyName: bodyFile.utf8.count)
    return CacheFootprint.bytes(body: bodyBytes, rowBytes: row, block: block)
  }

  /// The entry's id in the session's eviction order.
  var id: String { Self.id(key: entry.key.text, variant: variant) }
  /// Whose share of `max_bytes` the entry uses.
  var partition: CachePartition { entry.key.partition }

  static func id(key: String, variant: String) -> String { key + "\n" + variant }

  static func headerBytes(_ headers: CacheHeaderList) -> Int64 {
    var n = 0
    for h in headers { n += h.name.utf8.count + h.value.utf8.count + 4 }
    return Int64(n)
  }

  /// The canonical text of an entry's Vary values: name, `=`, value (`\u{1E}` for absent),
  /// joined by `\u{1F}`; "" without Vary.
  static func variant(_ values: [(name: String, value: String?)]) -> String {
    var text = ""
    for (i, v) in values.enumerated() {
      if i > 0 { text += "\u{1F}" }
      text += v.name + "=" + (v.value ?? "\u{1E}")
    }
    return text
  }

  /// The index row for this response in `session`.
  func row(session: String) -> CacheStore.Row {
    CacheStore.Row(
      session: session, key: entry.key.text, variant: variant, url: entry.key.url.text,
      partition: Self.partitionText(entry.key.partition), status: entry.status,
      headers: CacheStore.encode(entry.headers.map { ($0.name, $0.value) }),
      vary: CacheStore.encode(entry.varyValues), requestTime: entry.requestTime,
      responseTime: entry.responseTime, bodyFile: bodyFile, bodyBytes: bodyBytes, bodySHA256: sha256,
      lastUse: lastUse, hits: hits)
  }

  /// The response a row holds; nil when the row does not make one (damaged, or written by a
  /// build whose key it does not re-derive).
  init?(row: CacheStore.Row) {
    guard let url = CacheURL(row.url), let partition = Self.partition(row.partition),
      let headers = CacheStore.decode(row.headers), let vary = CacheStore.decode(row.vary)
    else { return nil }
    let key = CacheKey(partition: partition, method: "GET", url: url)
    guard key.text == row.key, headers.allSatisfy({ $0.value != nil }) else { return nil }
    entry = CacheEntry(
      key: key, status: row.status, headers: headers.map { ($0.name, $0.value ?? "") }, varyValues: vary,
      requestTime: row.requestTime, responseTime: row.responseTime)
    variant = row.variant
    guard variant == Self.variant(vary) else { return nil }
    bodyFile = row.bodyFile
    bodyBytes = row.bodyBytes
    sha256 = row.bodySHA256
    verified = false
    hits = row.hits
    lastUse = row.lastUse
  }

  init(entry: CacheEntry, bodyFile: String, bodyBytes: Int64, sha256: [UInt8], now: Int64) {
    self.entry = entry
    self.variant = Self.variant(entry.varyValues)
    self.bodyFile = bodyFile
    self.bodyBytes = bodyBytes
    self.sha256 = sha256
    self.verified = true
    self.hits = 0
    self.lastUse = now
  }

  static func partitionText(_ p: CachePartition) -> String {
    switch p {
    case .user(let uid): "u\(uid)"
    case .shared: "shared"
    }
  }

  static func partition(_ text: String) -> CachePartition? {
    if text == "shared" { return .shared }
    guard text.hasPrefix("u"), let uid = UInt32(text.dropFirst()) else { return nil }
    return .user(uid)
  }
}
