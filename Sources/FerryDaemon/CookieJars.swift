import FerryLoop
import FerrySession
import FerryStore
import FerryWire

/// The cookie jars of every session, by session name and owner (a client uid, or one per
/// session under `"shared": true`), and the rules that bound them (docs/CONFIG.md, "Cookies").
///
/// A jar is made when the first job of its owner in the session starts (or the owner asks for
/// it), loaded from the store when the session persists cookies. A session holds at most
/// `max_jars_per_session` in memory: past it, the least recently used jar that no live job
/// holds (`CookieLease`) and no save waits for is dropped; a persisted one is still in the
/// store. A jar is bounded in cookies per domain, cookies and bytes after every change that may
/// take it past them, and at every save: past the bounds its oldest cookies (by when ferry
/// first stored them) go. All of it runs on the loop.
@MainActor final class CookieJars {
  struct Key: Hashable {
    var session: String
    var owner: Int64
  }

  /// One jar and what ferry knows beside curl: when each cookie was first stored.
  @MainActor final class Entry {
    let key: Key
    let jar: CookieJar
    /// Saved to the store. False for a jar whose load failed (issue 28): saving it would
    /// replace the stored cookies with whatever this empty start collects.
    var persist: Bool
    var lastUsedMs: UInt64 = 0
    var leases = 0
    /// Changed since its last save (`CookieJars.changed`); never dropped to make room.
    var isDirty = false
    /// `domain\tpath\tname` → wall-clock ms the cookie was first stored.
    var firstStored: [String: Int64] = [:]
    /// The lines the store holds for the jar (as last written or loaded): a save writes only
    /// the difference, and nothing when there is none.
    var savedLines: Set<String> = []
    /// What the bound of the jar's last change kept, for its save (`Daemon.saveNow`).
    var boundRows: [CookieStore.Row]?
    /// At most what the jar holds: what its last bound found, grown by the `Set-Cookie` fields
    /// that came since; nil when not known (loaded, or changed by other means).
    var size: CookieJarSize?

    init(key: Key, jar: CookieJar, persist: Bool) {
      self.key = key
      self.jar = jar
      self.persist = persist
    }
  }

  private(set) var entries: [Key: Entry] = [:]
  /// Jars changed since their last save, in the order they changed.
  private(set) var dirty: [Entry] = []
  /// Saves the dirty jars at the end of the loop iteration (`Daemon.saveDirtyCookieJars`).
  var saveTimer: Timer?
  /// Reads a jar's rows: the store's `load`; a test's hook to make it fail.
  var loadRows: (CookieStore, Key) throws(StoreError) -> [CookieStore.Row] = {
    store, key throws(StoreError) in
    try store.load(session: key.session, owner: key.owner)
  }
  /// `cookies.db`, opened on first use; nil before, or when it cannot be opened.
  var store: CookieStore?
  var storeUnavailable = false

  /// The jar for `key`, made (and loaded from `store`) when missing. A jar whose load fails
  /// starts empty, is never saved (`persist` false) and is reported to `failed`.
  func entry(
    _ key: Key, persist: Bool, limits: DaemonConfig.CookieLimits, nowMs: UInt64, wallMs: Int64,
    store: () -> CookieStore?, failed: (StoreError) -> Void = { _ in }
  ) -> Entry? {
    if let found = entries[key] {
      found.lastUsedMs = nowMs
      return found
    }
    guard let jar = CookieJar() else { return nil }
    let entry = Entry(key: key, jar: jar, persist: persist)
    entry.lastUsedMs = nowMs
    if persist, let store = store() {
      do throws(StoreError) {
        fill(entry, with: try loadRows(store, key), limits: limits, wallMs: wallMs)
      } catch {
        entry.persist = false
        failed(error)
      }
    }
    evictIdle(session: key.session, keeping: limits.maxJarsPerSession - 1)
    entries[key] = entry
    return entry
  }

  private func fill(
    _ entry: Entry, with rows: [CookieStore.Row], limits: DaemonConfig.CookieLimits, wallMs: Int64
  ) {
    let ttlMs = Int64(limits.sessionCookieTTLSeconds) * 1000
    var lines: [String] = []
    for row in rows {
      guard let cookie = CookieLine(row.line) else { continue }
      let first = row.firstMs ?? wallMs
      // A session cookie survives restarts until the TTL, counted from when it was stored.
      if cookie.isSession, wallMs - first >= ttlMs { continue }
      entry.firstStored[cookie.identity] = first
      lines.append(row.line)
    }
    entry.jar.add(lines)
    // What the store holds is rows, not `lines`: the next save writes when they differ.
    entry.savedLines = Set(rows.map(\.line))
  }

