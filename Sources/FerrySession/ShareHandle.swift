import CFerryCurl

/// One libcurl share handle (`CURLSH`): the DNS cache and TLS session cache of one engine's
/// transfers, so a session's jobs skip name lookups and resume TLS sessions whichever easy
/// handle runs them.
///
/// Connections are not shared through it: they are pooled in the engine's own multi handle,
/// whose limits (`CURLMOPT_MAX_HOST_CONNECTIONS`, `CURLMOPT_MAX_TOTAL_CONNECTIONS`) then apply
/// to exactly that pool. Every `EasyHandle` holds the share strongly, so `curl_share_cleanup`
/// runs only after the last easy handle using it has been cleaned up (curl refuses to free a
/// share still in use, and an easy handle outliving its share would touch freed memory).
/// Everything runs on the loop thread, so no lock callbacks are set.
///
/// A `CookieJar`'s share holds one user's cookies as well (`CURL_LOCK_DATA_COOKIE`), and with
/// them that user's own DNS and TLS session caches: an easy handle takes one share only.
@MainActor final class ShareHandle {
  /// The `CURLSH *`.
  let handle: UnsafeMutableRawPointer

  init?(cookies: Bool = false) {
    guard let handle = curl_share_init() else { return nil }
    if cookies {
      guard
        ferry_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
          == CURLSHE_OK
      else {
        curl_share_cleanup(handle)
        return nil
      }
    }
    self.handle = handle
    _ = ferry_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
    _ = ferry_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
  }

  isolated deinit {
    curl_share_cleanup(handle)
  }
}
