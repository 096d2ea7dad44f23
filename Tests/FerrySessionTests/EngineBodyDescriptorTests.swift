import FerryLoop
import FerrySerializer
import FerrySession
import FerryTestSupport
import FerryWire
import Glibc
import Testing

/// Request bodies read from descriptors (issue 15): a regular file by `pread` from its
/// offset, rewinding for redirects; a pipe streamed chunked, paused while it is empty.
@MainActor struct EngineBodyDescriptorTests {
  /// Writes `bytes` into a pipe from the loop, a slice per writable event, then closes it;
  /// nothing until `start()`.
  @MainActor final class PipeFeeder {
    let readEnd: Int32
    private let writeEnd: Int32
    private let bytes: [UInt8]
    private var written = 0
    private var watch: IOWatch?

    init(loop: EventLoop, _ bytes: [UInt8]) {
      var ends: [Int32] = [0, 0]
      precondition(pipe(&ends) == 0)
      for fd in ends { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
      readEnd = ends[0]
      writeEnd = ends[1]
      self.bytes = bytes
      watch = IOWatch(loop: loop, fd: writeEnd) { [unowned self] _ in self.writable() }
    }

    var isDone: Bool { watch == nil }

    func start() { watch?.setInterest(.write) }

    private func writable() {
      let count = min(bytes.count - written, 16_384)
      let n = bytes[written..<(written + count)].withUnsafeBytes { write(writeEnd, $0.baseAddress, count) }
      if n > 0 { written += n }
      if written == bytes.count {
        watch?.cancel()
        watch = nil
        close(writeEnd)
      }
    }

    /// The body's stream: the read end, owned (closed) by the plan.
    var descriptor: BodyDescriptor {
      BodyDescriptor(fd: readEnd, kind: .stream, release: { _ = close($0) })
    }
  }

  func redirect(_ status: Int, to target: String = "/echo") -> String {
    "/redirect-to?url=\(target)&status=\(status)"
  }

  @Test func pipeBodyGoesChunkedAndWaitsForTheWriter() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    // Sixteen times a pipe's buffer, and nothing in the pipe when curl first reads.
    let bytes = patternBytes(1 << 20, seed: 5)
    let feeder = PipeFeeder(loop: harness.loop, bytes)
    let delegate = RecordingDelegate()
    let spec = TransferSpec(
      request: harness.request("POST", "/echo", body: BodyPlan(segments: [.descriptor(feeder.descriptor)])))
    _ = harness.engine.start(spec, delegate: delegate)
    harness.idle(ms: 50)
    #expect(!delegate.isFinished)
    feeder.start()
    #expect(harness.loop.run(until: { delegate.isFinished }, timeoutMs: TestTime.ms(10_000)))
    #expect(delegate.error == nil)
    #expect(delegate.echoedHeader("transfer-encoding") == "chunked")
    #expect(delegate.echoedHeader("content-length") == nil)
    #expect(delegate.echoedNumber("body_length") == String(bytes.count))
    #expect(delegate.echoed("body_sha256") == SHA256.hex(bytes))
    #expect(feeder.isDone)
  }

  @Test func pipePartBetweenByteSegments() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(200_000, seed: 9)
    let feeder = PipeFeeder(loop: harness.loop, bytes)
    feeder.start()
    let plan = BodyPlan(segments: [
      .bytes(Array("--b\r\n\r\n".utf8)), .descriptor(feeder.descriptor), .bytes(Array("\r\n--b--\r\n".utf8)),
    ])
    let result = harness.run(harness.request("PUT", "/echo", body: plan))
    let expected = Array("--b\r\n\r\n".utf8) + bytes + Array("\r\n--b--\r\n".utf8)
    #expect(result.echoed("body_sha256") == SHA256.hex(expected))
    #expect(result.echoedHeader("transfer-encoding") == "chunked")
  }

  @Test func fileDescriptorBodyHasItsLengthAndRewindsForA307() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(300_000, seed: 2)
    let file = TempFile(bytes)
    defer { file.remove() }
    let headers = [(name: "Content-Type", value: "application/octet-stream")]
    // Through curl (no body headers) and hop by hop (a Content-Type makes the transfer follow).
    for (method, extra) in [
      ("POST", [(name: String, value: String)]()), ("POST", headers), ("PATCH", headers),
    ] {
      let fd = open(file.path, O_RDONLY | O_CLOEXEC)
      #expect(fd >= 0)
      let descriptor = BodyDescriptor(
        fd: fd, kind: .file(offset: 1_000, length: Int64(bytes.count - 1_000)), release: { _ = close($0) })
      let plan = BodyPlan(segments: [.descriptor(descriptor)])
      let result = harness.run(harness.request(method, redirect(307), headers: extra, body: plan))
      #expect(result.error == nil, "\(method) \(extra)")
      #expect(result.metrics?.redirectCount == 1)
      #expect(result.echoedHeader("content-length") == String(bytes.count - 1_000))
      #expect(result.echoed("body_sha256") == SHA256.hex(Array(bytes[1_000...])), "\(method) \(extra)")
    }
  }

  @Test func pipeBodyThatA307NeedsAgainFailsClearly() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "Content-Type", value: "application/octet-stream")]
    for (method, extra) in [
      ("POST", [(name: String, value: String)]()), ("POST", headers), ("PATCH", headers),
    ] {
      let feeder = PipeFeeder(loop: harness.loop, patternBytes(10_000))
      feeder.start()
      let plan = BodyPlan(segments: [.descriptor(feeder.descriptor)])
      let result = harness.run(harness.request(method, redirect(307), headers: extra, body: plan))
      #expect(
        result.error?.code == .bodyNotRewindable, "\(method) \(extra): \(String(describing: result.error))")
    }
  }

  @Test func pipeBodyFollowsA303AsAGet() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let feeder = PipeFeeder(loop: harness.loop, patternBytes(10_000))
    feeder.start()
    let plan = BodyPlan(segments: [.descriptor(feeder.descriptor)])
    let result = harness.run(harness.request("POST", redirect(303), body: plan))
    #expect(result.error == nil)
    #expect(result.echoed("method") == "GET")
  }
}
