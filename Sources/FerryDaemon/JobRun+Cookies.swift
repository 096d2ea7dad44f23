import FerrySession

/// A job's use of its session's cookie jar.
extension JobRun {
  /// The jar this attempt's transfer runs with: taken (held for the job's life) at its first
  /// start, so retries use the same jar.
  func cookieJarForStart() -> CookieJar? {
    guard let key = cookieKey else { return nil }
    if cookieLease == nil,
      let entry = daemon.cookieEntry(key, persist: profile.config.cookies?.persist ?? false)
    {
      cookieLease = CookieLease(entry)
    }
    return cookieLease?.entry.jar
  }

  /// Saves the jar when the transfer received cookies since the last save: called before
  /// the `response` event (and at the transfer's end), so an acknowledged cookie is stored.
  func saveReceivedCookies(_ transfer: Transfer?) {
    guard let transfer, let lease = cookieLease, let intake = transfer.takeReceivedCookies() else { return }
    daemon.cookieJarChanged(lease.entry, intake: intake)
  }
}
