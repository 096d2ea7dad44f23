/// Counters over every transfer an engine finished, for the `stats` op.
public struct EngineStats: Sendable, Equatable {
  /// Connections transfers opened (`CURLINFO_NUM_CONNECTS`, summed).
  public var connectionsOpened: Int = 0
  /// Transfers that ran on a connection from the pool instead of opening one.
  public var connectionsReused: Int = 0
  /// Request body bytes sent.
  public var bytesUp: Int64 = 0
  /// Response body bytes received (before content decoding).
  public var bytesDown: Int64 = 0
  /// Transfers that ended with `transferDidFinish` (success or failure), not cancelled.
  public var transfersFinished: Int = 0
  public var transfersCancelled: Int = 0
  /// Jobs that set their own receive buffer size and found the most recently freed handle
  /// still holding curl's buffer (`EasyHandle.take`): they took an older one, or a new one.
  public var handlesPassedOver: Int = 0
  /// Easy handles made (the engine's own and its cookie jars'): a reused handle makes none.
  public var handlesMade: Int = 0
  /// Handles that went back to the free list without `curl_easy_reset`, their options as the
  /// last (ordinary) job left them (`Transfer.leavesHandleClean`).
  public var handlesKeptSet: Int = 0
  /// `CURLOPT_HTTPHEADER` lists built; a hop that sends what the last hop on its handle sent
  /// takes that list (`HeaderListCache`) and builds none.
  public var headerListsBuilt: Int = 0
  /// Transfers that waited for a later curl call to be started (`StartPacer`).
  public var startsPaced: Int = 0

  public init() {}
}

/// libcurl's connection pool limits for one engine (0 means no limit).
public struct PoolLimits: Sendable, Equatable {
  /// At most this many connections to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`); transfers
  /// beyond it wait inside curl for a free connection.
  public var maxHostConnections: Int
  /// At most this many connections at once (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
  public var maxTotalConnections: Int
  /// Idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`); 0 keeps curl's default.
  public var maxIdleConnections: Int

  public init(maxHostConnections: Int = 0, maxTotalConnections: Int = 0, maxIdleConnections: Int = 0) {
    self.maxHostConnections = maxHostConnections
    self.maxTotalConnections = maxTotalConnections
    self.maxIdleConnections = maxIdleConnections
  }
}
