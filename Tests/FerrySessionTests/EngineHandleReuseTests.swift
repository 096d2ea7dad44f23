import FerryLoop
import FerrySerializer
import FerrySession
import FerryTestSupport
import FerryWire
import Testing

/// An easy handle serves job after job; after an ordinary job it keeps its options instead of
/// `curl_easy_reset` (issue 29). Nothing of one job may reach the next on the same handle:
/// jobs of different users share a session's handles. Each test runs job A, then job B on the
/// handle A left (one transfer at a time: the engine hands out the handle freed last), and
/// checks what B sent.
@MainActor struct EngineHandleReuseTests {
  /// A GET of `path` with nothing unusual: what most jobs are.
  private func plain(
    _ harness: EngineHarness, _ path: String = "/echo", headers: [(name: String, value: String)] = []
  ) -> TransferSpec {
    TransferSpec(request: harness.request(path, headers: headers), wantsProgress: false)
  }

  @Test func ordinaryJobsKeepTheHandleAndEachSendsItsOwnRequest() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let first = harness.run(plain(harness, "/echo?n=1", headers: [(name: "X-One", value: "1")]))
    let second = harness.run(plain(harness, "/echo?n=2", headers: [(name: "X-Two", value: "2")]))
    #expect(first.echoed("query") == "n=1" && first.echoedHeader("x-one") == "1")
    #expect(second.echoed("query") == "n=2" && second.echoedHeader("x-two") == "2")
    #expect(second.echoedHeader("x-one") == nil)
    #expect(harness.engine.stats.handlesMade == 1)
    #expect(harness.engine.stats.handlesKeptSet == 2)
    // A job with a body is not ordinary: its handle gets curl's full reset.
    let post = harness.run(
      TransferSpec(
        request: harness.request("POST", "/echo", body: BodyPlan(bytes: Array("secret".utf8))),
        wantsProgress: false))
    #expect(post.echoed("method") == "POST")
    #expect(harness.engine.stats.handlesKeptSet == 2)
    let third = harness.run(plain(harness))
    #expect(third.echoed("method") == "GET" && third.echoedNumber("body_length") == "0")
    #expect(harness.engine.stats.handlesKeptSet == 3)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// What job A may set that job B must not inherit, each checked at the fixture's `/echo`.
  enum Feature: String, CaseIterable {
    case authorizationHeader, cookieHeader, urlCredentials, postBody, customMethod, head, range
  }

