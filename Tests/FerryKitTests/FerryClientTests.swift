import FerryKit
import Glibc
import Testing

/// FerryClient's calls against a real ferryd and the fixture server.
@Suite(.serialized) struct FerryClientTests {
  @Test func dataReturnsTheExactBodyAndKeepsParametersText() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let parameters: FerryValue = [
      "page": 2, "tags": ["a", "b"], "n": .number("1.50"), "big": .number("12345678901234567890"), "ok": true,
    ]
    let response = try await client.data(
      for: FerryRequest("GET", fixture.url("/echo"), parameters: parameters))
    #expect(response.status == 200)
    #expect(response.headers["content-type"] == "application/json")
    // Keys sorted, as AFNetworking writes them; numbers as written.
    #expect(
      response.json?["query"] == "big=12345678901234567890&n=1.50&ok=1&page=2&tags%5B%5D=a&tags%5B%5D=b")
    // A JSON body comes back byte for byte, and text by its charset.
    let latin1 = try await client.data(for: FerryRequest("GET", fixture.url("/latin1")))
    #expect(latin1.body.count == 13)
    #expect(latin1.text == "héllo, wörld\n")
  }

  @Test func anUnacceptedStatusThrowsWithTheResponse() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    do {
      _ = try await client.data(for: FerryRequest("GET", fixture.url("/status/404")))
      Issue.record("a 404 was accepted")
    } catch let error as FerryError {
      #expect(error.code == "unacceptable_status")
      #expect(error.response?.status == 404)
      #expect(error.response?.json?["status"] == .number("404"))
    }
    var lenient = FerryRequest("GET", fixture.url("/status/404"))
    lenient.acceptedStatus = [200...299, 404...404]
    #expect(try await client.data(for: lenient).status == 404)
  }

  @Test func bytesStreamsTheBodyInPiecesAfterTheHead() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let (head, chunks) = try await client.bytes(for: FerryRequest("GET", fixture.url("/bytes/300000")))
    #expect(head.status == 200)
    #expect(head.headers["content-type"] == "application/octet-stream")
    var total = 0
    var pieces = 0
    for try await chunk in chunks {
      total += chunk.count
      pieces += 1
    }
    #expect(total == 300_000)
    #expect(pieces >= 5)  // at most 64 KiB each
  }

  @Test func submitReportsEveryEventInOrder() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    let job = try await client.submit(FerryRequest("GET", fixture.url("/json")))
    var names: [String] = []
    for try await event in job.events {
      switch event {
      case .queued: names.append("queued")
      case .waiting(let reason, _): names.append("waiting \(reason)")
      case .started(let attempt): names.append("started \(attempt)")
      case .response(let head): names.append("response \(head.status)")
      case .done(let response): names.append("done \(response.status)")
      case .progress, .data: continue
      case .failed(let error): names.append("failed \(error.code)")
      case .cancelled: names.append("cancelled")
      }
    }
    #expect(names == ["queued", "started 1", "response 200", "done 200"])
    #expect(try await job.result().json != nil)
  }

  @Test func statsCountsJobsAndListsTheSlowestRunningOnes() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let client = try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer)
    _ = try await client.data(for: FerryRequest("GET", fixture.url("/json")))
    var stall = FerryRequest("GET", fixture.url("/stall?secret=1"))
    stall.id = "kit-stats-stall"
    stall.idleTimeout = 31_536_000
    let job = try await client.submit(stall)
    for try await event in job.events {
      if case .started = event { break }
    }
    let stats = try await client.stats(slowest: 5)
    #expect(stats.total.done == 1)
    #expect(stats.total.running == 1)
    #expect(stats.total.connectionsOpened >= 1)
    #expect(stats.total.bytesDown > 0)
    #expect(stats.sessions.map(\.name).contains("default"))
    #expect(stats.sessions.first { $0.name == "default" }?.counts.done == 1)
    #expect(stats.clients >= 1)
    // The running job, by its origin only (never the path or query).
    #expect(stats.slowest.map(\.id) == ["kit-stats-stall"])
    #expect(stats.slowest.first?.origin == fixture.url(""))
    #expect(stats.slowest.first?.session == "default")
    #expect(stats.slowest.first?.uid == (getuid() == 0 ? 0 : nil))
    #expect(try await client.stats().slowest.isEmpty)
    // `slowest` past 50 is refused by the daemon (`StatsSlowestTests`, and the Python client's
    // tests); not sent from here, where every line the tests exchange must match the schema.
    job.cancel()
    await #expect(throws: FerryError.self) { try await job.result() }
  }

  @Test func aSocketNobodyAnswersIsDaemonUnavailable() throws {
    let dir = KitPaths.tempDirectory("none")
    defer { rmdir(dir) }
    #expect(throws: FerryError.self) { try FerryClient(socketPath: dir + "/nothing.sock") }
    do {
      _ = try FerryClient(socketPath: dir + "/nothing.sock")
    } catch let error as FerryError {
      #expect(error.code == "daemon_unavailable")
    } catch {
      Issue.record("\(error)")
    }
  }
}
