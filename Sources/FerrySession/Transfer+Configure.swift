import CFerryCurl
import FerrySerializer

/// Setting up the easy handle for the current hop: every option, from a freshly reset handle.
extension Transfer {
  /// Sets the hop's options; returns the first failure, or `CURLE_OK`.
  func configureHop() -> CURLcode {
    guard let slot else { return CURLE_FAILED_INIT }
    var options = EasyOptions(slot.handle)
    let me = Unmanaged.passUnretained(self).toOpaque()
    options.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(slot.errorBuffer))
    if let denial = spec.egress?.check(url: request.url) {
      // curl never gets a denied URL, so it resolves and dials nothing: it fails the hop with
      // CURLE_URL_MALFORMAT ("No URL set"), which the recorded error explains.
      recordedError = denial
    } else {
      options.set(CURLOPT_URL, request.url)
    }
    options.set(CURLOPT_NOSIGNAL, 1)
    options.set(CURLOPT_PROTOCOLS_STR, "http,https")
    options.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    options.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
    configureRedirects(&options)
    configureTLS(&options)
    configureTimeouts(&options)
    configureHeaders(&options)
    configureMethodAndBody(&options, me)
    configureEgress(&options, me)
    options.set(CURLOPT_WRITEFUNCTION, write: CurlTrampolines.write)
    options.set(CURLOPT_WRITEDATA, pointer: me)
    options.set(CURLOPT_HEADERFUNCTION, write: CurlTrampolines.header)
    options.set(CURLOPT_HEADERDATA, pointer: me)
    if spec.wantsProgress {
      options.set(CURLOPT_NOPROGRESS, 0)
      options.check(
        ferry_curl_easy_setopt_func_xferinfo(slot.handle, CURLOPT_XFERINFOFUNCTION, CurlTrampolines.progress))
      options.set(CURLOPT_XFERINFODATA, pointer: me)
    }
    return options.result
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

  /// The connect-time checks of a transfer with an egress policy (host names are checked when
  /// a hop is configured and when curl is about to follow a redirect). Our socket callback
  /// opens every socket of such a transfer, checking addresses when `denyPrivate` is set;
  /// the pre-request callback checks reused connections, which open no socket.
  private func configureEgress(_ options: inout EasyOptions, _ me: UnsafeMutableRawPointer) {
    guard let policy = spec.egress else { return }
    options.check(
      ferry_curl_easy_setopt_func_opensocket(
        options.handle, CURLOPT_OPENSOCKETFUNCTION, CurlTrampolines.openSocket))
    options.set(CURLOPT_OPENSOCKETDATA, pointer: me)
    guard policy.denyPrivate else { return }
    options.check(
      ferry_curl_easy_setopt_func_prereq(options.handle, CURLOPT_PREREQFUNCTION, CurlTrampolines.prerequest))
    options.set(CURLOPT_PREREQDATA, pointer: me)
  }

  private func configureRedirects(_ options: inout EasyOptions) {
    let byCurl = spec.followRedirects && !followsRedirectsItself
    options.set(CURLOPT_FOLLOWLOCATION, byCurl ? 1 : 0)
    guard byCurl else { return }
    options.set(CURLOPT_MAXREDIRS, max(0, spec.maxRedirects))
    // 0 is browser behaviour: POST becomes GET on 301, 302 and 303 (CURLOPT_POSTREDIR(3)).
    options.set(CURLOPT_POSTREDIR, 0)
    // Authorization and Cookie headers never go to another host (curl's default; CVE-2018-1000007).
    options.set(CURLOPT_UNRESTRICTED_AUTH, 0)
  }

  private func configureTimeouts(_ options: inout EasyOptions) {
    options.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, spec.connectTimeoutMs))
    guard let total = spec.totalTimeoutMs else { return }
    // A later hop of a redirect we follow ourselves gets what is left of the total.
    let spent = attachedAtMs == 0 ? 0 : Int(loop.now() - attachedAtMs)
    options.set(CURLOPT_TIMEOUT_MS, max(1, total - spent))
  }

  /// The request's headers, plus what keeps curl from adding its own (no `Expect:
  /// 100-continue` round trip, no default form Content-Type on a POST without one) and the
  /// `Range` of a resumed download.
  private func configureHeaders(_ options: inout EasyOptions) {
    var list: UnsafeMutablePointer<curl_slist>?
    var hasContentType = false
    var hasExpect = false
    var hasRange = false
    for (name, value) in request.headers {
      let lower = name.lowercased()
      hasContentType = hasContentType || lower == "content-type"
      hasExpect = hasExpect || lower == "expect"
      hasRange = hasRange || lower == "range"
      // "Name:" would remove the header; "Name;" is curl's way to send it empty.
      let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
      list = curl_slist_append(list, line)
    }
    if !hasExpect { list = curl_slist_append(list, "Expect:") }
    // Our own Range rather than CURLOPT_RESUME_FROM_LARGE, which fails the transfer when the
    // server ignores it; the caller starts over on a 200 instead.
    if let from = spec.resumeFromByte, from > 0, !hasRange {
      list = curl_slist_append(list, "Range: bytes=\(from)-")
    }
    if request.method == "POST" && !hasContentType { list = curl_slist_append(list, "Content-Type:") }
    headerList = list
    options.check(ferry_curl_easy_setopt_slist(options.handle, CURLOPT_HTTPHEADER, list))
    if spec.acceptEncoding {
      // The request's own header is what goes out; this makes curl decode what comes back.
      options.set(CURLOPT_ACCEPT_ENCODING, request.header("Accept-Encoding") ?? "")
    }
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
    let reader = BodyReader(request.body ?? BodyPlan(segments: []), readRoots: spec.readRoots)
    body = reader
    let length = curl_off_t(reader.length)
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

  /// curl copies string options, so the C string only has to live for the call.
  mutating func set(_ option: CURLoption, _ value: String) {
    check(value.withCString { ferry_curl_easy_setopt_str(handle, option, $0) })
  }

  mutating func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) {
    check(ferry_curl_easy_setopt_ptr(handle, option, pointer))
  }

  mutating func set(_ option: CURLoption, write callback: curl_write_callback) {
    check(ferry_curl_easy_setopt_func_write(handle, option, callback))
  }
}
