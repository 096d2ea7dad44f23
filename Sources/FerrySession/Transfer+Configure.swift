import CFerryCurl
import FerrySerializer
import FerryWire

#if canImport(Glibc)
  import Glibc
#endif

/// Setting up the easy handle for the current hop: the handle's constant options once after a
/// full reset (`primeHandle`), then the hop's own.
extension Transfer {
  /// Sets the hop's options; returns the first failure, or `CURLE_OK`.
  func configureHop() -> CURLcode {
    guard let slot else { return CURLE_FAILED_INIT }
    var options = EasyOptions(slot.handle)
    let me = Unmanaged.passUnretained(self).toOpaque()
    // A handle kept as the last job left it holds that job's TLS settings: a job with others
    // starts from a full reset.
    if slot.isPrimed && slot.tls != spec.tls { slot.resetOptions() }
    if !slot.isPrimed {
      primeHandle(&options, slot)
      configureTLS(&options)
      slot.tls = spec.tls
    }
    requestsSent = 0
    if let denial = spec.egress?.check(url: request.url) ?? credentialDenial() {
      // curl never gets a denied URL, so it resolves and dials nothing: it fails the hop with
      // CURLE_URL_MALFORMAT ("No URL set"), which the recorded error explains.
      recordedError = denial
      // A reused handle may still hold the last job's URL.
      options.check(ferry_curl_easy_setopt_ptr(slot.handle, CURLOPT_URL, nil))
    } else {
      options.set(CURLOPT_URL, request.url)
    }
    configureRedirects(&options, slot)
    configureAuth(&options)
    configureTimeouts(&options, slot)
    var headersOrdinary = true
    configureHeaders(&options, slot, ordinary: &headersOrdinary)
    configureMethodAndBody(&options, me)
    options.set(CURLOPT_OPENSOCKETDATA, pointer: me)
    options.set(CURLOPT_PREREQDATA, pointer: me)
    if let pins = spec.resolve?.list {
      options.check(ferry_curl_easy_setopt_slist(slot.handle, CURLOPT_RESOLVE, pins))
    }
    // The jar's share holds the cookies; this turns the engine on for the hop ("" reads no file).
    if slot.hasJar { options.set(CURLOPT_COOKIEFILE, "") }
    if let bytes = spec.receiveBufferBytes { options.set(CURLOPT_BUFFERSIZE, bytes) }
    options.set(CURLOPT_WRITEDATA, pointer: me)
    slot.headerLines.transfer = self
    slot.headerLines.curlCalls = engine?.curlCalls
    if spec.wantsProgress {
      options.set(CURLOPT_NOPROGRESS, 0)
      options.check(
        ferry_curl_easy_setopt_func_xferinfo(slot.handle, CURLOPT_XFERINFOFUNCTION, CurlTrampolines.progress))
      options.set(CURLOPT_XFERINFODATA, pointer: me)
    }
    isOrdinary = headersOrdinary && isOrdinaryHop(slot)
    return options.result
  }

  /// `origin_not_allowed` when the hop's URL, as curl reads it, leaves the origins the
  /// request's credentials may go to.
  private func credentialDenial() -> WireError? {
    guard let scope = request.credentialScope else { return nil }
    guard let origin = CurlURL.origin(of: request.url) else {
      return WireError(.originNotAllowed, "cannot tell the origin of \(request.url)")
    }
    return scope.denial(for: origin, redirect: redirectsFollowed > 0)
  }

  private func configureTLS(_ options: inout EasyOptions) {
    let tls = spec.tls
    if let ca = tls.caFile { options.set(CURLOPT_CAINFO, ca) }
    if let pin = tls.pinnedPublicKey { options.set(CURLOPT_PINNEDPUBLICKEY, pin) }
    if tls.insecure {
      options.set(CURLOPT_SSL_VERIFYPEER, 0)
      options.set(CURLOPT_SSL_VERIFYHOST, 0)
    }
    if let proxy = tls.proxy { options.set(CURLOPT_PROXY, proxy) }
  }

