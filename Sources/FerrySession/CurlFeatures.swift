import CFerryCurl

/// What the linked libcurl can do, read once from `curl_version_info`.
public struct CurlFeatures: Sendable, Equatable {
  /// libcurl's version, e.g. `7.88.1`.
  public let version: String
  /// The TLS library, e.g. `OpenSSL/3.0.15`.
  public let ssl: String?
  /// Feature names for `hello`: `asynch_dns`, `http2`, `brotli`, `libz`, `zstd`, `ipv6`, `ssl`.
  public let features: [String]
  /// Content codings curl can decode, in the order they are offered in `Accept-Encoding`.
  public let encodings: [String]
  public let hasAsynchronousResolver: Bool

  /// Reads the linked library's capabilities.
  public static func current() -> CurlFeatures {
    guard let info = ferry_curl_version_info()?.pointee else {
      return CurlFeatures(
        version: "unknown", ssl: nil, features: [], encodings: [], hasAsynchronousResolver: false)
    }
    let bits = Int(info.features)
    let table: [(Int, String)] = [
      (Int(FERRY_CURL_VERSION_ASYNCHDNS), "asynch_dns"), (Int(CURL_VERSION_HTTP2), "http2"),
      (Int(CURL_VERSION_BROTLI), "brotli"), (Int(CURL_VERSION_LIBZ), "libz"),
      (Int(CURL_VERSION_ZSTD), "zstd"), (Int(CURL_VERSION_IPV6), "ipv6"), (Int(CURL_VERSION_SSL), "ssl"),
    ]
    let features = table.filter { bits & $0.0 != 0 }.map(\.1)
    var encodings: [String] = []
    if bits & Int(CURL_VERSION_LIBZ) != 0 { encodings += ["gzip", "deflate"] }
    if bits & Int(CURL_VERSION_BROTLI) != 0 { encodings.append("br") }
    if bits & Int(CURL_VERSION_ZSTD) != 0 { encodings.append("zstd") }
    return CurlFeatures(
      version: String(cString: info.version), ssl: info.ssl_version.map { String(cString: $0) },
      features: features, encodings: encodings, hasAsynchronousResolver: features.contains("asynch_dns"))
  }
}
