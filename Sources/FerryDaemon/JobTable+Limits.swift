extension JobTable {
  /// A session's scheduling settings from the configuration.
  public struct SessionLimits: Sendable, Equatable {
    public var maxConcurrent: Int
    public var startIntervalMs: UInt64?
    /// Lanes all users share (`shared_lanes`); any other lane is per user.
    public var sharedLanes: Set<String>
    /// A session with `shared` limits: each start waits for a permit (JobTable+Admission).
    public var isShared: Bool

    public init(
      maxConcurrent: Int, startIntervalMs: UInt64? = nil, sharedLanes: Set<String> = [],
      isShared: Bool = false
    ) {
      self.maxConcurrent = maxConcurrent
      self.startIntervalMs = startIntervalMs
      self.sharedLanes = sharedLanes
      self.isShared = isShared
    }
  }

  /// The daemon-wide admission limits.
  public struct Limits: Sendable, Equatable {
    public var maxJobs: Int
    public var maxJobsPerConnection: Int
    public var maxRequestBytes: Int
    public var maxInlineTotalBytes: Int
    public var maxReplayEvents: Int
    public var maxReplayBytes: Int
    public var detachedTTLMs: UInt64
    public var maxDetachedBytes: Int

    public init(
      maxJobs: Int, maxJobsPerConnection: Int, maxRequestBytes: Int, maxInlineTotalBytes: Int = 256 << 20,
      maxReplayEvents: Int = 256, maxReplayBytes: Int = 1 << 20, detachedTTLMs: UInt64 = 3_600_000,
      maxDetachedBytes: Int = 64 << 20
    ) {
      self.maxJobs = maxJobs
      self.maxJobsPerConnection = maxJobsPerConnection
      self.maxRequestBytes = maxRequestBytes
      self.maxInlineTotalBytes = maxInlineTotalBytes
      self.maxReplayEvents = maxReplayEvents
      self.maxReplayBytes = maxReplayBytes
      self.detachedTTLMs = detachedTTLMs
      self.maxDetachedBytes = maxDetachedBytes
    }
  }
}

extension JobTable.Limits {
  /// The admission limits of a configuration.
  init(_ l: DaemonConfig.Limits) {
    self.init(
      maxJobs: l.maxJobs, maxJobsPerConnection: l.maxJobsPerConnection, maxRequestBytes: l.maxRequestBytes,
      maxInlineTotalBytes: l.maxInlineTotalBytes, maxReplayEvents: l.maxReplayEvents,
      maxReplayBytes: l.maxReplayBytes, detachedTTLMs: UInt64(l.detachedTTLSeconds) * 1000,
      maxDetachedBytes: l.maxDetachedBytes)
  }
}
