import FerrySession

/// What a jar's last bound found in it, grown by what came since: at most this many cookies,
/// bytes of exported lines, and cookies of its fullest domain. A response after which a jar is
/// surely within its bounds is not followed by an export and bound of the whole jar (issue 26);
/// the iteration's save still exports it once, and bounds it.
struct CookieJarSize: Equatable {
  var cookies: Int
  var bytes: Int
  var fullestDomain: Int

  /// Whether the jar is surely within `limits` once `intake` is in it.
  func staysWithin(_ limits: DaemonConfig.CookieLimits, after intake: CookieIntake) -> Bool {
    cookies + intake.fields <= limits.maxCookiesPerJar
      && fullestDomain + intake.fields <= limits.maxCookiesPerDomain
      && intake.bytes <= limits.maxJarBytes - bytes
  }

  /// The size once `intake` is in the jar (which `staysWithin` said it can take).
  func adding(_ intake: CookieIntake) -> CookieJarSize {
    CookieJarSize(
      cookies: cookies + intake.fields, bytes: bytes + intake.bytes,
      fullestDomain: fullestDomain + intake.fields)
  }
}
