import CFerryCurl
import FerryLoop

#if canImport(Glibc)
  import Glibc
#endif

/// One cookie jar: libcurl's cookie engine (RFC 6265 as curl implements it: domain and path
/// matching, `Secure`, `HttpOnly`, expiry, the `__Host-`/`__Secure-` prefixes, public suffixes
/// refused through libpsl) in a share handle of its own (`CURL_LOCK_DATA_COOKIE`).
///
/// Every transfer that uses the jar runs on an easy handle attached to its share, so a cookie
/// set by any hop of any of them (redirects curl follows included) is in the jar at once, and
/// sent by the next hop or job that matches. An easy handle takes one share only: the jar's
/// share also holds the DNS and TLS session caches of the transfers that use it, so one user's
/// jobs never resume another user's TLS sessions either.
///
/// The jar's handles are kept apart from the engine's (`takeHandle`/`recycle`): a handle that
/// once ran with the cookie engine is never handed to a job of another jar or to one without
/// cookies. `control` never transfers: it reads and writes the jar for the daemon
/// (`CURLINFO_COOKIELIST`, `CURLOPT_COOKIELIST`), since curl itself writes jars only at cleanup.
@MainActor public final class CookieJar {
  let share: ShareHandle
  private let control: UnsafeMutableRawPointer
  private var freeHandles: [EasyHandle] = []
  /// Reset handles kept for the jar's next jobs; more are cleaned up when they come back.
  private static let maxFreeHandles = 8

  /// How many times the daemon exported the jar and bounded it (`noteBounded`): a response
  /// whose cookies curl took before the last of them is already in the jar's size.
  public private(set) var boundsTaken: UInt64 = 0

  /// The daemon exported every cookie of the jar (all that curl had taken) and bounded it.
  public func noteBounded() { boundsTaken &+= 1 }

  public init?() {
    guard let share = ShareHandle(cookies: true), let control = curl_easy_init() else { return nil }
    self.share = share
    self.control = control
    _ = ferry_curl_easy_setopt_ptr(control, CURLOPT_SHARE, share.handle)
  }

  isolated deinit {
    freeHandles.removeAll()
    curl_easy_cleanup(control)
  }

  /// Every cookie in the jar, one line each in curl's Netscape cookie-file format
  /// (`domain\tsubdomains\tpath\tsecure\texpires\tname\tvalue`, the domain prefixed with
  /// `#HttpOnly_` for an HttpOnly cookie, expiry 0 for a session cookie). Expired cookies are
  /// not in it: curl exports the cookie `remove` expired last until its next add, so they are
  /// left out here.
  public func lines() -> [String] {
    var raw: UnsafeMutableRawPointer?
    guard ferry_curl_easy_getinfo_ptr(control, CURLINFO_COOKIELIST, &raw) == CURLE_OK, let raw else {
      return []
    }
    let head = raw.assumingMemoryBound(to: curl_slist.self)
    defer { curl_slist_free_all(head) }
    var out: [String] = []
    let now = Int64(time(nil))
    var node: UnsafeMutablePointer<curl_slist>? = head
    while let current = node {
      if let data = current.pointee.data, !Self.hasExpired(data, now: now) {
        out.append(String(cString: data))
      }
      node = current.pointee.next
    }
    return out
  }

  /// Whether an exported line's expiry (its fifth field; 0 for a session cookie) is past, as
  /// curl's own `remove_expired` decides.
  static func hasExpired(_ line: UnsafePointer<CChar>, now: Int64) -> Bool {
    var p = line
    var tabs = 0
    while p.pointee != 0, tabs < 4 {
      if p.pointee == 9 { tabs += 1 }
      p += 1
    }
    guard tabs == 4 else { return false }
    var expires: Int64 = 0
    while (48...57).contains(p.pointee), expires < Int64.max / 10 - 9 {
      expires = expires * 10 + Int64(p.pointee - 48)
      p += 1
    }
    return expires != 0 && expires < now
  }

  /// Adds cookies given as `lines()` gives them (or as `Set-Cookie:` header lines); curl
  /// drops an expired one.
  public func add(_ lines: [String]) {
    for line in lines { _ = ferry_curl_easy_setopt_str(control, CURLOPT_COOKIELIST, line) }
  }

  /// Forgets every cookie.
  public func removeAll() {
    _ = ferry_curl_easy_setopt_str(control, CURLOPT_COOKIELIST, "ALL")
  }

  /// Removes the cookies of `lines` (as `lines()` gives them): each is added again as expired,
  /// which makes curl drop the cookie it replaces. One scan of the jar per cookie, where
  /// `replace` adds back every cookie kept (issue 26: the bound of a full jar, per response).
  public func remove(_ lines: [String]) {
    for line in lines {
      var fields = line.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
      guard fields.count == 7 else { continue }
      fields[4] = "1"
      _ = ferry_curl_easy_setopt_str(control, CURLOPT_COOKIELIST, fields.joined(separator: "\t"))
    }
  }

  /// Makes the jar hold exactly `lines`.
  public func replace(with lines: [String]) {
    removeAll()
    add(lines)
  }

  func takeHandle(loop: EventLoop, ownBuffer: Bool, stats: inout EngineStats) -> EasyHandle? {
    if let slot = EasyHandle.take(
      from: &freeHandles, ownBuffer: ownBuffer, passedOver: &stats.handlesPassedOver)
    {
      return slot
    }
    stats.handlesMade += 1
    return EasyHandle(loop: loop, share: share, jar: self)
  }

  func recycle(_ slot: EasyHandle) {
    if freeHandles.count < Self.maxFreeHandles { freeHandles.append(slot) }
  }
}
