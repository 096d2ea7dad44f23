/// What a finished transfer reports besides its body: the last hop's status and URL, timings,
/// byte counts and how it got its connection.
public struct TransferMetrics: Sendable, Equatable {
  /// Timings in milliseconds, as the `done` event's `timing` object carries them.
  public struct Timing: Sendable, Equatable {
    /// From `TransferSpec.enqueuedAtMs` to the start of the transfer.
    public var queued: Double
    /// Until the TCP connection was up (0 when an existing connection was reused).
    public var connect: Double
    /// Until the TLS handshake was done (0 for plain http or a reused connection).
    public var tls: Double
    /// Until the first response byte arrived.
    public var firstByte: Double
    /// The whole transfer, redirects included.
    public var total: Double

    public init(queued: Double, connect: Double, tls: Double, firstByte: Double, total: Double) {
      self.queued = queued
      self.connect = connect
      self.tls = tls
      self.firstByte = firstByte
      self.total = total
    }
  }

  /// Status of the last hop.
  public var status: Int
  /// URL of the last hop, after redirects.
  public var effectiveURL: String
  /// `"1.0"`, `"1.1"`, `"2"` or `"3"`.
  public var httpVersion: String
  public var timing: Timing
  /// Request body bytes sent (the last hop's).
  public var bytesUp: Int64
  /// Response body bytes received (the last hop's, before content decoding).
  public var bytesDown: Int64
  /// Connections this transfer opened, over all its hops.
  public var connectionsOpened: Int
  /// Whether the transfer ran on a connection another transfer left in the pool.
  public var connectionReused: Bool
  public var redirectCount: Int

  public init(
    status: Int, effectiveURL: String, httpVersion: String, timing: Timing, bytesUp: Int64,
    bytesDown: Int64, connectionsOpened: Int, connectionReused: Bool, redirectCount: Int
  ) {
    self.status = status
    self.effectiveURL = effectiveURL
    self.httpVersion = httpVersion
    self.timing = timing
    self.bytesUp = bytesUp
    self.bytesDown = bytesDown
    self.connectionsOpened = connectionsOpened
    self.connectionReused = connectionReused
    self.redirectCount = redirectCount
  }
}
