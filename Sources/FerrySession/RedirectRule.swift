import FerrySerializer
import FerryWire

/// Browser rules for redirects: which responses are followed, and what the next request is.
///
/// libcurl follows GET, HEAD, POST and PUT by these rules itself (with `CURLOPT_POSTREDIR` 0 it
/// turns POST into GET on 301/302/303, and PUT into GET on 303). For other methods it would
/// send the custom method again on every hop, and for a POST or PUT with a Content-Type it
/// would keep that header on the GET, so the transfer follows those hop by hop with
/// `nextRequest`.
public enum RedirectRule {
  /// Statuses a browser follows.
  static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

  /// Whether the hop with `head` is a redirect that will be followed: by curl (any 3xx with a
  /// non-empty `Location`, as curl does) or by us (the five browser statuses).
  public static func isFollowed(_ head: ResponseHead, byCurl: Bool) -> Bool {
    // The status first: most responses are no redirect, and need no look for a Location.
    guard byCurl ? (300..<400).contains(head.status) : followedStatuses.contains(head.status) else {
      return false
    }
    guard let location = head.header("location"), !location.isEmpty else { return false }
    return true
  }

  /// The request a browser sends after `status` pointed `request` at `location` (absolute).
  ///
  /// 303 turns every method but HEAD into a bodiless GET, as do 301/302 for POST; 307/308 keep
  /// method and body. A GET made from another method loses the body's headers. Credentials
  /// (`Authorization`, `Cookie`) stay behind when the origin changes.
  public static func nextRequest(after request: Request, status: Int, location: String) -> Request {
    var next = request
    next.url = location
    let becomesGET =
      (status == 303 && request.method != "HEAD")
      || ((status == 301 || status == 302) && request.method == "POST")
    if becomesGET {
      next.method = "GET"
      next.body = nil
      next.headers.removeAll { bodyHeaders.contains($0.name.lowercased()) }
    }
    if URLOrigin(request.url) != URLOrigin(location) {
      next.headers.removeAll { credentialHeaders.contains($0.name.lowercased()) }
      next.digest = nil
    }
    return next
  }

  /// Whether `request` has headers that describe its body, which a redirect to GET must drop.
  static func hasBodyHeaders(_ request: Request) -> Bool {
    request.headers.contains { bodyHeaders.contains($0.name.lowercased()) }
  }

  /// The `unsupported_scheme` message for a redirect to `scheme` (nil when unknown).
  public static func refusedSchemeMessage(_ scheme: String?) -> String {
    let target = scheme.map { "a redirect to \($0):" } ?? "a redirect to a scheme other than http or https"
    return "\(target) refused; ferry follows redirects to http and https only"
  }

  /// The scheme of an absolute `location` (`ftp` of `ftp://x/`), lower-cased.
  static func scheme(of location: String) -> String? {
    guard let colon = location.firstIndex(of: ":"), colon != location.startIndex else { return nil }
    let name = location[..<colon]
    guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
      return nil
    }
    return name.lowercased()
  }

  /// Whether a redirect may go to `location` at all: http and https only.
  public static func isAllowedScheme(_ location: String) -> Bool {
    let lower = location.prefix(8).lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
  }

  private static let bodyHeaders: Set<String> = [
    "content-type", "content-encoding", "content-language", "content-location",
  ]
  private static let credentialHeaders: Set<String> = ["authorization", "cookie"]
}
