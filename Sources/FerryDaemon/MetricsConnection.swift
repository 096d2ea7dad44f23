import FerryLoop

/// One scraper's connection: reads one request head, writes one answer, closes.
@MainActor final class MetricsConnection: BufferedConnectionDelegate {
  private var connection: BufferedConnection?
  private unowned let server: MetricsServer
  private var request: [UInt8] = []
  private var timer: Timer?
  private var isAnswered = false

  init(fd: Int32, server: MetricsServer) {
    self.server = server
    let connection = BufferedConnection(loop: server.loop, fd: fd, readBufferSize: 4096)
    self.connection = connection
    connection.delegate = self
    let timer = Timer(loop: server.loop) { [unowned self] in self.close() }
    timer.schedule(afterMs: MetricsServer.timeoutMs)
    self.timer = timer
  }

  func connection(_ connection: BufferedConnection, didRead chunk: UnsafeRawBufferPointer) {
    guard !isAnswered else { return }
    request.append(contentsOf: chunk.prefix(MetricsHTTP.maxRequestBytes + 1 - request.count))
    if let length = MetricsHTTP.headLength(request) {
      respond(server.answer(MetricsHTTP.route(request[..<length])))
    } else if request.count > MetricsHTTP.maxRequestBytes {
      respond(MetricsHTTP.errorResponse("431 Request Header Fields Too Large"))
    }
  }

  func connectionDidReadEOF(_ connection: BufferedConnection) {
    if !isAnswered { close() }
  }

  func connectionDidClose(_ connection: BufferedConnection, error: LoopError?) { close() }

  /// Writes the answer and closes once it is out (the timer still bounds a reader that never
  /// takes it).
  private func respond(_ bytes: [UInt8]) {
    isAnswered = true
    request = []
    connection?.pauseReading()
    connection?.write(bytes)
    connection?.closeWhenFlushed()
  }

  /// Closes at once and leaves the server.
  func close() {
    timer?.cancel()
    timer = nil
    connection?.delegate = nil
    connection?.close()
    connection = nil
    server.ended(self)
  }
}
