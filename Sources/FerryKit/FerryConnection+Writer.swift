import Dispatch
import FerryChannel

/// What the write queue has still to do, in order.
enum PendingWrite: Sendable {
  /// A whole line; `descriptors` go with its newline.
  case line([UInt8], descriptors: [Int32])
  /// The part of a line (its newline included) that a direct send left.
  case rest(ArraySlice<UInt8>)
  case shutdownReading
  case close
}

/// The connection's writing side: whether the write queue is busy, and what waits for it.
struct Outbox: Sendable {
  var pending: [PendingWrite] = []
  /// The write queue is taking `pending`: every write goes after it, in order.
  var isDraining = false
  /// The descriptor is closed, or its close is queued: nothing more is written.
  var isClosing = false
}

extension FerryConnection {
  /// Writes `line` and its newline in order after every earlier write (`write(framed:)`).
  func write(_ line: [UInt8], descriptors: [Int32] = []) {
    var framed = line
    framed.append(0x0A)
    write(framed: framed, descriptors: descriptors)
  }

  /// Writes `framed` (a line and its newline) in order after every earlier write. When nothing
  /// waits, the caller's thread sends it at once without waiting for room (`MSG_DONTWAIT`),
  /// which spares a hop to the write queue (and a thread's wake-up) per line; what the socket
  /// does not take, and lines with descriptors, go to the write queue. Never blocks, so the
  /// reader thread may write too (a reader blocked on a full socket would deadlock with the
  /// daemon).
  func write(framed: [UInt8], descriptors: [Int32] = []) {
    outbox.withLock { o in
      guard !o.isClosing else { return }
      guard descriptors.isEmpty else {
        // The socket's send adds the newline and shows the line to the observer.
        o.pending.append(.line(Array(framed.dropLast()), descriptors: descriptors))
        startDraining(&o)
        return
      }
      if let observer = socket.observer { observer(true, Array(framed.dropLast())) }
      guard !o.isDraining else {
        o.pending.append(.rest(framed[...]))
        startDraining(&o)
        return
      }
      let sent = framed.withUnsafeBytes { socket.sendNow($0) }
      // All of it, or the daemon went away (the reader thread sees the end of the stream).
      guard sent >= 0, sent < framed.count else { return }
      o.pending.append(.rest(framed[sent...]))
      startDraining(&o)
    }
  }

  /// Shuts the reading side, after every write queued before.
  func shutdownReadingAfterWrites() {
    outbox.withLock { o in
      guard !o.isClosing else { return }
      o.pending.append(.shutdownReading)
      startDraining(&o)
    }
  }

  /// Closes the descriptor after every write queued before; later writes are dropped, so none
  /// goes to a closed (or reused) descriptor.
  func closeAfterWrites() {
    outbox.withLock { o in
      guard !o.isClosing else { return }
      o.isClosing = true
      o.pending.append(.close)
      startDraining(&o)
    }
  }

  private func startDraining(_ o: inout Outbox) {
    guard !o.isDraining else { return }
    o.isDraining = true
    writer.async { [self] in drain() }
  }

  /// On the write queue: sends what is pending, waiting for room, until nothing is left.
  private func drain() {
    while true {
      let batch: [PendingWrite] = outbox.withLock { o in
        if o.pending.isEmpty { o.isDraining = false }
        defer { o.pending = [] }
        return o.pending
      }
      if batch.isEmpty { return }
      for item in batch {
        switch item {
        case .line(let line, let descriptors): _ = socket.send(line: line, descriptors: descriptors)
        case .rest(let bytes): _ = socket.sendAll(bytes)
        case .shutdownReading: socket.shutdownReading()
        case .close:
          socket.close()
          isDescriptorClosed.withLock { $0 = true }
          return
        }
      }
    }
  }
}
