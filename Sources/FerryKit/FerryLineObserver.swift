/// Which way a protocol line went, for a `FerryLineObserver`.
public enum FerryLineDirection: Sendable, Equatable {
  /// A line this client wrote to the daemon (a job line or an op).
  case sent
  /// A line the daemon wrote to this client (an event or an op's answer).
  case received
}

/// Sees each protocol line of a `FerryClient`: its direction and its bytes, without the newline.
public typealias FerryLineObserver = @Sendable (FerryLineDirection, [UInt8]) -> Void