  /// Whether the daemon's environment sets any variable curl reads for a proxy (it reads them
  /// per transfer; the environment does not change while we run). Uppercase `HTTP_PROXY` is
  /// one curl ignores (CGI clients could set it, CURLOPT_PROXY(3)).
  nonisolated static let environmentNamesProxy: Bool = {
    let names = [
      "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]
    return names.contains { getenv($0) != nil }
  }()

  /// Digest credentials: libcurl answers the 401 challenge itself (CURLOPT_HTTPAUTH(3)), and
  /// keeps them from other hosts on redirects it follows (CURLOPT_UNRESTRICTED_AUTH 0).
  private func configureAuth(_ options: inout EasyOptions) {
    guard let digest = request.digest else { return }
    options.set(CURLOPT_HTTPAUTH, Int(FERRY_CURLAUTH_DIGEST))
    options.set(CURLOPT_USERNAME, digest.username)
    options.set(CURLOPT_PASSWORD, digest.password)
  }

  /// `CURLOPT_POSTREDIR` and `CURLOPT_UNRESTRICTED_AUTH` are set once per handle
  /// (`primeHandle`).
  private func configureRedirects(_ options: inout EasyOptions, _ slot: EasyHandle) {
    let byCurl = spec.followRedirects && !followsRedirectsItself
    options.set(CURLOPT_FOLLOWLOCATION, byCurl ? 1 : 0, known: &slot.knownOptions.followLocation)
    guard byCurl else { return }
    options.set(CURLOPT_MAXREDIRS, max(0, spec.maxRedirects), known: &slot.knownOptions.maxRedirects)
  }

  private func configureTimeouts(_ options: inout EasyOptions, _ slot: EasyHandle) {
    options.set(
      CURLOPT_CONNECTTIMEOUT_MS, max(1, spec.connectTimeoutMs), known: &slot.knownOptions.connectTimeoutMs)
    if let returnedAtMs = engine?.networkReturnedAtMs {
      // Connections and cached names from before the network came back are not reused
      // (issue 31): curl takes neither one older than this many seconds (both in whole
      // seconds, so one made within about two seconds before the change may still be).
      let age = max(1, Int((loop.now() &- returnedAtMs) / 1000))
      options.set(CURLOPT_MAXLIFETIME_CONN, age)
      if age < 60 { options.set(CURLOPT_DNS_CACHE_TIMEOUT, age) }
    }
    // 0 (none) when the job has no total: the handle may hold the last job's.
    guard let total = spec.totalTimeoutMs else {
      return options.set(CURLOPT_TIMEOUT_MS, 0, known: &slot.knownOptions.timeoutMs)
    }
    // A later hop of a redirect we follow ourselves gets what is left of the total.
    let spent = attachedAtMs == 0 ? 0 : Int(loop.now() - attachedAtMs)
    options.set(CURLOPT_TIMEOUT_MS, max(1, total - spent), known: &slot.knownOptions.timeoutMs)
  }

  /// The request's headers, plus what keeps curl from adding its own (no `Expect:
  /// 100-continue` round trip, no default form Content-Type on a POST without one) and the
  /// `Range` of a resumed download, as one `HeaderBlock` (one allocation for the whole list),
  /// taken from the handle's `HeaderListCache` when the last hop on it built the same one.
  private func configureHeaders(_ options: inout EasyOptions, _ slot: EasyHandle, ordinary: inout Bool) {
    // curl only ever adds `Expect: 100-continue` to a request with a body: a bodiless GET
    // needs no entry.
    let mayHaveBody = request.body != nil || request.method == "POST" || request.method == "PUT"
    // Our own Range rather than CURLOPT_RESUME_FROM_LARGE, which fails the transfer when the
    // server ignores it; the caller starts over on a 200 instead.
    var key = HeaderListCache.Key(
      mayHaveBody: mayHaveBody, isPost: request.method == "POST", acceptEncoding: spec.acceptEncoding)
    if let from = spec.resumeFromByte, from > 0 {
      key.range = "Range: bytes=\(from)-"
      if let validator = spec.ifRange { key.ifRange = "If-Range: \(validator)" }
    }
    let (list, scan) = slot.headerCache.lookup(request.headers, key: key) ?? buildHeaderList(key, slot)
    ordinary = ordinary && scan.ordinary
    options.check(ferry_curl_easy_setopt_slist(options.handle, CURLOPT_HTTPHEADER, list))
    if spec.acceptEncoding {
      // The request's own header is what goes out; this makes curl decode what comes back.
      options.set(
        CURLOPT_ACCEPT_ENCODING, scan.acceptEncoding ?? "", known: &slot.knownOptions.acceptEncoding)
      if machine.decoding != .decoded { options.set(CURLOPT_HTTP_CONTENT_DECODING, 0) }
    } else {
      // A reused handle may still hold the last job's.
      options.set(CURLOPT_ACCEPT_ENCODING, nil, known: &slot.knownOptions.acceptEncoding)
    }
  }

  /// Scans the request's headers, builds the hop's list and leaves it in the handle's cache.
  private func buildHeaderList(
    _ key: HeaderListCache.Key, _ slot: EasyHandle
  ) -> (UnsafeMutablePointer<curl_slist>?, HeaderListCache.Scan) {
    var hasContentType = false
    var hasExpect = false
    var hasRange = false
    var hasAccept = false
    var scan = HeaderListCache.Scan(ordinary: true, acceptEncoding: nil)
    var bytes = 0
    for (name, value) in request.headers {
      // The length and first letter reject most names (User-Agent, Authorization …) before
      // the rest is compared.
      switch (name.utf8.count, name.utf8.first.map(Self.folded)) {
      case (5, UInt8(ascii: "r")): hasRange = hasRange || Self.isNamed(name, "range")
      case (6, UInt8(ascii: "a")): hasAccept = hasAccept || Self.isNamed(name, "accept")
      case (6, UInt8(ascii: "e")): hasExpect = hasExpect || Self.isNamed(name, "expect")
      case (12, UInt8(ascii: "c")): hasContentType = hasContentType || Self.isNamed(name, "content-type")
      case (15, UInt8(ascii: "a")):
        if scan.acceptEncoding == nil, Self.isNamed(name, "accept-encoding") { scan.acceptEncoding = value }
      // Credentials of the job's own make it an unusual one (`isOrdinary`).
      case (13, UInt8(ascii: "a")): scan.ordinary = scan.ordinary && !Self.isNamed(name, "authorization")
      case (6, UInt8(ascii: "c")): scan.ordinary = scan.ordinary && !Self.isNamed(name, "cookie")
      case (19, UInt8(ascii: "p")):
        scan.ordinary = scan.ordinary && !Self.isNamed(name, "proxy-authorization")
      default: break
      }
      bytes += HeaderBlock.size(name: name, value: value)
    }
    scan.ordinary = scan.ordinary && !hasRange
    // The request's headers are the wire's: curl's own `Accept: */*` and (with
    // CURLOPT_ACCEPT_ENCODING) `Accept-Encoding` go only when the request has them.
    let extra = HeaderExtras(
      expect: !hasExpect && key.mayHaveBody, contentType: key.isPost && !hasContentType,
      accept: !hasAccept, acceptEncoding: key.acceptEncoding && scan.acceptEncoding == nil
    )
    // A Range of the request's own wins over the resumed download's.
    let list = Self.headerList(
      request.headers, extra: extra, range: hasRange ? nil : key.range, ifRange: hasRange ? nil : key.ifRange,
      bytes: bytes)
    slot.headerCache.store(list, scan: scan, headers: request.headers, key: key)
    engine?.stats.headerListsBuilt += 1
    return (list, scan)
  }

  /// What `configureHeaders` adds after the request's own headers.
  struct HeaderExtras {
    let expect: Bool
    let contentType: Bool
    let accept: Bool
    let acceptEncoding: Bool
  }

  /// The hop's header list: `headers` (`bytes` long in all, by `HeaderBlock.size`), the
  /// `Range` lines, then the extras; nil when there is no line at all.
  ///
  /// `nonisolated`, like the helpers below: a closure formed in a main-actor function and
  /// handed to the standard library gets a run-time executor check on every call.
  nonisolated private static func headerList(
    _ headers: [(name: String, value: String)], extra: HeaderExtras, range: String?, ifRange: String?,
    bytes: Int
  ) -> UnsafeMutablePointer<curl_slist>? {
    var lines = headers.count
    var size = bytes
    func count(_ wanted: Bool, _ length: Int) {
      guard wanted else { return }
      lines += 1
      size += length + 1
    }
    count(extra.expect, 7)
    count(range != nil, range?.utf8.count ?? 0)
    count(ifRange != nil, ifRange?.utf8.count ?? 0)
    count(extra.contentType, 13)
    count(extra.accept, 7)
    count(extra.acceptEncoding, 16)
    guard lines > 0 else { return nil }
    var block = HeaderBlock(lines: lines, bytes: size)
    for (name, value) in headers { block.append(name: name, value: value) }
    if extra.expect { block.append("Expect:") }
    if let range { block.append(range) }
    if let ifRange { block.append(ifRange) }
    if extra.contentType { block.append("Content-Type:") }
    if extra.accept { block.append("Accept:") }
    if extra.acceptEncoding { block.append("Accept-Encoding:") }
    return block.list
  }

  /// Whether header `name` is `lower`, ASCII case-insensitively (names are tokens, and no
  /// other character lower-cases to the ASCII letters of the names asked about).
  nonisolated private static func isNamed(_ name: String, _ lower: StaticString) -> Bool {
    let utf8 = name.utf8
    guard utf8.count == lower.utf8CodeUnitCount else { return false }
    // A native string's bytes in place; the view's iterator only for a bridged one.
    return utf8.withContiguousStorageIfAvailable { bytes in
      for i in 0..<bytes.count where folded(bytes[i]) != lower.utf8Start[i] { return false }
      return true
    } ?? utf8.enumerated().allSatisfy { folded($0.element) == lower.utf8Start[$0.offset] }
  }

  /// `byte` with the ASCII capitals lower-cased.
  @inline(__always) nonisolated private static func folded(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
  }

  /// How curl sends the method: GET and HEAD natively, POST as a POST of known size, PUT and
  /// every other method with a body as an upload of known size (custom methods by name).
  private func configureMethodAndBody(_ options: inout EasyOptions, _ me: UnsafeMutableRawPointer) {
    let method = request.method
    if method == "HEAD" {
      options.set(CURLOPT_NOBODY, 1)
      body = nil
      return
    }
    if request.body == nil && method != "POST" && method != "PUT" {
      options.set(CURLOPT_HTTPGET, 1)
      if method != "GET" { options.set(CURLOPT_CUSTOMREQUEST, method) }
      body = nil
      return
    }
    let reader = BodyReader(
      request.body ?? BodyPlan(segments: []), readRoots: spec.readRoots, protected: spec.protectedPaths)
    body = reader
    // A stream's length is not known: -1 makes curl send it chunked on HTTP/1.1 (a DATA
    // stream ended by END_STREAM on HTTP/2).
    let length = reader.isStreamed ? -1 : curl_off_t(reader.length)
    if method == "POST" {
      options.set(CURLOPT_POST, 1)
      options.check(ferry_curl_easy_setopt_off_t(options.handle, CURLOPT_POSTFIELDSIZE_LARGE, length))
    } else {
      options.set(CURLOPT_UPLOAD, 1)
      options.check(ferry_curl_easy_setopt_off_t(options.handle, CURLOPT_INFILESIZE_LARGE, length))
      if method != "PUT" { options.set(CURLOPT_CUSTOMREQUEST, method) }
    }
    options.check(
      ferry_curl_easy_setopt_func_read(options.handle, CURLOPT_READFUNCTION, CurlTrampolines.read))
    options.set(CURLOPT_READDATA, pointer: me)
    options.check(
      ferry_curl_easy_setopt_func_seek(options.handle, CURLOPT_SEEKFUNCTION, CurlTrampolines.seek))
    options.set(CURLOPT_SEEKDATA, pointer: me)
  }
}

/// `curl_easy_setopt` by argument type on one handle, keeping the first failure.
struct EasyOptions {
  let handle: UnsafeMutableRawPointer
  private(set) var result = CURLE_OK