  /// `entry` changed (a `Set-Cookie` came, or an op changed it): saved with the other dirty
  /// jars once, at the end of the loop iteration or before any client's events go out.
  func changed(_ entry: Entry) {
    guard !entry.isDirty else { return }
    entry.isDirty = true
    dirty.append(entry)
  }

  /// The dirty jars, which are clean from now on.
  func takeDirty() -> [Entry] {
    let taken = dirty
    dirty.removeAll()
    for entry in taken { entry.isDirty = false }
    return taken
  }

  /// Drops least recently used jars of `session` that no live job holds until at most `count`
  /// are left (or only held ones).
  private func evictIdle(session: String, keeping count: Int) {
    var mine = entries.values.filter { $0.key.session == session }
    guard mine.count > count else { return }
    mine.sort { $0.lastUsedMs < $1.lastUsedMs }
    var excess = mine.count - count
    for entry in mine where excess > 0 && entry.leases == 0 && !entry.isDirty {
      entries[entry.key] = nil
      excess -= 1
    }
  }

  /// One cookie of a jar being bounded.
  private struct Bounded {
    var line: String
    var identity: String
    var domain: String
    var first: Int64
    var kept = true
  }

  /// Bounds the jar after a change: returns the lines it keeps, with when each was first
  /// stored, and records the jar's size (`Entry.size`).
  ///
  /// A domain past `maxCookiesPerDomain` loses its oldest cookies until
  /// `cookiesKeptPerDomain` are left; then, past `maxCookiesPerJar` or `maxJarBytes`, the
  /// jar's oldest go. It runs for every response that set cookies unless the jar surely stays
  /// within them (`CookieJarSize`), so under the bounds it only reads each line's identity,
  /// and sorts and rebuilds `firstStored` only when it must (issue 26).
  func bound(_ entry: Entry, limits: DaemonConfig.CookieLimits, wallMs: Int64) -> [CookieStore.Row] {
    var cookies: [Bounded] = []
    var bytes = 0
    var added = false
    var perDomain: [String: Int] = [:]
    for line in entry.jar.lines() {
      guard let identity = CookieLine.identity(of: line) else { continue }
      let first = entry.firstStored[identity]
      added = added || first == nil
      let domain = CookieLine.domainKey(ofIdentity: identity)
      cookies.append(Bounded(line: line, identity: identity, domain: domain, first: first ?? wallMs))
      bytes += line.utf8.count
      perDomain[domain, default: 0] += 1
    }
    var kept = (count: cookies.count, bytes: bytes)
    var fullest = 0
    for (domain, count) in perDomain {
      guard count > limits.maxCookiesPerDomain else {
        fullest = max(fullest, count)
        continue
      }
      let mine = cookies.indices.filter { cookies[$0].domain == domain }
      drop(oldest: count - limits.cookiesKeptPerDomain, of: mine, from: &cookies, kept: &kept) { _ in true }
      fullest = max(fullest, limits.cookiesKeptPerDomain)
    }
    if kept.count > limits.maxCookiesPerJar || kept.bytes > limits.maxJarBytes {
      drop(oldest: kept.count, of: Array(cookies.indices), from: &cookies, kept: &kept) {
        $0.count > limits.maxCookiesPerJar || $0.bytes > limits.maxJarBytes
      }
    }
    let dropped = cookies.count - kept.count
    if dropped > 0 {
      let rebuild = Self.rebuildIsCheaper(dropping: dropped, of: cookies.count)
      if !rebuild { entry.jar.remove(cookies.filter { !$0.kept }.map(\.line)) }
      cookies.removeAll { !$0.kept }
      if rebuild { entry.jar.replace(with: cookies.map(\.line)) }
    }
    if added || dropped > 0 || cookies.count != entry.firstStored.count {
      var seen: [String: Int64] = [:]
      seen.reserveCapacity(cookies.count)
      for c in cookies { seen[c.identity] = c.first }
      entry.firstStored = seen
    }
    entry.size = CookieJarSize(cookies: kept.count, bytes: kept.bytes, fullestDomain: fullest)
    entry.jar.noteBounded()
    return cookies.map { CookieStore.Row(line: $0.line, firstMs: $0.first) }
  }

