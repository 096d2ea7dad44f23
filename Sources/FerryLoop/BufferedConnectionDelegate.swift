/// Receives what happens on a `BufferedConnection`, always on the loop.
///
/// Calls are never re-entrant from the connection's own methods, with one deliberate
/// exception: `connectionDidFillOutput` runs inside the `write` that crossed the high
/// watermark, so the writer can pause its source before producing more.
@MainActor public protocol BufferedConnectionDelegate: AnyObject {
  /// Bytes arrived. `chunk` is valid only during the call: consume or copy it now.
  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer)

  /// With `receivesDescriptors`: the peer passed these descriptors (close-on-exec) with the
  /// message that ends the chunk `connection(_:didRead:)` delivers next (the message may have
  /// begun in an earlier chunk; bytes of earlier messages may precede it in this one; no later
  /// message is in it). `truncated` when it sent more than FERRY_MAX_RECEIVED_FDS in one
  /// message (the rest are gone). The delegate owns them and must close every one it does not
  /// keep.
  func connection(
    _ connection: BufferedConnection, didReceiveDescriptors descriptors: [Int32], truncated: Bool)

  /// The peer shut down its sending side; reading has stopped, writing still works.
  func connectionDidReadEOF(_ connection: BufferedConnection)

  /// Pending output reached `highWatermark`: stop producing until `connectionDidDrainOutput`.
  func connectionDidFillOutput(_ connection: BufferedConnection)

  /// Pending output fell to `lowWatermark` after having filled: produce again.
  func connectionDidDrainOutput(_ connection: BufferedConnection)

  /// The connection is closed and its descriptor released: `error` is nil after a completed
  /// `closeWhenFlushed()`, otherwise why the peer is gone (reset, EPIPE, …). Not called after
  /// an explicit `close()`.
  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?)
}

extension BufferedConnectionDelegate {
  /// Default: takes none; each is closed at once.
  public func connection(
    _ connection: BufferedConnection, didReceiveDescriptors descriptors: [Int32], truncated: Bool
  ) {
    descriptors.forEach(SystemCall.close)
  }

  /// Default: no flow control.
  public func connectionDidFillOutput(_ connection: BufferedConnection) {}

  /// Default: no flow control.
  public func connectionDidDrainOutput(_ connection: BufferedConnection) {}
}
