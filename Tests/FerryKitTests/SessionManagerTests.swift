import Dispatch
import FerryKit
import Glibc
import Synchronization
import Testing

/// Every AF-shaped method of FerryHTTPSessionManager against the fixture's `/echo`.
@Suite(.serialized) struct SessionManagerTests {
  /// What a manager call handed its blocks.
  enum Outcome: Sendable {
    case success(FerryResponse)
    case failure(FerryError, hadTask: Bool)

    var response: FerryResponse? {
      if case .success(let r) = self { return r }
      return nil
    }

    var error: FerryError? {
      if case .failure(let e, _) = self { return e }
      return nil
    }
  }

  /// Runs one manager call and waits for its block.
  static func call(
    _ body:
      @escaping (@escaping FerryHTTPSessionManager.Success, @escaping FerryHTTPSessionManager.Failure) -> Void
  ) async -> Outcome {
    await withCheckedContinuation { continuation in
      body(
        { _, response in continuation.resume(returning: .success(response)) },
        { task, error in continuation.resume(returning: .failure(error, hadTask: task != nil)) })
    }
  }

  @Test func getHeadPostPutPatchDeleteReachTheServerAsAFSendsThem() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let manager = FerryHTTPSessionManager(
      client: try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer))
    manager.requestSerializer.setValue("kit", forHTTPHeaderField: "X-Client")
    let url = fixture.url("/echo")
    let get = await Self.call {
      manager.GET(url, parameters: ["q": "a b", "ids": [1, 2]], success: $0, failure: $1)
    }
    #expect(get.response?.json?["method"] == "GET")
    #expect(get.response?.json?["query"] == "ids%5B%5D=1&ids%5B%5D=2&q=a%20b")
    #expect(get.response?.json?["headers"]?["x-client"] == "kit")
    let head = await Self.call { manager.HEAD(url, success: $0, failure: $1) }
    #expect(head.response?.status == 200 && head.response?.body == [])
    let post = await Self.call {
      manager.POST(url, parameters: ["a": 1, "b": "x"], success: $0, failure: $1)
    }
    #expect(post.response?.json?["method"] == "POST")
    #expect(post.response?.json?["body_length"] == .number("7"))  // a=1&b=x
    #expect(post.response?.json?["headers"]?["content-type"] == "application/x-www-form-urlencoded")
    manager.requestSerializer.encoding = .json
    let put = await Self.call { manager.PUT(url, parameters: ["a": 1], success: $0, failure: $1) }
    #expect(put.response?.json?["method"] == "PUT")
    #expect(put.response?.json?["headers"]?["content-type"] == "application/json")
    let patch = await Self.call { manager.PATCH(url, parameters: ["a": 1], success: $0, failure: $1) }
    #expect(patch.response?.json?["method"] == "PATCH")
    let delete = await Self.call { manager.DELETE(url, parameters: ["id": 7], success: $0, failure: $1) }
    #expect(delete.response?.json?["method"] == "DELETE")
    #expect(delete.response?.json?["query"] == "id=7")
  }

  @Test func multipartPostPassesFilesAndFormFields() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let manager = FerryHTTPSessionManager(
      client: try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer))
    let path = daemon.dir + "/photo.bin"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = [UInt8](repeating: 7, count: 10_000).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    let result = await Self.call { success, failure in
      manager.POST(
        fixture.url("/echo"), parameters: ["title": "t"],
        constructingBodyWith: { form in
          form.appendPart(withFileAt: path, name: "photo", fileName: "p.bin", mimeType: "image/png")
          form.appendPart(withForm: Array("hello".utf8), name: "note")
        }, success: success, failure: failure)
    }
    let echo = try #require(result.response?.json)
    #expect(echo["method"] == "POST")
    #expect(echo["headers"]?["content-type"].map { "\($0)".contains("multipart/form-data") } == true)
    guard case .number(let length)? = echo["body_length"], let n = Int(length) else {
      Issue.record("no body_length in \(echo)")
      return
    }
    #expect(n > 10_000 && n < 11_000)
    // A file the caller cannot read fails at once, with no task.
    let missing = await Self.call { success, failure in
      manager.POST(
        fixture.url("/echo"), parameters: nil,
        constructingBodyWith: { form in
          form.appendPart(withFileAt: "/nonexistent/x", name: "f", fileName: "x", mimeType: "text/plain")
        }, success: success, failure: failure)
    }
    #expect(missing.error?.code == "file_unreadable")
    if case .failure(_, let hadTask) = missing { #expect(!hadTask) }
  }

  @Test func failuresCarryTheResponseAndSerializerSettingsReachTheJob() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let manager = FerryHTTPSessionManager(
      client: try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer))
    let notFound = await Self.call { manager.GET(fixture.url("/status/404"), success: $0, failure: $1) }
    #expect(notFound.error?.code == "unacceptable_status")
    #expect(notFound.error?.response?.status == 404)
    // returnCacheDataDontLoad on a session without a cache: nothing stored, not_cached.
    manager.requestSerializer.cachePolicy = .returnCacheDataDontLoad
    let offline = await Self.call { manager.GET(fixture.url("/json"), success: $0, failure: $1) }
    #expect(offline.error?.code == "not_cached")
    manager.requestSerializer.cachePolicy = nil
    // timeoutInterval is the idle timeout: a server that says nothing for it fails `idle`.
    manager.requestSerializer.timeoutInterval = 0.3
    let stalled = await Self.call { manager.GET(fixture.url("/stall"), success: $0, failure: $1) }
    #expect(stalled.error?.code == "timeout" && stalled.error?.timer == "idle")
  }

  @Test func HTTPShouldHandleCookiesOffKeepsTheJarOutOfTheRequest() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon(sessions: #"{"default": {"cookies": {"persist": false}}}"#)
    let manager = FerryHTTPSessionManager(
      client: try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer))
    let login = await Self.call {
      manager.GET(fixture.url("/headers?Set-Cookie=sid%3D42"), success: $0, failure: $1)
    }
    #expect(login.response?.setCookies == ["sid=42"])
    let with = await Self.call { manager.GET(fixture.url("/echo"), success: $0, failure: $1) }
    #expect(with.response?.json?["headers"]?["cookie"] == "sid=42")
    manager.requestSerializer.HTTPShouldHandleCookies = false
    let without = await Self.call { manager.GET(fixture.url("/echo"), success: $0, failure: $1) }
    #expect(without.response?.json?["headers"]?["cookie"] == nil)
  }

  @Test func progressAndCancelReachTheirBlocksOnTheCompletionQueue() async throws {
    let fixture = try KitFixture()
    let daemon = try KitDaemon()
    let manager = FerryHTTPSessionManager(
      client: try FerryClient(socketPath: daemon.socket, lineObserver: LineLog.observer))
    let queue = DispatchQueue(label: "test.completion")
    manager.completionQueue = queue
    let seen = ProgressLog()
    let done = await withCheckedContinuation { (c: CheckedContinuation<FerryResponse?, Never>) in
      manager.GET(
        fixture.url("/bytes/2000000"), progress: { seen.add($0.completedUnitCount) },
        success: { _, r in
          dispatchPrecondition(condition: .onQueue(queue))
          c.resume(returning: r)
        }, failure: { _, _ in c.resume(returning: nil) })
    }
    #expect(done?.body.count == 2_000_000)
    queue.sync {}
    #expect(seen.last == 2_000_000)
    // A cancelled task ends in the failure block with `cancelled`.
    let cancelled = await Self.call { success, failure in
      let task = manager.GET(fixture.url("/stall"), success: success, failure: failure)
      task.cancel()
    }
    #expect(cancelled.error?.code == "cancelled")
  }
}

/// Progress values a block saw, from any thread.
final class ProgressLog: Sendable {
  private let values = Mutex<[Int64]>([])

  func add(_ value: Int64) { values.withLock { $0.append(value) } }
  var last: Int64? { values.withLock { $0.last } }
}