  /// Whether emptying curl's jar and adding back the kept cookies costs less than removing the
  /// dropped ones: each removal scans the domain's cookies in curl (about 7 ns per cookie per
  /// removal here), each add back parses a line (about 1.8 µs). One socket action can leave
  /// many responses' cookies in the jar before the first is bounded: 500 removals from 650
  /// cookies took 2.4 ms, a rebuild of the 150 kept 0.28 ms; 50 from 200, 0.11 against 0.25.
  static func rebuildIsCheaper(dropping dropped: Int, of count: Int) -> Bool {
    dropped * count > (count - dropped) * 250
  }

  /// Marks up to `count` of the kept cookies at `indices` dropped, oldest first (by when ferry
  /// first stored them; the jar's order among equals), while `more` says the jar is still over.
  private func drop(
    oldest count: Int, of indices: [Int], from cookies: inout [Bounded], kept: inout (count: Int, bytes: Int),
    while more: ((count: Int, bytes: Int)) -> Bool
  ) {
    let order = indices.filter { cookies[$0].kept }.sorted { cookies[$0].first < cookies[$1].first }
    var left = count
    for i in order {
      guard left > 0, more(kept) else { return }
      cookies[i].kept = false
      kept.count -= 1
      kept.bytes -= cookies[i].line.utf8.count
      left -= 1
    }
  }
}

/// A live job's hold on its jar: a held jar is never dropped to make room, so one owner never
/// has two jars at once. Released when the job ends.
@MainActor final class CookieLease {
  let entry: CookieJars.Entry

  init(_ entry: CookieJars.Entry) {
    self.entry = entry
    entry.leases += 1
  }

  isolated deinit { entry.leases -= 1 }
}

/// One line of curl's cookie-file format, split on its tabs: `domain`, `subdomains`, `path`,
/// `secure`, `expires`, `name`, `value` (what `CookieJar.lines()` gives; not a `Set-Cookie`
/// parser).
struct CookieLine {
  var domain: Substring
  var httpOnly: Bool
  var includeSubdomains: Bool
  var path: Substring
  var secure: Bool
  /// Seconds since the epoch; 0 for a session cookie.
  var expires: Int64
  var name: Substring
  var value: Substring

  init?(_ line: String) {
    let fields = line.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
    guard fields.count >= 6 else { return nil }
    var domain = fields[0]
    httpOnly = domain.hasPrefix("#HttpOnly_")
    if httpOnly { domain = domain.dropFirst(10) }
    self.domain = domain
    includeSubdomains = fields[1] == "TRUE"
    path = fields[2]
    secure = fields[3] == "TRUE"
    expires = Int64(fields[4]) ?? 0
    name = fields[5]
    value = fields.count > 6 ? fields[6] : ""
  }

  var isSession: Bool { expires == 0 }

  /// What makes a cookie the same cookie: its domain, path and name.
  var identity: String { "\(domain)\t\(path)\t\(name)" }

  /// `identity` of an exported line without splitting all of it (the bound reads every line
  /// of the jar for each response that set cookies); nil for a line of fewer than six fields.
  static func identity(of line: String) -> String? {
    var line = line
    return line.withUTF8 { bytes -> String? in
      var tabs: [Int] = []
      tabs.reserveCapacity(6)
      var i = 0
      while i < bytes.count, tabs.count < 6 {
        if bytes[i] == 9 { tabs.append(i) }
        i += 1
      }
      guard tabs.count >= 5 else { return nil }
      let httpOnly = "#HttpOnly_".utf8
      let start = bytes.starts(with: httpOnly) ? httpOnly.count : 0
      let nameEnd = tabs.count == 6 ? tabs[5] : bytes.count
      var out: [UInt8] = []
      out.reserveCapacity(tabs[0] - start + tabs[2] - tabs[1] + nameEnd - tabs[4])
      out += bytes[start..<tabs[0]]
      out.append(9)
      out += bytes[(tabs[1] + 1)..<tabs[2]]
      out.append(9)
      out += bytes[(tabs[4] + 1)..<nameEnd]
      return String(decoding: out, as: UTF8.self)
    }
  }

  /// The domain of an `identity` without curl's leading dot, lower-cased: what the bound
  /// per domain counts by (`.shop.test` and `shop.test` are one domain).
  static func domainKey(ofIdentity identity: String) -> String {
    var domain = identity.prefix { $0 != "\t" }
    if domain.hasPrefix(".") { domain = domain.dropFirst() }
    return TextCheck.asciiLowercased(String(domain))
  }

  /// The domain without curl's leading dot, lower-cased.
  var bareDomain: String {
    (domain.hasPrefix(".") ? String(domain.dropFirst()) : String(domain)).lowercased()
  }
}
