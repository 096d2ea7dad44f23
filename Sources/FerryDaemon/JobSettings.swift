import FerryWire

/// What a `JobRun` reads of its merged job once it is accepted: the few fields its attempts use,
/// with their defaults applied, under the `Job` names they had.
///
/// Not the whole `Job` (about 430 bytes inline: every field the decoder knows, most of them
/// spent by the time the request is built): a queued job waits with its `JobRun`, and issue 29's
/// B4 (100 000 jobs at once) counts every byte of it. What the submission needed (the body, the
/// headers, auth, parameters) went into the `Request` or was checked and dropped.
struct JobSettings {
  // Words first, then the optionals, then the bytes: no padding between them.
  let connectTimeoutMs: Int
  let idleTimeoutMs: Int
  let redirectLimit: Int
  let progressInterval: Int
  /// The inline response's size limit and mode (`ResponseCollector`).
  let maxInlineBytes: Int
  /// `output`: the file the body goes into.
  let output: String?
  /// `timeout`, seconds: the whole job's, across its attempts.
  let timeout: Double?
  let tls: JobTLS?
  let retry: RetryPolicy?
  let resume: Bool?
  let response: ResponseMode?
  let collectorMode: ResponseMode
  let followsRedirects: Bool
  /// What it needs of the network, as its fields ask it (`Daemon.networkNeed` adds the rest).
  let network: JobTable.NetworkNeed
  var waitsForNetwork: Bool { network.waits }

  init(_ job: borrowing Job) {
    output = job.output
    timeout = job.timeout
    tls = job.tls
    retry = job.retry
    connectTimeoutMs = job.connectTimeoutMs
    idleTimeoutMs = job.idleTimeoutMs
    redirectLimit = job.redirectLimit
    progressInterval = job.progressInterval
    resume = job.resume
    response = job.response
    followsRedirects = job.followsRedirects
    // A streamed job's rejected response still comes back inline, as `auto` would have it.
    collectorMode = job.response == .stream ? .auto : job.response ?? .auto
    maxInlineBytes = job.maxInlineBytes ?? Job.defaultMaxInlineBytes
    network = JobTable.NetworkNeed(job)
  }

  /// An empty collector for the job's response.
  func newCollector() -> ResponseCollector {
    ResponseCollector(mode: collectorMode, maxInlineBytes: maxInlineBytes)
  }
}
