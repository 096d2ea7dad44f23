import CFerryCurl
import FerrySerializer

/// URLs as curl itself reads them (its URL API, with the flags curl uses for a transfer's URL
/// and for following a redirect), so what is checked is what curl will fetch.
///
/// Needs no easy or multi handle, so it may be called from a header callback without
/// re-entering the transfer.
enum CurlURL {
  /// A parser holding `url`, or `url` redirected to `location` (resolved against it as
  /// `Curl_follow` does); nil when curl cannot parse it.
  private static func parsed(_ url: String, redirectedTo location: String?) -> OpaquePointer? {
    guard let parser = curl_url() else { return nil }
    let firstFlags = UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)
    var ok = curl_url_set(parser, CURLUPART_URL, url, firstFlags) == CURLUE_OK
    if ok, let location {
      ok = curl_url_set(parser, CURLUPART_URL, location, UInt32(CURLU_ALLOW_SPACE)) == CURLUE_OK
    }
    guard ok else {
      curl_url_cleanup(parser)
      return nil
    }
    return parser
  }

  private static func part(_ parser: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
    var text: UnsafeMutablePointer<CChar>?
    guard curl_url_get(parser, what, &text, flags) == CURLUE_OK, let text else { return nil }
    defer { curl_free(text) }
    return String(cString: text)
  }

  /// The absolute URL curl fetches for `url` redirected to `location`.
  static func resolve(_ url: String, redirectedTo location: String) -> String? {
    guard let parser = parsed(url, redirectedTo: location) else { return nil }
    defer { curl_url_cleanup(parser) }
    return part(parser, CURLUPART_URL)
  }

  /// The scheme, host (IPv6 in brackets, IPv4 in dotted form) and port curl connects to.
  static func origin(of url: String, redirectedTo location: String? = nil) -> URLOrigin? {
    guard let parser = parsed(url, redirectedTo: location) else { return nil }
    defer { curl_url_cleanup(parser) }
    guard let scheme = part(parser, CURLUPART_SCHEME), let host = part(parser, CURLUPART_HOST),
      let port = part(parser, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
    else { return nil }
    return URLOrigin(scheme: scheme.lowercased(), host: host.lowercased(), port: port)
  }

  /// The host curl connects to for `url` (or its redirect to `location`).
  static func host(of url: String, redirectedTo location: String? = nil) -> String? {
    guard let parser = parsed(url, redirectedTo: location) else { return nil }
    defer { curl_url_cleanup(parser) }
    return part(parser, CURLUPART_HOST)
  }
}
