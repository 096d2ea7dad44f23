import FerryLoop
import FerrySession
import FerryStore
import FerryWire

/// Sessions' cookie jars (issue 16): which jar a job uses, saving a jar before the `response`
/// that acknowledges its change goes out, and the `cookies` and `clear_cookies` ops.
/// Cookie values are never logged, nor shown but to the jar's owner when asked for.
extension Daemon {
  /// The jar a job submitted under `profile` by `uid` uses: nil when the session keeps no
  /// cookies, the job says `cookies: false`, or the jar is per user and the client's uid is
  /// unknown (no `SO_PEERCRED`: such clients must not share one jar).
  func cookieJarKey(profile: SessionProfile, job: Job, uid: UInt32?) -> CookieJars.Key? {
    guard let settings = profile.config.cookies, job.cookies != false else { return nil }
    if settings.shared { return CookieJars.Key(session: profile.config.name, owner: CookieStore.sharedOwner) }
    guard let uid else { return nil }
    return CookieJars.Key(session: profile.config.name, owner: Int64(uid))
  }

  /// The jar of `key`, made (and loaded) when missing.
  func cookieEntry(_ key: CookieJars.Key, persist: Bool) -> CookieJars.Entry? {
    let entry = cookieJars.entry(
      key, persist: persist, limits: config.cookieLimits, nowMs: loop.now(), wallMs: Journal.wallClockMs(),
      store: { self.openCookieStore() },
      failed: { error in
        self.logger.error(
          "cookie jar not loaded: kept in memory only, never saved over the store",
          ["session": key.session, "error": "\(error)"])
      })
    if entry == nil { logger.error("cannot make a cookie jar (curl_share_init)", ["session": key.session]) }
    return entry
  }

  /// A jar changed (a `Set-Cookie` came): it is bounded and saved with the iteration's other
  /// changed jars (issue 26: once per jar, not once per response), at the end of the loop
  /// iteration and in any case before a client's events go out (`Client.flush`), so a cookie
  /// acknowledged by a `response` event is committed before that event is written.
  ///
  /// `intake` is what the change can have added at most (a response's `Set-Cookie` fields;
  /// nil: unknown): while the jar surely stays within its bounds with it, the export and bound
  /// of the whole jar wait for the save (issue 26).
  func cookieJarChanged(_ entry: CookieJars.Entry, intake: CookieIntake? = nil) {
    if let seen = intake?.boundsSeen, seen < entry.jar.boundsTaken {
      // A bound after curl took these cookies exported the jar with them and set its size
      // and its rows to save: a socket action that ended many responses is bounded once, not
      // once a response (each an export of the whole jar and a scan in curl per removal).
      return
    }
    if let intake, let size = entry.size, size.staysWithin(config.cookieLimits, after: intake) {
      entry.size = size.adding(intake)
      entry.boundRows = nil
    } else {
      // Bounded at once: curl scans the jar's cookies of a domain for every cookie it adds,
      // so a jar left to grow until the save would make every later response slower.
      entry.boundRows = cookieJars.bound(entry, limits: config.cookieLimits, wallMs: Journal.wallClockMs())
    }
    cookieJars.changed(entry)
    if cookieJars.saveTimer == nil {
      cookieJars.saveTimer = Timer(loop: loop) { [unowned self] in self.saveDirtyCookieJars() }
    }
    if cookieJars.saveTimer?.isScheduled == false { cookieJars.saveTimer?.schedule(afterMs: 0) }
  }

  /// Bounds and saves every jar changed since the last call: only the rows that changed.
  func saveDirtyCookieJars() {
    guard !cookieJars.dirty.isEmpty else { return }
    cookieJars.saveTimer?.cancel()
    for entry in cookieJars.takeDirty() { saveNow(entry) }
  }

  private func saveNow(_ entry: CookieJars.Entry) {
    // The last change's bound exported the jar already: a second export and parse of the
    // whole jar per iteration was half the saves' cost (issue 26). A cookie curl took since
    // (a head whose `response` is still to come) is saved with that response's change.
    let rows =
      entry.boundRows ?? cookieJars.bound(entry, limits: config.cookieLimits, wallMs: Journal.wallClockMs())
    entry.boundRows = nil
    guard entry.persist, let store = openCookieStore() else { return }
    // A server that sets the same cookie again (a session id on every response) changes
    // nothing: the store already holds exactly these lines.
    let lines = Set(rows.map(\.line))
    let adding = rows.filter { !entry.savedLines.contains($0.line) }
    let removing = entry.savedLines.subtracting(lines)
    guard !adding.isEmpty || !removing.isEmpty else { return }
    do throws(StoreError) {
      try store.update(
        session: entry.key.session, owner: entry.key.owner, adding: adding, removing: Array(removing))
      entry.savedLines = lines
    } catch {
      logger.warning(
        "cookie jar not saved",
        ["session": entry.key.session, "cookies": "\(rows.count)", "error": "\(error)"])
    }
  }

