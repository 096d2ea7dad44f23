import Dispatch
import FerryChannel
import FerryWire
import Glibc

extension FerryConnection {
  /// Starts the reader thread, which holds the connection until the daemon closes it.
  ///
  /// A thread of its own, blocked in `recv`, rather than a task: it must always be reading
  /// (ferryd stops reading a client whose output is full, so a client that writes without
  /// reading deadlocks both), whatever the caller's executors are doing.
  func startReader() throws(FerryError) {
    let context = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
      &thread, nil,
      { raw in
        let connection = Unmanaged<FerryConnection>.fromOpaque(raw!).takeRetainedValue()
        connection.readUntilClosed()
        return nil
      }, context)
    guard rc == 0 else {
      Unmanaged<FerryConnection>.fromOpaque(context).release()
      throw FerryError(code: "daemon_unavailable", message: "cannot start a reader thread: \(rc)")
    }
    pthread_detach(thread)
  }

  /// Reads lines until the end of the stream, then fails what is left.
  private func readUntilClosed() {
    // Event lines carry inline bodies (base64, up to the daemon's max_inline_bytes).
    var framer = LineFramer(maxLineBytes: 1 << 30)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { buffer.deallocate() }
    var lines: [ReadLine] = []
    while true {
      let n = socket.receive(into: buffer)
      if n == 0 { break }
      framer.feed(UnsafeRawBufferPointer(rebasing: buffer[..<n])) { item in
        if case .line(let raw) = item, let line = take(raw) { lines.append(line) }
      }
      handle(lines)
      lines.removeAll(keepingCapacity: true)
    }
    framer.finish { item in
      if case .line(let raw) = item, let line = take(raw) { lines.append(line) }
    }
    handle(lines)
    lose(FerryError.closed())
  }

  /// A line as the reader takes it: a job event routed by its head (`EventLine.Head`) and
  /// kept as bytes, or any other line read whole.
  private enum ReadLine {
    case job(id: String, EventLine)
    case object(JSONObject)
  }

  private func take(_ raw: UnsafeRawBufferPointer) -> ReadLine? {
    socket.observer?(false, Array(raw))
    // A `failed` line is read whole: `overloaded` is found in its error.
    if let head = EventLine.Head(raw), head.name != .failed, head.name != .other {
      return .job(id: String(decoding: head.id, as: UTF8.self), EventLine(bytes: Array(raw), name: head.name))
    }
    guard case .object(let e)? = try? JSONReader().read(raw) else { return nil }
    return .object(e)
  }

  /// What one line tells a job or an op waiter, to be told once the lock is released.
  private enum Delivery {
    case job(@Sendable (JobSignal) -> Void, EventLine, sent: PassedDescriptors)
    case op(FerryConnection.OpWaiter, Result<JSONObject, FerryError>)
  }

  /// Routes the lines of one read under one lock, then tells their jobs and ops in order:
  /// the jobs a read completes are resumed in one batch, with one lock taken per read, not
  /// per line.
  private func handle(_ lines: [ReadLine]) {
    guard !lines.isEmpty else { return }
    let deliveries: [Delivery] = state.withLock { s in
      var out: [Delivery] = []
      out.reserveCapacity(lines.count)
      for line in lines {
        let delivery: Delivery?
        switch line {
        case .job(let id, let line): delivery = jobEvent(id, line, isOverloaded: false, &s)
        case .object(let e): delivery = route(e, &s)
        }
        if let delivery { out.append(delivery) }
      }
      return out
    }
    for delivery in deliveries {
      switch delivery {
      case .job(let sink, let line, var sent):
        sent.closeAll()
        sink(.event(line))
      case .op(let waiter, let result): waiter.resume(result)
      }
    }
  }

  private func route(_ e: JSONObject, _ s: inout State) -> Delivery? {
    if let id = e["id"]?.stringValue {
      let isOverloaded =
        e["event"]?.stringValue == "failed" && e["error"]?.objectValue?["code"]?.stringValue == "overloaded"
        && e["seq"].flatMap(FerryResponse.int) == 1
      return jobEvent(id, EventLine(object: e), isOverloaded: isOverloaded, &s)
    }
    let name = e["event"]?.stringValue ?? ""
    if name == "error", let id = e["error"]?.objectValue?["id"]?.stringValue, s.routes[id] != nil {
      // A refused `attach` (unknown_id) or job line: the job's ending.
      var failed = JSONObject(["event": "failed", "id": .string(id)])
      failed.append(key: "error", value: e["error"] ?? .null)
      return jobEvent(id, EventLine(object: failed), isOverloaded: false, &s)
    }
    guard let waiter = s.takeOp(answering: name) else { return nil }
    return .op(waiter, name == "error" ? .failure(FerryError(event: e)) : .success(e))
  }

  private func jobEvent(_ id: String, _ line: EventLine, isOverloaded: Bool, _ s: inout State) -> Delivery? {
    // One hash of the id: the route is changed or removed at its index.
    guard let index = s.routes.index(forKey: id) else { return nil }
    if isOverloaded, s.routes.values[index].isLive {
      // The job never existed: it waits for room and goes again, descriptors and all.
      s.routes.values[index].isLive = false
      s.live -= 1
      // Ahead of the lines never sent, after those refused before it: submission order.
      s.waiting.insert(id, at: min(s.requeued, s.waiting.count))
      s.requeued += 1
      s.isHeld = true
      s.resent += 1
      if s.live == 0 { retryLater() }
      return nil
    }
    let route: Route
    if line.name.isTerminal {
      route = s.routes.remove(at: index).value
      if route.isLive { s.live -= 1 }
      s.isHeld = false
      pump(&s)
    } else {
      route = s.routes.values[index]
      s.routes.values[index].descriptors = PassedDescriptors()
    }
    let sent = route.descriptors
    return .job(route.sink, line, sent: sent)
  }

  /// With nothing live to wait for (the daemon is full with other clients' jobs), tries again
  /// after a short pause.
  private func retryLater() {
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
      state.withLock { s in
        s.isHeld = false
        pump(&s)
      }
    }
  }

  /// Fails every job and op left: the connection is gone.
  private func lose(_ error: FerryError) {
    let (routes, ops) = state.withLock { s in
      s.closedError = error
      let left = (s.routes, s.ops)
      s.routes = [:]
      s.waiting = []
      s.live = 0
      s.ops = []
      // Closed for real now: the daemon sees a disconnection (detached jobs stay for attach).
      closeAfterWrites()
      return left
    }
    for route in routes.values {
      var sent = route.descriptors
      sent.closeAll()
      route.sink(.lost(error))
    }
    for op in ops { op.resume(.failure(error)) }
  }
}