  @Test(arguments: Feature.allCases)
  func nothingOfAnUnusualJobReachesTheNext(feature: Feature) throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    // The handle starts out kept by an ordinary job, as most handles are.
    harness.run(plain(harness))
    var request = harness.request("/echo")
    var resume: Int64?
    switch feature {
    case .authorizationHeader: request.headers = [(name: "Authorization", value: "Bearer a-secret")]
    case .cookieHeader: request.headers = [(name: "Cookie", value: "sid=a-secret")]
    case .urlCredentials:
      request.url = "http://alice:a-secret@127.0.0.1:\(harness.server.port)/echo"
    case .postBody: request = harness.request("POST", "/echo", body: BodyPlan(bytes: Array("a-secret".utf8)))
    case .customMethod: request = harness.request("DELETE", "/echo")
    case .head: request = harness.request("HEAD", "/echo")
    case .range: resume = 5
    }
    let a = harness.run(TransferSpec(request: request, wantsProgress: false, resumeFromByte: resume))
    #expect(a.error == nil)
    let b = harness.run(plain(harness))
    #expect(b.echoed("method") == "GET")
    #expect(b.echoedNumber("body_length") == "0")
    for name in ["authorization", "cookie", "range", "content-type", "content-length"] {
      #expect(b.echoedHeader(name) == nil, "\(name) reached the next job")
    }
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// Digest credentials: curl keeps them, and the nonce, until a full reset; B without them
  /// gets the challenge, not the resource.
  @Test func digestCredentialsDoNotReachTheNextJob() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.run(plain(harness))
    var request = harness.request("/digest-auth/alice/a-secret")
    request.digest = DigestCredentials(username: "alice", password: "a-secret")
    let a = harness.run(TransferSpec(request: request, wantsProgress: false))
    #expect(a.heads.last?.status == 200)
    let b = harness.run(plain(harness, "/digest-auth/alice/a-secret"))
    #expect(b.heads.last?.status == 401)
    let c = harness.run(plain(harness, "/digest-auth/alice/a-secret"))
    #expect(c.heads.last?.status == 401)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// A proxy: B goes straight to the server, never through A's proxy.
  @Test func aProxyDoesNotReachTheNextJob() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let proxy = try HTTPFixtureServer(loop: harness.loop)
    defer { proxy.close() }
    harness.run(plain(harness))
    var a = plain(harness)
    a.tls.proxy = proxy.baseURL
    harness.run(a)
    #expect(proxy.requestsServed == 1)
    let served = harness.server.requestsServed
    let b = harness.run(plain(harness))
    #expect(b.echoed("method") == "GET")
    #expect(proxy.requestsServed == 1)
    #expect(harness.server.requestsServed == served + 1)
  }

  /// A's total timeout, set on the kept handle, does not cut B short.
  @Test func aTotalTimeoutDoesNotReachTheNextJob() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    var a = plain(harness)
    a.totalTimeoutMs = 500
    #expect(harness.run(a).error == nil)
    #expect(harness.engine.stats.handlesKeptSet == 1)
    let b = harness.run(plain(harness, "/delay/1500"))
    #expect(b.error == nil, "\(String(describing: b.error))")
    #expect(b.heads.last?.status == 200)
  }

  /// A hop sets the redirect options only when they differ from what the handle holds
  /// (`EasyHandle.knownOptions`): B's own settings are the ones curl uses, either way round.
  @Test func redirectSettingsOfTheLastJobDoNotReachTheNext() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    var a = plain(harness, "/redirect/1")
    a.followRedirects = false
    #expect(harness.run(a).heads.last?.status == 302)
    #expect(harness.run(plain(harness, "/redirect/2")).heads.last?.status == 200)
    var c = plain(harness, "/redirect/3")
    c.maxRedirects = 1
    #expect(harness.run(c).error != nil)
    #expect(harness.run(plain(harness, "/redirect/3")).heads.last?.status == 200)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// What the handle is known to hold is forgotten with curl's full reset (after a job with a
  /// body): B's redirects are followed although A set the same settings before the reset.
  @Test func aFullResetForgetsWhatTheHandleWasKnownToHold() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    #expect(harness.run(plain(harness, "/redirect/1")).heads.last?.status == 200)
    let post = harness.run(
      TransferSpec(
        request: harness.request("POST", "/echo", body: BodyPlan(bytes: Array("x".utf8))),
        wantsProgress: false))
    #expect(post.echoed("method") == "POST")
    #expect(harness.run(plain(harness, "/redirect/1")).heads.last?.status == 200)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// B asks for no decoding: the kept handle's `Accept-Encoding` (curl's list) is not sent.
  @Test func acceptEncodingOfTheLastJobIsNotSent() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.run(plain(harness))
    #expect(harness.engine.stats.handlesKeptSet == 1)
    var b = plain(harness)
    b.acceptEncoding = false
    #expect(harness.run(b).echoedHeader("accept-encoding") == nil)
  }

  /// The handle remembers what it was given of `CURLOPT_ACCEPT_ENCODING` (issue 29), and
  /// forgets it with curl's full reset (after a job with a body): the GET after the POST must
  /// still have curl decode. A body labelled gzip that is not shows it: decoding fails and the
  /// engine asks again without (two requests); a handle left without decoding asks once.
  @Test func decodingIsAskedForAgainAfterAFullReset() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    let gzip = "/headers?Content-Encoding=gzip"
    func requests(_ spec: TransferSpec) -> Int {
      let before = harness.server.requestsServed
      #expect(harness.run(spec).bodyText == "{}")
      return harness.server.requestsServed - before
    }
    #expect(requests(plain(harness, gzip)) == 2)
    var raw = plain(harness, gzip)
    raw.acceptEncoding = false
    #expect(requests(raw) == 1)
    harness.run(plain(harness, "/echo"))
    let post = harness.run(
      TransferSpec(
        request: harness.request("POST", "/echo", body: BodyPlan(bytes: Array("x".utf8))),
        wantsProgress: false))
    #expect(post.echoed("method") == "POST")
    #expect(requests(plain(harness, gzip)) == 2)
    #expect(harness.engine.stats.handlesMade == 1)
  }

  /// B's URL is refused by its egress policy: curl gets no URL, so it cannot fetch the one the
  /// kept handle still had from A.
  @Test func aRefusedURLDoesNotFetchTheLastJobsURL() throws {
    let harness = try EngineHarness()
    defer { harness.close() }
    harness.run(plain(harness, "/echo?from=a"))
    #expect(harness.engine.stats.handlesKeptSet == 1)
    let served = harness.server.requestsServed
    var b = plain(harness, "/echo?from=b")
    // Refused by its host name alone (an allow list without it): no address check behind it.
    b.egress = EgressPolicy(allowHosts: ["example.invalid"])
    let result = harness.run(b)
    #expect(result.error?.code == .egressDenied)
    #expect(result.body.isEmpty)
    #expect(harness.server.requestsServed == served)
  }
}
