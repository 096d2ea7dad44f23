import FerrySerializer

/// Everything one attempt of a job needs: the serialized request and the knobs of its transfer.
///
/// Defaults are PROTOCOL.md's: 30 s to connect, 60 s without a byte moving, no limit on the
/// whole transfer, redirects followed up to 10, progress at most every 100 ms per direction.
public struct TransferSpec: Sendable, Equatable {
  /// Method, URL, headers and body plan, as the request serializer made them.
  public var request: Request
  /// Time allowed to resolve, connect and finish the TLS handshake.
  public var connectTimeoutMs: Int
  /// Time allowed with no byte moving either way (not counted while the receive side is paused
  /// by the delegate, nor before the connection is up: `connectTimeoutMs` covers that).
  public var idleTimeoutMs: Int
  /// Time allowed for the whole transfer, redirects included; `nil` for no limit.
  public var totalTimeoutMs: Int?
  public var followRedirects: Bool
  /// Most redirects followed before the transfer fails with `too_many_redirects`.
  public var maxRedirects: Int
  /// Least time between two progress reports in one direction.
  public var progressIntervalMs: Int
  /// Whether the delegate hears `transferDidProgress` at all.
  public var wantsProgress: Bool
  /// Ask for the body from this byte on (`Range: bytes=N-`), to continue a partial download.
  /// A server that ignores it answers 200 with the whole body, which the caller must notice
  /// (status 206 means the rest follows).
  public var resumeFromByte: Int64?
  /// The validator (ETag or HTTP-date) sent as `If-Range` with `resumeFromByte`, so a server
  /// whose file changed answers 200 with the new one instead of a 206 of its tail.
  public var ifRange: String?
  /// Let libcurl decode `Content-Encoding` (gzip, deflate, br, zstd), so the body arrives
  /// decoded. The encodings offered are the request's own `Accept-Encoding` when it has one.
  public var acceptEncoding: Bool
  /// TLS and proxy settings of the job's session.
  public var tls = TLSOptions()
  /// Where the transfer may connect; `nil` checks nothing and costs nothing.
  public var egress: EgressPolicy?
  /// When the job entered its queue, on `Engine.clockMs()`'s clock, for `timing.queued`;
  /// `nil` reports zero.
  public var enqueuedAtMs: UInt64?
  /// `read_roots`: body files must still lie under one when opened; nil checks nothing.
  public var readRoots: [String]?
  /// The daemon's config, drop-ins and credentials: body files never read from there.
  public var protectedPaths: [String]
  /// The session's `resolve` pins (`CURLOPT_RESOLVE`); nil pins nothing.
  public var resolve: ResolveList?
  /// curl's receive buffer (`CURLOPT_BUFFERSIZE`) in bytes; nil keeps curl's 16 KiB. A larger
  /// one reads a big body in fewer, larger `recv` calls (curl's own tool uses 100 KB); the body
  /// still reaches the write callback in pieces of at most 16 KiB (`CURL_MAX_WRITE_SIZE`).
  public var receiveBufferBytes: Int?

  public init(
    request: Request, connectTimeoutMs: Int = 30_000, idleTimeoutMs: Int = 60_000,
    totalTimeoutMs: Int? = nil, followRedirects: Bool = true, maxRedirects: Int = 10,
    progressIntervalMs: Int = 100, wantsProgress: Bool = true, resumeFromByte: Int64? = nil,
    ifRange: String? = nil, acceptEncoding: Bool = true, enqueuedAtMs: UInt64? = nil,
    tls: TLSOptions = TLSOptions(),
    egress: EgressPolicy? = nil, readRoots: [String]? = nil, protectedPaths: [String] = [],
    resolve: ResolveList? = nil, receiveBufferBytes: Int? = nil
  ) {
    self.request = request
    self.readRoots = readRoots
    self.protectedPaths = protectedPaths
    self.resolve = resolve
    self.receiveBufferBytes = receiveBufferBytes
    self.tls = tls
    self.egress = egress
    self.connectTimeoutMs = connectTimeoutMs
    self.idleTimeoutMs = idleTimeoutMs
    self.totalTimeoutMs = totalTimeoutMs
    self.followRedirects = followRedirects
    self.maxRedirects = maxRedirects
    self.progressIntervalMs = progressIntervalMs
    self.wantsProgress = wantsProgress
    self.resumeFromByte = resumeFromByte
    self.ifRange = ifRange
    self.acceptEncoding = acceptEncoding
    self.enqueuedAtMs = enqueuedAtMs
  }
}

/// TLS and proxy settings a session gives its transfers.
public struct TLSOptions: Sendable, Equatable {
  /// PEM bundle of trusted certificate authorities (CURLOPT_CAINFO); nil for the system's.
  public var caFile: String?
  /// `sha256//BASE64[;sha256//…]` (CURLOPT_PINNEDPUBLICKEY), checked on the first origin.
  public var pinnedPublicKey: String?
  /// Skip peer and host verification.
  public var insecure = false
  /// Proxy URL (CURLOPT_PROXY).
  public var proxy: String?

  public init(
    caFile: String? = nil, pinnedPublicKey: String? = nil, insecure: Bool = false, proxy: String? = nil
  ) {
    self.caFile = caFile
    self.pinnedPublicKey = pinnedPublicKey
    self.insecure = insecure
    self.proxy = proxy
  }
}
