import FerryLoop
import FerrySerializer
import FerrySession
import FerryTestSupport
import FerryWire
import Testing

/// Requests and responses through the engine against the fixture server.
@MainActor struct EngineRequestTests {
  @Test func getDeliversHeadThenBodyThenFinish() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request("/json"))
    #expect(result.body == JSONWriter.bytes(FixtureRoutes.sampleJSON))
    #expect(result.heads.count == 1)
    #expect(result.heads.first?.status == 200)
    #expect(result.heads.first?.header("content-type") == "application/json")
    #expect(result.heads.first?.httpVersion == "1.1")
    #expect(result.calls.first == "head")
    #expect(result.calls.last == "finish")
    #expect(result.calls.filter { $0 == "head" }.count == 1)
    let metrics = try #require(result.metrics)
    #expect(metrics.status == 200)
    #expect(metrics.httpVersion == "1.1")
    #expect(metrics.effectiveURL == harness.server.baseURL + "/json")
    #expect(metrics.bytesDown == Int64(result.body.count))
    #expect(metrics.redirectCount == 0)
    #expect(metrics.connectionsOpened == 1)
    #expect(!metrics.connectionReused)
    #expect(metrics.timing.total >= metrics.timing.firstByte)
    #expect(metrics.timing.firstByte >= metrics.timing.connect)
  }

  @Test func queuedTimeIsMeasuredFromEnqueuedAt() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let enqueued = harness.engine.clockMs() - 250
    let result = harness.run(TransferSpec(request: harness.request("/echo"), enqueuedAtMs: enqueued))
    let queued = try #require(result.metrics?.timing.queued)
    #expect(queued >= 250)
    #expect(queued < Double(TestTime.ms(5_000)))
    let unqueued = harness.run(harness.request("/echo"))
    #expect(unqueued.metrics?.timing.queued == 0)
  }

  @Test func getSendsNoBodyAndTheRequestsHeaders() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "X-Custom", value: "one two"), (name: "X-Empty", value: "")]
    let result = harness.run(harness.request("/echo?a=1", headers: headers))
    #expect(result.echoed("method") == "GET")
    #expect(result.echoed("query") == "a=1")
    #expect(result.echoedNumber("body_length") == "0")
    #expect(result.echoedHeader("x-custom") == "one two")
    #expect(result.echoedHeader("x-empty") == "")
    #expect(result.echoedHeader("content-length") == nil)
    #expect(result.echoedHeader("expect") == nil)
  }

  @Test func postStreamsBodyFromBytes() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(70_000)
    let headers = [(name: "Content-Type", value: "application/octet-stream")]
    let result = harness.run(harness.request("POST", "/echo", headers: headers, body: BodyPlan(bytes: bytes)))
    #expect(result.echoed("method") == "POST")
    #expect(result.echoedNumber("body_length") == "70000")
    #expect(result.echoed("body_sha256") == SHA256.hex(bytes))
    #expect(result.echoedHeader("content-type") == "application/octet-stream")
    #expect(result.echoedHeader("content-length") == "70000")
    #expect(result.metrics?.bytesUp == 70_000)
  }

  @Test func postStreamsBodyFromFileAndBytesSegments() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let fileBytes = patternBytes(300_000, seed: 7)
    let file = TempFile(fileBytes)
    defer { file.remove() }
    let plan = BodyPlan(segments: [
      .bytes(Array("--b\r\n".utf8)), .file(path: file.path, offset: 1_000, length: 250_000),
      .bytes(Array("\r\n--b--\r\n".utf8)),
    ])
    let expected = Array("--b\r\n".utf8) + Array(fileBytes[1_000..<251_000]) + Array("\r\n--b--\r\n".utf8)
    let result = harness.run(harness.request("POST", "/echo", body: plan))
    #expect(result.echoed("body_sha256") == SHA256.hex(expected))
    #expect(result.echoedNumber("body_length") == String(expected.count))
    // No form Content-Type invented for a POST that has none.
    #expect(result.echoedHeader("content-type") == nil)
  }

  @Test func putAndPatchSendTheirBodies() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    for method in ["PUT", "PATCH", "DELETE"] {
      let bytes = Array("{\"m\":\"\(method)\"}".utf8)
      let result = harness.run(harness.request(method, "/echo", body: BodyPlan(bytes: bytes)))
      #expect(result.echoed("method") == method)
      #expect(result.echoed("body_sha256") == SHA256.hex(bytes))
      #expect(result.echoedHeader("content-length") == String(bytes.count))
    }
  }

  @Test func headGetsHeadOnly() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request("HEAD", "/bytes/5000"))
    #expect(result.heads.first?.status == 200)
    #expect(result.heads.first?.header("content-length") == "5000")
    #expect(result.body.isEmpty)
    #expect(result.metrics?.status == 200)
  }

  @Test func nonSuccessStatusesAreResponsesNotFailures() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    for status in [201, 204, 404, 500, 503] {
      let result = harness.run(harness.request("/status/\(status)"))
      #expect(result.heads.first?.status == status)
      #expect(result.metrics?.status == status)
    }
  }

  @Test func chunkedDownloadArrivesWhole() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request("/bytes/300000?chunked=1"))
    #expect(result.heads.first?.header("transfer-encoding") == "chunked")
    #expect(result.body.count == 300_000)
    #expect(result.body == fixtureBytes(300_000))
  }

  @Test func resumeAsksForTheRestWithARange() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let spec = TransferSpec(request: harness.request("/echo"), resumeFromByte: 500)
    let result = harness.run(spec)
    #expect(result.echoedHeader("range") == "bytes=500-")
  }

  @Test func acceptEncodingIsTheRequestsOwnAndSentOnce() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "Accept-Encoding", value: "gzip, deflate")]
    let result = harness.run(harness.request("/echo", headers: headers))
    #expect(result.echoedHeader("accept-encoding") == "gzip, deflate")
  }

  /// An unknown coding, or data that is not what its coding says: the body as received, with
  /// its header, as browsers and caches deliver it (asked again without decoding).
  @Test(arguments: ["x-custom", "gzip"])
  func undecodableContentEncodingIsDeliveredAsReceived(coding: String) throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request("/headers?Content-Encoding=\(coding)"))
    #expect(result.error == nil, "\(String(describing: result.error))")
    #expect(result.heads.count == 1)
    #expect(result.heads.first?.header("content-encoding") == coding)
    #expect(result.bodyText == "{}")
    // A POST is not sent twice for it: the failure stands.
    let post = harness.run(
      harness.request("POST", "/headers?Content-Encoding=\(coding)", body: BodyPlan(bytes: [])))
    #expect(post.error?.code == .transferFailed)
  }

  /// A transfer coding curl was not asked to decode (ferry sends no TE) is left as received.
  @Test(arguments: ["te-gzip", "te-unknown"])
  func unrequestedTransferCodingIsDeliveredAsReceived(reply: String) throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request("/raw/\(reply)"))
    #expect(result.error == nil, "\(String(describing: result.error))")
    #expect(result.bodyText == "ok")
  }

  @Test func reportsProgressBothWaysWithTheLastCountLast() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(2_000_000)
    let spec = TransferSpec(
      request: harness.request("POST", "/echo", body: BodyPlan(bytes: bytes)), progressIntervalMs: 0)
    let result = harness.run(spec)
    let uploads = result.progress.filter { $0.direction == .upload }
    #expect(uploads.last?.done == 2_000_000)
    #expect(uploads.last?.total == 2_000_000)
    #expect(uploads.map(\.done) == uploads.map(\.done).sorted())
    let downloads = result.progress.filter { $0.direction == .download }
    #expect(downloads.last?.done == Int64(result.body.count))
    #expect(result.calls.suffix(2) == ["progress", "finish"])
  }

  @Test func noProgressWhenNotWanted() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(TransferSpec(request: harness.request("/bytes/100000"), wantsProgress: false))
    #expect(result.progress.isEmpty)
    #expect(result.body.count == 100_000)
  }
}
