import FerrySystem
import CFerryEvent
import Glibc

extension BufferedConnection {
  /// Writes `bytes`, or queues what the socket does not take now.
  public func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { write($0) }
  }

  /// Writes `buffer`, or queues what the socket does not take now. Ignored once closed or
  /// after `shutdownWrite()`/`closeWhenFlushed()`.
  ///
  /// A failure here (the peer is gone) closes the connection and reaches the delegate on the
  /// next loop iteration. Crossing `highWatermark` calls `connectionDidFillOutput` before
  /// this returns.
  public func write(_ buffer: UnsafeRawBufferPointer) {
    guard !isClosed && !isWriteShutdownRequested && !isCloseRequested && !buffer.isEmpty else {
      return
    }
    var rest = buffer
    if output.isEmpty {
      do throws(LoopError) {
        let sent = try SystemCall.send(fd, buffer)
        rest = UnsafeRawBufferPointer(rebasing: buffer[sent...])
      } catch {
        if !error.isWouldBlock {
          finish(error: error, deferred: true)
          return
        }
      }
    }
    if rest.isEmpty { return }
    let wasEmpty = output.isEmpty
    output.append(rest)
    if wasEmpty { updateInterest() }
    if !isOutputFull && output.count >= highWatermark {
      isOutputFull = true
      delegate?.connectionDidFillOutput(self)
    }
  }

  /// Sends FIN once pending output is written; reading goes on, further writes are ignored.
  public func shutdownWrite() {
    guard !isClosed && !isWriteShutdownRequested else { return }
    isWriteShutdownRequested = true
    if output.isEmpty { completeFlush(deferred: true) }
  }

  /// Stops reading and closes once pending output is written; the delegate then hears
  /// `connectionDidClose(error: nil)`, or the error if writing fails first.
  public func closeWhenFlushed() {
    guard !isClosed && !isCloseRequested else { return }
    isCloseRequested = true
    if output.isEmpty {
      completeFlush(deferred: true)
    } else {
      updateInterest()
    }
  }

  /// Writes queued output until the socket would block or the queue is empty.
  func flush(deferred: Bool) {
    var failure: LoopError?
    while !output.isEmpty && failure == nil {
      var progressed = false
      output.consume { pending in
        do throws(LoopError) {
          let sent = try SystemCall.send(fd, pending)
          progressed = sent > 0
          return sent
        } catch {
          if !error.isWouldBlock { failure = error }
          return 0
        }
      }
      if !progressed { break }
    }
    if let failure {
      finish(error: failure, deferred: deferred)
      return
    }
    if isOutputFull && output.count <= lowWatermark && !isCloseRequested {
      isOutputFull = false
      delegate?.connectionDidDrainOutput(self)
    }
    guard !isClosed else { return }
    if output.isEmpty {
      completeFlush(deferred: deferred)
    }
    updateInterest()
  }

  /// Output is empty: carry out a requested half-close or close.
  private func completeFlush(deferred: Bool) {
    if isCloseRequested {
      finish(error: nil, deferred: deferred)
    } else if isWriteShutdownRequested {
      do throws(LoopError) {
        try SystemCall.shutdown(fd, Int32(SHUT_WR))
      } catch {
        // ENOTCONN: the peer already closed both ways; the next read or write will say so.
        if error.code != ENOTCONN { finish(error: error, deferred: deferred) }
      }
    }
  }
}
