import FerrySerializer
import FerrySession
import FerryWire
import Testing

/// Redirects by browser rules, through curl (GET/HEAD/POST/PUT) and hop by hop (other methods).
@MainActor struct EngineRedirectTests {
  /// `/redirect-to` pointing at `target` with `status`.
  func redirect(_ status: Int, to target: String = "/echo") -> String {
    "/redirect-to?url=\(target)&status=\(status)"
  }

  @Test func temporaryRedirectResendsTheBody() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(50_000)
    for status in [307, 308] {
      let result = harness.run(harness.request("POST", redirect(status), body: BodyPlan(bytes: bytes)))
      #expect(result.echoed("method") == "POST")
      #expect(result.echoed("body_sha256") == SHA256.hex(bytes))
      #expect(result.heads.map(\.status) == [200])
      #expect(result.metrics?.redirectCount == 1)
      #expect(result.metrics?.effectiveURL == harness.server.baseURL + "/echo")
    }
  }

  @Test func temporaryRedirectResendsAFileBody() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = patternBytes(120_000, seed: 3)
    let file = TempFile(bytes)
    defer { file.remove() }
    let plan = BodyPlan(segments: [.file(path: file.path, offset: 0, length: Int64(bytes.count))])
    let result = harness.run(harness.request("PUT", redirect(307), body: plan))
    #expect(result.echoed("method") == "PUT")
    #expect(result.echoed("body_sha256") == SHA256.hex(bytes))
  }

  @Test func foundAndSeeOtherTurnPostIntoGet() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    for status in [301, 302, 303] {
      let body = BodyPlan(bytes: Array("a=1".utf8))
      let result = harness.run(harness.request("POST", redirect(status), body: body))
      #expect(result.echoed("method") == "GET", "status \(status)")
      #expect(result.echoedNumber("body_length") == "0")
      #expect(result.metrics?.redirectCount == 1)
    }
  }

  @Test func postTurnedIntoGetLosesItsContentType() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let headers = [(name: "Content-Type", value: "application/x-www-form-urlencoded")]
    for status in [301, 302, 303] {
      let body = BodyPlan(bytes: Array("a=1".utf8))
      let result = harness.run(harness.request("POST", redirect(status), headers: headers, body: body))
      #expect(result.echoed("method") == "GET", "status \(status)")
      #expect(result.echoedHeader("content-type") == nil, "status \(status)")
      #expect(result.echoedNumber("body_length") == "0")
      #expect(result.metrics?.redirectCount == 1)
    }
    let kept = harness.run(
      harness.request("POST", redirect(307), headers: headers, body: BodyPlan(bytes: Array("a=1".utf8))))
    #expect(kept.echoed("method") == "POST")
    #expect(kept.echoedHeader("content-type") == "application/x-www-form-urlencoded")
    #expect(kept.echoedNumber("body_length") == "3")
  }

  @Test func customMethodFollowsBrowserRulesHopByHop() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let bytes = Array("{\"x\":1}".utf8)
    let headers = [(name: "Content-Type", value: "application/json")]
    let seeOther = harness.run(
      harness.request("PATCH", redirect(303), headers: headers, body: BodyPlan(bytes: bytes)))
    #expect(seeOther.echoed("method") == "GET")
    #expect(seeOther.echoedNumber("body_length") == "0")
    #expect(seeOther.echoedHeader("content-type") == nil)
    #expect(seeOther.heads.map(\.status) == [200])
    #expect(seeOther.metrics?.redirectCount == 1)
    let temporary = harness.run(
      harness.request("PATCH", redirect(307), headers: headers, body: BodyPlan(bytes: bytes)))
    #expect(temporary.echoed("method") == "PATCH")
    #expect(temporary.echoed("body_sha256") == SHA256.hex(bytes))
    #expect(temporary.metrics?.effectiveURL == harness.server.baseURL + "/echo")
    let moved = harness.run(harness.request("DELETE", redirect(301)))
    #expect(moved.echoed("method") == "DELETE")
  }

  @Test func chainWithinTheLimitIsFollowed() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(TransferSpec(request: harness.request("/redirect/4"), maxRedirects: 5))
    #expect(result.heads.map(\.status) == [200])
    #expect(result.echoed("path") == "/echo")
    #expect(result.metrics?.redirectCount == 5)
  }

  @Test func chainBeyondTheLimitFails() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(TransferSpec(request: harness.request("/redirect/6"), maxRedirects: 3))
    #expect(result.error?.code == .tooManyRedirects)
    #expect(result.heads.isEmpty)
    let custom = harness.run(
      TransferSpec(request: harness.request("OPTIONS", "/redirect/6"), maxRedirects: 3))
    #expect(custom.error?.code == .tooManyRedirects)
  }

  @Test func redirectNotFollowedWhenDisabled() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(TransferSpec(request: harness.request(redirect(302)), followRedirects: false))
    #expect(result.heads.map(\.status) == [302])
    #expect(result.heads.first?.header("location") == "/echo")
    #expect(result.metrics?.status == 302)
  }

  @Test func redirectToAnotherSchemeIsUnsupported() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let result = harness.run(harness.request(redirect(302, to: "ftp://127.0.0.1/file")))
    #expect(result.error?.code == .unsupportedScheme)
    // Said from ferry's side, not as libcurl's "Protocol "ftp" not supported or disabled".
    let message = "a redirect to ftp: refused; ferry follows redirects to http and https only"
    #expect(result.error?.message == message)
    let custom = harness.run(harness.request("DELETE", redirect(307, to: "ftp://127.0.0.1/file")))
    #expect(custom.error?.code == .unsupportedScheme)
    #expect(custom.error?.message == message)
  }

  @Test func credentialsDoNotFollowToAnotherHost() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    // localhost and 127.0.0.1 are the same server but different hosts to curl.
    let other = "http://localhost:\(harness.server.port)/echo"
    let headers = [(name: "Authorization", value: "Bearer secret"), (name: "X-Keep", value: "1")]
    for method in ["GET", "DELETE"] {
      let result = harness.run(harness.request(method, redirect(307, to: other), headers: headers))
      #expect(result.echoedHeader("authorization") == nil, "\(method)")
      #expect(result.echoedHeader("x-keep") == "1")
    }
    let same = harness.run(harness.request(redirect(307), headers: headers))
    #expect(same.echoedHeader("authorization") == "Bearer secret")
  }
}
