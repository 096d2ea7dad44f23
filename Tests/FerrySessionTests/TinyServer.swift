import FerryLoop
import Glibc

/// A minimal keep-alive HTTP server answering every request with the same reply (stand-in
/// until the fixture server is available).
@MainActor final class TinyServer {
  let listener: TCPListener
  private var watches: [Int32: IOWatch] = [:]
  private var buffers: [Int32: [UInt8]] = [:]
  private(set) var accepted = 0

  init(loop: EventLoop, reply: String) throws {
    var onAccept: (@MainActor (Int32) -> Void)?
    listener = try TCPListener(loop: loop) { fd in onAccept?(fd) }
    onAccept = { [unowned self] fd in
      self.accepted += 1
      let watch = IOWatch(loop: loop, fd: fd) { [unowned self] _ in self.readable(fd, reply) }
      self.watches[fd] = watch
      watch.setInterest(.read)
    }
  }

  var port: Int { listener.port }

  func close() {
    for (fd, watch) in watches {
      watch.cancel()
      Glibc.close(fd)
    }
    watches.removeAll()
    listener.close()
  }

  private func readable(_ fd: Int32, _ reply: String) {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count <= 0 {
      watches.removeValue(forKey: fd)?.cancel()
      Glibc.close(fd)
      return
    }
    var buffer = buffers[fd, default: []] + chunk[0..<count]
    while let end = headEnd(buffer) {
      buffer.removeFirst(end)
      let bytes = Array(reply.utf8)
      _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
    buffers[fd] = buffer
  }

  private func headEnd(_ buffer: [UInt8]) -> Int? {
    guard buffer.count >= 4 else { return nil }
    for i in 0...(buffer.count - 4)
    where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
      return i + 4
    }
    return nil
  }
}