  /// Opens `cookies.db` before the loop runs when a session persists cookies (issue 26): its
  /// first open creates and syncs the file, which at the first jar of a cookie flood held the
  /// loop 19–39 ms in `fdatasync` (a busy disk), in front of every other client.
  func openCookieStoreAtStart() {
    guard sessions.values.contains(where: { $0.profile?.config.cookies?.persist == true }) else { return }
    _ = openCookieStore()
  }

  /// `<state dir>/cookies.db`, opened on first use; nil (logged once) without a state
  /// directory or when it cannot be opened: jars are then kept in memory only.
  func openCookieStore() -> CookieStore? {
    if let store = cookieJars.store { return store }
    guard !cookieJars.storeUnavailable else { return nil }
    cookieJars.storeUnavailable = true
    guard let dir = StateDirectory.resolve(configured: config.stateDirectory, environment: processEnvironment)
    else {
      logger.warning("no state directory: cookie jars are kept in memory only")
      return nil
    }
    do throws(StoreError) {
      try StateDirectory.prepare(dir)
      let store = try CookieStore(path: dir + "/cookies.db", sync: config.journalSync)
      cookieJars.store = store
      cookieJars.storeUnavailable = false
      return store
    } catch {
      logger.error("cannot open the cookie store: jars are kept in memory only", ["error": "\(error)"])
      return nil
    }
  }

  /// `{"op":"cookies"}`: the caller's jar in the session, values `<redacted>` unless asked for
  /// by the jar's owner (a shared jar's owner is the daemon's own user).
  func cookiesOp(session name: String?, values: Bool, client: Client) {
    guard let (key, persist) = cookieOpTarget(name, client: client) else { return }
    var o = JSONObject()
    o.append(key: "session", value: .string(name ?? "default"))
    guard let key else {
      o.append(key: "enabled", value: false)
      o.append(key: "cookies", value: .array([]))
      return client.send(.payload(name: "cookies", o))
    }
    if values, key.owner == CookieStore.sharedOwner, client.credentials?.uid != SystemCall.effectiveUserID {
      return client.send(
        .error(
          WireError(.accessDenied, "the values of a shared jar are shown only to the daemon's user"), id: nil)
      )
    }
    guard let entry = cookieEntry(key, persist: persist) else {
      return client.send(.error(WireError(.transferFailed, "cannot make a cookie jar"), id: nil))
    }
    var list: [JSONValue] = []
    for line in entry.jar.lines() {
      guard let c = CookieLine(line) else { continue }
      var item = JSONObject()
      item.append(key: "domain", value: .string(String(c.domain)))
      item.append(key: "include_subdomains", value: .bool(c.includeSubdomains))
      item.append(key: "path", value: .string(String(c.path)))
      item.append(key: "name", value: .string(String(c.name)))
      item.append(key: "value", value: .string(values ? String(c.value) : "<redacted>"))
      item.append(key: "expires", value: c.isSession ? .null : .number(JSONNumber(Int(c.expires))))
      item.append(key: "secure", value: .bool(c.secure))
      item.append(key: "http_only", value: .bool(c.httpOnly))
      list.append(.object(item))
    }
    o.append(key: "enabled", value: true)
    o.append(key: "shared", value: .bool(key.owner == CookieStore.sharedOwner))
    o.append(key: "cookies", value: .array(list))
    client.send(.payload(name: "cookies", o))
  }

  /// `{"op":"clear_cookies"}`: empties the caller's jar, or drops the cookies of `domain` and
  /// its subdomains; the change is committed before the answer.
  func clearCookiesOp(session name: String?, domain: String?, client: Client) {
    guard let (key, persist) = cookieOpTarget(name, client: client) else { return }
    var removed = 0
    if let key, let entry = cookieEntry(key, persist: persist) {
      let lines = entry.jar.lines()
      let wanted = domain.map { TextCheck.asciiLowercased($0.hasPrefix(".") ? String($0.dropFirst()) : $0) }
      let kept = lines.filter { line in
        guard let wanted, let c = CookieLine(line) else { return false }
        let d = c.bareDomain
        return !(d == wanted || d.hasSuffix("." + wanted))
      }
      removed = lines.count - kept.count
      entry.jar.replace(with: kept)
      cookieJarChanged(entry)
      saveDirtyCookieJars()
    }
    var o = JSONObject()
    o.append(key: "session", value: .string(name ?? "default"))
    o.append(key: "removed", value: .number(JSONNumber(removed)))
    client.send(.payload(name: "cookies_cleared", o))
  }

  /// The caller's jar key in the session (nil inside when the session keeps no cookies), or
  /// nil after sending `unknown_session`.
  private func cookieOpTarget(_ name: String?, client: Client) -> (CookieJars.Key?, Bool)? {
    guard let profile = sessions[name ?? "default"]?.profile else {
      client.send(
        .error(WireError(.unknownSession, "no session named \(name ?? "default")", field: "session"), id: nil)
      )
      return nil
    }
    let key = cookieJarKey(profile: profile, job: Job(), uid: client.credentials?.uid)
    return (key, profile.config.cookies?.persist ?? false)
  }
}
