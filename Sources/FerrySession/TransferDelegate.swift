import FerryWire

/// Which way bytes moved, for progress reports.
public enum ProgressDirection: String, Sendable, Equatable {
  case upload
  case download
}

/// What the delegate makes of a chunk of response body.
public enum BodyDisposition: Sendable, Equatable {
  /// The bytes were taken; keep going.
  case `continue`
  /// The bytes were NOT taken: the transfer holds them (and what follows), and stops receiving
  /// until `Transfer.resumeReceive()`, which delivers them again first.
  case pause
  /// Stop the transfer; it finishes with this error.
  case abort(WireError)
}

/// Hears one transfer's events, on the loop, in order: the head of the last hop, body chunks
/// and progress reports, then exactly one `transferDidFinish` (unless the transfer is cancelled,
/// after which nothing more is delivered).
///
/// Every call comes once curl has returned (the engine delivers what curl's callbacks recorded),
/// never from inside curl. So the delegate may call `pauseReceive()`, `resumeReceive()` and
/// `cancel()` on this transfer or any other, start transfers and shut the engine down, from
/// inside any of these methods, and each takes effect before the call returns.
@MainActor public protocol TransferDelegate: AnyObject {
  /// The status line and headers of the response's last hop (after redirects; interim 1xx
  /// responses and followed redirects are never reported). At most once.
  func transferDidReceiveHead(_ head: ResponseHead)
  /// A chunk of the (decoded) response body. The buffer is only valid during the call.
  func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition
  /// Bytes moved in one direction; throttled to `TransferSpec.progressIntervalMs`, with the
  /// last count always delivered before `transferDidFinish`.
  func transferDidProgress(direction: ProgressDirection, done: Int64, total: Int64?)
  /// The transfer ended; the engine is done with it.
  func transferDidFinish(_ result: Result<TransferMetrics, WireError>)
}
