import FerryKit
import Glibc
import Testing

/// Jobs across cancellation, a closed client, a killed daemon, and big descriptors.
@Suite(.serialized) struct LifecycleTests {
  @Test func cancellingTheTaskMidTransferCancelsTheJob() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let path = daemon.dir + "/huge.bin"
    let task = Task {
      try await client.download(for: FerryRequest("GET", fixture.url("/bytes/17179869184")), to: path)
    }
    // Mid-transfer: bytes have reached the file.
    while (KitPaths.size(path) ?? 0) < 1_000_000 { try await Task.sleep(for: .milliseconds(10)) }
    task.cancel()
    do {
      _ = try await task.value
      Issue.record("a 16 GiB download finished")
    } catch let error as FerryError {
      #expect(error.code == "cancelled" && error.field == "client", "\(error)")
    }
    let size = KitPaths.size(path) ?? 0
    try await client.ping()
    #expect(KitPaths.size(path) == size)  // nothing more is written
    #expect(size < 17_179_869_184)
  }

  /// A job that holds lane `kit` (a server that never answers) until it is cancelled, so a
  /// job queued behind it waits for the test, not for a time. Its idle timeout is a year: the
  /// default 60 s once ran out on a busy machine (sanitizers, the other core loaded), the
  /// durable job then ran at once, its first client collected it, and nothing was left to attach.
  static func laneBlocker(_ client: FerryClient, _ fixture: KitFixture) async throws -> FerryJob {
    var blocker = FerryRequest("GET", fixture.url("/stall"))
    blocker.lane = "kit"
    blocker.idleTimeout = 31_536_000
    let job = try await client.submit(blocker)
    for try await event in job.events {
      if case .started = event { break }
    }
    return job
  }

  @Test func aDurableJobOutlivesItsClientAndANewClientAttaches() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let holder = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let blocker = try await Self.laneBlocker(holder, fixture)
    var request = FerryRequest("GET", fixture.url("/delay/100"))
    request.id = "kit-durable-1"
    request.durable = true
    request.lane = "kit"
    do {
      let first = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
      let job = try await first.submit(request)
      for try await event in job.events {
        if case .queued = event { break }
      }
      first.close()
    }
    let second = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let listed = try await second.jobs()
    #expect(listed.map(\.id) == ["kit-durable-1"])
    #expect(listed.first?.durable == true && listed.first?.phase == "queued")
    blocker.cancel()
    let attached = try await second.attach(id: "kit-durable-1")
    let response = try await attached.result()
    #expect(response.status == 200)
    #expect(response.json?["delayed_ms"] == .number("100"))
    #expect(try await second.jobs().isEmpty)
    // An id nobody has: unknown_id.
    let unknown = try await second.attach(id: "kit-nothing")
    await #expect(throws: FerryError.self) { try await unknown.result() }
  }

  /// The daemon is SIGKILLed mid-download (40 of 100 bytes in, the server holding the rest):
  /// the caller gets `connection_closed`, the part and its validator stay in the caller's files,
  /// and after a restart `resume` asks for the rest (206) and completes the file.
  @Test func aDownloadResumesAfterTheDaemonWasKilledMidTransfer() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let path = daemon.dir + "/v.bin"
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    var halted = FerryRequest("GET", fixture.url("/versioned/100?halt=40"))
    // Only the kill may end it: under ASan with the other core busy, the default 60 s idle
    // timeout once came first (the job failed `timeout`, not `connection_closed`).
    halted.idleTimeout = 31_536_000
    let cut = Task { try await client.download(for: halted, to: path, resume: true) }
    while KitPaths.size(path + ".part") != 40 { try await Task.sleep(for: .milliseconds(10)) }
    daemon.kill()
    do {
      _ = try await cut.value
      Issue.record("a halted download finished")
    } catch let error as FerryError {
      #expect(error.code == "connection_closed", "\(error)")
    }
    #expect(KitPaths.size(path + ".part") == 40)
    #expect(KitPaths.size(path + ".part.validator") == 4)  // "v1", quoted
    try daemon.start()
    let again = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let response = try await again.download(
      for: FerryRequest("GET", fixture.url("/versioned/100")), to: path, resume: true)
    #expect(response.status == 206)
    #expect(response.bytes == 100)
    #expect(KitPaths.size(path) == 100)
    #expect(KitPaths.size(path + ".part") == nil && KitPaths.size(path + ".part.validator") == nil)
  }

  @Test func aBigFileGoesUpAsAMultipartPartThroughADescriptor() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let path = daemon.dir + "/big.bin"
    let size = 200 << 20
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    #expect(ftruncate(fd, off_t(size)) == 0)
    close(fd)
    var request = FerryRequest("POST", fixture.url("/echo"))
    request.parts = [
      FerryRequest.Part(name: "file", content: .file(path: path), type: "application/octet-stream"),
      FerryRequest.Part(name: "note", content: .text("big")),
    ]
    let job = try await client.submit(request)
    var uploaded: Int64 = 0
    for try await event in job.events {
      if case .progress(.upload, let done, _) = event { uploaded = done }
    }
    let echo = try #require(try await job.result().json)
    guard case .number(let text)? = echo["body_length"], let length = Int(text) else {
      Issue.record("\(echo)")
      return
    }
    #expect(length > size && length < size + 1_000)
    #expect(uploaded == Int64(length))
  }

  /// A durable job's caller is cancelled: the job is left running (and its result still comes
  /// to that caller), where a plain job's would end `cancelled`.
  @Test func cancellingTheTaskOfADurableJobLeavesItRunning() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let blocker = try await Self.laneBlocker(client, fixture)
    var request = FerryRequest("GET", fixture.url("/delay/100"))
    request.id = "kit-durable-2"
    request.durable = true
    request.lane = "kit"
    let task = Task { [request] in try await client.data(for: request) }
    // Queued behind the blocker: listed until it ends, so this wait cannot miss it.
    while try await client.jobs().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    task.cancel()
    blocker.cancel()
    let response = try await task.value
    #expect(response.status == 200)
    #expect(response.json?["delayed_ms"] == .number("100"))
  }

  /// A job line past the daemon's `max_line_bytes` is refused by the library, with a code,
  /// instead of waiting forever for an answer the daemon cannot address to it.
  @Test func aJobLineTooLongForTheDaemonFailsAtOnce() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon(limits: #""max_line_bytes": 65536"#)
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    #expect(client.maxLineBytes == 65_536)
    var request = FerryRequest("POST", fixture.url("/echo"))
    request.body = .bytes([UInt8](repeating: 1, count: 100_000))
    do {
      _ = try await client.data(for: request)
      Issue.record("a 133 kB line was sent")
    } catch let error as FerryError {
      #expect(error.code == "line_too_long")
    }
    // The connection is still good.
    request.body = .bytes([UInt8](repeating: 1, count: 10_000))
    #expect(try await client.data(for: request).json?["body_length"] == .number("10000"))
  }
}