  init(_ handle: UnsafeMutableRawPointer) { self.handle = handle }

  mutating func check(_ code: CURLcode) {
    if result == CURLE_OK { result = code }
  }

  mutating func set(_ option: CURLoption, _ value: Int) {
    check(ferry_curl_easy_setopt_long(handle, option, value))
  }

  /// Sets `option` unless the handle holds `value` already (`known`, `EasyHandle.KnownOptions`).
  mutating func set(_ option: CURLoption, _ value: Int, known: inout Int?) {
    guard known != value else { return }
    let code = ferry_curl_easy_setopt_long(handle, option, value)
    check(code)
    known = code == CURLE_OK ? value : nil
  }

  /// curl copies string options, so the C string only has to live for the call.
  mutating func set(_ option: CURLoption, _ value: String) {
    check(value.withCString { ferry_curl_easy_setopt_str(handle, option, $0) })
  }

  /// Sets a string option (nil: none) unless the handle holds `value` already (`known`).
  mutating func set(_ option: CURLoption, _ value: String?, known: inout String??) {
    if let held = known, held == value { return }
    let code =
      value.map { text in text.withCString { ferry_curl_easy_setopt_str(handle, option, $0) } }
      ?? ferry_curl_easy_setopt_ptr(handle, option, nil)
    check(code)
    known = code == CURLE_OK ? .some(value) : nil
  }

  mutating func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) {
    check(ferry_curl_easy_setopt_ptr(handle, option, pointer))
  }

  mutating func set(_ option: CURLoption, write callback: curl_write_callback) {
    check(ferry_curl_easy_setopt_func_write(handle, option, callback))
  }
}
