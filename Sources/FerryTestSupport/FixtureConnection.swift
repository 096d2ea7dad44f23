import FerryLoop
import FerryWire
import Glibc

/// One client connection of the fixture server: parses requests and plays their replies.
///
/// Requests are answered one at a time. While a reply is in progress reading pauses, and any
/// pipelined bytes already read wait in a small stash (at most one read's worth), so input
/// never piles up. Request bodies are hashed as they stream past and never kept.
@MainActor final class FixtureConnection: BufferedConnectionDelegate {
  /// 1 for the server's first connection, 2 for the next, …
  let serial: Int
  let connection: BufferedConnection
  private weak var server: HTTPFixtureServer?

  private var parser = HTTPRequestParser()
  private var head: HTTPRequestHead?
  private var hasher = SHA256Hasher()
  private var bodyLength: UInt64 = 0
  private var isRequestComplete = false
  /// True from a complete request until its reply has been handed to the connection.
  private(set) var isResponding = false
  private var isProcessing = false
  private var stash: [UInt8] = []
  private var keepAlive = true
  private var pump: FixtureBodyPump?
  private var delay: Timer?
  /// The reply a `/delay` waits to send, with the request's method.
  private var pendingDelayed: (FixtureReply, String)?
  /// True after `/stall` sent its head: only the client's going away ends it.
  private var isStalled = false

  init(server: HTTPFixtureServer, fd: Int32, serial: Int) {
    self.serial = serial
    self.server = server
    self.connection = BufferedConnection(loop: server.loop, fd: fd)
    connection.delegate = self
  }

  /// Closes at once (server shutdown).
  func close() {
    delay?.cancel()
    connection.close()
  }

  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    process(chunk)
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    // The client is done sending: finish the reply in progress, if any, then close.
    keepAlive = false
    if !isResponding || isStalled { connection.closeWhenFlushed() }
  }

  func connectionDidDrainOutput(_ connection: BufferedConnection) {
    pumpBody()
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) {
    delay?.cancel()
    server?.connectionDidEnd(self)
  }

  /// Parses `input`, answering each request that completes; stops at a reply in progress.
  private func process(_ input: UnsafeRawBufferPointer) {
    isProcessing = true
    defer { isProcessing = false }
    var offset = 0
    while offset < input.count && !connection.isClosed {
      if isResponding {
        stash += input[offset...]
        connection.pauseReading()
        return
      }
      do throws(HTTPParseError) {
        offset += try parser.feed(UnsafeRawBufferPointer(rebasing: input[offset...])) { record($0) }
      } catch {
        keepAlive = false
        isResponding = true
        send(.text("\(error.reason)\n", status: error.status), method: "GET")
        return
      }
      if isRequestComplete { startReply() }
    }
  }

  /// Notes one parser event; replies start only after `feed` returns.
  private func record(_ event: HTTPRequestParser.Event) {
    switch event {
    case .head(let head):
      self.head = head
      hasher = SHA256Hasher()
      bodyLength = 0
      // Reading stops for good: the client's upload backs up until it gives up.
      if FixtureRoutes.stallsUpload(head) { connection.pauseReading() }
      if head.header("expect")?.lowercased() == "100-continue" {
        connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      }
    case .body(let bytes):
      hasher.update(bytes)
      bodyLength += UInt64(bytes.count)
    case .end:
      isRequestComplete = true
    }
  }

  /// Routes the finished request and starts sending its reply.
  private func startReply() {
    isRequestComplete = false
    guard let head else { return }
    isResponding = true
    keepAlive = keepAlive && head.isKeepAlive
    let request = FixtureRequest(
      head: head, bodyLength: bodyLength, bodySHA256: SHA256.hexString(hasher.finalize()),
      connection: serial)
    server?.requestStarted(head)
    send(server?.reply(for: request) ?? FixtureRoutes.reply(for: request), method: head.method)
  }

  /// Plays `reply`; bodies are omitted for HEAD.
  private func send(_ reply: FixtureReply, method: String) {
    let withBody = method != "HEAD"
    switch reply {
    case .full(let status, let headers, let body):
      let bodiless = FixtureResponseHead.isBodiless(status)
      var bytes = FixtureResponseHead.bytes(
        status: status, headers: headers,
        framing: bodiless ? .bodiless : .length(UInt64(body.count)), keepAlive: keepAlive)
      if withBody && !bodiless { bytes += body }
      connection.write(bytes)
      replyFinished()
    case .stream(let headers, let length, let chunked):
      connection.write(
        FixtureResponseHead.bytes(
          status: 200, headers: headers, framing: chunked ? .chunked : .length(length),
          keepAlive: keepAlive))
      startPump(FixtureBodyPump(remaining: withBody ? length : 0, chunked: chunked && withBody))
    case .delayed(let ms, let later):
      let timer = delay ?? Timer(loop: connection.loop) { [weak self] in self?.delayElapsed() }
      delay = timer
      pendingDelayed = (later, method)
      timer.schedule(afterMs: ms)
    case .drop(let count):
      keepAlive = false
      connection.write(
        FixtureResponseHead.bytes(status: 200, headers: [], framing: .length(count * 2), keepAlive: true))
      startPump(FixtureBodyPump(remaining: count, chunked: false, closesAfter: true))
    case .reset(let count):
      keepAlive = false
      connection.write(
        FixtureResponseHead.bytes(status: 200, headers: [], framing: .length(count * 2), keepAlive: true))
      startPump(FixtureBodyPump(remaining: count, chunked: false, closesAfter: true, resetsAfter: true))
    case .halt(let count):
      connection.write(
        FixtureResponseHead.bytes(status: 200, headers: [], framing: .length(count * 2), keepAlive: true))
      var pump = FixtureBodyPump(remaining: count, chunked: false)
      pump.stallsAfter = true
      startPump(pump)
    case .raw(let bytes):
      keepAlive = false
      connection.write(bytes)
      replyFinished()
    case .held(let bytes):
      isStalled = true
      connection.write(bytes)
    case .stall:
      isStalled = true
      connection.write(
        FixtureResponseHead.bytes(status: 200, headers: [], framing: .length(1000), keepAlive: true))
    }
  }

  private func delayElapsed() {
    guard let (reply, method) = pendingDelayed else { return }
    pendingDelayed = nil
    send(reply, method: method)
  }

  private func startPump(_ newPump: FixtureBodyPump) {
    pump = newPump
    pumpBody()
  }

  /// Writes body bytes until the connection's output fills or the body is done.
  private func pumpBody() {
    guard var current = pump else { return }
    while !connection.isOutputFull && !connection.isClosed && !current.isFinished {
      current.writeNext(to: connection)
    }
    pump = current
    guard current.isFinished else { return }
    pump = nil
    if current.stallsAfter {
      isStalled = true
    } else if current.closesAfter {
      if current.resetsAfter { setLingerZero() }
      connection.closeWhenFlushed()
    } else {
      replyFinished()
    }
  }

  /// SO_LINGER with a zero timeout: the coming close(2) sends RST instead of FIN.
  private func setLingerZero() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
  }

  /// The reply is fully handed over: close, or go on with the next request.
  private func replyFinished() {
    isResponding = false
    guard keepAlive else {
      connection.closeWhenFlushed()
      return
    }
    guard !isProcessing else { return }  // the loop in `process` carries on by itself
    let pending = stash
    stash = []
    pending.withUnsafeBytes { process($0) }
    if !isResponding && !connection.isClosed {
      if connection.didReadEOF {
        connection.closeWhenFlushed()
      } else {
        connection.resumeReading()
      }
    }
  }
}
